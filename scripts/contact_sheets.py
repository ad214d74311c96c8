"""Contact sheets of the tour: every slide, as a visitor's Chromium draws it, in one PNG.

    .venv/bin/python scripts/contact_sheets.py                    # both sheets, a server of its own
    .venv/bin/python scripts/contact_sheets.py --url http://127.0.0.1:8501 --keep shots/

Walks the tour by the clicker's key (as a lecturer does), screenshots each slide at the sheet's
window size, and lays the shots out three to a row, 768 px wide each, under docs/screenshots/:
`tour-1920x1080-zh-dark.png` and `tour-1280x720-en.png`. `--keep DIR` also keeps each slide's
full-size shot (to look at one closely).
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from PIL import Image, ImageDraw  # noqa: E402

from tests import browser_support  # noqa: E402
from ui.tour import TOUR  # noqa: E402

# (window size, language, colour scheme): the sheets docs/screenshots/ keeps.
SHEETS = (((1920, 1080), "zh", "dark"), ((1280, 720), "en", "light"))
COLUMNS = 3
SHOT_WIDTH = 768  # px of each shot on the sheet (a 1920 px shot at 40%)
GAP = 12


def slide_shots(browser, url: str, size: tuple[int, int], lang: str,
                theme: str) -> list[bytes]:
    """A PNG of each tour slide, walked from the first by the → key."""
    width, height = size
    context = browser.new_context(viewport={"width": width, "height": height},
                                  color_scheme=theme)
    page = context.new_page()
    shots = []
    try:
        page.goto(f"{url}/tour?slide=1&lang={lang}")
        for number in range(1, len(TOUR) + 1):
            if number > 1:
                page.keyboard.press("ArrowRight")
                page.wait_for_function(
                    "n => document.querySelector('.pe-tour-count')?.textContent"
                    ".startsWith(n + ' ')", arg=number, timeout=120_000)
            page.wait_for_selector(browser_support.IDLE_SELECTOR, timeout=120_000)
            page.wait_for_function(
                "() => document.querySelector('[data-testid=stMain] .js-plotly-plot .main-svg')",
                timeout=120_000)
            page.wait_for_timeout(300)
            page.wait_for_selector(browser_support.IDLE_SELECTOR, timeout=120_000)
            browser_support.wait_charts_drawn(page, fallback_ms=1500)
            page.mouse.move(width - 5, height // 2)  # no hover label, the player's bar faint
            page.wait_for_timeout(400)
            shots.append(page.screenshot())
    finally:
        context.close()
    return shots


def sheet(shots: list[bytes], dark: bool) -> Image.Image:
    images = [Image.open(io.BytesIO(shot)) for shot in shots]
    scale = SHOT_WIDTH / images[0].width
    w, h = (round(images[0].width * scale), round(images[0].height * scale))
    rows = -(-len(images) // COLUMNS)
    out = Image.new("RGB", (COLUMNS * w + (COLUMNS + 1) * GAP, rows * h + (rows + 1) * GAP),
                    (110, 110, 110) if dark else (200, 200, 200))
    draw = ImageDraw.Draw(out)
    for index, image in enumerate(images):
        x = GAP + (index % COLUMNS) * (w + GAP)
        y = GAP + (index // COLUMNS) * (h + GAP)
        out.paste(image.convert("RGB").resize((w, h), Image.LANCZOS), (x, y))
        draw.text((x + 6, y + h - 16), str(index + 1), fill=(255, 0, 255))
    return out.quantize(colors=256)  # a palette: a fifth of the bytes, no visible change


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a running app (default: start one)")
    parser.add_argument("--keep", type=Path, help="also keep each slide's shot here")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    server = None
    url = args.url
    if url is None:
        server, url = browser_support.start_streamlit("app.py", Path("/tmp/contact-sheets.log"))
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=browser_support.find_chromium(),
                                                 args=browser_support.CHROMIUM_ARGS)
            for (width, height), lang, theme in SHEETS:
                name = f"tour-{width}x{height}-{lang}" + ("-dark" if theme == "dark" else "")
                shots = slide_shots(browser, url, (width, height), lang, theme)
                if args.keep:
                    args.keep.mkdir(parents=True, exist_ok=True)
                    for number, shot in enumerate(shots, start=1):
                        (args.keep / f"{name}-{number:02d}.png").write_bytes(shot)
                sheet(shots, theme == "dark").save(args.out / f"{name}.png", optimize=True)
                print(args.out / f"{name}.png")
            browser.close()
    finally:
        if server is not None:
            browser_support.stop(server)


if __name__ == "__main__":
    main()
