"""Chart text a student can read at 1440 x 900: every text a page's charts draw (ticks, titles,
legends, notes, labels) is at least 12 px and has 4.5:1 contrast (WCAG 1.4.3) with the page's
background, on the light theme and the dark one, each page at its defaults."""

from __future__ import annotations

import pytest

from tests import browser_support
from tests.conftest import new_page
from ui.pages import PAGES

pytestmark = pytest.mark.browser

# Each drawn text of the main area's charts short of 12 px or 4.5:1, with its size, colour and
# contrast (its fill's alpha and the element's opacity taken as they dim it).
TEXT_JS = """() => {
  const channels = c => c.match(/[\\d.]+/g).map(Number);
  const luminance = c => {
    const [r, g, b] = channels(c).slice(0, 3).map(v => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const page = getComputedStyle(document.querySelector('[data-testid="stApp"]')).backgroundColor;
  const wrong = [];
  for (const gd of document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')) {
    if (gd.getBoundingClientRect().width < 1) continue;
    for (const text of gd.querySelectorAll('.main-svg text')) {
      if (!text.textContent.trim() || text.getBoundingClientRect().width < 1) continue;
      const look = getComputedStyle(text);
      if (!look.fill || look.fill === 'none') continue;
      const alpha = (channels(look.fill)[3] ?? 1) * parseFloat(look.opacity || 1)
        * parseFloat(look.fillOpacity || 1);
      const [high, low] = [luminance(look.fill), luminance(page)].sort((a, b) => b - a);
      const contrast = (high + 0.05) / (low + 0.05);
      const size = parseFloat(look.fontSize);
      if (size < 12 || contrast < 4.5 || alpha < 1) {
        wrong.push([text.textContent.trim().slice(0, 30), size, look.fill,
                    Math.round(contrast * 10) / 10]);
      }
    }
  }
  return wrong;
}"""


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_pages_chart_text_is_12_px_at_4_5_to_1(browser, app_url, theme):
    seen = new_page(browser, app_url, viewport={"width": 1440, "height": 900},
                    color_scheme=theme)
    wrong = {}
    try:
        for page in PAGES:
            seen.open(f"/{page.url_path}?lang=en", charts=1, timeout=120_000)
            browser_support.wait_charts_drawn(seen.page)
            if found := seen.page.evaluate(TEXT_JS):
                wrong[page.url_path] = found[:5]
                seen.screenshot(f"chart-text-{theme}-{page.url_path}")
    finally:
        seen.close()
    assert wrong == {}
