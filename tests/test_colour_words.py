"""A text that names a colour names the colour drawn. A page's caption (shown outside
presentation mode, with the figures' own colours) names each colour its traces have; a chart's
own text (titles, legends, notes: shown on slides too, where the colour-blind-safe palette
redraws every colour but grey) names no colour but grey."""

from __future__ import annotations

import re

import pytest

from figures.common import PRESENTATION_COLOURS, colour_name
from locales import LANGUAGES, catalogue, message
from tests.apptest import open_page, plotly_figures

COLOUR_WORDS = r"\b(red|blue|green|orange|purple|vermillion|yellow|grey)\b"


def rgb_name(colour: str) -> str | None:
    """colour_name, for "#rrggbb" and for the rgba() fills of bands."""
    found = re.fullmatch(r"rgba?\((\d+),\s*(\d+),\s*(\d+)(?:,\s*[\d.]+)?\)", colour.strip())
    if found:
        colour = "#" + "".join(f"{int(v):02x}" for v in found.groups())
    return colour_name(colour)


def trace(figure: dict, name: str) -> dict:
    return next(t for t in figure["data"] if (t.get("name") or "").startswith(name))


def drawn(trace_: dict, attribute: str) -> str:
    if attribute == "fill":
        return trace_["fillcolor"]
    return (trace_.get(attribute) or {})["color"]


# (page, query, caption's catalogue key and values, figure index, [(colour word, trace whose
# name starts so or its index, "line" | "marker" | "fill")])
CAPTIONS = [
    ("app_pages/rope.py", {"view": "rotation"}, ("rope.rotation_caption", {"drawn": ""}), 0,
     [("grey", 2, "line"), ("red", 3, "line")]),
    ("app_pages/similarity.py", {"view": "rotation"},
     ("similarity.rotation_pair_text", {"pair": 0, "omega": 1, "offset": 3, "rotation": 3}), 1,
     [("blue", "pair 0 of PE[64]", "line"), ("red", "pair 0 of PE[67]", "line")]),  # anchor 64
    ("app_pages/similarity.py", {"view": "offset"},
     ("similarity.offset_text", {"count": 2000, "label": "x"}), 0,
     [("grey", "random: min-max", "fill")]),
    # The configs' captions serve the overlay too, where each config has its colour: they name
    # a legend entry, never a colour.
    ("app_pages/rope.py", {"view": "config", "compare": "mistral-7b", "arrange": "overlay"},
     ("rope-config.angles_caption", {}), 1, []),
    # names its points by their labels, not by a colour
    ("app_pages/word_position.py", {},
     ("word-position.repeated", {"items": "", "rest": "", "example": "the @4"}), 0, []),
]


@pytest.mark.parametrize(("script", "query", "caption", "index", "named"), CAPTIONS,
                         ids=[c[2][0] for c in CAPTIONS])
def test_a_captions_colour_words_are_the_colours_its_traces_are_drawn_in(
        script, query, caption, index, named):
    key, values = caption
    text = message(key, "en", **values)
    figure = plotly_figures(open_page(script, query))[index]
    words = set(re.findall(COLOUR_WORDS, text))
    assert words == {word for word, _, _ in named}, (words, text)
    for word, which, attribute in named:
        shown = figure["data"][which] if isinstance(which, int) else trace(figure, which)
        assert rgb_name(drawn(shown, attribute)) == word, (word, which)


# The words for the colours the figures draw, in each language.
WORDS = {"en": {name: name for name in ("red", "blue", "green", "orange", "purple", "vermillion",
                                         "yellow", "grey")},
         "zh": {"red": "红", "blue": "蓝", "green": "绿", "orange": "橙", "purple": "紫",
                "vermillion": "朱", "yellow": "黄", "grey": "灰"}}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_chart_texts_name_no_colour_the_slide_palette_redraws_as_another(lang):
    """Presentation mode redraws the figures' colours in a colour-blind-safe palette
    (PRESENTATION_COLOURS): red becomes vermillion, the others keep their names. A chart's own
    text is on slides too: it names no colour whose name changes."""
    renamed = {colour_name(old) for old, new in PRESENTATION_COLOURS.items()
               if colour_name(old) != colour_name(new)}
    assert renamed == {"red"}
    words = [WORDS[lang][name] for name in renamed]
    pattern = "|".join(rf"\b{w}\b" if lang == "en" else w for w in words)
    named = {key: re.findall(pattern, text)
             for key, text in catalogue(lang).items() if key.startswith("fig.")}
    assert {key: found for key, found in named.items() if found} == {}
