"""Chart details a careful reader sees, measured on the drawn SVG in headless Chromium at
1440 x 900: labels clear of the data they label, axes that span what they show, colour bars as
tall as their plots. Screenshots in test-artifacts/."""

from __future__ import annotations

import re

import pytest

from tests.conftest import new_page

pytestmark = pytest.mark.browser

# Every annotation's text box and every drawn marker of chart `index`, in page pixels.
CHART_BOXES_JS = """(index) => {
    const chart = document.querySelectorAll('.js-plotly-plot')[index];
    const box = e => { const r = e.getBoundingClientRect();
                       return {x0: r.left, y0: r.top, x1: r.right, y1: r.bottom}; };
    const annotations = [...chart.querySelectorAll('g.annotation')].map(g => {
        const text = g.querySelector('.annotation-text');
        return {text: text ? text.textContent : '', ...box(text || g)};
    });
    const points = [...chart.querySelectorAll('.scatterlayer path.point')]
        .filter(p => p.getAttribute('d')).map(box);
    return {annotations, points};
}"""


def _overlaps(a: dict, b: dict, margin: float = 0.0) -> bool:
    return (a["x0"] < b["x1"] + margin and b["x0"] < a["x1"] + margin
            and a["y0"] < b["y1"] + margin and b["y0"] < a["y1"] + margin)


def labels_on_markers(seen, index: int) -> list[str]:
    """The annotations whose text is drawn over a marker of chart `index`."""
    boxes = seen.page.evaluate(CHART_BOXES_JS, index)
    assert boxes["points"], "the chart draws markers"
    return [a["text"] for a in boxes["annotations"]
            if any(_overlaps(a, p) for p in boxes["points"])]


def open_at(browser, app_url, path: str, charts: int, *, width=1440, height=900):
    seen = new_page(browser, app_url)
    seen.page.set_viewport_size({"width": width, "height": height})
    seen.open(path, charts=charts)
    return seen


@pytest.mark.parametrize("query", [
    "",  # the article's 128 x 128
    "?d_model=512&positions=2048",  # the TF tutorial's table
    "?d_model=64&positions=16&base=100",  # few decades: a flat curve
    "?d_model=1024&positions=10000&base=500000&timescales=tensor2tensor",
])
def test_wavelength_spectrum_labels_stay_off_the_markers(browser, app_url, query):
    seen = open_at(browser, app_url, f"/wavelengths{query}", charts=2)
    try:
        spectrum = 1  # the curves come first
        chart = seen.page.locator(".js-plotly-plot").nth(spectrum)
        chart.scroll_into_view_if_needed()
        seen.page.wait_for_timeout(300)
        assert labels_on_markers(seen, spectrum) == []
        # Log ticks labelled at powers of ten only: no "2" and "5" between them.
        ticks = seen.page.evaluate(
            "i => [...document.querySelectorAll('.js-plotly-plot')[i]"
            ".querySelectorAll('.ytick text')].map(t => t.textContent)", spectrum)
        assert ticks and all(re.fullmatch(r"1(0*)[kMG]?", t) for t in ticks), ticks
        assert seen.exceptions() == []
        chart.screenshot(path=f"test-artifacts/wavelength-spectrum{query.replace('&', '-')}.png")
    finally:
        seen.close()


# Each heatmap's drawn plot area (its axes' box) and its colour bar, in page pixels.
COLORBAR_HEIGHTS_JS = """() => [...document.querySelectorAll('.js-plotly-plot')].map(chart => {
    const bar = chart.querySelector('.colorbar .cbbg');  // the bar with its title
    const plot = chart.querySelector('.heatmaplayer');
    if (!bar || !plot) return null;
    return {bar: bar.getBoundingClientRect().height, plot: plot.getBoundingClientRect().height,
            range: chart._fullLayout.coloraxis ? null
                   : [chart._fullData[0].zmin, chart._fullData[0].zmax]};
}).filter(x => x)"""


@pytest.mark.parametrize(("width", "height"), [(1280, 720), (1440, 900), (1920, 1080)])
def test_vit_tiles_colour_bars_match_their_plots_and_each_other(browser, app_url, width, height):
    """The tiles and the selected patch's map side by side: one colour range, and each colour
    bar as tall as the square it describes (they were taller than the plots)."""
    seen = open_at(browser, app_url, "/vit-grid", charts=2, width=width, height=height)
    try:
        charts = seen.page.evaluate(COLORBAR_HEIGHTS_JS)
        assert len(charts) == 2
        for chart in charts:
            assert chart["bar"] == pytest.approx(chart["plot"], rel=0.1), chart
        assert charts[0]["range"] == pytest.approx(charts[1]["range"]), charts
        assert seen.exceptions() == []
        seen.screenshot(f"vit-tiles-{width}x{height}")
    finally:
        seen.close()


def test_alibi_enlarged_head_axis_spans_the_keys(browser, app_url):
    seen = open_at(browser, app_url, "/alibi?view=head&positions=256", charts=1)
    try:
        low, high = seen.page.evaluate(
            "() => document.querySelector('.js-plotly-plot')._fullLayout.xaxis.range")
        assert -1 <= low <= 0 and 255 <= high <= 256.5, (low, high)
    finally:
        seen.close()


# Every trace's line and marker colour (strings only) as the browser drew them, and the page's
# background colour.
DRAWN_COLOURS_JS = """() => {
    const colours = [];
    for (const gd of document.querySelectorAll('.js-plotly-plot')) {
        for (const trace of gd._fullData) {
            if (['heatmap', 'contour', 'image'].includes(trace.type)) continue;
            for (const part of ['line', 'marker']) {
                const c = trace[part] && trace[part].color;
                if (typeof c === 'string') colours.push([trace.name || '', part, c]);
            }
        }
    }
    return {colours, background: getComputedStyle(
        document.querySelector('[data-testid="stApp"]')).backgroundColor};
}"""


@pytest.mark.parametrize("path", ["/alibi?view=reach", "/extrapolation",
                                  "/rope?view=extension", "/wavelengths"])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_drawn_lines_reach_three_to_one_on_the_page(browser, app_url, path, scheme):
    """WCAG 1.4.11 as the browser draws it: ALiBi's head 1 was navy on near-black."""
    from figures.contrast import DECORATIVE_ALPHA, contrast_ratio, parse_colour

    seen = new_page(browser, app_url, color_scheme=scheme)
    try:
        seen.page.set_viewport_size({"width": 1440, "height": 900})
        seen.open(path, charts=1)
        seen.page.wait_for_timeout(500)
        drawn = seen.page.evaluate(DRAWN_COLOURS_JS)
        background = parse_colour(drawn["background"])
        assert (sum(background[:3]) < 100) == (scheme == "dark"), drawn["background"]
        page_colour = "#" + "".join(f"{int(c):02x}" for c in background[:3])
        low = []
        for name, part, colour in drawn["colours"]:
            parsed = parse_colour(colour)
            if parsed is None or parsed[3] <= DECORATIVE_ALPHA:
                continue
            opaque = "#" + "".join(f"{round(c):02x}" for c in parsed[:3])
            if contrast_ratio(opaque, page_colour) < 3.0:
                low.append((name, part, colour))
        assert drawn["colours"] and low == []
        seen.screenshot(f"contrast-{scheme}-{path.strip('/').replace('?', '-')}")
    finally:
        seen.close()
