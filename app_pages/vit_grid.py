"""2-D grids for ViT: MAE's 2-D sin-cos embedding of image patches and the ViT paper's tiles."""

import streamlit as st

import core
from core import vit_tiles
from core.figures.vit_grid import (
    make_halves_figure,
    make_patch_map_figure,
    make_tiles_figure,
    make_vit_encoding_figure,
)
from core.page_params import PAGE_PARAMS
from ui.controls import PageControls


@st.cache_data(max_entries=4, show_spinner=False)
def cached_embedding(grid_h: int, grid_w: int, d_model: int, base: float, cls_token: bool):
    return core.sincos_2d_encoding(grid_h, grid_w, d_model, base=base, cls_token=cls_token)


@st.cache_data(max_entries=8, show_spinner=False)
def cached_tiles(grid_h: int, grid_w: int, d_model: int, base: float):
    return vit_tiles.similarity_tiles(
        cached_embedding(grid_h, grid_w, d_model, base, False), grid_h, grid_w
    )


@st.cache_data(max_entries=8, show_spinner=False)
def cached_overview(grid_h: int, grid_w: int, d_model: int, base: float, cls_token: bool):
    return vit_tiles.vit_encoding_overview(grid_h, grid_w, d_model, base=base, cls_token=cls_token)


def apply_preset(name: str) -> None:
    """Set the bound controls before they are created (a button callback runs first)."""
    preset = vit_tiles.PRESETS[name]
    st.session_state.update(
        grid_h=preset.grid_h,
        grid_w=preset.grid_w,
        d_model=preset.d_model,
        cls_token=preset.cls_token,
        patch="",
    )


st.title("2-D grids for ViT")
controls = PageControls("vit-grid", PAGE_PARAMS["vit-grid"])
with st.sidebar:
    st.caption("Presets")
    for number, (name, preset) in enumerate(vit_tiles.PRESETS.items()):
        st.button(name, key=f"preset_{number}", help=preset.note, on_click=apply_preset,
                  args=(name,), width="stretch")
    grid_h = controls.number("grid_h", "grid rows (grid_h)", help="Patches down: 1 to 64.")
    grid_w = controls.number("grid_w", "grid columns (grid_w)", help="Patches across: 1 to 64.")
    d_model = controls.number("d_model", "d_model (divisible by 4)", help="4 to 1280.")
    base = controls.number("base", "base", fmt="%g", help="MAE uses 10000. Must be > 1.")
    cls_token = controls.toggle("cls_token", "cls token", help="Prepend ViT's all-zero cls row.")
    patch_text = controls.text(
        "patch", "selected patch (row,col)", help="e.g. 3,4 — empty: the centre patch."
    )
try:
    row, col = vit_tiles.parse_patch(patch_text, grid_h, grid_w)
except ValueError as error:
    row, col = grid_h // 2, grid_w // 2
    notice = f"URL parameter {error}. Using the default, the centre patch {row},{col}."
    if notice not in controls.notices:  # kept across the reset rerun of PageControls
        controls.notices.append(notice)

tokens = grid_h * grid_w + (1 if cls_token else 0)
st.markdown(
    f"**{grid_h} x {grid_w} patches, d_model {d_model}**: the table has shape "
    f"**({tokens}, {d_model})**"
    + (" (one cls row, all zeros, then the patches row by row)." if cls_token else ".")
    + " Source 002 builds it from two 1-D encodings of half the width: the patch's column "
    "index $x$ and its row index $y$, each in the concatenated $[\\sin | \\cos]$ layout."
)
st.latex(
    r"e_{(y,x)} = \big[\, PE^{d/2}(x) \;\big|\; PE^{d/2}(y) \,\big], \qquad "
    r"PE^{d/2}(t) = \big[\sin(t\,\omega_j)\,\big|\,\cos(t\,\omega_j)\big]_{j < d/4},"
    r"\quad \omega_j = \mathrm{base}^{-4j/d}"
)
st.latex(
    r"\cos(e_{(y,x)}, e_{(y',x')}) = \tfrac{1}{2}\Big(\tfrac{4}{d}\textstyle\sum_j "
    r"\cos(\omega_j (x - x')) + \tfrac{4}{d}\sum_j \cos(\omega_j (y - y'))\Big)"
)

def tiles_section() -> None:
    """The ViT paper's similarity tiles, and the selected patch against every patch."""
    embedding = cached_embedding(grid_h, grid_w, d_model, base, cls_token)
    left, right = st.columns([3, 2], gap="medium")  # the tiles need the room
    with left:
        tiles = cached_tiles(grid_h, grid_w, d_model, base)
        st.plotly_chart(make_tiles_figure(tiles), key="tiles_chart")
        st.caption(
            "As in the ViT paper's Figure 7 (centre): tile $(r, c)$ is the cosine similarity of "
            "patch "
            "$(r, c)$ with every patch. Each tile peaks at its own patch and fades with distance "
            "along rows and columns. The cls row is left out: it is all zeros."
        )
    with right:
        similarity_map = vit_tiles.patch_similarity_map(embedding, grid_h, grid_w, row, col)
        st.plotly_chart(make_patch_map_figure(similarity_map, row=row, col=col), key="patch_chart")


def halves_section() -> None:
    """The column half and the row half of the encoding, each a 1-D sinusoid."""
    embedding = cached_embedding(grid_h, grid_w, d_model, base, cls_token)
    st.subheader("The two halves")
    column_half, row_half = vit_tiles.half_similarity_maps(embedding, grid_h, grid_w, row, col)
    st.plotly_chart(
        make_halves_figure(column_half, row_half, row=row, col=col, d_model=d_model),
        key="halves_chart",
    )
    st.markdown(
        f"Channels $[0, {d_model // 2})$ depend only on the patch's **column**: their map is "
        "constant "
        f"down every column. Channels $[{d_model // 2}, {d_model})$ depend only on the **row**: "
        "constant along every row. The full similarity is the mean of the two maps. "
        "MAE's code names the halves the other way round: it builds `grid = np.meshgrid(grid_w, "
        "grid_h)`, and `np.meshgrid` returns the *x* (width, column) coordinate first, so "
        "`grid[0]` holds column indices; it then encodes `grid[0]` into a variable called `emb_h` "
        "and `grid[1]` (the rows) into `emb_w`. Source 002 points this out. The values are right, "
        "only the names are swapped, and nothing depends on the names (a transposed grid is "
        "learned just as well); this page names the halves by what they hold."
    )


def encoding_section() -> None:
    """The whole (tokens, d_model) table."""
    st.subheader("The full encoding")
    overview = cached_overview(grid_h, grid_w, d_model, base, cls_token)
    st.plotly_chart(
        make_vit_encoding_figure(overview, d_model=d_model, cls_token=cls_token),
        key="encoding_chart",
    )
    if cls_token:
        st.caption(f"Row 0 is the cls token: zeros, shape (1, {d_model}), as in MAE's code.")
    st.caption(
        f"Patch rows repeat a pattern every {grid_w} tokens in the column half (the column index "
        "cycles) and change in steps of that length in the row half."
    )


# One section at a time (in the URL as `view`): a change redraws only what is on screen.
controls.sections(
    {"tiles": tiles_section, "halves": halves_section, "encoding": encoding_section},
    help="tiles: every patch against every patch (the ViT paper's figure); "
    "halves: the column and row halves; encoding: the whole table.",
)

controls.finish()
