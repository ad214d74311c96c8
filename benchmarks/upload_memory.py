"""Ten visitors upload the largest table at once: the server's tree stays within 700 MB.

serve.py (the public entry: its doors open the upload route) on a loopback port, warmed up by one
visit of the learned-vs-sinusoidal page; then ten browser contexts (ten sessions) upload a
4096 x 1024 float32 .npy (16 MiB, the cap) at the same moment and wait for its charts, and an
eleventh uploads while the ten hold theirs: it must be told that it waits, then to upload again
in a minute (server.memory_budget.HELD_UPLOADS). Reported: the peak unique memory (USS) of the
server's process tree while they upload and hold, each upload's seconds, what the eleventh was
told.

Run: `make bench-load` (or `python benchmarks/upload_memory.py`). Bounded: eleven sessions,
about two minutes; stops by itself.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.export_cost import TreeSampler, tree_uss_mb  # noqa: E402
from core import limits  # noqa: E402
from tests import browser_support  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
VISITORS = 10
WAIT_MS = 240_000  # ten 16 MB tables read one compute slot at a time on a shared machine
BUDGET_MB = 700
INPUT = '[data-testid="stFileUploaderDropzoneInput"]'


def largest_table(path: Path) -> Path:
    rng = np.random.default_rng(0)
    table = rng.standard_normal((limits.MAX_TABLE_POSITIONS, limits.MAX_TABLE_WIDTH))
    np.save(path, (0.02 * table).astype(np.float32))  # 16 MiB + a 128-byte header
    return path


async def visitor(browser, url: str, file: Path, start: asyncio.Event) -> float:
    """One session: opens the page, uploads at `start`, waits for the charts; seconds taken."""
    context = await browser.new_context(viewport={"width": 1440, "height": 900})
    page = await context.new_page()
    await page.goto(f"{url}/learned-vs-sinusoidal?source=upload", timeout=WAIT_MS)
    await page.wait_for_selector(INPUT, state="attached", timeout=WAIT_MS)
    visitor.opened += 1
    await start.wait()
    began = time.monotonic()
    await page.locator(INPUT).set_input_files(str(file))
    await page.wait_for_function(
        "() => document.querySelectorAll('.js-plotly-plot .main-svg').length >= 2",
        timeout=WAIT_MS)
    visitor.contexts.append(context)  # held: the session keeps its table
    return time.monotonic() - began


visitor.contexts = []
visitor.opened = 0


def opened(func) -> int:
    return func.opened


async def eleventh(browser, url: str, file: Path) -> list[str]:
    """An upload while the ten hold theirs: what the page says (the wait, then the refusal)."""
    context = await browser.new_context(viewport={"width": 1440, "height": 900})
    page = await context.new_page()
    await page.goto(f"{url}/learned-vs-sinusoidal?source=upload", timeout=WAIT_MS)
    await page.wait_for_selector(INPUT, state="attached", timeout=WAIT_MS)
    await page.locator(INPUT).set_input_files(str(file))
    said = []
    for text in ("waits for one to go", "upload yours again in a minute"):
        await page.get_by_text(text).first.wait_for(timeout=WAIT_MS)
        said.append(text)
    await context.close()
    return said


async def scenario(url: str, file: Path) -> dict:
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=browser_support.find_chromium(), args=browser_support.CHROMIUM_ARGS)
        warm = await browser.new_page()  # imports, the page's first run
        await warm.goto(f"{url}/learned-vs-sinusoidal", timeout=WAIT_MS)
        await warm.wait_for_selector(".js-plotly-plot", timeout=WAIT_MS)
        await warm.close()
        start = asyncio.Event()
        tasks = [asyncio.create_task(visitor(browser, url, file, start))
                 for _ in range(VISITORS)]
        while sum(t.done() for t in tasks) == 0 and opened(visitor) < VISITORS:
            await asyncio.sleep(0.5)  # every page open before the uploads start together
        start.set()
        seconds = await asyncio.gather(*tasks)
        told = await eleventh(browser, url, file)
        for context in visitor.contexts:
            await context.close()
        await browser.close()
    return {"upload_seconds": [round(s, 1) for s in seconds], "eleventh_told": told}


def main() -> None:
    if browser_support.find_chromium() is None:
        sys.exit(browser_support.NO_CHROMIUM)
    RESULTS.mkdir(parents=True, exist_ok=True)
    file = largest_table(RESULTS / "upload-largest.tmp.npy")
    server, url = browser_support.start_streamlit("serve.py", RESULTS / "upload-server.log.tmp")
    try:
        before = tree_uss_mb(server.pid)[0]
        sampler = TreeSampler(server.pid, every_s=0.2)
        outcome = asyncio.run(scenario(url, file))
        peak = sampler.stop()
    finally:
        browser_support.stop(server)
        file.unlink(missing_ok=True)
    result = {"visitors": VISITORS, "file_mb": round(file.stat().st_size / 2**20, 1)
              if file.exists() else 16.0, "before_uss_mb": round(before),
              "peak_uss_mb": round(peak), "budget_mb": BUDGET_MB, **outcome}
    (RESULTS / "upload_memory.json").write_text(json.dumps(result, indent=2))
    print(json.dumps(result, indent=2))
    if peak > BUDGET_MB:
        sys.exit(f"the tree reached {peak:.0f} MB, past the {BUDGET_MB} MB budget")


if __name__ == "__main__":
    main()
