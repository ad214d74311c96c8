"""2-D grids for ViT: MAE's 2-D sin-cos embedding of image patches and the ViT paper's tiles."""

import dataclasses
import functools
import math
from collections.abc import Iterator

import numpy as np
import streamlit as st

import core
from core import mrope, rope_2d, vit_grid
from core._checks import InputError
from core.limits import DEFAULT_BASE
from export.files import TableExport
from figures.common import MAX_LIVE_NUMBERS, live_values
from figures.vit_grid import (
    add_halves_states,
    add_patch_map_states,
    add_rope_2d_patch_states,
    add_rope_2d_states,
    add_rope_2d_tiles_states,
    add_tiles_range_states,
    make_halves_figure,
    make_mrope_ids_figure,
    make_mrope_logits_figure,
    make_patch_map_figure,
    make_rope_2d_figure,
    make_rope_2d_tiles_figure,
    make_tiles_figure,
    make_vit_encoding_figure,
    patch_lattice,
    patch_text,
    similarity_range,
)
from locales import error_text
from server.cache import MB, bounded_cache, in_compute_slot
from ui.charts import file_stem, show_chart
from ui.controls import start_page
from ui.i18n import current_language, t
from ui.plotly_react import clicked_cell
from ui.text import explain, markdown_text, page_only, slide_row


# The full table is 40 MB at 64 x 64 patches and d = 1280: it is built inside a cache miss (one
# compute slot) and only what the charts draw is kept (tests/test_cache_budget.py), so 30
# sessions at that size hold kilobytes each, not a table each. A download builds it again.
def embedding_table(grid_h: int, grid_w: int, d_model: int, base: float, cls_token: bool):
    return core.sincos_2d_encoding(grid_h, grid_w, d_model, base=base, cls_token=cls_token)


@bounded_cache(max_entries=8, max_bytes=5 * MB, worst_case=[(64, 64, 1280, DEFAULT_BASE)])
def cached_tiles(grid_h: int, grid_w: int, d_model: int, base: float,
                 max_side: int = vit_grid.MAX_MOSAIC_SIDE):
    # From one cosine profile per axis, not the (H*W, d) table: ~60 -> ~10 ms at 64 x 64.
    return vit_grid.sincos_similarity_tiles(grid_h, grid_w, d_model, base=base, max_side=max_side)


# The similarity of two patches at every offset, (2H - 1, 2W - 1) float64 (127 x 127: 129 KB at
# 64 x 64): every patch's map is a window of it (core.vit_grid), patches only (the cls row,
# zeros, is no patch: its maps are the same with it), no (H*W, d) table made.
@bounded_cache(max_entries=4, max_bytes=MB // 2, worst_case=[(64, 64, 1280, DEFAULT_BASE)])
def cached_sincos_offsets(grid_h: int, grid_w: int, d_model: int, base: float) -> np.ndarray:
    return vit_grid.sincos_offset_similarity(grid_h, grid_w, d_model, base=base)


def lattice_maps(offsets: np.ndarray, rows: list[int], cols: list[int]) -> dict:
    """{(row, col): (H, W) map} of each patch of `rows` x `cols`, read off a table's or a
    rotation's `offsets` at once (a gather, ~0.1 ms for the most a chart's previews carry:
    not worth a cache)."""
    maps = vit_grid.offset_similarity_maps(offsets, rows, cols)  # (len(rows), len(cols), H, W)
    return {(row, col): maps[i, j] for i, row in enumerate(rows) for j, col in enumerate(cols)}


def patch_map(grid_h: int, grid_w: int, d_model: int, base: float, row: int,
              col: int) -> np.ndarray:
    """MAE's table: patch (row, col)'s similarity with every patch, ``(H, W)``."""
    offsets = cached_sincos_offsets(grid_h, grid_w, d_model, base)
    return lattice_maps(offsets, [row], [col])[row, col]


# The column half of each column of a lattice and the row half of each of its rows, one core
# call each (the selected patch's halves among them): (rows + columns) maps, 0.13 MB at most
# (a 2 x 64 grid's every patch; at 64 x 64, 2 x 2 patches).
@bounded_cache(max_entries=8, max_bytes=MB, worst_case=[
    (2, 64, 1280, DEFAULT_BASE, (0, 1), tuple(range(64))),
    (64, 64, 1280, DEFAULT_BASE, (0, 32), (0, 32))])
def cached_lattice_halves(grid_h: int, grid_w: int, d_model: int, base: float,
                          rows: tuple[int, ...], cols: tuple[int, ...]) -> dict:
    by_col = {col: vit_grid.sincos_half_maps(grid_h, grid_w, d_model, rows[0], col, base=base)[0]
              for col in cols}
    by_row = {row: vit_grid.sincos_half_maps(grid_h, grid_w, d_model, row, cols[0], base=base)[1]
              for row in rows}
    return {(row, col): (by_col[col], by_row[row]) for row in rows for col in cols}


@bounded_cache(max_entries=8, max_bytes=6 * MB, worst_case=[(64, 64, 1280, DEFAULT_BASE, True)])
def cached_overview(grid_h: int, grid_w: int, d_model: int, base: float, cls_token: bool):
    return vit_grid.vit_encoding_overview(grid_h, grid_w, d_model, base=base, cls_token=cls_token)


def rope_angles(grid_h: int, grid_w: int, d_head: int) -> Iterator[np.ndarray]:
    """Each rotation's (H, W, d_head/2) angles: axial, DINOv3, then RoPE-Mixed's heads 1..12
    (one at a time: 4 MB each at a 64 x 64 grid and d_head 256)."""
    yield rope_2d.rope_2d_axial_angles(grid_h, grid_w, d_head)
    yield rope_2d.rope_2d_dinov3_angles(grid_h, grid_w, d_head)
    mixed = rope_2d.rope_2d_mixed_frequencies(d_head, rope_2d.MIXED_HEADS)
    for head in range(rope_2d.MIXED_HEADS):
        yield rope_2d.rope_2d_mixed_angles(grid_h, grid_w, mixed[head: head + 1])[0]


AXIAL, DINOV3 = 0, 1  # the rotations' places in cached_rope_offsets; RoPE-Mixed's head h: 1 + h


def mixed_rotation(head: int) -> int:
    """RoPE-Mixed's head `head` (1-based)'s place among the rotations."""
    return 1 + head


# Each rotation's similarity at every offset (every angle is affine in the patch's row and
# column): every map and tile is read off these, no (H*W, d_head) table made. Every mixed head
# is kept: the head slider's previews draw them all. (14, 127, 127) at a 64 x 64 grid, float32
# as the charts draw them (0.9 MB, ~0.3 s to make at d_head 256: one such entry, two smaller);
# the tiles made of them are cached on their own.
@bounded_cache(max_entries=2, max_bytes=3 * MB // 2, worst_case=[(64, 64, 256)])
def cached_rope_offsets(grid_h: int, grid_w: int, d_head: int) -> np.ndarray:
    return np.stack([rope_2d.rope_2d_offset_similarity(angles)
                     for angles in rope_angles(grid_h, grid_w, d_head)]).astype(np.float32)


def rope_maps(grid_h: int, grid_w: int, d_head: int, row: int, col: int) -> np.ndarray:
    """Every rotation's map for a patch, read off the offsets: (14, H, W) float32 (a gather,
    ~0.5 ms at a 64 x 64 grid: not worth a cache)."""
    return np.stack([vit_grid.offset_similarity_maps(offsets, [row], [col])[0, 0]
                     for offsets in cached_rope_offsets(grid_h, grid_w, d_head)])


# Four mosaics in one chart, each at most 210 cells a side: every patch of ViT-B's 14 x 14 grid
# exactly, and under 1 MB sent per change at a 64 x 64 grid (at 300 a side, 2.4 MB).
ROPE_TILES_MOSAIC = 210
# Cells of the maps' previews of other heads (the head slider's live states): with the tiles'
# 1.2 MB and the maps' own 0.15 MB at a 64 x 64 grid, 4 heads' maps (0.1 MB) keep the view
# under 1.5 MB per rerun; up to a 36 x 36 grid every head is previewed.
ROPE_PREVIEW_CELLS = 16_384
# Numbers of the four maps' previews at other patches (the pointer over a map): with the tiles
# and the head previews they keep the view under 1.5 MB per rerun (1.46 MB at most, at 14 x 14
# and 35 x 35 in Chinese, measured over grids from 1 x 14 to 64 x 64): every 3rd row and column
# at 14 x 14, every 4th to 6th up to 23 x 23, 2 x 2 patches up to 35 x 35, none past that (the
# head previews take what is left; a click selects).
ROPE_PATCH_PREVIEW_NUMBERS = 20_000


# One rotation's tiles (`rotation`: AXIAL, DINOV3 or `mixed_rotation(head)`), float32: at most
# (14, 14, 14, 14) cells (150 KB); the head slider's previews ask for every head's at small grids.
@bounded_cache(max_entries=32, max_bytes=MB, worst_case=[(64, 64, 256, AXIAL)])
def cached_rope_tiles(grid_h: int, grid_w: int, d_head: int, rotation: int):
    tiles = vit_grid.offset_similarity_tiles(cached_rope_offsets(grid_h, grid_w, d_head)[rotation],
                                             max_side=ROPE_TILES_MOSAIC)
    return dataclasses.replace(tiles, tiles=tiles.tiles.astype(np.float32))


MROPE_OFFSETS = 512  # offsets drawn: well past a 64-patch side


# Ids: (3, 4608) int64 at most (110 KB); logits: (4, 513) float64 (16 KB).
@bounded_cache(max_entries=4, max_bytes=MB // 4, worst_case=[(256, 64, 64, 256)])
def cached_mrope(text_before: int, grid_h: int, grid_w: int, text_after: int):
    ids = mrope.mrope_position_ids([("text", text_before), ("image", (1, grid_h, grid_w)),
                                    ("text", text_after)])
    offsets = np.arange(MROPE_OFFSETS + 1)
    return ids, offsets, mrope.mrope_relative_logits(offsets)


def apply_preset(name: str) -> None:
    """Set the bound controls before they are created (a button callback runs first)."""
    preset = vit_grid.VIT_PRESETS[name]
    st.session_state.update(
        grid_h=preset.grid_h,
        grid_w=preset.grid_w,
        d_model=preset.d_model,
        cls_token=preset.cls_token,
        patch="",
    )


lang = current_language()
controls = start_page("vit-grid")
view = controls.current("view")
PAGE_WIDE = ("grid_h", "grid_w", "d_model", "base", "cls_token")
SUMMARY = "vit-grid/summary"
# A page-wide change reruns the summary and the view shown alone (not the sidebar, the title or
# the link); the view whole, as its patch box names the grid's centre.
drawings = (SUMMARY, f"vit-grid/{view}")
# The presets' names and notes are core's (English) keys; shown in the visitor's language.
preset_labels = {
    "4 x 4 teaching grid": t("vit-grid.preset_teaching"),
    "6 x 10 rectangle": t("vit-grid.preset_rectangle"),
}
preset_notes = {
    "ViT-B/16": t("vit-grid.note_b16"),
    "ViT-L/16": t("vit-grid.note_l16"),
    "4 x 4 teaching grid": t("vit-grid.note_teaching"),
    "6 x 10 rectangle": t("vit-grid.note_rectangle"),
}
with st.sidebar:
    st.caption(t("vit-grid.presets"))
    for number, (name, preset) in enumerate(vit_grid.VIT_PRESETS.items()):
        st.button(preset_labels.get(name, name), key=f"preset_{number}",
                  help=preset_notes.get(name, preset.note), on_click=apply_preset,
                  args=(name,), width="stretch")
    controls.slider("grid_h", redraws=drawings)
    controls.slider("grid_w", redraws=drawings)
    # Shown in the views they change: M-RoPE numbers the grid's patches, whatever the table's
    # width and base; the class token is a row of the table, which the similarity maps and the
    # rotations leave out (it is all zeros).
    with controls.shown(view != "mrope"):
        controls.stops("d_model", redraws=drawings)
        controls.stops("base", redraws=drawings)
    with controls.shown(view == "encoding"):
        controls.toggle("cls_token", redraws=drawings)


def patch_control(column) -> tuple[int, int]:
    """The selected patch: a view's own control (tiles, halves, 2-D RoPE), made in `column` of
    its row; a patch the grid does not have is said there, and the centre is used."""
    grid_h, grid_w = controls.values("grid_h", "grid_w")
    with column:
        patch_text = controls.text("patch", placeholder=f"{grid_h // 2},{grid_w // 2}")
    try:
        return vit_grid.parse_patch(patch_text, grid_h, grid_w)
    except InputError as error:
        allowed = t("vit-grid.patch_allowed", last_row=grid_h - 1, last_col=grid_w - 1,
                    grid_h=grid_h, grid_w=grid_w)
        row, col = grid_h // 2, grid_w // 2
        st.warning(markdown_text(t(
            "controls.url_notice", error=error_text(error, lang, "vit-grid", allowed=allowed),
            default=t("vit-grid.patch_default", row=row, col=col))), icon=":material/warning:")
        return row, col


def pick_patch(chart: str) -> None:
    """A click on a cell of `chart`'s maps (x: the column, y: the row) selects that patch: the
    patch box takes it before the view reruns, and the link with it."""
    cell = clicked_cell(chart, trace=None)  # every map of the chart
    if cell is None:
        return
    col, row = int(cell[0]), int(cell[1])
    grid_h, grid_w = controls.values("grid_h", "grid_w")
    if 0 <= row < grid_h and 0 <= col < grid_w:
        st.session_state["patch"] = patch_text(row, col)


def follows_pointer(step: int) -> None:
    """Under a chart whose patch follows the pointer (`figures.vit_grid.patch_lattice`'s
    `step`): how, and how coarsely when not every patch is previewed; a click alone when
    none is (nothing on a grid of one patch)."""
    grid_h, grid_w = controls.values("grid_h", "grid_w")
    if grid_h * grid_w < 2:
        return
    if not step:
        explain(t("vit-grid.patch_click"), caption=True)
        return
    explain(t("vit-grid.patch_hover"), caption=True)
    if step > 1:
        explain(t("vit-grid.patch_preview_some", step=step), caption=True)


def grid_name() -> list:
    """Files name the grid: pe-vit-grid-tiles_14x14_d768 (base only when not the paper's)."""
    grid_h, grid_w, d_model, base, _ = controls.values(*PAGE_WIDE)
    return [f"{grid_h}x{grid_w}", f"d{d_model}",
            None if base == DEFAULT_BASE else f"base{base:g}"]


@st.fragment(key=SUMMARY)
def summary() -> None:
    grid_h, grid_w, d_model, _, cls_token = controls.values(*PAGE_WIDE)
    tokens = grid_h * grid_w + (1 if cls_token else 0)
    explain(
        t("vit-grid.summary", grid_h=grid_h, grid_w=grid_w, d_model=d_model, tokens=tokens,
          rows=t("vit-grid.summary_cls") if cls_token else t("vit-grid.summary_no_cls"))
    )


summary()
# Two lines: one for the patch's code, one for each half's (a phone's width holds each).
st.latex(
    r"\begin{gathered}e_{(y,x)} = \big[\, PE^{d/2}(x) \;\big|\; PE^{d/2}(y) \,\big], \\ "
    r"PE^{d/2}(t) = \big[\sin(t\,\omega_j)\,\big|\,\cos(t\,\omega_j)\big]_{j < d/4},"
    r"\quad \omega_j = \mathrm{base}^{-4j/d}\end{gathered}"
)
st.latex(
    r"\cos(e_{(y,x)}, e_{(y',x')}) = \tfrac{1}{2}\Big(\tfrac{4}{d}\textstyle\sum_j "
    r"\cos(\omega_j (x - x')) + \tfrac{4}{d}\sum_j \cos(\omega_j (y - y'))\Big)"
)


@st.fragment(key="vit-grid/tiles")
def tiles_section() -> None:
    """The ViT paper's similarity tiles, and the selected patch against every patch."""
    grid_h, grid_w, d_model, base = controls.values("grid_h", "grid_w", "d_model", "base")
    st.subheader(t("vit-grid.tiles"))
    row, col = patch_control(controls.view_row(1)[0])
    tiles = cached_tiles(grid_h, grid_w, d_model, base)
    similarity_map = patch_map(grid_h, grid_w, d_model, base, row, col)
    # One colour range for both charts, so a colour means the same cosine in each. The tiles
    # take the page's width: beside the patch map their square was narrower than its height,
    # and the colour bar (as tall as the figure) overshot it.
    mosaic = tiles.mosaic()
    colours = similarity_range(mosaic, similarity_map)
    # The map at other patches, previewed under the pointer: every patch up to 14 x 14.
    rows, cols, step = patch_lattice(grid_h, grid_w, row=row, col=col,
                                     per_state=grid_h * grid_w)
    previews = lattice_maps(cached_sincos_offsets(grid_h, grid_w, d_model, base), rows, cols)
    with slide_row("vit-grid-tiles"):
        show_chart(add_tiles_range_states(make_tiles_figure(tiles, colours=colours, lang=lang),
                                          mosaic, previews),
                   key="tiles_chart", name=file_stem("vit-grid-tiles", *grid_name()))
        left, right = st.columns([3, 2], gap="medium")
        with left:
            show_chart(
                add_patch_map_states(
                    make_patch_map_figure(similarity_map, row=row, col=col, colours=colours,
                                          lang=lang),
                    previews, shared=mosaic, lang=lang),
                key="patch_chart",
                name=file_stem("vit-grid-patch", *grid_name(), f"r{row}c{col}"),
                on_click=functools.partial(pick_patch, "patch_chart"),
            )
        with right:
            explain(t("vit-grid.tiles_caption"), caption=True)
            follows_pointer(step)


@st.fragment(key="vit-grid/halves")
def halves_section() -> None:
    """The column half and the row half of the encoding, each a 1-D sinusoid."""
    grid_h, grid_w, d_model, base = controls.values("grid_h", "grid_w", "d_model", "base")
    st.subheader(t("vit-grid.halves"))
    row, col = patch_control(controls.view_row(1)[0])
    # The halves at other patches too, previewed under the pointer (every 2nd row and column
    # at 14 x 14), made with the selected patch's.
    rows, cols, step = patch_lattice(grid_h, grid_w, row=row, col=col,
                                     per_state=2 * grid_h * grid_w)
    halves = cached_lattice_halves(grid_h, grid_w, d_model, base, tuple(sorted({*rows, row})),
                                   tuple(sorted({*cols, col})))
    column_half, row_half = halves[row, col]
    previews = {(r, c): halves[r, c] for r in rows for c in cols}
    show_chart(
        add_halves_states(make_halves_figure(column_half, row_half, row=row, col=col,
                                             d_model=d_model, lang=lang), previews),
        key="halves_chart",
        name=file_stem("vit-grid-halves", *grid_name(), f"r{row}c{col}"),
        on_click=functools.partial(pick_patch, "halves_chart"),
    )
    follows_pointer(step)
    explain(t("vit-grid.halves_text", half=d_model // 2, d_model=d_model))


@st.fragment(key="vit-grid/encoding")
def encoding_section() -> None:
    """The whole (tokens, d_model) table."""
    grid_h, grid_w, d_model, base, cls_token = controls.values(*PAGE_WIDE)
    st.subheader(t("vit-grid.encoding"))
    overview = cached_overview(grid_h, grid_w, d_model, base, cls_token)
    show_chart(
        make_vit_encoding_figure(overview, d_model=d_model, cls_token=cls_token, lang=lang),
        key="encoding_chart",
        name=file_stem("vit-grid-encoding", *grid_name(), "cls" if cls_token else None),
        table=TableExport(overview, (grid_h * grid_w + cls_token, d_model),
                          in_compute_slot(embedding_table, grid_h, grid_w, d_model, base,
                                          cls_token),
                          row_name="token", col_name="channel"),
    )
    if cls_token:
        explain(t("vit-grid.cls_caption", d_model=d_model), caption=True)
    explain(t("vit-grid.encoding_caption", grid_w=grid_w), caption=True)


@st.fragment(key="vit-grid/rope")
def rope_section() -> None:
    """MAE's table beside axial RoPE, DINOv3's and RoPE-Mixed's: the selected patch against
    every patch. Its own controls (d_head, the mixed head) above the chart: a change reruns
    this view alone."""
    grid_h, grid_w, d_model, base = controls.values("grid_h", "grid_w", "d_model", "base")
    st.subheader(t("vit-grid.rope"))
    # The patch second in every view that has it (after the heading): a bound widget that moves
    # to another block between views no longer reaches the address bar (docs/design.md).
    (patch_row,) = controls.view_row(1)
    row, col = patch_control(patch_row)
    explain(t("vit-grid.rope_intro"))
    head_width_column, head_column = controls.view_row(2, within=patch_row)
    with head_width_column:
        d_head = controls.stops("d_head")
    with head_column:
        head = controls.slider("head")
    # float32 as the rotations' maps (its previews at other patches in half the bytes; the
    # cosines move by 1e-7 at most)
    mae = patch_map(grid_h, grid_w, d_model, base, row, col).astype(np.float32)
    rotations = rope_maps(grid_h, grid_w, d_head, row, col)  # (14, H, W)
    maps = [(t("fig.vit_grid.rope_mae"), mae), (t("fig.vit_grid.rope_axial"), rotations[AXIAL]),
            (t("fig.vit_grid.rope_dinov3"), rotations[DINOV3]),
            (t("fig.vit_grid.rope_mixed"), rotations[mixed_rotation(head)])]
    # Both charts follow a dragged head slider: the maps at every head (evenly spaced ones on
    # grids past 36 x 36, said below), the tiles at the same heads when they fit.
    cells = grid_h * grid_w
    previewed = live_values(1, rope_2d.MIXED_HEADS, drawn=head, per_state=cells,
                            most=max(2, ROPE_PREVIEW_CELLS // cells))
    # The four maps at other patches, previewed under the pointer, in what the heads leave.
    rows, cols, step = patch_lattice(
        grid_h, grid_w, row=row, col=col, per_state=len(maps) * cells,
        budget=min(ROPE_PATCH_PREVIEW_NUMBERS, MAX_LIVE_NUMBERS - len(previewed) * cells))
    offsets = cached_rope_offsets(grid_h, grid_w, d_head)
    table = cached_sincos_offsets(grid_h, grid_w, d_model, base).astype(np.float32)
    # One colour range for every patch and head: the lowest cosine of any two patches under any
    # scheme (every map and tile is read off these offsets). A patch's or a head's preview then
    # changes the cells alone, and its colours mean what the others' do.
    colours = similarity_range(table, offsets)
    panels = [lattice_maps(table, rows, cols)] + [
        lattice_maps(offsets[rotation], rows, cols)
        for rotation in (AXIAL, DINOV3, mixed_rotation(head))]
    figure = add_rope_2d_states(
        make_rope_2d_figure(maps, row=row, col=col, head=head, colours=colours, lang=lang),
        {at: rotations[mixed_rotation(at)] for at in previewed}, row=row, col=col, lang=lang)
    show_chart(add_rope_2d_patch_states(
                   figure, {patch: [panel[patch] for panel in panels] for patch in panels[0]},
                   head=head, lang=lang),
               key="rope_chart",
               name=file_stem("vit-grid-rope", f"{grid_h}x{grid_w}", f"dhead{d_head}",
                              f"head{head}", f"r{row}c{col}"),
               on_click=functools.partial(pick_patch, "rope_chart"))
    follows_pointer(step)
    fx, fy = rope_2d.rope_2d_mixed_frequencies(d_head, rope_2d.MIXED_HEADS)[head - 1, 0]
    angle = math.degrees(math.atan2(fy, fx)) % 360
    explain(t("vit-grid.rope_caption", pairs=d_head // 2, d_model=d_model, head=head,
              angle=angle, angle_right=(angle + 90) % 360), caption=True)
    if len(previewed) < rope_2d.MIXED_HEADS:
        explain(t("vit-grid.rope_preview_some", shown=len(previewed),
                  heads=rope_2d.MIXED_HEADS), caption=True)
    with page_only("vit-grid-rope-tiles"):  # a slide shows the four maps
        tiles = [(t("fig.vit_grid.rope_mae"),
                  cached_tiles(grid_h, grid_w, d_model, base, ROPE_TILES_MOSAIC)),
                 (t("fig.vit_grid.rope_axial"), cached_rope_tiles(grid_h, grid_w, d_head, AXIAL)),
                 (t("fig.vit_grid.rope_dinov3"),
                  cached_rope_tiles(grid_h, grid_w, d_head, DINOV3)),
                 (t("fig.vit_grid.rope_mixed"),
                  cached_rope_tiles(grid_h, grid_w, d_head, mixed_rotation(head)))]
        mosaic_cells = tiles[-1][1].mosaic().size
        last = {} if len(previewed) * mosaic_cells > MAX_LIVE_NUMBERS else {
            at: cached_rope_tiles(grid_h, grid_w, d_head, mixed_rotation(at)) for at in previewed}
        show_chart(add_rope_2d_tiles_states(
                       make_rope_2d_tiles_figure(tiles, head=head, colours=colours, lang=lang),
                       last, lang=lang),
                   key="rope_tiles_chart",
                   name=file_stem("vit-grid-rope-tiles", f"{grid_h}x{grid_w}", f"d{d_model}",
                                  f"dhead{d_head}", f"head{head}"))
        explain(t("vit-grid.rope_tiles_caption"), caption=True)


@st.fragment(key="vit-grid/mrope")
def mrope_section() -> None:
    """Qwen2-VL's M-RoPE: the (t, h, w) ids of text + an image of the page's grid + text, and
    the relative logit along each axis. The text lengths are the view's own controls."""
    grid_h, grid_w = controls.values("grid_h", "grid_w")
    st.subheader(t("vit-grid.mrope"))
    explain(t("vit-grid.mrope_intro", grid_h=grid_h, grid_w=grid_w))
    before_column, after_column = controls.view_row(2)
    with before_column:
        text_before = controls.number("text_before")
    with after_column:
        text_after = controls.number("text_after")
    ids, offsets, logits = cached_mrope(text_before, grid_h, grid_w, text_after)
    show_chart(
        make_mrope_ids_figure(ids, image_start=text_before, image_tokens=grid_h * grid_w,
                              lang=lang),
        key="mrope_ids_chart",
        name=file_stem("vit-grid-mrope-ids", f"text{text_before}", f"{grid_h}x{grid_w}",
                       f"text{text_after}"),
    )
    show_chart(
        make_mrope_logits_figure(offsets, logits, d_head=128, section=mrope.QWEN2_VL_SECTION,
                                 lang=lang),
        key="mrope_logits_chart", name=file_stem("vit-grid-mrope-logits"),
    )
    far = max(grid_h, grid_w, 2) - 1
    explain(t("vit-grid.mrope_caption", far=far, width=float(logits[2, far]),
              height=float(logits[1, far])), caption=True)


# One section at a time (in the URL as `view`): a change redraws only what is on screen.
controls.sections(
    {"tiles": tiles_section, "halves": halves_section, "encoding": encoding_section,
     "rope": rope_section, "mrope": mrope_section},
)
