"""Learned vs sinusoidal: MiniLM's trained 512 x 384 position table beside the formula's."""

import itertools

import streamlit as st

import core
from core import learned_vs_sinusoidal as lvs
from core.minilm import ModelUnavailableError
from core.word_position import MINILM_WIDTH, Projection, project
from export.files import TableExport
from figures.learned_vs_sinusoidal import (
    add_anchor_states,
    make_dimensions_figure,
    make_extent_figure,
    make_offset_figure,
    make_similarity_figure,
    make_table_heatmap_figure,
    make_trajectory_figure,
    offset_preview_anchors,
)
from locales import error_text
from server.cache import MB, bounded_cache, in_compute_slot
from ui.charts import file_stem, show_chart
from ui.controls import start_page
from ui.i18n import current_language, t
from ui.model import cached_minilm
from ui.text import explain, markdown_text

D_MODEL = MINILM_WIDTH  # 384; the sinusoid is built at the same width to compare like with like
# Two heatmaps a view share one rerun's budget (see core.limits): 256 rows x all 384 columns per
# table (a column never mixes a sine with a cosine), 256 x 256 per similarity matrix.
HEATMAP_ROWS = 256
HEATMAP_COLS = D_MODEL
PERIODIC_DIMENSIONS = 4
MAX_OFFSET = 128  # offsets -128..128 around each anchor: wide enough to see the curves' shape
EXTENT_POSITIONS = 768  # the extent chart shows at least this far: 256 positions past the table


@bounded_cache(max_entries=8, max_bytes=16 * MB, worst_case=[(2048,)])
def cached_tables(positions: int):
    """(learned rows 0..min(positions, 512) - 1, sinusoid rows 0..positions - 1), float64."""
    learned = cached_minilm().position_embeddings[:positions].astype("float64")
    return learned, core.sinusoidal_encoding(positions, D_MODEL, dtype="float64")


# Not cached: 32 MB at 2048 positions, built inside a cache miss (one compute slot) for the
# overview and range kept below, and again for a download.
def similarity_matrix(positions: int, metric: str, name: str):
    learned, sinusoid = cached_tables(positions)
    return lvs.full_similarity_matrix(learned if name == "learned" else sinusoid, metric)


def max_offset(table) -> int:
    """The offsets drawn around each anchor: -K..K. The same K for both tables (the sinusoid
    has at least the learned rows, and MAX_OFFSET is below the 512 of MiniLM)."""
    return min(MAX_OFFSET, table.shape[0] - 1)


@bounded_cache(max_entries=128, max_bytes=12 * MB, worst_case=[
    (2048, "cosine", 511, name, key) for name in ("learned", "sinusoidal")
    for key in ("summary", "table", "similarity_both", "curves", "previews", "projection",
                "norms")])
def cached_entry(positions: int, metric: str, anchor: int, name: str, key: str):
    """One number or array about one table ("learned", "sinusoidal") or both ("both"), computed
    when a section first asks for it: a rerun computes only what the section on screen shows."""
    learned, sinusoid = cached_tables(positions)
    table = learned if name == "learned" else sinusoid
    if key == "summary":
        return lvs.summarize_table(table, metric)
    if key == "table":
        return lvs.table_overview(table, HEATMAP_ROWS, HEATMAP_COLS)
    if key == "table_range":
        return lvs.symmetric_range(table)
    if key == "similarity_both":  # the (n, n) matrix built once for the three
        matrix = similarity_matrix(positions, metric, name)
        return (lvs.table_overview(matrix, HEATMAP_ROWS, HEATMAP_ROWS),
                lvs.symmetric_range(matrix), lvs.toeplitz_deviation(matrix))
    if key == "similarity":
        return cached_entry(positions, metric, anchor, name, "similarity_both")[0]
    if key == "similarity_range":
        return cached_entry(positions, metric, anchor, name, "similarity_both")[1]
    if key == "toeplitz":  # how far from Toeplitz: the similarity view's text
        return cached_entry(positions, metric, anchor, name, "similarity_both")[2]
    if key == "curves":
        anchors = lvs.comparison_anchors(min(anchor, learned.shape[0] - 1), learned.shape[0])
        return lvs.offset_similarity_curves(table, anchors, max_offset(table), metric)
    if key == "previews":  # the offset chart's lines for a drag of its anchor (any anchor's key)
        anchors = offset_preview_anchors(learned.shape[0], 2 * max_offset(learned) + 1)
        return lvs.offset_similarity_curves(table, anchors, max_offset(table), metric)
    if key == "spread":
        return lvs.curve_spread(cached_entry(positions, metric, anchor, name, "curves"))
    if key == "projection":
        return project(table, 2, seed=0)
    if key == "norms":
        return lvs.position_norms(table)
    if key == "sinusoid_extent":  # runs past the learned table even when fewer rows are shown
        return lvs.position_norms(
            core.sinusoidal_encoding(max(positions, EXTENT_POSITIONS), D_MODEL, dtype="float64")
        )
    if key == "periodic":
        return lvs.periodic_dimensions(learned, PERIODIC_DIMENSIONS)
    if key == "waves":
        return lvs.dominant_waves(learned)
    raise KeyError(key)


class Analysis:
    """`analysis["learned"]["table"]`, `analysis["periodic"]`: each entry computed (and cached)
    the first time a section reads it."""

    def __init__(self, positions: int, metric: str, anchor: int, name: str = "both") -> None:
        self.args = (positions, metric, anchor)
        self.name = name

    def __getitem__(self, key: str):
        if key in ("learned", "sinusoidal"):
            return Analysis(*self.args, name=key)
        return cached_entry(*self.args, self.name, key)


lang = current_language()
controls = start_page("learned-vs-sinusoidal")
view = controls.current("view")
# A page-wide change reruns the numbers and the view shown alone (not the sidebar, the title,
# the intro or the link).
NUMBERS = "learned-vs-sinusoidal/numbers"
drawings = (NUMBERS, f"learned-vs-sinusoidal/{view}")
with st.sidebar:  # page-wide: the numbers above every view read both
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


explain(t("learned-vs-sinusoidal.intro"))
try:  # its rows, not the model: this module outlives the run (see app_pages/order.py)
    LEARNED_ROWS = cached_minilm().max_positions
except ModelUnavailableError as error:
    st.error(markdown_text(error_text(error, lang, "minilm")), icon=":material/error:")
    st.info(t("learned-vs-sinusoidal.other_pages_work"), icon=":material/info:")
    controls.stop()

# The offset view's anchor is its own control (in its row): the page's other numbers are read
# at the anchor's default, the key the cache has for them whatever the anchor shown.
ANCHOR = controls.params["anchor"].default


def page_wide() -> tuple[int, str, int, Analysis]:
    """positions, metric, the learned table's rows shown and the analysis of both tables, read
    in the run of the part that draws them (a fragment rerun alone sees this module's variables
    of an older run)."""
    positions, metric = controls.values("positions", "metric")
    return (positions, metric, min(positions, LEARNED_ROWS),
            Analysis(positions, metric, ANCHOR))


# --- the numbers ---------------------------------------------------------------------------------
@st.fragment(key=NUMBERS)
def numbers_section() -> None:
    positions, metric, _, analysis = page_wide()
    learned, sinusoid = analysis["learned"], analysis["sinusoidal"]
    if positions > LEARNED_ROWS:
        st.info(
            t("learned-vs-sinusoidal.past_learned_rows", positions=positions,
              last=LEARNED_ROWS - 1),
            icon=":material/info:",
        )
    st.subheader(t("learned-vs-sinusoidal.numbers"))
    left, right = st.columns(2, gap="large")
    for column, heading, part in (
        (left, t("learned-vs-sinusoidal.numbers_learned", rows=learned["summary"].rows),
         learned),
        (right, t("learned-vs-sinusoidal.numbers_sinusoidal", rows=sinusoid["summary"].rows),
         sinusoid),
    ):
        summary = part["summary"]
        with column:
            st.markdown(heading)
            c1, c2, c3 = st.columns(3)
            c1.metric("|P₀|", f"{summary.first_norm:.4f}")
            c2.metric(t("learned-vs-sinusoidal.rest_norm"), f"{summary.rest_norm:.4f}")
            c3.metric(t("learned-vs-sinusoidal.neighbour_mean", metric=metric_name(metric)),
                      f"{summary.neighbour_mean:.4f}")
    explain(
        t("learned-vs-sinusoidal.numbers_text", norm=sinusoid["summary"].rest_norm,
          ratio=learned["summary"].first_norm / learned["summary"].rest_norm)
    )


numbers_section()


# --- the tables ----------------------------------------------------------------------------------
@st.fragment(key="learned-vs-sinusoidal/tables")
def tables_section() -> None:
    """The two tables as heatmaps."""
    positions, _, learned_rows, analysis = page_wide()
    learned, sinusoid = analysis["learned"], analysis["sinusoidal"]
    st.subheader(t("learned-vs-sinusoidal.tables"))
    left, right = st.columns(2, gap="large")
    with left:
        show_chart(
            make_table_heatmap_figure(
                learned["table"], zmax=learned["table_range"],
                title=t("learned-vs-sinusoidal.table_learned"), lang=lang,
            ),
            key="learned_table_chart",
            name=file_stem("learned-table", "minilm", f"pos{learned_rows}"),
            table=TableExport(learned["table"], (learned_rows, D_MODEL),
                              lambda: cached_tables(positions)[0]),
        )
    with right:
        show_chart(
            make_table_heatmap_figure(
                sinusoid["table"], zmax=sinusoid["table_range"],
                title=t("learned-vs-sinusoidal.table_sinusoidal"), lang=lang,
            ),
            key="sinusoid_table_chart",
            name=file_stem("sinusoid-table", f"d{D_MODEL}", f"pos{positions}", "interleaved"),
            table=TableExport(sinusoid["table"], (positions, D_MODEL),
                              lambda: cached_tables(positions)[1]),
        )
    explain(
        t("learned-vs-sinusoidal.tables_caption", learned=learned["table_range"],
          sinusoid=sinusoid["table_range"]),
        caption=True,
    )


# --- similarity ----------------------------------------------------------------------------------
@st.fragment(key="learned-vs-sinusoidal/similarity")
def similarity_section() -> None:
    """Similarity between every pair of positions: Toeplitz or not."""
    positions, metric, learned_rows, analysis = page_wide()
    learned, sinusoid = analysis["learned"], analysis["sinusoidal"]
    st.subheader({
        "cosine": t("learned-vs-sinusoidal.similarity_cosine"),
        "dot": t("learned-vs-sinusoidal.similarity_dot"),
    }[metric])
    left, right = st.columns(2, gap="large")
    panels = (
        (left, t("learned-vs-sinusoidal.similarity_learned", metric=metric_name(metric)), learned,
         "learned_similarity_chart",
         file_stem("learned-similarity", "minilm", f"pos{learned_rows}", metric), "learned",
         learned_rows),
        (right, t("learned-vs-sinusoidal.similarity_sinusoidal", metric=metric_name(metric)),
         sinusoid,
         "sinusoid_similarity_chart",
         file_stem("sinusoid-similarity", f"d{D_MODEL}", f"pos{positions}", metric),
         "sinusoidal", positions),
    )
    for column, title, part, key, name, which, rows in panels:
        with column:
            show_chart(
                make_similarity_figure(
                    part["similarity"], metric=metric, zmax=part["similarity_range"],
                    title=title, lang=lang,
                ),
                key=key,
                name=name,
                table=TableExport(part["similarity"], (rows, rows),
                                  in_compute_slot(similarity_matrix, positions, metric, which),
                                  row_name="position i", col_name="position j"),
            )
    explain(
        t("learned-vs-sinusoidal.similarity_text",
          learned=learned["toeplitz"], sinusoid=sinusoid["toeplitz"])
    )


# --- against offset ------------------------------------------------------------------------------
@st.fragment(key="learned-vs-sinusoidal/offset")
def offset_section() -> None:
    """Similarity against the offset, for several anchors; the anchor is the view's own
    control, above its chart (a change reruns this view alone)."""
    positions, metric, learned_rows, _ = page_wide()
    st.subheader(t("learned-vs-sinusoidal.offset"))
    (anchor_column,) = controls.view_row(1)
    with anchor_column:
        anchor = controls.slider("anchor")
    if anchor >= learned_rows:
        st.info(
            t("learned-vs-sinusoidal.anchor_clamped", anchor=anchor, rows=learned_rows,
              last=learned_rows - 1),
            icon=":material/info:",
        )
        anchor = learned_rows - 1
    chosen = Analysis(positions, metric, anchor)
    learned, sinusoid = chosen["learned"], chosen["sinusoidal"]
    # The anchors every view of this table shows (those of anchor 0), and the chosen one's line
    # apart: the chart moves that line while the slider is dragged, before the release.
    fixed = Analysis(positions, metric, 0)
    names = ("learned", "sinusoidal")
    curves = {name: fixed[name]["curves"] for name in names}
    lines = {name: chosen[name]["curves"][anchor] for name in names}
    previews = {name: {**fixed[name]["previews"], anchor: lines[name]} for name in names}
    fig = make_offset_figure(curves, metric=metric, chosen=(anchor, lines), lang=lang)
    show_chart(
        add_anchor_states(fig, curves, previews, metric=metric, lang=lang),
        key="offset_chart",
        name=file_stem("learned-offset", f"pos{positions}", metric, f"anchor{anchor}"),
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
    learned, sinusoid = analysis["learned"], analysis["sinusoidal"]
    st.subheader(t("learned-vs-sinusoidal.space"))
    show_chart(
        make_trajectory_figure({
            "learned": (learned["projection"].coordinates, axis_titles(learned["projection"])),
            "sinusoidal": (sinusoid["projection"].coordinates,
                           axis_titles(sinusoid["projection"])),
        }, lang=lang),
        key="trajectory_chart",
        name=file_stem("learned-trajectory", "pca", f"pos{positions}"),
    )
    learned_table, _ = cached_tables(positions)
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
            name=file_stem("learned-dimensions", "minilm", f"pos{learned_rows}",
                           "dims" + "-".join(str(d) for d in periodic)),
        )
        explain(
            t("learned-vs-sinusoidal.waves_text", waves=t("learned-vs-sinusoidal.waves_separator")
              .join(t("learned-vs-sinusoidal.wave", dim=d, share=waves.share[d],
                      period=waves.period[d]) for d in periodic))
        )


# --- extrapolation -------------------------------------------------------------------------------
@st.fragment(key="learned-vs-sinusoidal/extent")
def extent_section() -> None:
    """Where each table stops."""
    positions, _, _, analysis = page_wide()
    learned = analysis["learned"]
    st.subheader(t("learned-vs-sinusoidal.extent"))
    show_chart(
        make_extent_figure(
            learned["norms"], analysis["sinusoid_extent"], learned_rows=LEARNED_ROWS,
            lang=lang,
        ),
        key="extent_chart",
        name=file_stem("learned-extent", f"pos{positions}"),
    )
    explain(
        t("learned-vs-sinusoidal.extent_text", last=LEARNED_ROWS - 1,
          rows=LEARNED_ROWS, shown=len(analysis["sinusoid_extent"]) - 1)
    )


# One section at a time (in the URL as `view`): a change redraws only what is on screen.
controls.sections(
    {
        "tables": tables_section,
        "similarity": similarity_section,
        "offset": offset_section,
        "space": space_section,
        "extent": extent_section,
    },
)
