"""The learned-vs-sinusoidal page through Streamlit's AppTest: it renders, its controls drive it,
bad URL values are explained, and the numbers shown are the right ones."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from locales import message
from tests import reference
from tests.apptest import decode, metrics, notices, open_page, plotly_figures

LEARNED = "app_pages/learned_vs_sinusoidal.py"


def test_learned_page_default_and_its_numbers(weights):
    at = open_page(LEARNED)
    assert not at.exception and notices(at) == []
    figures = plotly_figures(at)
    assert len(figures) == 2  # one section at a time: the two tables first
    table = weights["embeddings.position_embeddings.weight"].astype(np.float64)
    lengths = np.linalg.norm(table, axis=1)
    unit = table / lengths[:, None]
    values = [m.value for m in at.metric]
    assert values[:3] == [f"{lengths[0]:.4f}", f"{lengths[1:].mean():.4f}",
                          f"{np.sum(unit[:-1] * unit[1:], axis=1).mean():.4f}"]
    omega = 10000.0 ** (-np.arange(0, 384, 2) / 384)
    assert values[3:] == [f"{math.sqrt(192):.4f}", f"{math.sqrt(192):.4f}",
                          f"{np.mean(np.cos(omega)):.4f}"]
    # The learned heatmap is MiniLM's table: every dimension its own column, the 512 rows
    # resampled to 256 (the textbook Gaussian resampler, one cell at a time).
    z = decode(figures[0]["data"][0]["z"])
    assert z.shape == (256, 384)
    expected = reference.loop_gaussian_resample(table[:40], 20)  # the top cells: rows < 40
    np.testing.assert_allclose(z[5, :], expected[5, :], atol=1e-5)
    # The waves sentence: dimension 190 is 82% one wave of period 511 / 3 positions.
    body = table[1:, 190] - table[1:, 190].mean()
    power = np.abs(np.fft.fft(body)[1:256]) ** 2
    at.radio(key="view").set_value("space").run()
    waves = next(m.value for m in at.markdown if "Nobody told the model" in m.value)
    assert f"dimension 190: {power.max() / power.sum():.0%} of its variance in one wave of " \
        f"period {511 / (np.argmax(power) + 1):.0f} positions" in waves
    # The similarity view's distance from Toeplitz: each diagonal of the cosine matrix against
    # its own mean (the sinusoid's is exactly Toeplitz).
    at.radio(key="view").set_value("similarity").run()
    cosines = unit @ unit.T
    gaps = np.concatenate([d - d.mean() for d in
                           (np.diagonal(cosines, k) for k in range(-511, 512))])
    text = next(m.value for m in at.markdown if "Distance from Toeplitz" in m.value)
    assert f"learned **{math.sqrt(np.mean(gaps ** 2)):.4f}**" in text
    assert re.search(r"sinusoid \*\*\d\.\d\d×10⁻¹[³⁴⁵⁶⁷⁸⁹]\*\*", text), text  # for people
    # Past the table: the sinusoid's norms continue to position 767.
    at.radio(key="view").set_value("extent").run()
    (extent,) = plotly_figures(at)
    assert len(decode(extent["data"][0]["y"])) == 512
    assert len(decode(extent["data"][1]["y"])) == 768


def test_the_extent_draws_every_row_of_the_table_whatever_the_rows_shown():
    at = open_page(LEARNED, {"positions": "64", "view": "extent"})
    (extent,) = plotly_figures(at)
    assert len(decode(extent["data"][0]["y"])) == 512  # MiniLM's table, to its last row
    assert len(decode(extent["data"][1]["y"])) == 512 + 256  # the sinusoid, on past it


def test_learned_page_controls_and_extrapolation():
    query = {"positions": "1000", "metric": "dot", "anchor": "50", "view": "extent"}
    at = open_page(LEARNED, query)
    assert not at.exception
    assert any("rows 0 to 511 only" in i.value for i in at.info)
    (extent,) = plotly_figures(at)
    assert len(decode(extent["data"][0]["y"])) == 512  # learned: stops
    assert len(decode(extent["data"][1]["y"])) == 1000  # sinusoid: goes on
    at.radio(key="view").set_value("offset").run()
    (offsets,) = plotly_figures(at)
    assert "anchor 50" in " ".join(t["name"] for t in offsets["data"])
    at.radio(key="metric").set_value("cosine").run()
    assert "mean cosine(Pₚ, Pₚ₊₁)" in metrics(at)


@pytest.mark.parametrize(
    "name, value", [("positions", "0"), ("positions", "99999"), ("metric", "l2"),
                    ("anchor", "2048"), ("anchor", "nan")]
)
def test_learned_page_bad_url_values(name, value):
    at = open_page(LEARNED, {name: value})
    assert not at.exception
    messages = notices(at)
    assert len(messages) == 1 and messages[0].startswith(f"URL parameter {name}=")
    assert len(plotly_figures(at)) == 2


def test_learned_page_every_view_draws():
    for view, count in {"tables": 2, "similarity": 2, "offset": 1, "space": 2,
                        "wavelengths": 1, "grid": 1, "extent": 1}.items():
        at = open_page(LEARNED, {"view": view})
        assert not at.exception, view
        assert len(plotly_figures(at)) == count, view


def test_the_anchor_is_the_offset_views_own_control():
    """positions and metric are page-wide (the numbers at the top read both); the anchor is
    made above the offset chart only, and keeps its value while another view is shown."""
    at = open_page(LEARNED, {"view": "offset", "positions": "256"})
    assert not at.exception, [e.value for e in at.exception]
    assert at.main.slider(key="anchor") and "anchor" not in [w.key for w in at.sidebar.slider]
    at.slider(key="anchor").set_value(40).run()
    title = plotly_figures(at)[0]["layout"]["title"]["text"]
    at.radio(key="view").set_value("tables").run()
    assert "anchor" not in [w.key for w in at.slider]
    at.radio(key="view").set_value("offset").run()
    assert at.slider(key="anchor").value == 40
    assert plotly_figures(at)[0]["layout"]["title"]["text"] == title
    at.slider(key="anchor").set_value(300).run()  # past the 256 rows shown: said in the view
    assert "anchor" in " ".join(i.value for i in at.info)


def test_the_pca_view_says_what_a_share_of_variance_is():
    """Axes titled "PC1 (29.4% of variance)" come with one plain line saying what that is."""
    at = open_page(LEARNED, {"view": "space"})
    assert not at.exception
    assert message("word-position.variance_help", "en") in [c.value for c in at.caption]


def test_the_view_radio_shows_its_view_again_after_the_upload_notice():
    """A visitor on a view who picks "your own table" (the page stops at its notice, without the
    views) and goes back to MiniLM sees that view, and the radio must say so to the browser:
    Streamlit kept the radio's value on the server, the browser forgot it, and showed the
    first view checked while the page drew another (choosing it then did nothing)."""
    at = open_page(LEARNED, {"view": "extent"})
    at.radio(key="source").set_value("upload").run()
    assert not at.exception
    assert "view" not in [r.key for r in at.radio]  # stopped at the notice
    at.radio(key="source").set_value("minilm").run()
    view = at.radio(key="view")
    assert view.value == "extent"
    assert view.proto.set_value  # the browser is told the value it shows
