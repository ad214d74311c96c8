"""A soak test of the public demo: `streamlit run serve.py` as a hosting platform runs it (no
MALLOC_* settings, a free loopback port), an hour of a mixed crowd, the unique memory (USS) of
its process tree (the server and the Chromium it drives) sampled every second.

All the time, from the start to the end of the load:

- visitors: sessions on every page of ui/pages.py's registry (the home page and the tour too),
  each opened with new settings drawn from the page's parameters, then changed once more;
- live drags: headless Chromium (Playwright) dragging each slider of
  tests/browser_support.LIVE_SLIDERS (on each view that shows them) and FOLLOWED_CONTROLS, the
  registry's live sliders and the sliders the server follows;
- a bystander: one more visitor opening /heatmap?positions=<a new value> over and over, each
  wait timed.

Moves at planned moments, spread over the run and interleaved (`MOVES`: how many of each in the
full run and in the short one; each start is marked on the plot):

- deck PDFs and ZIPs (the tour, or a few slides of the registry's pages with new settings);
- the Export menu's PNG 7680 x 4320 of the largest heatmap;
- a 3-D slide (word-position's 3-D projection of MiniLM's vectors) as a ZIP, and on a tab;
- a presenter window (`/tour?presenter=1`) beside the audience's, following it;
- a tab closed while its image or slide file waits or draws;
- half-open sockets: upgrade requests trickled a byte at a time (slow loris), and upgraded
  websockets that never speak;
- issue 52's attacks: a crafted RoPE value (`/rope?view=config&rope_type=yarn&beta_slow=1e-320`),
  config names holding links (`visit www.example.com`, `[click](https://example.com)`, drawn in
  Chromium: a link on the page is counted), a deck of thirty 3-D MiniLM slides of the longest
  sentence a deck carries (to game the slide cost: refused saying so, or drawn within the
  budget), a 190 MB websocket frame, and 20 sessions that never read their replies, each
  asking for 15 maximum-size heatmaps.

When the time is up no move starts; those under way get a grace period, then their tabs are
closed. The idle memory is read once every session has gone (past the server's
disconnectedSessionTTL) and the server's Chromium has closed.

Pass: the tree's peak within the budget (700 MB, server.memory_budget.TREE_BUDGET); idle at the
end within 150 MB of the warm start (every page opened once at its defaults); no error box (an
exception a session was sent or an stException element in Chromium, or ui.unexpected's notice
shown in its place); no wait of the bystander over 20 s. The verdicts are printed; the exit
status is 1 when one fails.

Run: `make soak` (60 minutes), `python benchmarks/soak.py --minutes 10`, or `--short` (the same
moves, fewer, in 2 minutes of load; tests/test_soak.py runs it). Results: benchmarks/results/
soak.json, the plot docs/soak.png and the <!-- bench:soak --> block of docs/robustness.md
(`--short`: benchmarks/results/soak-short.json and .png, the docs only with `--docs`).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import dataclasses
import io
import itertools
import json
import math
import os
import random
import statistics
import sys
import threading
import time
import tomllib
import urllib.parse
import zipfile
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import websockets  # noqa: E402  (Streamlit's server stack installs it)

from benchmarks import hostile_load  # noqa: E402
from benchmarks.bench_browser import RESULT_DOCS, opened, update_docs  # noqa: E402
from benchmarks.export_cost import TreeSampler, tree_uss_mb  # noqa: E402
from benchmarks.load_memory import ExportVisitor, one_export  # noqa: E402
from locales import LANGUAGES, message  # noqa: E402
from server.memory_budget import TREE_BUDGET  # noqa: E402
from tests import browser_support  # noqa: E402
from tests.raw_session import (  # noqa: E402
    Bystander,
    RawSession,
    first_slide_query,
    pdf_pages,
    run_async,
)
from ui.pages import HOME, PAGES, TOUR_PAGE, PageInfo, app_params  # noqa: E402
from ui.params import (  # noqa: E402
    BoolParam,
    ChoiceParam,
    FloatParam,
    IntParam,
    Param,
    TextParam,
    url_value,
)
from ui.tour import TOUR, DeckError, Slide, decode_deck, encode_deck  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
PLOT = ROOT / "docs" / "soak.png"
DOC_MARKER = "bench:soak"
RESULT_DOCS.setdefault(DOC_MARKER, "docs/robustness.md")

# The pass criteria (issue 52): one place, read by tests/test_soak.py too.
BUDGET_MB = TREE_BUDGET // 2**20  # the tree's unique memory, at any moment
IDLE_MARGIN_MB = 150  # idle at the end, above the warm start
BYSTANDER_S = 20.0  # the longest a visitor may wait for a page
ERROR_BOXES = 0

SAMPLE_EVERY_S = 1.0
VISIT_TIMEOUT_S = 120  # one page run, under all the rest: never this slow
STALL_S = 45  # a bystander's page unanswered this long: the server's stacks asked for
FILE_TIMEOUT_S = 1200  # a slide file, queued behind others (the thirty 3-D slides)
SESSION_TTL_S = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())[
    "server"]["disconnectedSessionTTL"]
CRAFTED_ROPE = "view=config&rope_type=yarn&beta_slow=1e-320"  # issue 52's crafted value
LINK_NAMES = ("visit www.example.com", "[click](https://example.com)")
# ui.unexpected's notice, in each language: an exception its boundary showed as a notice (as on a
# host's server; PE_GUARD=reraise shows Streamlit's box instead) is an error box all the same.
UNEXPECTED = tuple(message("app.unexpected", lang, problem="\0").split("\0")[0]
                   for lang in LANGUAGES)
WORDS = ("the", "cat", "sat", "on", "a", "mat", "while", "rain", "fell", "over", "seven",
         "quiet", "hills", "and", "one", "small", "dog", "ran", "past", "old", "stone", "walls",
         "toward", "bright", "morning", "light")


@dataclass(frozen=True)
class Plan:
    """How long and how many: the full run's or the short one's."""

    name: str
    minutes: float  # of load
    visitor_loops: int  # visitors at once
    visitor_pause_s: float  # between one visitor's pages
    bystander_every_s: float
    half_open_sockets: int  # per move, half trickled and half upgraded and silent
    half_open_hold_s: float
    grace_s: float  # for moves under way when the time is up
    short: bool


FULL_MINUTES = 60
FULL = Plan("full", FULL_MINUTES, visitor_loops=3, visitor_pause_s=2, bystander_every_s=1,
            half_open_sockets=40, half_open_hold_s=60, grace_s=600, short=False)
SHORT = Plan("short", 2, visitor_loops=2, visitor_pause_s=1, bystander_every_s=1,
             half_open_sockets=10, half_open_hold_s=30, grace_s=30, short=True)


@dataclass(frozen=True)
class Move:
    """One kind of visitor, started `full` (or `short`) times, spread evenly over the run from
    `offset` (a fraction of one interval): the kinds interleave instead of starting together."""

    name: str
    full: int
    short: int
    offset: float
    browser: bool = False  # run by the Playwright visitor, between its live drags

    def count(self, plan: Plan) -> int:
        """How many in `plan`: the full run's scale with its minutes (at least one)."""
        if plan.short:
            return self.short
        return max(1, round(self.full * plan.minutes / FULL_MINUTES))

    def starts(self, plan: Plan) -> list[float]:
        count, span = self.count(plan), plan.minutes * 60
        return [span * (i + self.offset) / count for i in range(count)]


MOVES = (
    Move("crowd of 20 never reading, 15 max heatmaps each", 6, 1, 0.0),
    Move("half-open sockets", 6, 1, 0.04),
    Move("190 MB websocket frame", 6, 1, 0.08),
    Move("crafted RoPE value", 12, 1, 0.1),
    Move("PNG 7680 x 4320", 12, 1, 0.12),
    Move("deck PDF", 8, 1, 0.15),
    Move("presenter window", 6, 1, 0.18, browser=True),
    Move("deck ZIP", 8, 1, 0.22),
    Move("3-D MiniLM slide as a ZIP", 6, 1, 0.28),
    Move("tab closed mid-export", 12, 2, 0.34),
    Move("config names with links", 6, 1, 0.4, browser=True),
    Move("thirty 3-D MiniLM slides of a long sentence", 2, 1, 0.55),
    Move("3-D MiniLM slide on a tab", 6, 1, 0.7, browser=True),
)


# --- new settings, from the registry --------------------------------------------------------

def new_value(rng: random.Random, param: Param) -> object | None:
    """A value of `param` other than its default, as a visitor might choose it: numbers near the
    default or anywhere in the range (log-spaced), another option, a new sentence. None for
    text that is a code, a list or a name (a visitor pastes those; other moves do)."""
    if isinstance(param, IntParam):
        low, high = max(param.minimum, 1), param.maximum
        if rng.random() < 0.5:
            value = param.default * 2 ** rng.uniform(-1.5, 1.5)
        else:
            value = math.exp(rng.uniform(math.log(low), math.log(max(high, low + 1))))
        value = min(max(round(value), param.minimum), param.maximum)
        value -= value % param.multiple_of
        return max(value, param.minimum + -param.minimum % param.multiple_of)
    if isinstance(param, FloatParam):
        centre = param.default or min(param.maximum, 1.0)
        value = round(min(max(centre * 2 ** rng.uniform(-2, 2), param.minimum), param.maximum), 3)
        return value if value > param.minimum or not param.exclusive_minimum else param.default
    if isinstance(param, ChoiceParam):
        return rng.choice([c for c in param.choices if c != param.default] or [param.default])
    if isinstance(param, BoolParam):
        return not param.default
    if isinstance(param, TextParam) and param.check is None and " " in param.default:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12)))
    return None


def new_settings(rng: random.Random, params: tuple[Param, ...], most: int = 3) -> dict[str, str]:
    """1 to `most` of `params` set to new values, as the page's URL writes them."""
    wanted, out = rng.randint(1, most), {}
    for param in rng.sample(params, len(params)):
        value = new_value(rng, param)
        text = None if value is None else url_value(param, value)
        if text is not None:
            out[param.name] = text
        if len(out) == wanted:
            break
    return out


def visitor_pages() -> list[PageInfo]:
    return [HOME, *PAGES, TOUR_PAGE]


def new_query(rng: random.Random, page: PageInfo) -> str:
    settings = new_settings(rng, page.params) if page.params else {}
    if rng.random() < 0.3:  # the language and presentation mode, on every page
        settings.update(new_settings(rng, app_params(), most=1))
    return urllib.parse.urlencode(settings)


def new_deck(rng: random.Random, count: int) -> tuple[Slide, ...]:
    """`count` slides of the registry's pages, each with new settings (the tour's player checks
    them as a link's)."""
    pages = rng.sample(PAGES, count)
    return tuple(Slide(p.url_path, new_settings(rng, p.params)) for p in pages)


def three_d_slide(sentence: str, seed: int = 0) -> Slide:
    settings = {"embedding": "minilm", "projection": "3-D", "sentence": sentence}
    if seed:
        settings["seed"] = str(seed)
    return Slide("word-position", settings)


def long_sentence_deck(count: int, first_seed: int) -> tuple[Slide, ...]:
    """`count` 3-D MiniLM slides of the longest sentence such a deck can carry (its link's
    length and what it inflates to are capped: ui.tour), each with its own seed."""
    for words in range(len(WORDS) * 20, 0, -5):
        sentence = " ".join((WORDS * 20)[:words])
        slides = tuple(three_d_slide(sentence, seed=first_seed + n) for n in range(count))
        with contextlib.suppress(DeckError):
            if decode_deck(encode_deck(slides)):
                return slides
    raise ValueError(f"no deck of {count} 3-D slides")


def shown_errors(exceptions: list[str], texts: list[str]) -> list[str]:
    """What a visitor was shown as an error: Streamlit's boxes and the boundary's notices."""
    return [*exceptions, *(text for text in texts if text.startswith(UNEXPECTED))]


# --- the record ---------------------------------------------------------------------------

@dataclass
class Record:
    """What the run saw, shared by the threads (appends only)."""

    t0: float = field(default_factory=time.monotonic)
    events: list[dict] = field(default_factory=list)  # each move's instance
    error_boxes: list[dict] = field(default_factory=list)
    problems: list[dict] = field(default_factory=list)  # timeouts, refused connections, ...
    counts: Counter = field(default_factory=Counter)  # continuous moves: visits, drags
    end_s: float = 0.0  # when the load ended (no move started after it)

    def now(self) -> float:
        return round(time.monotonic() - self.t0, 1)

    def boxes(self, move: str, where: str, texts: list[str]) -> None:
        for text in texts:
            self.error_boxes.append({"t": self.now(), "move": move, "where": where,
                                     "text": text[:300]})

    def problem(self, move: str, where: str, error: BaseException | str) -> None:
        text = error if isinstance(error, str) else f"{type(error).__name__}: {error}"
        self.problems.append({"t": self.now(), "move": move, "where": where,
                              "text": text[:300]})


class SeriesSampler(TreeSampler):
    """TreeSampler's peak, and every sample: (seconds since `t0`, tree USS, processes, the
    server's own USS)."""

    def __init__(self, pid: int, t0: float, every_s: float = SAMPLE_EVERY_S) -> None:
        self.t0, self.samples = t0, []
        super().__init__(pid, every_s)

    def _run(self) -> None:
        while self.running:
            uss, count, own = tree_uss_mb(self.pid)
            self.samples.append((round(time.monotonic() - self.t0, 1), round(uss, 1), count,
                                 round(own, 1)))
            if uss > self.peak_mb:
                self.peak_mb, self.own_at_peak_mb = uss, own
            self.most_processes = max(self.most_processes, count)
            time.sleep(self.every_s)


class TimedBystander(Bystander):
    """Bystander's visitor, every wait kept whatever happens: a page that errs is an error box,
    one that never ends counts as VISIT_TIMEOUT_S (Bystander's own thread would end there)."""

    def __init__(self, url: str, record: Record, every_s: float) -> None:
        values = itertools.cycle(random.Random(52).sample(range(2, 8193), 8191))
        super().__init__(url, "heatmap", (f"positions={v}" for v in values), every_s)
        self.record, self.at = record, []

    def _run(self) -> None:
        while not self.stopping.is_set():
            query = next(self.queries)
            at = self.record.now()
            # A page still unanswered after STALL_S: the server's threads' stacks, once, when
            # its probe is on (PE_MEMORY_PROBE): what it waits on while it serves nobody.
            looking = threading.Timer(STALL_S, _stall_report, args=(f"stall-{at:.0f}",))
            looking.daemon = True
            looking.start()
            seconds = run_async(self._visit(query))
            looking.cancel()
            self.seconds.append(round(seconds, 2))
            self.at.append(at)
            self.stopping.wait(self.every_s)

    async def _visit(self, query: str) -> float:
        start = time.monotonic()
        try:
            async with RawSession(self.url, self.page, query) as session:
                await session.open(VISIT_TIMEOUT_S)
            self.record.boxes("bystander", f"/heatmap?{query}",
                              shown_errors(session.exceptions, session.texts))
        except Exception as error:
            self.record.problem("bystander", f"/heatmap?{query}", error)
            return max(time.monotonic() - start, VISIT_TIMEOUT_S
                       if isinstance(error, TimeoutError) else 0)
        return time.monotonic() - start


# --- the moves over raw websockets ----------------------------------------------------------

async def visit(url: str, page: str, query: str, record: Record, move: str) -> RawSession:
    """A session opened at `page?query`, its error boxes recorded."""
    async with RawSession(url, page, query) as session:
        await session.open(VISIT_TIMEOUT_S)
    record.boxes(move, f"/{page}?{query}", shown_errors(session.exceptions, session.texts))
    return session


async def visitor_loop(url: str, loop: int, plan: Plan, record: Record, stop: asyncio.Event):
    """One visitor after another, round the pages (loop k of L takes every L-th page from the
    k-th): each opened with new settings, then set to newer ones in the same session (as a
    changed control reruns it). The first round is finished even past the end: every page of
    the registry is visited once at least."""
    rng = random.Random(1000 + loop)
    pages = visitor_pages()
    for n in itertools.count(loop, plan.visitor_loops):
        if stop.is_set() and n >= len(pages):
            return
        page = pages[n % len(pages)]
        first, second = new_query(rng, page), new_query(rng, page)
        where = f"/{page.url_path}?{first}"
        try:
            async with RawSession(url, page.url_path, first) as session:
                await session.open(VISIT_TIMEOUT_S)
                session.query = second
                await session.rerun()
                await session.run_ends(VISIT_TIMEOUT_S)
            record.boxes("visitors", where + f" then ?{second}",
                         shown_errors(session.exceptions, session.texts))
        except Exception as error:
            record.problem("visitors", where, error)
        record.counts["visitors"] += 1
        record.counts[f"visitors /{page.url_path}"] += 1
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), plan.visitor_pause_s)


FILE_REFUSALS = ("could not be drawn", "too large to draw", "Try again", "try again")


async def ask_for_file(url: str, slides: tuple[Slide, ...], code: str, kind: str,
                       record: Record, move: str) -> dict:
    """A visitor on the deck's first slide pressing "PDF" or "ZIP" (tests/raw_session's
    ask_for_pdf, either kind, a refusal taken as an answer): what arrived, what was said."""
    start = time.monotonic()
    where = f"/tour ({len(slides)} slides, {kind})"
    async with RawSession(url, "tour", first_slide_query(slides, code)) as visitor:
        await visitor.open(VISIT_TIMEOUT_S)
        said = next((t for t in visitor.texts if "too large to draw" in t), None)
        if said or f"tour_file_{kind}" not in visitor.ids:
            record.boxes(move, where, shown_errors(visitor.exceptions, visitor.texts))
            return {"said": "refused before drawing" if said else "no file menu",
                    "text": (said or "")[:200], "seconds": round(time.monotonic() - start, 1)}
        visitor.texts.clear()
        await visitor.press(f"tour_file_{kind}")
        while "tour_file_save" not in visitor.files:
            await visitor.run_ends(timeout=FILE_TIMEOUT_S)
            refused = [t for t in visitor.texts if any(r in t for r in FILE_REFUSALS)]
            if refused or shown_errors(visitor.exceptions, visitor.texts):
                break
        record.boxes(move, where, shown_errors(visitor.exceptions, visitor.texts))
        seconds = round(time.monotonic() - start, 1)
        if "tour_file_save" not in visitor.files:
            last = (visitor.texts or ["nothing said"])[-1]
            return {"said": f"not drawn: {last[:160]}", "text": last[:300], "seconds": seconds}
        data = await asyncio.to_thread(visitor.fetch, "tour_file_save")
    waited = [t for t in visitor.texts if "ahead" in t]
    if kind == "pdf":
        pages = pdf_pages(data)
        ok = data.startswith(b"%PDF-") and pages == len(slides)
        what = f"{pages} pages"
    else:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            pages = len([n for n in archive.namelist() if n.endswith(".png")])
        ok, what = pages == len(slides), f"{pages} PNGs"
    return {"said": "delivered" if ok else f"wrong file ({what})", "what": what,
            "seconds": seconds, "waited": waited[:1]}


async def crowd(plan: Plan, url: str, record: Record, i: int) -> dict:
    await asyncio.to_thread(hostile_load.crowd, url, 20, 15)
    return {"said": "20 sessions x 15 heatmaps sent, then gone"}


async def half_open(plan: Plan, url: str, record: Record, i: int) -> dict:
    """Half the sockets send a websocket upgrade's headers and never end them, a byte more every
    5 s (slow loris); half complete the upgrade and never speak nor read. Held, then dropped."""
    parts = urllib.parse.urlsplit(url)
    host, port = parts.hostname, parts.port
    key = base64.b64encode(os.urandom(16)).decode()
    request = (f"GET /_stcore/stream HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
               f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
               f"Sec-WebSocket-Protocol: streamlit\r\nOrigin: {url}\r\nX-Slow: ").encode()
    deadline = time.monotonic() + plan.half_open_hold_s

    async def trickled() -> str:
        reader, writer = await asyncio.open_connection(host, port)
        try:
            writer.write(request)  # no blank line after: the headers never end
            while time.monotonic() < deadline:
                try:
                    answer = await asyncio.wait_for(reader.read(1), 5)
                    return "closed by the server" if not answer else "answered by the server"
                except TimeoutError:
                    writer.write(b"a")
                    await writer.drain()
            return "held"
        finally:
            writer.transport.abort()

    async def silent() -> str:
        socket = await websockets.connect(url.replace("http", "ws", 1) + "/_stcore/stream",
                                          subprotocols=["streamlit"], origin=url)
        socket.transport.pause_reading()
        try:
            await asyncio.sleep(max(0.0, deadline - time.monotonic()))
            return "held" if socket.state.name == "OPEN" else "closed by the server"
        finally:
            socket.transport.abort()

    half = plan.half_open_sockets // 2
    said = await asyncio.gather(*[trickled() for _ in range(half)],
                                *[silent() for _ in range(plan.half_open_sockets - half)],
                                return_exceptions=True)
    slow, quiet = Counter(map(str, said[:half])), Counter(map(str, said[half:]))

    def how(counted: Counter) -> str:
        return ", ".join(f"{what} {n}" for what, n in counted.most_common())

    return {"said": f"{half} trickled upgrades ({how(slow)}), {len(said) - half} silent "
                    f"websockets ({how(quiet)}), {plan.half_open_hold_s:.0f} s",
            "trickled": dict(slow), "silent": dict(quiet)}


async def big_frame(plan: Plan, url: str, record: Record, i: int) -> dict:
    return {"said": "connection " + await asyncio.to_thread(hostile_load.frame, url)}


async def crafted_rope(plan: Plan, url: str, record: Record, i: int) -> dict:
    """Issue 52's link as given; later ones with another factor (not a cache's answer)."""
    query = CRAFTED_ROPE + (f"&factor={2 + i}" if i else "")
    session = await visit(url, "rope", query, record, "crafted RoPE value")
    noticed = any("beta_slow" in text for text in session.texts)
    return {"said": "error box" if shown_errors(session.exceptions, session.texts) else
            "a notice naming beta_slow" if noticed else "drawn, no notice"}


async def png(plan: Plan, url: str, record: Record, i: int) -> dict:
    errors: list[str] = []
    got = await one_export(url, "png4", errors)
    for error in errors:
        if "exception in the menu" in error:
            record.boxes("PNG 7680 x 4320", "/heatmap Export menu", [error])
        else:
            record.problem("PNG 7680 x 4320", "/heatmap Export menu", error)
    if got is None:
        return {"said": "not delivered", "text": (errors or [""])[0][:200]}
    waited = [label for label in got["labels"] if "ahead" in label or "memory" in label]
    return {"said": "delivered", "seconds": got["seconds"],
            "file_mb": round(got["bytes"] / 2**20, 1), "waited": waited[:1]}


def _deck(plan: Plan, i: int, kind: str) -> tuple[tuple[Slide, ...], str]:
    """The tour every other time in the full run; else a few slides with new settings."""
    if not plan.short and i % 2 == 0:
        return TOUR, ""
    rng = random.Random(f"{kind}{i}")
    slides = new_deck(rng, 2 if plan.short else rng.randint(2, 6))
    return slides, encode_deck(slides)


async def deck_pdf(plan: Plan, url: str, record: Record, i: int) -> dict:
    slides, code = _deck(plan, i, "pdf")
    return await ask_for_file(url, slides, code, "pdf", record, "deck PDF")


async def deck_zip(plan: Plan, url: str, record: Record, i: int) -> dict:
    slides, code = _deck(plan, i, "zip")
    return await ask_for_file(url, slides, code, "zip", record, "deck ZIP")


async def three_d_zip(plan: Plan, url: str, record: Record, i: int) -> dict:
    rng = random.Random(f"3d{i}")
    slides = (three_d_slide(" ".join(rng.choice(WORDS) for _ in range(12))),)
    return await ask_for_file(url, slides, encode_deck(slides), "zip", record,
                              "3-D MiniLM slide as a ZIP")


async def closed_tab(plan: Plan, url: str, record: Record, i: int) -> dict:
    """A visitor presses the largest PNG (even i) or a deck's PDF (odd i) and closes the tab
    2-8 s later, whatever the menu said by then."""
    leave_s = random.Random(f"closed{i}").uniform(2, 8)
    move = "tab closed mid-export"
    if i % 2 == 0:
        visitor = ExportVisitor(url)
        try:
            async with visitor:
                await visitor.open_menu()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(visitor.export("png4"), leave_s)
        finally:  # what the page showed counts, whatever became of the menu
            record.boxes(move, "/heatmap Export menu", shown_errors(visitor.exceptions,
                                                                    visitor.notes))
        shown = visitor.labels[-1:] or ["nothing yet"]
        return {"said": "PNG left", "left_after_s": round(leave_s, 1), "shown": shown}
    slides = new_deck(random.Random(f"closed{i}"), 2)
    async with RawSession(url, "tour", first_slide_query(slides, encode_deck(slides))) as tab:
        await tab.open(VISIT_TIMEOUT_S)
        if "tour_file_pdf" not in tab.ids:
            record.boxes(move, "/tour PDF", shown_errors(tab.exceptions, tab.texts))
            return {"said": "no file menu"}
        tab.texts.clear()
        await tab.press("tour_file_pdf")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(tab.run_ends(FILE_TIMEOUT_S), leave_s)
    record.boxes(move, "/tour PDF", shown_errors(tab.exceptions, tab.texts))
    return {"said": "PDF left", "left_after_s": round(leave_s, 1),
            "shown": [t[:80] for t in tab.texts[-1:]] or ["nothing yet"]}


async def long_deck(plan: Plan, url: str, record: Record, i: int) -> dict:
    """Thirty 3-D MiniLM slides of a long sentence, each its own seed (its own computation):
    refused with its cost, or drawn (the menu's answer), or left when the run ends."""
    slides = long_sentence_deck(30, first_seed=100 * i + 1)
    return await ask_for_file(url, slides, encode_deck(slides), "pdf", record,
                              "thirty 3-D MiniLM slides of a long sentence")


# --- the moves in Chromium ----------------------------------------------------------------

def page_boxes(page) -> list[str]:
    """Streamlit's error boxes on the page, and the boundary's notices."""
    notices = page.locator('[data-testid="stAlert"]').all_inner_texts()
    return [*page.locator('[data-testid="stException"]').all_inner_texts(),
            *(text for text in notices if any(part in text for part in UNEXPECTED))]


def live_round(browser, url: str, path: str, controls: list, record: Record) -> None:
    """A visitor on `path` dragging each of its sliders across its track and releasing it (its
    live sliders found on the page: `browser_support.live_controls_shown`)."""
    with opened(browser, url + path) as page:
        live = browser_support.LIVE_SLIDERS.get(path.split("?")[0], ())
        for key, chart, rightward in [*browser_support.live_controls_shown(page, live),
                                      *(controls or [])]:
            browser_support.drag_live(page, key, chart, steps=10, step_ms=60,
                                      rightward=rightward)
            page.wait_for_selector(browser_support.IDLE_SELECTOR, timeout=VISIT_TIMEOUT_S * 1e3)
            record.counts["live drags"] += 1
        record.boxes("live drags", path, page_boxes(page))


def presenter(browser, url: str, record: Record, i: int) -> dict:
    """The audience's window and the presenter's (`presenter=1`) of one browser; a key pressed
    in the audience's moves the presenter's to the next slide."""
    number = 1 + i % (len(TOUR) - 1)
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    try:
        audience, window = context.new_page(), context.new_page()

        def at(page, slide: int) -> None:
            page.wait_for_function(
                "n => document.querySelector('.pe-tour-count')?.textContent.startsWith(n + ' ')",
                arg=slide, timeout=VISIT_TIMEOUT_S * 1e3)
            page.wait_for_selector(browser_support.IDLE_SELECTOR, timeout=VISIT_TIMEOUT_S * 1e3)

        audience.goto(f"{url}/tour?slide={number}")
        window.goto(f"{url}/tour?slide={number}&presenter=1")
        at(audience, number)
        at(window, number)
        audience.bring_to_front()
        audience.keyboard.press("ArrowRight")
        at(window, number + 1)
        for page, where in ((audience, "/tour"), (window, "/tour?presenter=1")):
            record.boxes("presenter window", where, page_boxes(page))
    finally:
        context.close()
    return {"said": "followed the audience"}


LINKS_TO_EXAMPLE_JS = """() => [...document.querySelectorAll('a')]
    .map(a => a.getAttribute('href') || a.getAttribute('xlink:href') || '')
    .filter(href => href.includes('example.'))"""


def link_names(browser, url: str, record: Record, i: int) -> dict:
    """A pasted config named with a link, each of LINK_NAMES: the links the page shows."""
    from core.rope_config import PRESETS
    from ui.rope_codes import pack_pasted

    links = []
    for name in LINK_NAMES:
        query = urllib.parse.urlencode({"view": "config", "name": name,
                                        "pasted": pack_pasted(PRESETS["mistral-7b"])})
        with opened(browser, f"{url}/rope?{query}") as page:
            links += page.evaluate(LINKS_TO_EXAMPLE_JS)
            record.boxes("config names with links", f"/rope?name={name}", page_boxes(page))
    return {"said": f"{len(links)} links to example.com shown", "links": links[:5]}


def three_d_tab(browser, url: str, record: Record, i: int) -> dict:
    rng = random.Random(f"3d-tab{i}")
    slides = (three_d_slide(" ".join(rng.choice(WORDS) for _ in range(12))),)
    query = first_slide_query(slides, encode_deck(slides))
    with opened(browser, f"{url}/tour?{query}") as page:
        scenes = page.locator(".js-plotly-plot .gl-container").count()
        record.boxes("3-D MiniLM slide on a tab", "/tour (3-D slide)", page_boxes(page))
    return {"said": "a 3-D scene drawn" if scenes else "no 3-D scene"}


RAW_MOVES: dict[str, Callable[[Plan, str, Record, int], Awaitable[dict]]] = {
    "crowd of 20 never reading, 15 max heatmaps each": crowd,
    "half-open sockets": half_open,
    "190 MB websocket frame": big_frame,
    "crafted RoPE value": crafted_rope,
    "PNG 7680 x 4320": png,
    "deck PDF": deck_pdf,
    "deck ZIP": deck_zip,
    "3-D MiniLM slide as a ZIP": three_d_zip,
    "tab closed mid-export": closed_tab,
    "thirty 3-D MiniLM slides of a long sentence": long_deck,
}
BROWSER_MOVES: dict[str, Callable] = {
    "presenter window": presenter,
    "config names with links": link_names,
    "3-D MiniLM slide on a tab": three_d_tab,
}
assert set(RAW_MOVES) | set(BROWSER_MOVES) == {m.name for m in MOVES}


class BrowserVisitor(threading.Thread):
    """Headless Chromium (Playwright's sync API, in a thread of its own): the browser moves at
    their moments, live drags round the live sliders' pages in between."""

    def __init__(self, url: str, plan: Plan, record: Record) -> None:
        super().__init__(daemon=True)
        self.url, self.plan, self.record = url, plan, record
        self.stopping = threading.Event()
        self.due = sorted((start, move.name, i) for move in MOVES if move.browser
                          for i, start in enumerate(move.starts(plan)))
        # A live slider's chart and direction are found on its view (None: live_controls_shown).
        controls: dict[str, list | None] = {
            path: None for page in browser_support.LIVE_SLIDERS
            for path in browser_support.view_paths(page)}
        for path, followed in browser_support.FOLLOWED_CONTROLS.items():
            controls[path] = (controls.get(path) or []) + followed
        self.controls = controls

    def run(self) -> None:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=browser_support.find_chromium(),
                args=browser_support.TEST_CHROMIUM_ARGS)
            paths = itertools.cycle(sorted(self.controls))
            try:
                # Live drags until the load ends; a move is taken at its moment (after the
                # drag under way), and each one due has its turn, late or not.
                while self.due or not self.stopping.is_set():
                    if self.due and (self.due[0][0] <= self.record.now()
                                     or self.stopping.is_set()):
                        _, name, i = self.due.pop(0)
                        run_move(self.record, name, i,
                                 lambda n=name, i=i: BROWSER_MOVES[n](browser, self.url,
                                                                      self.record, i))
                        continue
                    path = next(paths)
                    try:
                        live_round(browser, self.url, path, self.controls[path], self.record)
                    except Exception as error:
                        self.record.problem("live drags", path, error)
            finally:
                browser.close()


def run_move(record: Record, name: str, i: int, call: Callable[[], dict]) -> None:
    event = {"move": name, "i": i, "start_s": record.now()}
    record.events.append(event)
    try:
        event.update(call())
    except Exception as error:
        record.problem(name, f"#{i}", error)
        event["said"] = f"failed: {type(error).__name__}"
    event["end_s"] = record.now()


async def run_raw_move(record: Record, name: str, i: int, call) -> None:
    event = {"move": name, "i": i, "start_s": record.now()}
    record.events.append(event)
    try:
        event.update(await call())
    except asyncio.CancelledError:
        event["said"] = "left when the run ended"
        raise
    except Exception as error:
        record.problem(name, f"#{i}", error)
        event["said"] = f"failed: {type(error).__name__}"
    finally:
        event["end_s"] = record.now()


# --- the run -------------------------------------------------------------------------------

@contextlib.contextmanager
def as_a_host_starts_it() -> Iterator[None]:
    """No MALLOC_* settings for the server (hosts start it without the Makefile's)."""
    saved = {k: v for k, v in os.environ.items() if k.startswith("MALLOC_")}
    for name in saved:
        del os.environ[name]
    try:
        yield
    finally:
        os.environ.update(saved)


def chromium_children(pid: int) -> int:
    import psutil

    with contextlib.suppress(psutil.Error):
        return sum("chrom" in p.name() for p in psutil.Process(pid).children(recursive=True))
    return 0


async def load(url: str, plan: Plan, record: Record, at_end: Callable[[], None]) -> None:
    """The load: the continuous visitors, the moves at their moments; at the end (`at_end`
    called) no more, a grace for those under way, then every tab closed."""
    span = plan.minutes * 60
    stop = asyncio.Event()
    loops = [asyncio.create_task(visitor_loop(url, n, plan, record, stop))
             for n in range(plan.visitor_loops)]
    planned = sorted((start, move.name, i) for move in MOVES if not move.browser
                     for i, start in enumerate(move.starts(plan)))
    moves = []
    for start, name, i in planned:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), max(0.0, start - record.now()))
        moves.append(asyncio.create_task(run_raw_move(
            record, name, i, lambda n=name, i=i: RAW_MOVES[n](plan, url, record, i))))
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), max(0.0, span - record.now()))
    stop.set()
    at_end()
    record.end_s = record.now()
    await asyncio.wait(moves, timeout=plan.grace_s)
    for task in moves:
        task.cancel()
    await asyncio.gather(*moves, *loops, return_exceptions=True)  # visitors: their round done


def settle(pid: int, sampler: SeriesSampler, record: Record, closed_at: float) -> float:
    """The idle tree once every session is gone: past the session TTL after the last tab
    closed and the server's Chromium closed, the median of the last 10 samples once they stay
    within 10 MB (or 90 s later)."""
    deadline = closed_at + SESSION_TTL_S + 5
    while record.now() < deadline or chromium_children(pid):
        if record.now() > deadline + 120:
            record.problem("idle", "server", "its Chromium still running 2 minutes after")
            break
        time.sleep(1)
    settled_from = record.now()
    while True:
        time.sleep(SAMPLE_EVERY_S)
        last = [s[1] for s in sampler.samples if s[0] >= settled_from][-10:]
        if len(last) == 10 and (max(last) - min(last) < 10 or record.now() > settled_from + 90):
            return round(statistics.median(last))


def run(plan: Plan, log_path: Path | None = None) -> dict:
    RESULTS.mkdir(parents=True, exist_ok=True)
    log_path = log_path or RESULTS / f"soak-{plan.name}-server.log.tmp"
    with as_a_host_starts_it():
        server, url = browser_support.start_streamlit("serve.py", log_path)
    pid = server.pid
    try:
        record = Record()
        warm = warm_up(url, pid, record)
        probe_report("warm")
        record.t0 = time.monotonic()  # the clock starts with the load
        sampler = SeriesSampler(pid, record.t0)
        bystander = TimedBystander(url, record, plan.bystander_every_s)
        browser = BrowserVisitor(url, plan, record)
        with bystander:
            browser.start()
            try:
                run_async(load(url, plan, record, at_end=browser.stopping.set))
            finally:
                browser.stopping.set()
                browser.join(plan.grace_s + 3 * VISIT_TIMEOUT_S)  # its moves' own timeouts
                if browser.is_alive():
                    record.problem("browser", "Playwright", "still busy when the tabs closed")
        closed_at = record.now()
        idle = settle(pid, sampler, record, closed_at)
        sampler.stop()
        probe_report("idle")
    finally:
        browser_support.stop(server)
    tracebacks = our_tracebacks(log_path.read_text(errors="replace"))
    return summarise(plan, record, sampler, bystander, warm, idle, closed_at, tracebacks)


def our_tracebacks(log: str) -> int:
    """The tracebacks in a server log that pass through this project's code (a library's own
    logged-and-ignored one, as choreographer's "JSONError decoding message. Ignoring" for a
    devtools message it skips, is not the app's)."""
    blocks = log.split("Traceback (most recent call last):")[1:]
    ours = f'File "{ROOT}/'
    venv = f'File "{ROOT}/.venv/'
    return sum(any(line.strip().startswith(ours) and not line.strip().startswith(venv)
                   for line in block.splitlines()) for block in blocks)


def _stall_report(label: str) -> None:
    with contextlib.suppress(TimeoutError):  # a probe that cannot answer either: nothing
        probe_report(label)


def probe_report(label: str) -> None:
    """With PE_MEMORY_PROBE set (server/memory_probe.py): the server's own account of its
    memory now, into that folder as `<label>.json` (compare warm with idle)."""
    folder = os.environ.get("PE_MEMORY_PROBE")
    if folder:
        from benchmarks.idle_memory import probe

        probe(Path(folder), label)


def warm_up(url: str, pid: int, record: Record) -> float:
    """Every page opened once at its defaults (imports, MiniLM, the caches' first entries), as
    a host's first visitors do; then the tree's USS once it stays within 10 MB for 5 s."""
    for page in visitor_pages():
        run_async(visit(url, page.url_path, "", record, "warm-up"))
    last: list[float] = []
    for _ in range(60):
        last = [*last[-4:], tree_uss_mb(pid)[0]]
        if len(last) == 5 and max(last) - min(last) < 10:
            break
        time.sleep(SAMPLE_EVERY_S)
    return round(statistics.median(last))


# --- what it comes to ---------------------------------------------------------------------

def summarise(plan: Plan, record: Record, sampler: SeriesSampler, bystander: TimedBystander,
              warm: float, idle: float, closed_at: float, tracebacks: int) -> dict:
    samples = sampler.samples
    peak_sample = max(samples, key=lambda s: s[1])
    waits = bystander.seconds

    def while_running(start: float, end: float) -> float:
        inside = [s[1] for s in samples if start <= s[0] <= end + SAMPLE_EVERY_S]
        return round(max(inside)) if inside else 0

    moves = {}
    for move in MOVES:
        events = [e for e in record.events if e["move"] == move.name]
        seconds = sorted(e["end_s"] - e["start_s"] for e in events if "end_s" in e)
        moves[move.name] = {
            "planned": move.count(plan), "full_run": move.full, "short_run": move.short,
            "done": len(events),
            "seconds_median": round(statistics.median(seconds), 1) if seconds else None,
            "seconds_max": round(seconds[-1], 1) if seconds else None,
            "peak_while_running_mb": max((while_running(e["start_s"], e.get("end_s", closed_at))
                                          for e in events), default=0),
            "said": dict(Counter(e.get("said", "?") for e in events)),
        }
    criteria = {
        "peak": {"bound": f"<= {BUDGET_MB} MB", "measured": f"{peak_sample[1]:.0f} MB",
                 "ok": peak_sample[1] <= BUDGET_MB},
        "idle": {"bound": f"<= {IDLE_MARGIN_MB} MB above the warm start",
                 "measured": f"{idle - warm:+.0f} MB ({warm:.0f} -> {idle:.0f})",
                 "ok": idle - warm <= IDLE_MARGIN_MB},
        "error boxes": {"bound": f"{ERROR_BOXES}", "measured": str(len(record.error_boxes)),
                        "ok": len(record.error_boxes) <= ERROR_BOXES},
        "bystander": {"bound": f"<= {BYSTANDER_S:.0f} s a page",
                      "measured": f"{max(waits):.1f} s at most of {len(waits)}" if waits
                      else "no page",
                      "ok": bool(waits) and max(waits) <= BYSTANDER_S},
    }
    return {
        "plan": plan.name, "minutes": plan.minutes, "session_ttl_s": SESSION_TTL_S,
        "budget_mb": BUDGET_MB, "warm_mb": warm, "peak_mb": round(peak_sample[1]),
        "peak_at_s": peak_sample[0], "server_at_peak_mb": round(peak_sample[3]),
        "most_processes": sampler.most_processes, "load_end_s": record.end_s,
        "closed_at_s": closed_at, "idle_mb": idle, "idle_at_s": samples[-1][0],
        "bystander": {"pages": len(waits),
                      "median_s": round(statistics.median(waits), 2) if waits else None,
                      "max_s": max(waits, default=None),
                      "over": sum(w > BYSTANDER_S for w in waits)},
        "visitors": {"pages": record.counts["visitors"],
                     "by_page": {k.split(" ", 1)[1]: v for k, v in record.counts.items()
                                 if k.startswith("visitors ")}},
        "live_drags": record.counts["live drags"],
        "moves": moves,
        "error_boxes": record.error_boxes, "problems": record.problems,
        "tracebacks_in_server_log": tracebacks,
        "criteria": criteria, "passed": all(c["ok"] for c in criteria.values()),
        "events": record.events,
        "bystander_waits": list(zip(bystander.at, waits, strict=False)),
        "samples": samples,
    }


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def summary(out: dict) -> str:
    by = out["bystander"]
    run_name = ("the short run (`--short`)" if out["plan"] == "short"
                else f"{out['minutes']:g} minutes")
    lines = [
        f"`streamlit run serve.py` as a host runs it, {run_name} of a mixed crowd, the tree's "
        f"USS every second (budget {out['budget_mb']} MB): warm start {out['warm_mb']:.0f} MB, "
        f"peak {out['peak_mb']} MB at {out['peak_at_s'] / 60:.1f} min (the server "
        f"{out['server_at_peak_mb']} MB of it), idle {out['idle_mb']:.0f} MB once every tab had "
        f"closed and the session TTL ({out['session_ttl_s']} s) passed.",
        "",
        "| move | times | seconds each (median / max) | tree USS at most while it ran (MB) "
        "| what happened |",
        "|---|---|---|---|---|",
        f"| visitors on every page, new settings each | {out['visitors']['pages']} pages "
        f"| | | {len(out['visitors']['by_page'])} pages of the registry |",
        f"| live drags in Chromium (live and followed sliders) | {out['live_drags']} drags "
        "| | | |",
        f"| bystander: /heatmap?positions=&lt;new&gt; | {by['pages']} pages "
        f"| {by['median_s']} / {by['max_s']} | | {by['over']} over {BYSTANDER_S:.0f} s |",
    ]
    for name, cell in out["moves"].items():
        said = "; ".join(f"{text} ({n})" for text, n in cell["said"].items()) or "not run"
        lines.append(f"| {name} | {cell['done']} | {cell['seconds_median']} / "
                     f"{cell['seconds_max']} | {cell['peak_while_running_mb']} | {_cell(said)} |")
    lines += ["", "| criterion | bound | measured | |", "|---|---|---|---|"]
    for name, c in out["criteria"].items():
        lines.append(f"| {name} | {c['bound']} | {c['measured']} | "
                     f"{'pass' if c['ok'] else '**FAIL**'} |")
    boxes = Counter((b["move"], b["text"].split("\n")[0][:120]) for b in out["error_boxes"])
    if boxes:
        lines += ["", "Error boxes:"]
        lines += [f"- {move}: {_cell(text)} ({n})" for (move, text), n in boxes.most_common(6)]
    lines += ["", f"{len(out['problems'])} other problems (timeouts, refused connections), "
              f"{out['tracebacks_in_server_log']} tracebacks in the server's log."]
    return "\n".join(lines) + "\n"


def plot(out: dict, path: Path) -> None:
    """Memory against time (the budget, the idle bound, each move's starts marked) above the
    bystander's waits; written by kaleido with the system's Chromium."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    from export.files import find_browser

    os.environ.setdefault("BROWSER_PATH", find_browser() or "")
    minutes = [s[0] / 60 for s in out["samples"]]
    uss = [s[1] for s in out["samples"]]
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.74, 0.26],
                        vertical_spacing=0.06)
    fig.add_trace(go.Scatter(x=minutes, y=uss, name="tree USS", mode="lines",
                             line={"color": "#0072B2", "width": 1.5}), row=1, col=1)
    fig.add_trace(go.Scatter(x=minutes, y=[s[3] for s in out["samples"]], name="server alone",
                             mode="lines", line={"color": "#56B4E9", "width": 1}), row=1, col=1)
    fig.add_hline(y=out["budget_mb"], line={"color": "#D55E00", "dash": "dash"}, row=1, col=1,
                  annotation_text=f"budget {out['budget_mb']} MB",
                  annotation_position="top left")
    fig.add_hline(y=out["warm_mb"] + IDLE_MARGIN_MB, line={"color": "#009E73", "dash": "dot"},
                  row=1, col=1, annotation_text=f"idle bound (warm + {IDLE_MARGIN_MB} MB)",
                  annotation_position="bottom right")
    fig.add_vline(x=out["load_end_s"] / 60, line={"color": "grey", "dash": "dot"})
    fig.add_vline(x=out["closed_at_s"] / 60, line={"color": "grey", "dash": "dash"})
    symbols = itertools.cycle(["circle", "square", "diamond", "triangle-up", "triangle-down",
                               "x", "cross", "star", "hexagon", "pentagon", "bowtie",
                               "hourglass", "triangle-left"])
    colours = itertools.cycle(["#E69F00", "#009E73", "#CC79A7", "#D55E00", "#000000",
                               "#0072B2", "#F0E442", "#56B4E9"])
    for move in MOVES:
        starts = [e["start_s"] for e in out["events"] if e["move"] == move.name]
        if not starts:
            continue
        at = [min(out["samples"], key=lambda s, t=t: abs(s[0] - t))[1] for t in starts]
        fig.add_trace(go.Scatter(x=[t / 60 for t in starts], y=at, mode="markers",
                                 name=move.name, marker={"symbol": next(symbols), "size": 10,
                                                         "color": next(colours),
                                                         "line": {"width": 1, "color": "white"}}),
                      row=1, col=1)
    waits = out["bystander_waits"]
    fig.add_trace(go.Scatter(x=[t / 60 for t, _ in waits], y=[s for _, s in waits],
                             mode="markers", name="bystander's page", showlegend=False,
                             marker={"size": 4, "color": "#0072B2"}), row=2, col=1)
    fig.add_hline(y=BYSTANDER_S, line={"color": "#D55E00", "dash": "dash"}, row=2, col=1)
    verdict = "passed" if out["passed"] else "failed: " + ", ".join(
        name for name, c in out["criteria"].items() if not c["ok"])
    fig.update_layout(
        template="plotly_white", width=1600, height=900,
        title=f"Soak ({out['plan']}, {out['minutes']:g} min of load): peak {out['peak_mb']} MB, "
              f"idle {out['idle_mb']:.0f} MB (warm {out['warm_mb']:.0f}), bystander "
              f"{out['bystander']['max_s']} s at most, {len(out['error_boxes'])} error boxes; "
              f"{verdict}",
        legend={"orientation": "v", "x": 1.01, "y": 1, "font": {"size": 11}},
        margin={"l": 70, "r": 330, "t": 70, "b": 60})
    fig.update_yaxes(title_text="tree USS (MB)", row=1, col=1)
    fig.update_yaxes(title_text="bystander (s)", row=2, col=1)
    fig.update_xaxes(title_text="minutes since the load began (dotted: it ended; dashed: "
                                "every tab closed)", row=2, col=1)
    fig.write_image(path)


def verdicts(out: dict) -> str:
    return "\n".join(f"{'PASS' if c['ok'] else 'FAIL'}  {name}: {c['measured']} "
                     f"(bound {c['bound']})" for name, c in out["criteria"].items())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, help="of load (full: 60, short: 2); the "
                        "full run's moves scale with it")
    parser.add_argument("--short", action="store_true",
                        help="the same moves, fewer, in 2 minutes of load")
    parser.add_argument("--docs", action="store_true",
                        help="with --short: write docs/soak.png and the docs' table too")
    parser.add_argument("--no-save", action="store_true", help="print only")
    args = parser.parse_args()
    plan = SHORT if args.short else FULL
    if args.minutes:
        plan = dataclasses.replace(plan, minutes=args.minutes)
    out = run(plan)
    text = summary(out)
    print(text)
    for problem in out["problems"][:10]:
        print("  problem:", problem)
    if not args.no_save:
        stem = "soak-short" if plan.short else "soak"
        (RESULTS / f"{stem}.json").write_text(json.dumps(out, indent=1) + "\n")
        to_docs = not plan.short or args.docs
        plot(out, PLOT if to_docs else RESULTS / f"{stem}.png")
        if to_docs:
            update_docs(DOC_MARKER, text)
    print(verdicts(out))
    sys.exit(0 if out["passed"] else 1)


if __name__ == "__main__":
    main()
