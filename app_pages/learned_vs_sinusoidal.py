"""Learned vs sinusoidal: a trained position table beside the formula's. MiniLM's 512 x 384 is
built in; a visitor may bring their own (ui/table_upload.py), seen through the same lenses."""

import itertools
from dataclasses import dataclass

import numpy as np
import streamlit as st

from core import learned_tables, vit_grid
from core import learned_vs_sinusoidal as lvs
from core.minilm import ModelUnavailableError
from core.word_position import Projection, project
from export.files import TableExport
from figures.common import plot_text
from figures.learned_vs_sinusoidal import (
    add_anchor_states,
    make_dimensions_figure,
    make_extent_figure,
    make_offset_figure,
    make_similarity_figure,
    make_table_heatmap_figure,
    make_trajectory_figure,
    make_wavelength_figure,
    offset_preview_anchors,
)
from figures.vit_grid import make_tiles_figure
from locales import error_text
from server.cache import MB, bounded_cache, in_compute_slot
from ui.charts import file_stem, show_chart
from ui.controls import start_page
from ui.i18n import current_language, t
from ui.model import cached_minilm
from ui.table_upload import choose_table, held_table, show_new_tables_rows
from ui.text import explain, markdown_text

# Two heatmaps a view share one rerun's budget (see core.limits): 256 rows x all 384 columns of
# MiniLM's table (a column never mixes a sine with a cosine), 256 x 256 per similarity matrix.
# A wider table gets 512 columns (each a few neighbours, smoothed) and fewer rows, as many cells.
HEATMAP_ROWS = 256
HEATMAP_CELLS = 256 * 384
WIDE_COLS = 512
PERIODIC_DIMENSIONS = 4
MAX_OFFSET = 128  # offsets -128..128 around each anchor: wide enough to see the curves' shape
EXTENT_PAST = 256  # the extent chart runs this many positions past the table


def heatmap_shape(width: int) -> tuple[int, int]:
    """(rows, columns) of a table's heatmap: every column up to WIDE_COLS."""
    cols = min(width, WIDE_COLS)
    return min(HEATMAP_ROWS, HEATMAP_CELLS // cols), cols


@dataclass(frozen=True, eq=False)
class Source:
    """The learned table the page shows: MiniLM's or the session's upload."""

    key: str  # "minilm", or the uploaded table's digest: the caches' key
    rows: int
    width: int
    table: np.ndarray | None = None  # the uploaded table; None: MiniLM's (read from the model)
    name: str = ""  # the uploaded file (and tensor), as the visitor named it

    @property
    def uploaded(self) -> bool:
        return self.table is not None


@bounded_cache(max_entries=8, max_bytes=16 * MB, worst_case=[(2048, "minilm")])
def cached_tables(positions: int, source: str, _table: np.ndarray | None = None):
    """(learned rows 0..min(positions, n) - 1, sinusoid rows 0..positions - 1 of the same
    width), float64. `_table`: an uploaded table (`source` is its digest); None: MiniLM's."""
    table = cached_minilm().position_embeddings if _table is None else _table
    learned = table[:positions].astype("float64")
    return learned, learned_tables.sinusoid_for(learned, positions)


# Not cached: 32 MB at 2048 positions, built inside a cache miss (one compute slot) for the
# overview and range kept below, and again for a download.
def similarity_matrix(positions: int, metric: str, name: str, source: str, _table=None):
    learned, sinusoid = cached_tables(positions, source, _table)
    return lvs.full_similarity_matrix(learned if name == "learned" else sinusoid, metric)


def max_offset(table) -> int:
    """The offsets drawn around each anchor: -K..K. The same K for both tables (the sinusoid
    has at least the learned rows)."""
    return min(MAX_OFFSET, table.shape[0] - 1)


@bounded_cache(max_entries=128, max_bytes=12 * MB, worst_case=[
    (2048, "cosine", 511, name, key, "minilm") for name in ("learned", "sinusoidal")
    for key in ("summary", "table", "similarity_both", "curves", "previews", "projection",
                "norms")])
def cached_entry(positions: int, metric: str, anchor: int, name: str, key: str, source: str,
                 _table: np.ndarray | None = None):
    """One number or array about one table ("learned", "sinusoidal") or both ("both"), computed
    when a section first asks for it: a rerun computes only what the section on screen shows.
    `source`, `_table`: as `cached_tables`."""
    learned, sinusoid = cached_tables(positions, source, _table)
    table = learned if name == "learned" else sinusoid

    def entry(other: str, other_anchor: int = anchor):
        return cached_entry(positions, metric, other_anchor, name, other, source, _table)

    if key == "summary":
        return lvs.summarize_table(table, metric)
    if key == "table":
        return lvs.table_overview(table, *heatmap_shape(table.shape[1]))
    if key == "table_range":
        return lvs.symmetric_range(table)
    if key == "similarity_both":  # the (n, n) matrix built once for the four
        matrix = similarity_matrix(positions, metric, name, source, _table)
        return (lvs.table_overview(matrix, HEATMAP_ROWS, HEATMAP_ROWS),
                lvs.symmetric_range(matrix), lvs.toeplitz_deviation(matrix),
                lvs.offset_only_share(matrix))
    if key in ("similarity", "similarity_range", "toeplitz", "share"):
        # the overview, its colour range, how far from Toeplitz and the offset-only share
        return entry("similarity_both")[("similarity", "similarity_range", "toeplitz",
                                         "share").index(key)]
    if key == "curves":
        anchors = lvs.comparison_anchors(min(anchor, learned.shape[0] - 1), learned.shape[0])
        return lvs.offset_similarity_curves(table, anchors, max_offset(table), metric)
    if key == "previews":  # the offset chart's lines for a drag of its anchor (any anchor's key)
        anchors = offset_preview_anchors(learned.shape[0], 2 * max_offset(learned) + 1)
        return lvs.offset_similarity_curves(table, anchors, max_offset(table), metric)
    if key == "spread":
        return lvs.curve_spread(entry("curves"))
    if key == "projection":
        return project(table, 2, seed=0)
    if key == "norms":  # the extent: the learned table's every row, whatever the rows shown
        whole = cached_minilm().position_embeddings if _table is None else _table
        return lvs.position_norms(whole if name == "learned" else table)
    if key == "sinusoid_extent":  # runs past the learned table even when fewer rows are shown
        rows = _table.shape[0] if _table is not None else cached_minilm().max_positions
        return lvs.position_norms(learned_tables.sinusoid_for(
            learned, max(positions, rows + EXTENT_PAST)))
    if key == "periodic":
        return lvs.periodic_dimensions(learned, PERIODIC_DIMENSIONS)
    if key == "waves":
        return lvs.dominant_waves(learned)
    raise KeyError(key)


@bounded_cache(max_entries=8, max_bytes=2 * MB, worst_case=[("minilm", 16, 32, False)])
def cached_grid_tiles(source: str, grid_h: int, grid_w: int, cls_token: bool,
                      _table: np.ndarray | None = None):
    """The ViT paper's similarity tiles of the whole table, its rows read as the grid."""
    table = cached_minilm().position_embeddings if _table is None else _table
    return vit_grid.table_similarity_tiles(table, grid_h, grid_w)


def grid_code(shape: tuple[int, int, bool]) -> str:
    """A grid as the link writes it: "14x14+cls", "16x32"."""
    grid_h, grid_w, cls_token = shape
    return f"{grid_h}x{grid_w}" + ("+cls" if cls_token else "")


class Analysis:
    """`analysis["learned"]["table"]`, `analysis["periodic"]`: each entry computed (and cached)
    the first time a section reads it."""

    def __init__(self, positions: int, metric: str, anchor: int, source: Source,
                 name: str = "both") -> None:
        self.args = (positions, metric, anchor)
        self.source = source
        self.name = name

    def __getitem__(self, key: str):
        if key in ("learned", "sinusoidal"):
            return Analysis(*self.args, self.source, name=key)
        return cached_entry(*self.args, self.name, key, self.source.key, self.source.table)


lang = current_language()
controls = start_page("learned-vs-sinusoidal")
view = controls.current("view")
# A page-wide change reruns the numbers and the view shown alone (not the sidebar, the title,
# the intro or the link).
NUMBERS = "learned-vs-sinusoidal/numbers"
drawings = (NUMBERS, f"learned-vs-sinusoidal/{view}")
show_new_tables_rows("positions", controls.params["positions"].maximum)
with st.sidebar:  # page-wide: the numbers above every view read both
    # Not in the grid view: its tiles read every row of the table, whatever is shown.
    with controls.shown(view != "grid", "positions"):
        controls.stops("positions", redraws=drawings)
    # Shown in the views it changes: the tables, their path in space and their extent are the
    # same whatever the similarity (the numbers above read it all the same).
    with controls.shown(view in ("similarity", "offset")):
        controls.choice("metric", redraws=drawings)


def metric_name(metric: str) -> str:
    """The metric as the text says it ("cosine" / "dot" are the URL's values)."""
    return {
        "cosine": t("learned-vs-sinusoidal.metric_cosine"),
        "dot": t("learned-vs-sinusoidal.metric_dot"),
    }[metric]


explain(t("learned-vs-sinusoidal.intro_yours") if controls.current("source") == "upload"
        else t("learned-vs-sinusoidal.intro"))
if choose_table(controls) is None:  # MiniLM's: the source control, or the upload and its notices
    try:  # its rows, not the model: this module outlives the run (see app_pages/order.py)
        MINILM_ROWS = cached_minilm().max_positions
    except ModelUnavailableError as error:
        st.error(markdown_text(error_text(error, lang, "minilm")), icon=":material/error:")
        st.info(t("learned-vs-sinusoidal.other_pages_work"), icon=":material/info:")
        controls.stop()

# The offset view's anchor is its own control (in its row): the page's other numbers are read
# at the anchor's default, the key the cache has for them whatever the anchor shown.
ANCHOR = controls.params["anchor"].default


def current_source() -> Source:
    """The table chosen, read in the run of the part that draws it (as `page_wide`)."""
    held = held_table() if controls.current("source") == "upload" else None
    if held is None:
        return Source("minilm", cached_minilm().max_positions, cached_minilm().hidden_size)
    return Source(held.digest, *held.table.shape, table=held.table, name=held.label)


def page_wide() -> tuple[int, str, int, Analysis]:
    """positions, metric, the learned table's rows shown and the analysis of both tables, read
    in the run of the part that draws them (a fragment rerun alone sees this module's variables
    of an older run)."""
    positions, metric = controls.values("positions", "metric")
    source = current_source()
    return (positions, metric, min(positions, source.rows),
            Analysis(positions, metric, ANCHOR, source))


def built_in(positions: int, metric: str, source: Source) -> Analysis | None:
    """MiniLM's learned table, shown for comparison beside an uploaded one (a model's table to
    read yours against); None when MiniLM's is the one shown, or the model cannot be read."""
    if not source.uploaded:
        return None
    try:
        minilm = Source("minilm", cached_minilm().max_positions, cached_minilm().hidden_size)
    except ModelUnavailableError:
        return None
    return Analysis(positions, metric, ANCHOR, minilm)["learned"]


def learned_title(source: Source, minilm: str, yours: str) -> str:
    """A learned panel's title: MiniLM's, or the uploaded file's (`yours`, its name already
    filled in by the caller through `plot_text` or `markdown_text`)."""
    return yours if source.uploaded else minilm


def stem(source: Source) -> str:
    """A download's name part for the learned table (never the visitor's file name)."""
    return "upload" if source.uploaded else "minilm"


# --- the numbers ---------------------------------------------------------------------------------
@st.fragment(key=NUMBERS)
def numbers_section() -> None:
    positions, metric, _, analysis = page_wide()
    source = analysis.source
    learned, sinusoid = analysis["learned"], analysis["sinusoidal"]
    if positions > source.rows:
        st.info(
            t("learned-vs-sinusoidal.past_learned_rows", positions=positions,
              last=source.rows - 1),
            icon=":material/info:",
        )
    st.subheader(t("learned-vs-sinusoidal.numbers"))
    rows = learned["summary"].rows
    parts = [
        (learned_title(
            source, t("learned-vs-sinusoidal.numbers_learned", rows=rows),
            t("learned-vs-sinusoidal.numbers_yours", name=markdown_text(source.name),
              rows=rows)), learned),
        (t("learned-vs-sinusoidal.numbers_sinusoidal", rows=sinusoid["summary"].rows),
         sinusoid),
    ]
    for column, (heading, part) in zip(st.columns(2, gap="large"), parts, strict=True):
        summary = part["summary"]
        with column:
            st.markdown(heading)
            c1, c2, c3 = st.columns(3)
            c1.metric("|P₀|", f"{summary.first_norm:.4f}")
            c2.metric(t("learned-vs-sinusoidal.rest_norm"), f"{summary.rest_norm:.4f}")
            c3.metric(t("learned-vs-sinusoidal.neighbour_mean", metric=metric_name(metric)),
                      f"{summary.neighbour_mean:.4f}")
    values = {"norm": sinusoid["summary"].rest_norm,
              "ratio": learned["summary"].first_norm / learned["summary"].rest_norm}
    explain(learned_title(source, t("learned-vs-sinusoidal.numbers_text", **values),
                          t("learned-vs-sinusoidal.numbers_text_yours", **values)))
    if (minilm := built_in(positions, metric, source)) is not None:  # for comparison, a line
        summary = minilm["summary"]
        explain(t("learned-vs-sinusoidal.numbers_minilm", rows=summary.rows,
                  first=summary.first_norm, rest=summary.rest_norm,
                  neighbour=summary.neighbour_mean, metric=metric_name(metric)), caption=True)


numbers_section()


# --- the tables ----------------------------------------------------------------------------------
@st.fragment(key="learned-vs-sinusoidal/tables")
def tables_section() -> None:
    """The two tables as heatmaps."""
    positions, _, learned_rows, analysis = page_wide()
    source = analysis.source
    learned, sinusoid = analysis["learned"], analysis["sinusoidal"]
    st.subheader(t("learned-vs-sinusoidal.tables"))
    left, right = st.columns(2, gap="large")
    with left:
        show_chart(
            make_table_heatmap_figure(
                learned["table"], zmax=learned["table_range"],
                title=learned_title(source, t("learned-vs-sinusoidal.table_learned"),
                                    t("learned-vs-sinusoidal.table_yours",
                                      name=plot_text(source.name))),
                lang=lang,
            ),
            key="learned_table_chart",
            name=file_stem("learned-table", stem(source), f"pos{learned_rows}"),
            table=TableExport(learned["table"], (learned_rows, source.width),
                              lambda: cached_tables(positions, source.key, source.table)[0]),
        )
    with right:
        show_chart(
            make_table_heatmap_figure(
                sinusoid["table"], zmax=sinusoid["table_range"],
                title=t("learned-vs-sinusoidal.table_sinusoidal"), lang=lang,
            ),
            key="sinusoid_table_chart",
            name=file_stem("sinusoid-table", f"d{source.width}", f"pos{positions}",
                           "interleaved"),
            table=TableExport(sinusoid["table"], (positions, source.width),
                              lambda: cached_tables(positions, source.key, source.table)[1]),
        )
    explain(
        t("learned-vs-sinusoidal.tables_caption", learned=learned["table_range"],
          sinusoid=sinusoid["table_range"]),
        caption=True,
    )


# --- similarity ----------------------------------------------------------------------------------
@st.fragment(key="learned-vs-sinusoidal/similarity")
def similarity_section() -> None:
    """Similarity between every pair of positions: Toeplitz or not, and how much of it the
    offset alone explains."""
    positions, metric, learned_rows, analysis = page_wide()
    source = analysis.source
    learned, sinusoid = analysis["learned"], analysis["sinusoidal"]
    st.subheader({
        "cosine": t("learned-vs-sinusoidal.similarity_cosine"),
        "dot": t("learned-vs-sinusoidal.similarity_dot"),
    }[metric])
    panels = [
        (learned_title(
            source, t("learned-vs-sinusoidal.similarity_learned", metric=metric_name(metric)),
            t("learned-vs-sinusoidal.similarity_yours", name=plot_text(source.name),
              metric=metric_name(metric))), learned,
         "learned_similarity_chart",
         file_stem("learned-similarity", stem(source), f"pos{learned_rows}", metric), "learned",
         learned_rows, source),
        (t("learned-vs-sinusoidal.similarity_sinusoidal", metric=metric_name(metric)),
         sinusoid,
         "sinusoid_similarity_chart",
         file_stem("sinusoid-similarity", f"d{source.width}", f"pos{positions}", metric),
         "sinusoidal", positions, source),
    ]
    minilm = built_in(positions, metric, source)
    if minilm is not None:  # a model's table to read yours against
        panels.append((
            t("learned-vs-sinusoidal.similarity_minilm", metric=metric_name(metric)), minilm,
            "minilm_similarity_chart",
            file_stem("learned-similarity", "minilm", f"pos{minilm['summary'].rows}", metric),
            "learned", minilm["summary"].rows, minilm.source))

    def draw(panel) -> None:
        title, part, key, name, which, rows, table = panel
        show_chart(
            make_similarity_figure(
                part["similarity"], metric=metric, zmax=part["similarity_range"],
                title=title, lang=lang,
            ),
            key=key,
            name=name,
            table=TableExport(part["similarity"], (rows, rows),
                              in_compute_slot(similarity_matrix, positions, metric, which,
                                              table.key, table.table),
                              row_name="position i", col_name="position j"),
        )

    # Two a row: a square matrix, its colour bar and its overview note need half the page.
    for column, panel in zip(st.columns(2, gap="large"), panels[:2], strict=True):
        with column:
            draw(panel)
    explain(
        t("learned-vs-sinusoidal.similarity_text",
          learned=learned["toeplitz"], sinusoid=sinusoid["toeplitz"])
    )
    explain(
        t("learned-vs-sinusoidal.share_text", learned=learned["share"],
          sinusoid=sinusoid["share"])
    )
    if minilm is not None:  # below, for comparison: the matrix and its share side by side
        chart, words = st.columns(2, gap="large")
        with chart:
            draw(panels[2])
        with words:
            explain(t("learned-vs-sinusoidal.share_minilm", share=minilm["share"],
                      rows=minilm["summary"].rows, yours=learned["share"]))


# --- against offset ------------------------------------------------------------------------------
@st.fragment(key="learned-vs-sinusoidal/offset")
def offset_section() -> None:
    """Similarity against the offset, for several anchors; the anchor is the view's own
    control, above its chart (a change reruns this view alone)."""
    positions, metric, learned_rows, analysis = page_wide()
    source = analysis.source
    st.subheader(t("learned-vs-sinusoidal.offset"))
    (anchor_column,) = controls.view_row(1)
    with anchor_column:
        anchor = controls.slider("anchor", maximum=source.rows - 1)
    if anchor >= learned_rows:
        st.info(
            t("learned-vs-sinusoidal.anchor_clamped", anchor=anchor, rows=learned_rows,
              last=learned_rows - 1),
            icon=":material/info:",
        )
        anchor = learned_rows - 1
    chosen = Analysis(positions, metric, anchor, source)
    learned, sinusoid = chosen["learned"], chosen["sinusoidal"]
    # The anchors every view of this table shows (those of anchor 0), and the chosen one's line
    # apart: the chart moves that line while the slider is dragged, before the release.
    fixed = Analysis(positions, metric, 0, source)
    names = ("learned", "sinusoidal")
    curves = {name: fixed[name]["curves"] for name in names}
    lines = {name: chosen[name]["curves"][anchor] for name in names}
    previews = {name: {**fixed[name]["previews"], anchor: lines[name]} for name in names}
    fig = make_offset_figure(curves, metric=metric, chosen=(anchor, lines), lang=lang)
    show_chart(
        add_anchor_states(fig, curves, previews, metric=metric, lang=lang),
        key="offset_chart",
        name=file_stem("learned-offset", stem(source), f"pos{positions}", metric,
                       f"anchor{anchor}"),
    )
    previewed = sorted(fixed["learned"]["previews"])
    if len(previewed) < learned_rows:  # a drag shows the nearest of these; the release, exact
        explain(t("learned-vs-sinusoidal.anchor_preview_step",
                  step=max(b - a for a, b in itertools.pairwise(previewed))), caption=True)
    explain(
        t("learned-vs-sinusoidal.offset_text",
          anchors=", ".join(str(a) for a in learned["curves"]),
          sinusoid=sinusoid["spread"], learned=learned["spread"])
    )


# --- trajectory, and the dimensions that ripple --------------------------------------------------
def axis_titles(projection: Projection) -> tuple[str, ...]:
    """The projection's axes as the page says them: "PC1 (31.2% of variance)"."""
    if projection.method == "raw":
        return tuple(t("learned-vs-sinusoidal.raw_axis", number=i)
                     for i in range(projection.coordinates.shape[1]))
    return tuple(t("learned-vs-sinusoidal.pc_axis", number=i + 1, ratio=ratio)
                 for i, ratio in enumerate(projection.explained_variance_ratio))


@st.fragment(key="learned-vs-sinusoidal/space")
def space_section() -> None:
    """The PCA path of the positions; the learned dimensions that ripple."""
    positions, _, learned_rows, analysis = page_wide()
    source = analysis.source
    learned, sinusoid = analysis["learned"], analysis["sinusoidal"]
    st.subheader(t("learned-vs-sinusoidal.space"))
    show_chart(
        make_trajectory_figure({
            "learned": (learned["projection"].coordinates, axis_titles(learned["projection"])),
            "sinusoidal": (sinusoid["projection"].coordinates,
                           axis_titles(sinusoid["projection"])),
        }, lang=lang),
        key="trajectory_chart",
        name=file_stem("learned-trajectory", stem(source), "pca", f"pos{positions}"),
    )
    explain(t("word-position.variance_help"), caption=True)  # what "% of variance" means
    learned_table, _ = cached_tables(positions, source.key, source.table)
    periodic, waves = analysis["periodic"], analysis["waves"]
    if learned_rows < 16:
        st.caption(t("learned-vs-sinusoidal.too_few_for_waves"))
    else:
        show_chart(
            make_dimensions_figure(
                learned_table, periodic,
                title=t("learned-vs-sinusoidal.dimensions_title", count=PERIODIC_DIMENSIONS),
                lang=lang,
            ),
            key="dimensions_chart",
            name=file_stem("learned-dimensions", stem(source), f"pos{learned_rows}",
                           "dims" + "-".join(str(d) for d in periodic)),
        )
        explain(
            t("learned-vs-sinusoidal.waves_text", waves=t("learned-vs-sinusoidal.waves_separator")
              .join(t("learned-vs-sinusoidal.wave", dim=d, share=waves.share[d],
                      period=waves.period[d]) for d in periodic))
        )


# --- which wavelengths ---------------------------------------------------------------------------
@st.fragment(key="learned-vs-sinusoidal/wavelengths")
def wavelengths_section() -> None:
    """Each dimension's dominant wavelength against the sinusoid's geometric ladder."""
    _, _, learned_rows, analysis = page_wide()
    source = analysis.source
    st.subheader(t("learned-vs-sinusoidal.wavelengths"))
    if learned_rows < 16:
        st.caption(t("learned-vs-sinusoidal.too_few_for_waves"))
        return
    waves = analysis["waves"]
    show_chart(
        make_wavelength_figure(
            waves.period, waves.share, learned_tables.sinusoid_ladder(source.width),
            samples=waves.samples, lang=lang,
        ),
        key="wavelength_chart",
        name=file_stem("learned-wavelengths", stem(source), f"pos{learned_rows}"),
    )
    one_wave = int(np.sum(waves.share >= 0.5))
    explain(
        t("learned-vs-sinusoidal.wavelengths_text", last=learned_rows - 1, bins=waves.samples,
          half=waves.samples / 2, count=one_wave, width=source.width)
    )


# --- a ViT's grid --------------------------------------------------------------------------------
@st.fragment(key="learned-vs-sinusoidal/grid")
def grid_section() -> None:
    """The table's rows as a ViT's patches (the visitor confirms the grid): the similarity
    tiles of the 2-D grids page."""
    _, _, _, analysis = page_wide()
    source = analysis.source
    st.subheader(t("learned-vs-sinusoidal.grid"))
    shapes = vit_grid.grid_shapes(source.rows)
    if not shapes:
        st.info(t("learned-vs-sinusoidal.no_grid", rows=source.rows), icon=":material/info:")
        return
    codes = [grid_code(shape) for shape in shapes]
    wanted = controls.current("grid")
    (column,) = controls.view_row(1)
    with column:
        code = st.selectbox(
            t("learned-vs-sinusoidal.grid_shape"), codes,
            index=codes.index(wanted) if wanted in codes else 0,
            format_func=lambda c: t("learned-vs-sinusoidal.grid_cls",
                                    grid=c.removesuffix("+cls").replace("x", " x "))
            if c.endswith("+cls") else c.replace("x", " x "),
            key=f"grid_shape_{source.key[:16]}",
            help=t("learned-vs-sinusoidal.grid_shape_help", rows=source.rows),
        )
    controls.carry("grid", code)
    grid_h, grid_w, cls_token = shapes[codes.index(code)]
    show_chart(
        make_tiles_figure(cached_grid_tiles(source.key, grid_h, grid_w, cls_token, source.table),
                          lang=lang),
        key="grid_tiles_chart",
        name=file_stem("learned-grid-tiles", stem(source), code.replace("+", "-")),
    )
    explain(t("learned-vs-sinusoidal.grid_text", grid_h=grid_h, grid_w=grid_w))


# --- extrapolation -------------------------------------------------------------------------------
@st.fragment(key="learned-vs-sinusoidal/extent")
def extent_section() -> None:
    """Where each table stops."""
    positions, _, _, analysis = page_wide()
    source = analysis.source
    learned = analysis["learned"]
    st.subheader(t("learned-vs-sinusoidal.extent"))
    show_chart(
        make_extent_figure(
            learned["norms"], analysis["sinusoid_extent"], learned_rows=source.rows,
            lang=lang,
        ),
        key="extent_chart",
        name=file_stem("learned-extent", stem(source), f"pos{positions}"),
    )
    explain(
        t("learned-vs-sinusoidal.extent_text", last=source.rows - 1,
          rows=source.rows, shown=len(analysis["sinusoid_extent"]) - 1)
    )


# One section at a time (in the URL as `view`): a change redraws only what is on screen.
controls.sections(
    {
        "tables": tables_section,
        "similarity": similarity_section,
        "offset": offset_section,
        "space": space_section,
        "wavelengths": wavelengths_section,
        "grid": grid_section,
        "extent": extent_section,
    },
)
