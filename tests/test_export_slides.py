"""export.slides without a server: what a slide's run sends becomes its content (the page's
title, its line, its charts), which charts cost WebGL's memory to photograph, and ui.tour's
cost of a slide file (what a deck may hold before it is refused)."""

from __future__ import annotations

import plotly.graph_objects as go
import plotly.io as pio
import pytest
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from export.slides import SLIDE_DRAW_COST, WEBGL_SLIDE_DRAW_COST, SlideContent, _Content
from figures.common import presentation_style
from ui.pages import PAGE_PARAMS
from ui.params import ChoiceParam
from ui.tour import MAX_FILE_COST, MAX_SLIDE_COST, TOUR, Slide, file_cost, slide_cost


def element(path: list[int], kind: str, **fields) -> ForwardMsg:
    message = ForwardMsg()
    message.metadata.delta_path[:] = path
    getattr(message.delta.new_element, kind).MergeFrom(
        type(getattr(message.delta.new_element, kind))(**fields))
    return message


def block(path: list[int], key: str) -> ForwardMsg:
    message = ForwardMsg()
    message.metadata.delta_path[:] = path
    message.delta.add_block.id = f"$$ID-0123456789abcdef-{key}"
    return message


def test_a_runs_messages_make_the_slides_content_as_the_slide_layout_shows_it():
    """The takeaway is the slide's title; the charts come in the page's order, a rerun's in its
    place; the sidebar's and those of a page_only block are left out, as the slide leaves
    them off the screen."""
    content = _Content(hidden="pe-page-only-")
    for message in (
        element([1, 2, 0], "heading", body="These slides as a file", tag="h3"),  # the sidebar
        element([1, 3], "plotly_chart", spec='{"data": [0]}'),
        element([0, 2], "heading", body="Distance and dot product", tag="h1"),
        element([0, 8, 2], "plotly_chart", spec='{"data": [2]}'),
        element([0, 3, 0], "markdown", body="#### Offsets $+k$ and $-k$ alike"),
        element([0, 8, 1], "plotly_chart", spec='{"data": [1]}'),
        element([0, 8, 2], "plotly_chart", spec='{"data": [3]}'),  # a rerun's, in its place
        block([0, 9], "pe-page-only-details"),
        element([0, 9, 0, 1], "plotly_chart", spec='{"data": [4]}'),
        element([0, 10], "markdown", body="#### a second line is the page's, not the slide's"),
    ):
        content.add(message)
    assert content.content() == SlideContent(
        "Offsets $+k$ and $-k$ alike", False, ('{"data": [1]}', '{"data": [3]}'))


def test_a_decks_note_is_the_title_as_typed():
    content = _Content()
    content.add(element([0, 3, 0], "html",
                        body='<h4 class="pe-plain" style="x">see &lt;b&gt; &amp; https://x.org'
                             '</h4>'))
    content.add(element([0, 4], "markdown", body="#### the view's own takeaway"))
    assert content.content().title == "see <b> & https://x.org"
    assert content.content().title_is_note


@pytest.mark.parametrize(("trace", "webgl"), [
    (go.Scatter(x=[1], y=[1]), False), (go.Heatmap(z=[[1]]), False),
    (go.Scatter3d(x=[1], y=[1], z=[1]), True), (go.Scattergl(x=[1], y=[1]), True),
])
def test_a_slide_costs_webgl_only_for_its_own_webgl_traces(trace, webgl):
    # the slide's figures carry a template naming every trace type, 3-D ones among them
    spec = pio.to_json(presentation_style(go.Figure(trace)), validate=False)
    assert '"scatter3d"' in spec
    content = SlideContent("t", False, (spec,))
    assert content.webgl is webgl
    assert content.draw_cost == (WEBGL_SLIDE_DRAW_COST if webgl else SLIDE_DRAW_COST)


def test_a_slide_costs_one_at_its_pages_defaults_and_more_as_its_sizes_grow():
    assert [slide_cost(slide) for slide in TOUR] == [1.0] * len(TOUR)
    assert file_cost(TOUR) == len(TOUR) <= MAX_FILE_COST
    sizes = [slide_cost(Slide("heatmap", {"d_model": str(d), "positions": "8192"}))
             for d in (128, 512, 2048, 4096)]
    assert sizes == sorted(sizes) and sizes[-1] == MAX_SLIDE_COST
    # a 64 x 64 grid has (64/14)^2 = 20.9 times the default's patches: 1 + log2(20.9) / 4
    assert slide_cost(Slide("vit-grid", {"grid_h": "64", "grid_w": "64"})) == pytest.approx(
        2.097, abs=1e-3)


def test_a_slide_costs_what_its_scene_model_and_words_add():
    """What benchmarks/slide_cost.py measured, as the parameters declare it: a 3-D scene about
    doubles a slide, the model adds a little, and so does each word of a long sentence; thirty
    3-D MiniLM slides of a long sentence cost more than a file may (each once cost 1)."""
    minilm = {"embedding": "minilm", "encoding": "learned"}
    plain = slide_cost(Slide("word-position", minilm))
    scene = slide_cost(Slide("word-position", {**minilm, "projection": "3-D"}))
    long = slide_cost(Slide("word-position", {**minilm, "projection": "3-D",
                                              "sentence": " ".join(["word"] * 400)}))
    assert 1 < plain < scene < long <= MAX_SLIDE_COST
    assert scene >= 2 * slide_cost(Slide("word-position", {}))
    assert file_cost([Slide("word-position", {**minilm, "projection": "3-D"})] * 30) > (
        MAX_FILE_COST)
    # the model reads at most MAX_TOKENS words: more words cost no more
    assert long == slide_cost(Slide("word-position", {**minilm, "projection": "3-D",
                                                       "sentence": " ".join(["w"] * 990)}))


def test_every_declared_cost_names_one_of_its_parameters_values():
    """A ChoiceParam's `work` is keyed by its own choices (a misspelt value would cost nothing);
    every page's parameter that costs is on a page a slide can show."""
    for page, params in PAGE_PARAMS.items():
        for spec in params:
            if isinstance(spec, ChoiceParam):
                assert {value for value, _ in spec.work} <= set(spec.choices), (page, spec)
                assert all(cost > 0 for _, cost in spec.work), (page, spec)


def test_thirty_slides_at_the_largest_sizes_cost_more_than_a_file_may():
    heaviest = Slide("heatmap", {"d_model": "4096", "positions": "8192"})
    assert file_cost([heaviest] * 13) <= MAX_FILE_COST < file_cost([heaviest] * 14)
