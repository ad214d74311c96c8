"""export.slide_text: a slide's one line as its photograph draws it. Every takeaway of the
catalogues turns into HTML with its formulas as MathML (Chromium draws MathML itself: the page
that draws a slide file has no KaTeX), and a visitor's note is shown exactly as typed."""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET

import pytest

from export.slide_text import LatexError, line_html, mathml
from locales import LANGUAGES, catalogue, message


def takeaways() -> list[tuple[str, str]]:
    keys = [key for key in catalogue("en") if key.startswith("takeaway.")] + ["home.takeaway"]
    return [(lang, key) for lang in LANGUAGES for key in keys]


@pytest.mark.parametrize(("lang", "key"), takeaways())
def test_every_takeaway_is_drawn_with_its_formulas_as_mathml(lang, key):
    line = message(key, lang)
    formulas = re.findall(r"\$(.+?)\$", line)
    for formula in formulas:
        ET.fromstring(mathml(formula))  # raises LatexError, or on a malformed element
    drawn = line_html(line)
    assert drawn.count("<math>") == len(formulas)
    assert "$" not in re.sub(r"<math>.*?</math>", "", drawn)  # no formula left as LaTeX
    assert "\\" not in re.sub(r"<math>.*?</math>", "", drawn)


@pytest.mark.parametrize(("latex", "expected"), [
    ("PE_p", "<math><mi>P</mi><msub><mi>E</mi><mi>p</mi></msub></math>"),
    # TeX's letters are one identifier each: the subscript goes on the E
    ("PE_{p+k}", "<math><mi>P</mi><msub><mi>E</mi><mrow><mi>p</mi><mo>+</mo><mi>k</mi></mrow>"
                 "</msub></math>"),
    ("2\\pi \\cdot 10000^{2i/d}",
     "<math><mn>2</mn><mi>π</mi><mo>·</mo><msup><mn>10000</mn><mrow><mn>2</mn><mi>i</mi>"
     "<mo>/</mo><mi>d</mi></mrow></msup></math>"),
    ("q - p", "<math><mi>q</mi><mo>−</mo><mi>p</mi></math>"),
    ("p\\,\\theta_i", '<math><mi>p</mi><mspace width="0.17em"/><msub><mi>θ</mi><mi>i</mi>'
                      '</msub></math>'),
    ("x_a^b", "<math><msubsup><mi>x</mi><mi>a</mi><mi>b</mi></msubsup></math>"),
    ("\\frac{1}{2}", "<math><mfrac><mrow><mn>1</mn></mrow><mrow><mn>2</mn></mrow></mfrac></math>"),
    ("\\cos(\\omega_i k)", '<math><mi mathvariant="normal">cos</mi><mo>(</mo><msub><mi>ω</mi>'
                           '<mi>i</mi></msub><mi>k</mi><mo>)</mo></math>'),
])
def test_formulas_become_the_mathml_a_reader_expects(latex, expected):
    assert mathml(latex) == expected


@pytest.mark.parametrize("latex", ["\\begin{aligned}", "x_", "{x", "x}", "\\text x"])
def test_what_slides_do_not_draw_is_an_error_there_and_its_latex_on_a_slide(latex):
    with pytest.raises(LatexError):
        mathml(latex)
    assert line_html(f"a ${latex}$ b") == html.escape(f"a ${latex}$ b")


def test_a_takeaways_bold_and_escapes_are_markdown():
    assert line_html(r"**Offsets** \+k and <b>") == "<b>Offsets</b> +k and &lt;b&gt;"


@pytest.mark.parametrize("note", [
    "costs $5 and $6", "**not bold**", "<script>alert(1)</script>", "see https://example.com",
    ":material/warning:", r"\+ kept",
])
def test_a_note_is_shown_as_typed(note):
    assert html.unescape(line_html(note, text=True)) == note
    assert "<" not in line_html(note, text=True)
