"""Learned vs sinusoidal: MiniLM's trained 512 x 384 position table beside the formula's."""

import streamlit as st

import core
from core import word_position as wp
from core.figures.learned import (
    make_dimensions_figure,
    make_extent_figure,
    make_offset_figure,
    make_similarity_figure,
    make_table_heatmap_figure,
    make_trajectory_figure,
)
from core.minilm import ModelUnavailableError
from core.page_params import PAGE_PARAMS
from ui.controls import PageControls
from ui.model import cached_minilm
from ui.text import escape_markdown

# Four heatmaps share one rerun's budget (see core.limits): 256 x 192 cells per table and
# 256 x 256 per similarity matrix are ~0.9 MB of float32 together.
HEATMAP_ROWS = 256
HEATMAP_COLS = 192
D_MODEL = 384  # MiniLM's width; the sinusoid is built at the same width to compare like with like
PERIODIC_DIMENSIONS = 4
MAX_OFFSET = 128  # offsets -128..128 around each anchor: wide enough to see the curves' shape
EXTENT_POSITIONS = 768  # the extent chart shows at least this far: 256 positions past the table


@st.cache_data(max_entries=8, show_spinner=False)
def cached_tables(positions: int):
    """(learned rows 0..min(positions, 512) - 1, sinusoid rows 0..positions - 1), float64."""
    learned = cached_minilm().position_embeddings[:positions].astype("float64")
    return learned, core.sinusoidal_encoding(positions, D_MODEL, dtype="float64")


@st.cache_data(max_entries=8, show_spinner=False)
def cached_similarity(positions: int, metric: str, name: str):
    learned, sinusoid = cached_tables(positions)
    return wp.similarity_matrix(learned if name == "learned" else sinusoid, metric)


@st.cache_data(max_entries=128, show_spinner=False)
def cached_entry(positions: int, metric: str, anchor: int, name: str, key: str):
    """One number or array about one table ("learned", "sinusoidal") or both ("both"), computed
    when a section first asks for it: a rerun computes only what the section on screen shows."""
    learned, sinusoid = cached_tables(positions)
    table = learned if name == "learned" else sinusoid
    if key == "summary":
        return wp.summarize_table(table, metric)
    if key == "table":
        return wp.table_overview(table, HEATMAP_ROWS, HEATMAP_COLS)
    if key == "table_range":
        return wp.symmetric_range(table)
    if key == "similarity":
        return wp.table_overview(cached_similarity(positions, metric, name), HEATMAP_ROWS,
                                 HEATMAP_ROWS)
    if key == "similarity_range":
        return wp.symmetric_range(cached_similarity(positions, metric, name))
    if key == "curves":
        anchors = wp.comparison_anchors(min(anchor, learned.shape[0] - 1), learned.shape[0])
        return wp.offset_curves(table, anchors, min(MAX_OFFSET, table.shape[0] - 1), metric)
    if key == "spread":
        return wp.curve_spread(cached_entry(positions, metric, anchor, name, "curves"))
    if key == "projection":
        return wp.project(table, 2, seed=0)
    if key == "norms":
        return wp.position_norms(table)
    if key == "sinusoid_extent":  # runs past the learned table even when fewer rows are shown
        return wp.position_norms(
            core.sinusoidal_encoding(max(positions, EXTENT_POSITIONS), D_MODEL, dtype="float64")
        )
    if key == "periodic":
        return wp.periodic_dimensions(learned, PERIODIC_DIMENSIONS)
    if key == "waves":
        return wp.dominant_waves(learned)
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




st.title("Learned vs sinusoidal")
controls = PageControls("learned-vs-sinusoidal", PAGE_PARAMS["learned-vs-sinusoidal"])
with st.sidebar:
    positions = controls.number(
        "positions", "positions", help="2 to 2048. The learned table stops at 512; the sinusoid "
        "goes on."
    )
    metric = controls.choice(
        "metric", "similarity", help="cosine: the angle only; dot: the raw dot product."
    )
    anchor = controls.number("anchor", "anchor position", help="0 to 511, a learned row.")

st.markdown(
    "BERT-style models do not compute their position vectors: they **learn** a table with one "
    "row per position, trained with the rest of the model. Here is the real one of "
    "all-MiniLM-L6-v2 (512 positions x 384 dimensions) beside the paper's sinusoid of the same "
    "shape, $PE_{(p,2i)} = \\sin(p\\,\\omega_i)$, $PE_{(p,2i+1)} = \\cos(p\\,\\omega_i)$."
)
try:
    model = cached_minilm()
except ModelUnavailableError as error:
    st.error(escape_markdown(str(error)), icon=":material/error:")
    st.info("The other pages work without it.", icon=":material/info:")
    controls.finish()
    st.stop()

learned_rows = min(positions, model.max_positions)
if anchor >= learned_rows:
    st.info(
        f"anchor {anchor} is past the {learned_rows} positions shown: using {learned_rows - 1}.",
        icon=":material/info:",
    )
    anchor = learned_rows - 1
if positions > model.max_positions:
    st.info(
        f"{positions} positions: the learned table has rows 0 to {model.max_positions - 1} only; "
        f"the sinusoid is shown for all {positions}.",
        icon=":material/info:",
    )
analysis = Analysis(positions, metric, anchor)
learned, sinusoid = analysis["learned"], analysis["sinusoidal"]

# --- the numbers ---------------------------------------------------------------------------------
st.subheader("In numbers")
left, right = st.columns(2, gap="large")
for column, name, part in ((left, "Learned (MiniLM)", learned), (right, "Sinusoidal", sinusoid)):
    summary = part["summary"]
    with column:
        st.markdown(f"**{name}**, {summary.rows} positions")
        c1, c2, c3 = st.columns(3)
        c1.metric("|P₀|", f"{summary.first_norm:.4f}")
        c2.metric("mean |Pₚ|, p ≥ 1", f"{summary.rest_norm:.4f}")
        c3.metric(f"mean {metric}(Pₚ, Pₚ₊₁)", f"{summary.neighbour_mean:.4f}")
st.markdown(
    f"The sinusoid has the same norm $\\sqrt{{d/2}} = {sinusoid['summary'].rest_norm:.4f}$ at "
    f"every position. The learned table gives position 0, where BERT's [CLS] token always sits, "
    f"a vector {learned['summary'].first_norm / learned['summary'].rest_norm:.1f} times longer "
    "than the others: the model learned that the first slot is special."
)

# --- the tables ----------------------------------------------------------------------------------
def tables_section() -> None:
    """The two tables as heatmaps."""
    st.subheader("The tables")
    left, right = st.columns(2, gap="large")
    with left:
        st.plotly_chart(
            make_table_heatmap_figure(
                learned["table"], zmax=learned["table_range"], title="Learned (MiniLM)"
            ),
            key="learned_table_chart",
        )
    with right:
        st.plotly_chart(
            make_table_heatmap_figure(
                sinusoid["table"], zmax=sinusoid["table_range"], title="Sinusoidal (interleaved)"
            ),
            key="sinusoid_table_chart",
        )
    st.caption(
        f"Colour range ±{learned['table_range']:.3f} (learned) and ±{sinusoid['table_range']:.3f} "
        "(sinusoid): 99.5% of the entries fit; the rest, such as the learned position 0, saturate."
    )


# --- similarity ----------------------------------------------------------------------------------
def similarity_section() -> None:
    """Similarity between every pair of positions: Toeplitz or not."""
    st.subheader(f"{metric.capitalize()} similarity between positions")
    left, right = st.columns(2, gap="large")
    for column, name, part, key in ((left, "Learned", learned, "learned_similarity_chart"),
                                    (right, "Sinusoidal", sinusoid, "sinusoid_similarity_chart")):
        with column:
            st.plotly_chart(
                make_similarity_figure(
                    part["similarity"], metric=metric, zmax=part["similarity_range"],
                    title=f"{name}: {metric}(P_i, P_j)",
                ),
                key=key,
            )
    st.markdown(
        "The sinusoid's similarity depends on the offset $j - i$ alone: $P_i \\cdot P_j = "
        "\\sum_k \\cos(\\omega_k (j - i))$, constant along every diagonal (a *Toeplitz* matrix). "
        "The learned one only approximately so. Distance from Toeplitz (root-mean-square gap to "
        "each "
        f"diagonal's mean): learned **{learned['summary'].toeplitz_deviation:.4f}**, sinusoid "
        f"**{sinusoid['summary'].toeplitz_deviation:.2e}**."
    )


# --- against offset ------------------------------------------------------------------------------
def offset_section() -> None:
    """Similarity against the offset, for several anchors."""
    st.subheader("Similarity against offset")
    st.plotly_chart(
        make_offset_figure(
            {"learned": learned["curves"], "sinusoidal": sinusoid["curves"]}, metric=metric
        ),
        key="offset_chart",
    )
    anchors = ", ".join(str(a) for a in learned["curves"])
    st.markdown(
        f"Anchors {anchors}. For the sinusoid every anchor gives the same curve (largest gap "
        "between "
        f"the curves: {sinusoid['spread']:.2e}); for the learned table they differ (largest gap "
        f"{learned['spread']:.4f}): what position $a + k$ looks like from $a$ depends on $a$."
    )


# --- trajectory, and the dimensions that ripple --------------------------------------------------
def space_section() -> None:
    """The PCA path of the positions; the learned dimensions that ripple."""
    st.subheader("The path through space")
    st.plotly_chart(
        make_trajectory_figure({
            "learned": (learned["projection"].coordinates, learned["projection"].axis_titles),
            "sinusoidal": (sinusoid["projection"].coordinates, sinusoid["projection"].axis_titles),
        }),
        key="trajectory_chart",
    )
    learned_table, _ = cached_tables(positions)
    periodic, waves = analysis["periodic"], analysis["waves"]
    if learned_rows < 16:
        st.caption("Too few positions to look for waves: show at least 16.")
    else:
        st.plotly_chart(
            make_dimensions_figure(
                learned_table, periodic,
                title=f"The {PERIODIC_DIMENSIONS} learned dimensions most like one sinusoid",
            ),
            key="dimensions_chart",
        )
        st.markdown(
            "Nobody told the model to use waves, yet some of its learned dimensions are mostly one "
            "slow ripple: "
            + "; ".join(
                f"dimension {d}: {waves.share[d]:.0%} of its variance in one wave of period "
                f"{waves.period[d]:.0f} positions"
                for d in periodic
            )
            + " (the strongest Fourier component of positions 1 and up)."
        )


# --- extrapolation -------------------------------------------------------------------------------
def extent_section() -> None:
    """Where each table stops."""
    st.subheader("Past the end of the table")
    st.plotly_chart(
        make_extent_figure(
            learned["norms"], analysis["sinusoid_extent"], learned_rows=model.max_positions
        ),
        key="extent_chart",
    )
    st.markdown(
        f"The learned table has rows 0 to {model.max_positions - 1}: for position "
        f"{model.max_positions} there is **no vector at all**, and the model cannot be run on "
        "longer "
        "inputs. The sinusoid is defined for every position (the chart stops at "
        f"{len(analysis['sinusoid_extent']) - 1}; the formula goes on), though a model trained on "
        "short inputs has never seen the angles of long ones. Past its training length a model "
        "must\n"
        "- **truncate** the input, or slide a window over it (what BERT-style encoders do);\n"
        "- **interpolate** positions into the trained range, or train a larger table and "
        "fine-tune;\n"
        "- or use a **relative** scheme (RoPE, ALiBi) whose attention depends on the offset, not "
        "on "
        "absolute rows: see the extrapolation page."
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
    help="tables: the two tables; similarity: between every pair of positions; "
    "offset: against the offset for several anchors; space: the path through space and the "
    "rippling dimensions; extent: where each table stops.",
)

controls.finish()
