"""Distance and dot product: PE·PE depends only on the offset; a shift by k is a rotation."""

import numpy as np
import streamlit as st

import core
from core import similarity
from core.limits import DEFAULT_BASE
from export.files import TableExport
from figures.common import live_state_values
from figures.similarity import (
    add_anchor_profile_states,
    add_offset_mark_states,
    add_rotation_view_states,
    make_anchor_profile_figure,
    make_distance_figure,
    make_offset_scatter_figure,
    make_rotation_figure,
    make_shift_matrix_figure,
    make_similarity_matrix_figure,
)
from server.cache import MB, bounded_cache
from ui.charts import file_stem, show_chart
from ui.controls import start_page
from ui.i18n import current_language, t
from ui.text import explain

SAMPLE_PAIRS = 2000  # points per scatter: enough to show the curve, light for the browser
SHIFT_WINDOW = 32  # dimensions of M_k drawn: 16 rotation blocks are readable, 512 are not
MATRIX_SIDE = 200  # cells per side of PE.PE^T sent to the browser (~3 px each in its column)
ANCHOR_ZOOM = 50  # positions either side of the anchor in the zoom


# Each cache is keyed by what it depends on, so offset, anchor, metric and view changes reuse
# the products: the sinusoid's matrix is held as its offset function f and an overview (both
# metrics: the cosine is f / (d/2)); the random contrast depends on the size alone.
@bounded_cache(max_entries=8, max_bytes=4 * MB, worst_case=[(4096, 1024, DEFAULT_BASE)])
def cached_sinusoid(positions: int, d_model: int, base: float) -> similarity.SinusoidSimilarity:
    return similarity.sinusoid_similarity(
        positions, d_model, base=base, max_rows=MATRIX_SIDE, max_cols=MATRIX_SIDE
    )


@bounded_cache(max_entries=8, max_bytes=8 * MB, worst_case=[(4096, 1024)])
def cached_random_contrast(positions: int, d_model: int) -> similarity.RandomContrast:
    return similarity.random_contrast(
        positions, d_model, seed=0, count=SAMPLE_PAIRS, sample_seed=1, max_rows=MATRIX_SIDE,
        max_cols=MATRIX_SIDE,
    )


# The spinner's words are in the visitor's language: shown here, not by the cache.
def sinusoid(positions: int, d_model: int, base: float) -> similarity.SinusoidSimilarity:
    with st.spinner(t("similarity.spinner")):  # shown only when it takes a while (a cache miss)
        return cached_sinusoid(positions, d_model, base)


def random_contrast(positions: int, d_model: int) -> similarity.RandomContrast:
    with st.spinner(t("similarity.spinner")):
        return cached_random_contrast(positions, d_model)


# Not cached: 16 MB at 4096 positions x 1024. Only the rows' own checks read it (the sampled
# pairs, the shift residuals), each inside its cache miss (one compute slot), never a product;
# what they keep is kilobytes.
def encoding_table(positions: int, d_model: int, base: float) -> np.ndarray:
    return core.sinusoidal_encoding(positions, d_model, base=base)


@bounded_cache(max_entries=8, max_bytes=2 * MB, worst_case=[(4096, 1024, DEFAULT_BASE, "cosine")])
def cached_sample(positions: int, d_model: int, base: float, metric: str):
    return similarity.pair_sample(
        encoding_table(positions, d_model, base), count=SAMPLE_PAIRS, seed=1, metric=metric
    )


@bounded_cache(max_entries=32, max_bytes=1 * MB,
               worst_case=[(4096, 1024, DEFAULT_BASE, 2048, 2047, "cosine")])
def cached_before_after(positions: int, d_model: int, base: float, anchor: int, offset: int,
                        metric: str):
    return similarity.sinusoid_before_and_after(positions, d_model, anchor, offset, base=base,
                                                metric=metric)


# The top-left window of M_k that is drawn (M_k itself is d x d: 8 MB at d = 1024).
def shift_window(offset: int, d_model: int, base: float, window: int) -> np.ndarray:
    return core.shift_matrix(offset, d_model, base=base, window=window)


@bounded_cache(max_entries=32, max_bytes=1 * MB, worst_case=[(4095, 1024, DEFAULT_BASE, 32)])
def cached_shift_window(offset: int, d_model: int, base: float, window: int):
    return shift_window(offset, d_model, base, window)


@bounded_cache(max_entries=8, max_bytes=2 * MB, worst_case=[(4096, 1024, DEFAULT_BASE, 4095)])
def cached_shift(positions: int, d_model: int, base: float, offset: int):
    return similarity.shift_residuals(encoding_table(positions, d_model, base), offset, base=base)


lang = current_language()
controls = start_page("similarity")
PAGE_WIDE = ("d_model", "positions", "base")
INTRO = "similarity/intro"
# A page-wide change reruns the intro and the view shown alone (not the sidebar, the title or
# the link); the view whole, as its row clamps its controls to the table.
view = controls.current("view")
drawings = (INTRO, f"similarity/{view}")
with st.sidebar:  # page-wide: every view draws the table these three make
    controls.stops("d_model", redraws=drawings)
    # The rotation view draws M_k and one pair, whatever the table's length: there only its
    # check's count would change, so the control is not shown.
    with controls.shown(view != "rotation"):
        controls.stops("positions", redraws=drawings)
    controls.stops("base", redraws=drawings)


# Each view's own controls sit above its charts, in its fragment: a change there reruns that
# view alone. A control two views use is made by whichever is shown (its value is kept).
VIEW_CONTROLS = ("metric", "anchor", "offset", "pair")


def view_controls(*names: str) -> dict[str, object]:
    """The controls `names` in the view's row, values clamped to the table (with a note). Each
    control has its own column of a four-column row, first in every view that has it: a bound
    widget that moves to another block between views no longer reaches the address bar
    (docs/design.md)."""
    d_model, positions, _ = controls.values(*PAGE_WIDE)
    row = dict(zip(VIEW_CONTROLS, controls.view_row(len(VIEW_CONTROLS)), strict=True))
    columns = {name: row[name] for name in names}
    values: dict[str, object] = {}
    # Each slider's track is the table's (a value a link gives past it widens the track to it,
    # and is clamped below with a note): its whole length previews a picture while dragged.
    last = positions - 1
    if "metric" in columns:  # each control named as written (tests/test_pages.py reads them)
        with columns["metric"]:
            values["metric"] = controls.choice("metric")
    if "anchor" in columns:
        with columns["anchor"]:
            values["anchor"] = controls.slider("anchor", maximum=last)
    if "offset" in columns:
        with columns["offset"]:
            values["offset"] = controls.slider("offset", minimum=-last, maximum=last)
    if "pair" in columns:
        with columns["pair"]:
            values["pair"] = controls.slider("pair", maximum=d_model // 2 - 1)
    if values.get("anchor", 0) >= positions:
        st.info(t("similarity.anchor_clamped", anchor=values["anchor"], last=positions - 1))
        values["anchor"] = positions - 1
    offset = values.get("offset", 0)
    if abs(offset) >= positions:
        k = int(np.sign(offset)) * (positions - 1)
        st.info(t("similarity.offset_clamped", offset=offset, k=k))
        values["offset"] = k
    if values.get("pair", 0) >= d_model // 2:
        st.info(t("similarity.pair_clamped", pair=values["pair"], d_model=d_model,
                  last=d_model // 2 - 1))
        values["pair"] = d_model // 2 - 1
    return values


def preview_note(fig, name: str, label: str, total: int) -> None:
    """A caption when a drag of slider `name` (`label`) previews fewer than the `total` values
    the table has (`fig`'s live states: evenly spaced when all would weigh too much)."""
    shown = len(live_state_values(fig, name))
    if 2 <= shown < total:
        explain(t("similarity.preview_some", control=label, shown=shown, total=total),
                caption=True)


def metric_label(metric: str) -> str:
    return "PE_p \\cdot PE_q" if metric == "dot" else "\\cos(PE_p, PE_q)"


@st.fragment(key=INTRO)
def intro() -> None:
    d_model, positions, base = controls.values(*PAGE_WIDE)
    explain(t("similarity.intro", positions=positions, d_model=d_model, base=base))


intro()
st.latex(
    r"PE_p \cdot PE_{p+k} = \sum_{i=0}^{d/2-1} \cos(\omega_i k), \qquad "
    r"\cos(PE_p, PE_{p+k}) = \frac{2}{d}\sum_{i} \cos(\omega_i k)"
)
explain(t("similarity.cosine_caption"), caption=True)


def table_name() -> list:
    """Files name the table: pe-similarity-matrix_d128_pos128_cosine (base only when not the
    paper's)."""
    d_model, positions, base = controls.values(*PAGE_WIDE)
    return [f"d{d_model}", f"pos{positions}", None if base == DEFAULT_BASE else f"base{base:g}"]


# --- the similarity matrix -------------------------------------------------------------------
@st.fragment(key="similarity/matrix")
def matrix_section() -> None:
    """PE.PE^T: constant along diagonals, against a random table."""
    d_model, positions, base = controls.values(*PAGE_WIDE)
    metric = view_controls("metric")["metric"]
    toeplitz = sinusoid(positions, d_model, base)
    sinusoid_pairs = toeplitz.pairwise(metric)
    random_pairs = random_contrast(positions, d_model).pairwise[metric]
    left, right = st.columns([3, 2], gap="large")
    with left:
        show_chart(
            make_similarity_matrix_figure(sinusoid_pairs, metric=metric, d_model=d_model,
                                          lang=lang),
            key="matrix_chart",
            name=file_stem("similarity-matrix", *table_name(), metric),
            # The downloads are the exact (positions, positions) matrix, made on demand.
            table=TableExport(
                sinusoid_pairs.overview, (positions, positions),
                lambda: toeplitz.matrix(metric),  # exact: f(q - p), read off f
                row_name="p", col_name="q",
            ),
        )
    with right:
        st.subheader(t("similarity.toeplitz"))
        # The measured spread is the section's result: shown in presentation mode too.
        st.markdown(
            t("similarity.toeplitz_text", label=metric_label(metric), positions=positions,
              pairs=positions**2, spread=sinusoid_pairs.spread,
              random_spread=random_pairs.spread)
        )
        if not sinusoid_pairs.overview.exact:
            explain(t("similarity.matrix_overview", side=MATRIX_SIDE), caption=True)


# --- the offset curve against a random table ---------------------------------------------------
@st.fragment(key="similarity/offset")
def offset_section() -> None:
    """Distance vs dot product: one curve, even in k; a random table scatters."""
    d_model, positions, base = controls.values(*PAGE_WIDE)
    chosen = view_controls("metric", "anchor", "offset")
    metric, anchor, offset = chosen["metric"], chosen["anchor"], chosen["offset"]
    contrast = random_contrast(positions, d_model)  # no base: a base change keeps it
    random_pairs = contrast.pairwise[metric]  # its envelope
    st.subheader(t("similarity.offset_heading"))
    curves = sinusoid(positions, d_model, base).curves(metric)
    sinusoid_sample = cached_sample(positions, d_model, base, metric)
    random_sample = contrast.samples[metric]
    _, after_value = similarity.offset_similarity(
        np.array([-offset, offset]), d_model, base=base, metric=metric
    )
    explain(t("similarity.offset_text", count=SAMPLE_PAIRS, label=metric_label(metric)))
    scatter = make_offset_scatter_figure(
        curve_offsets=curves.offsets,
        curve=curves.similarity,
        sinusoid_points=(sinusoid_sample.offsets, sinusoid_sample.similarity),
        random_points=(random_sample.offsets, random_sample.similarity),
        random_envelope=(random_pairs.offsets, random_pairs.lowest, random_pairs.highest),
        offset=offset,
        offset_value=float(after_value),
        metric=metric,
        anchor=anchor,  # the marks name the anchor's two neighbours the text reads
        positions=positions,
        lang=lang,
    )
    # The ±k marks follow the offset and anchor sliders while they are dragged (live states).
    add_offset_mark_states(scatter, curve_offsets=curves.offsets, curve=curves.similarity,
                           offset=offset, offset_value=float(after_value), anchor=anchor,
                           positions=positions, lang=lang)
    show_chart(scatter, key="offset_chart",
               name=file_stem("similarity-offset", *table_name(), metric, f"k{offset}"))
    preview_note(scatter, "offset", t("similarity.offset"), 2 * positions - 1)
    preview_note(scatter, "anchor", t("similarity.anchor"), positions)

    # --- direction blindness ---
    st.subheader(t("similarity.blind"))
    after_row, before_row = cached_before_after(positions, d_model, base, anchor, offset, metric)
    st.latex(
        r"\sum_i \cos(\omega_i k) = \sum_i \cos(-\omega_i k) \;\Rightarrow\; "
        r"PE_p \cdot PE_{p+k} = PE_p \cdot PE_{p-k}"
    )
    shown = [
        t("similarity.blind_position", position=anchor + sign * offset, value=value)
        for sign, value in ((1, after_row), (-1, before_row))
        if value is not None
    ]
    # The two equal values are the section's result: shown in presentation mode too.
    st.markdown(
        t("similarity.blind_text", k=abs(offset), value=after_value,
          metric=t("similarity.metric_dot") if metric == "dot"
          else t("similarity.metric_cosine"),
          anchor=anchor,
          neighbours=t("similarity.blind_joiner").join(shown) if shown
          else t("similarity.blind_none"))
    )


# --- the TensorFlow tutorial's view ------------------------------------------------------------
@st.fragment(key="similarity/anchor")
def anchor_section() -> None:
    """The TensorFlow tutorial's view: every position against one."""
    d_model, positions, base = controls.values(*PAGE_WIDE)
    chosen = view_controls("metric", "anchor")
    metric, anchor = chosen["metric"], chosen["anchor"]
    # The anchor is named by the chart's title, which follows a drag (the heading would not).
    st.subheader(t("similarity.anchor_heading"))
    explain(t("similarity.anchor_text"))
    toeplitz = sinusoid(positions, d_model, base)
    profile = make_anchor_profile_figure(toeplitz.row(anchor, metric), anchor=anchor,
                                         metric=metric, zoom=ANCHOR_ZOOM, lang=lang)
    # Every row is the offset function read from another start: the anchor slider draws each
    # while it is dragged (live states; evenly spaced anchors when the table is long).
    add_anchor_profile_states(profile, toeplitz.similarity(metric), anchor=anchor,
                              metric=metric, zoom=ANCHOR_ZOOM, lang=lang)
    show_chart(profile, key="anchor_chart",
               name=file_stem("similarity-anchor", *table_name(), metric, f"anchor{anchor}"))
    preview_note(profile, "anchor", t("similarity.anchor"), positions)


# --- Euclidean distance ------------------------------------------------------------------------
@st.fragment(key="similarity/distance")
def distance_section() -> None:
    """Euclidean distance, a function of the dot product. No control of its own: the distance
    is the same whatever the similarity metric (a metric control here would change nothing)."""
    d_model, positions, base = controls.values(*PAGE_WIDE)
    curves = sinusoid(positions, d_model, base).curves()
    sinusoid_sample = cached_sample(positions, d_model, base, "dot")
    st.subheader(t("similarity.distance"))
    st.latex(
        r"\|PE_p - PE_q\|^2 = |PE_p|^2 + |PE_q|^2 - 2\,PE_p \cdot PE_q "
        r"= d - 2\sum_i \cos(\omega_i (q - p))"
    )
    explain(t("similarity.distance_text"))
    show_chart(
        make_distance_figure(
            sample_gaps=np.abs(sinusoid_sample.offsets),
            sample_distances=sinusoid_sample.distance,
            curve_offsets=curves.gaps,
            curve=curves.distance,
            lang=lang,
        ),
        key="distance_chart",
        name=file_stem("similarity-distance", *table_name()),
    )


# --- shift as rotation -------------------------------------------------------------------------
@st.fragment(key="similarity/rotation")
def rotation_section() -> None:
    """M_k: 2x2 rotation blocks, and the residual over all p."""
    d_model, positions, base = controls.values(*PAGE_WIDE)
    chosen = view_controls("anchor", "offset", "pair")
    anchor, offset, pair = chosen["anchor"], chosen["offset"], chosen["pair"]
    st.subheader(t("similarity.rotation"))
    explain(t("similarity.rotation_text"))
    st.latex(  # the identities, then what they give: two lines, each a phone's width
        r"\begin{gathered}\begin{aligned}\sin(a + b) &= \sin a \cos b + \cos a \sin b \\"
        r"\cos(a + b) &= \cos a \cos b - \sin a \sin b\end{aligned} \\"
        r"\Longrightarrow\quad"
        r"\begin{pmatrix}PE_{pos+k,\,2i} \\ PE_{pos+k,\,2i+1}\end{pmatrix} = "
        r"\begin{pmatrix}\cos \omega_i k & \sin \omega_i k \\ -\sin \omega_i k & \cos \omega_i k"
        r"\end{pmatrix}\begin{pmatrix}PE_{pos,\,2i} \\ PE_{pos,\,2i+1}\end{pmatrix}"
        r"\end{gathered}"
    )
    explain(t("similarity.rotation_matrix_text"))
    shift = cached_shift(positions, d_model, base, offset)
    window = min(d_model, SHIFT_WINDOW)

    def rotation_at(at_anchor: int, at_offset: int, at_pair: int):
        start = max(at_anchor, -at_offset)  # p + k must be a position (>= 0)
        return start, similarity.rotated_pair(start, at_offset, at_pair, d_model, base=base)

    matrix = cached_shift_window(offset, d_model, base, window)
    start, rotated = rotation_at(anchor, offset, pair)
    shift_figure = make_shift_matrix_figure(matrix, offset=offset, d_model=d_model, lang=lang)
    rotation_figure = make_rotation_figure(rotated, position=start, offset=offset, lang=lang)
    # Both charts follow the sliders while they are dragged (live states): M_k the offset,
    # the pair every slider; the same offsets in both.
    add_rotation_view_states(
        shift_figure, rotation_figure,
        # each state's window uncached: a hundred of them would push the drawn ones out
        window_at=lambda k: shift_window(k, d_model, base, window),
        rotation_at=rotation_at, anchor=anchor, offset=offset, pair=pair,
        positions=positions, d_model=d_model, lang=lang,
    )
    left, right = st.columns(2, gap="large")
    with left:
        show_chart(
            shift_figure,
            key="shift_chart",
            name=file_stem("similarity-shift-matrix", f"d{d_model}", f"k{offset}",
                           None if base == DEFAULT_BASE else f"base{base:g}"),
        )
    with right:
        show_chart(
            rotation_figure,
            key="rotation_chart",
            name=file_stem("similarity-rotation", f"d{d_model}", f"pair{pair}", f"p{start}",
                           f"k{offset}", None if base == DEFAULT_BASE else f"base{base:g}"),
        )
        explain(t("similarity.rotation_pair_text", pair=pair, omega=rotated.omega,
                  offset=offset, rotation=rotated.rotation))
    preview_note(rotation_figure, "anchor", t("similarity.anchor"), positions)
    preview_note(rotation_figure, "offset", t("similarity.offset"), 2 * positions - 1)
    preview_note(rotation_figure, "pair", t("similarity.pair"), d_model // 2)
    # The measured residual is the section's result: shown in presentation mode too.
    st.markdown(
        t("similarity.residual", count=shift.positions.size, largest=shift.largest)
    )


# One section at a time (in the URL as `view`): each is one or two charts, so a change of
# d_model redraws only what is on screen (see docs/performance.md).
controls.sections(
    {
        "matrix": matrix_section,
        "offset": offset_section,
        "anchor": anchor_section,
        "distance": distance_section,
        "rotation": rotation_section,
    },
)
