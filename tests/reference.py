"""Independent reference implementations, written as the sources write them.

Slow, obviously-correct loops and the code shown in the articles / reference repositories; the
tests compare `core` against these, never against itself.
"""

from __future__ import annotations

import copy
import functools
import json
import math
from pathlib import Path

import numpy as np


def loop_interleaved(num_positions: int, d_model: int, base: float = 10000.0) -> np.ndarray:
    """The paper's formula, one entry at a time, in float64 (math.sin / math.cos)."""
    out = np.zeros((num_positions, d_model))
    for pos in range(num_positions):
        for i in range(d_model // 2):
            angle = pos / base ** (2 * i / d_model)
            out[pos, 2 * i] = math.sin(angle)
            out[pos, 2 * i + 1] = math.cos(angle)
    return out


def loop_concatenated(num_positions: int, d_model: int, base: float = 10000.0) -> np.ndarray:
    """MAE's layout (the paper's frequencies), one entry at a time: sines in [0, d/2), cosines
    in [d/2, d)."""
    half = d_model // 2
    out = np.zeros((num_positions, d_model))
    for pos in range(num_positions):
        for i in range(half):
            angle = pos / base ** (2 * i / d_model)
            out[pos, i] = math.sin(angle)
            out[pos, half + i] = math.cos(angle)
    return out


# --- MAE's util/pos_embed.py (facebookresearch/mae), as quoted in 002_6ca15f9f9ded23fa.txt ------
def mae_get_1d_sincos_pos_embed_from_grid(embed_dim, pos):
    assert embed_dim % 2 == 0
    omega = np.arange(embed_dim // 2, dtype=np.float64)
    omega /= embed_dim / 2.0
    omega = 1.0 / 10000**omega  # (D/2,)
    pos = pos.reshape(-1)  # (M,)
    out = np.einsum("m,d->md", pos, omega)  # (M, D/2), outer product
    emb_sin = np.sin(out)  # (M, D/2)
    emb_cos = np.cos(out)  # (M, D/2)
    return np.concatenate([emb_sin, emb_cos], axis=1)  # (M, D)


def mae_get_2d_sincos_pos_embed_from_grid(embed_dim, grid):
    assert embed_dim % 2 == 0
    emb_h = mae_get_1d_sincos_pos_embed_from_grid(embed_dim // 2, grid[0])  # (H*W, D/2)
    emb_w = mae_get_1d_sincos_pos_embed_from_grid(embed_dim // 2, grid[1])  # (H*W, D/2)
    return np.concatenate([emb_h, emb_w], axis=1)  # (H*W, D)


def mae_get_2d_sincos_pos_embed(embed_dim, grid_size, cls_token=False):
    grid_h = np.arange(grid_size, dtype=np.float32)
    grid_w = np.arange(grid_size, dtype=np.float32)
    grid = np.meshgrid(grid_w, grid_h)  # here w goes first
    grid = np.stack(grid, axis=0)
    grid = grid.reshape([2, 1, grid_size, grid_size])
    pos_embed = mae_get_2d_sincos_pos_embed_from_grid(embed_dim, grid)
    if cls_token:
        pos_embed = np.concatenate([np.zeros([1, embed_dim]), pos_embed], axis=0)
    return pos_embed


# --- The three implementations the articles show (used by the tests and the benchmark) ----------
def article_list_comprehension(n_position: int, d_hid: int) -> np.ndarray:
    """003_8f6041c3df7ea4a0.txt: `_get_sinusoid_encoding_table`, per element."""

    def get_position_angle_vec(position):
        return [position / np.power(10000, 2 * (hid_j // 2) / d_hid) for hid_j in range(d_hid)]

    sinusoid_table = np.array([get_position_angle_vec(pos_i) for pos_i in range(n_position)])
    sinusoid_table[:, 0::2] = np.sin(sinusoid_table[:, 0::2])  # dim 2i
    sinusoid_table[:, 1::2] = np.cos(sinusoid_table[:, 1::2])  # dim 2i+1
    return sinusoid_table


def article_tf_get_angles(position: int, d_model: int) -> np.ndarray:
    """002_6ca15f9f9ded23fa.txt: the TensorFlow tutorial's `get_angles` version (numpy part)."""

    def get_angles(pos, i, d_model):
        angle_rates = 1 / np.power(10000, (2 * (i // 2)) / np.float32(d_model))
        return pos * angle_rates

    angle_rads = get_angles(
        np.arange(position)[:, np.newaxis], np.arange(d_model)[np.newaxis, :], d_model
    )
    angle_rads[:, 0::2] = np.sin(angle_rads[:, 0::2])
    angle_rads[:, 1::2] = np.cos(angle_rads[:, 1::2])
    return angle_rads


def article_torch_div_term(max_len: int, d_model: int):
    """001_f180268f58001bd4.txt: the torch module's table (`div_term`), as a (max_len, d) tensor."""
    import torch

    pe = torch.zeros(max_len, d_model)
    position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    return pe


# --- tensor2tensor's get_timing_signal_1d (tensor2tensor/layers/common_attention.py) -------------
def t2t_get_timing_signal_1d(length, channels, min_timescale=1.0, max_timescale=1.0e4,
                             start_index=0):
    """The paper's authors' code, in numpy: d/2 timescales from min to max *inclusive*,
    [sin | cos] concatenated, a zero column padded for odd channels. Shape (length, channels)."""
    position = np.arange(length, dtype=np.float64) + start_index
    num_timescales = channels // 2
    log_timescale_increment = math.log(float(max_timescale) / float(min_timescale)) / max(
        float(num_timescales) - 1, 1
    )
    inv_timescales = min_timescale * np.exp(
        np.arange(num_timescales, dtype=np.float64) * -log_timescale_increment
    )
    scaled_time = position[:, None] * inv_timescales[None, :]
    signal = np.concatenate([np.sin(scaled_time), np.cos(scaled_time)], axis=1)
    return np.pad(signal, [[0, 0], [0, channels % 2]])


# --- An image resampler, one cell at a time ----------------------------------------------------
def loop_gaussian_resample(values: np.ndarray, bins: int, axis: int = 0) -> np.ndarray:
    """Downsample `values` along `axis` to `bins` cells the textbook way, one cell at a time: cell
    j is the Gaussian-weighted mean (sigma = half a cell, cut at 3 sigma, renormalised at the
    ends) of the entries around its centre (j + 1/2) * size / bins - 1/2. Unchanged if it fits."""
    values = np.moveaxis(np.asarray(values, dtype=np.float64), axis, 0)
    size = values.shape[0]
    if bins >= size:
        return np.moveaxis(values.copy(), 0, axis)
    step = size / bins
    sigma = 0.5 * step
    out = np.zeros((bins, *values.shape[1:]))
    for j in range(bins):
        center = (j + 0.5) * step - 0.5
        total = 0.0
        for index in range(size):
            if abs(index - center) <= 3 * sigma:
                weight = math.exp(-0.5 * ((index - center) / sigma) ** 2)
                out[j] += weight * values[index]
                total += weight
        out[j] /= total
    return np.moveaxis(out, 0, axis)


def loop_offset_dot(k: int, d_model: int, base: float = 10000.0) -> float:
    return sum(math.cos(k / base ** (2 * i / d_model)) for i in range(d_model // 2))


# --- torchscale's XPOS (microsoft/torchscale, torchscale/component/xpos_relative_position.py at
# 4d1e0e82e5adf86dd424f1463192635b73fc8efc) ------------------------------------------------------
#     self.register_buffer(
#         "scale", (torch.arange(0, head_dim, 2) + 0.4 * head_dim) / (1.4 * head_dim)
#     )
#     scale = self.scale ** torch.arange(min_pos, max_pos, 1).to(self.scale).div(
#         self.scale_base)[:, None]
# (gamma = 0.4 there; the paper's zeta_i = (2i/d + gamma) / (1 + gamma)). Per position and pair,
# in plain Python.
def xpos_scale(positions, head_dim: int, gamma: float = 0.4, scale_base: int = 512) -> np.ndarray:
    rows = []
    for position in positions:
        row = []
        for i in range(head_dim // 2):
            zeta = ((2 * i) + gamma * head_dim) / ((1 + gamma) * head_dim)
            row.append(zeta ** (float(position) / scale_base))
        rows.append(row)
    return np.array(rows)


# --- naver-ai/rope-vit (deit/models_v2_rope.py at ce85c2e56c5ff3aadc10e1a849872081f7b86293),
# with torch.rand's head angles passed in -------------------------------------------------------
def rope_vit_init_t_xy(end_x: int, end_y: int):
    import torch

    t = torch.arange(end_x * end_y, dtype=torch.float32)
    t_x = (t % end_x).float()
    t_y = torch.div(t, end_x, rounding_mode="floor").float()
    return t_x, t_y


def rope_vit_compute_axial_cis(dim: int, end_x: int, end_y: int, theta: float = 100.0):
    import torch

    freqs_x = 1.0 / (theta ** (torch.arange(0, dim, 4)[: (dim // 4)].float() / dim))
    freqs_y = 1.0 / (theta ** (torch.arange(0, dim, 4)[: (dim // 4)].float() / dim))
    t_x, t_y = rope_vit_init_t_xy(end_x, end_y)
    freqs_x = torch.outer(t_x, freqs_x)
    freqs_y = torch.outer(t_y, freqs_y)
    freqs_cis_x = torch.polar(torch.ones_like(freqs_x), freqs_x)
    freqs_cis_y = torch.polar(torch.ones_like(freqs_y), freqs_y)
    return torch.cat([freqs_cis_x, freqs_cis_y], dim=-1)


def rope_vit_init_random_2d_freqs(dim: int, angles, theta: float = 10.0):
    import torch

    freqs_x = []
    freqs_y = []
    mag = 1 / (theta ** (torch.arange(0, dim, 4)[: (dim // 4)].float() / dim))
    for angle in angles:
        angles = torch.tensor([float(angle)])  # torch.rand(1) * 2 * torch.pi there
        fx = torch.cat([mag * torch.cos(angles), mag * torch.cos(torch.pi / 2 + angles)], dim=-1)
        fy = torch.cat([mag * torch.sin(angles), mag * torch.sin(torch.pi / 2 + angles)], dim=-1)
        freqs_x.append(fx)
        freqs_y.append(fy)
    freqs_x = torch.stack(freqs_x, dim=0)
    freqs_y = torch.stack(freqs_y, dim=0)
    return torch.stack([freqs_x, freqs_y], dim=0)


def rope_vit_compute_mixed_cis(freqs, t_x, t_y, num_heads):
    import torch

    n = t_x.shape[0]
    depth = 1  # one layer's freqs here: (2, heads, dim/2)
    freqs_x = (t_x.unsqueeze(-1) @ freqs[0].reshape(1, -1)).view(depth, n, num_heads, -1)
    freqs_y = (t_y.unsqueeze(-1) @ freqs[1].reshape(1, -1)).view(depth, n, num_heads, -1)
    freqs_x, freqs_y = freqs_x.permute(0, 2, 1, 3), freqs_y.permute(0, 2, 1, 3)
    return torch.polar(torch.ones_like(freqs_x), freqs_x + freqs_y)


# --- RoPE: a query with itself at distance k (RoFormer §3.4.3's setting) ----------------------
def rope_self_logit_loop(inv_freq, scale: float, k: int) -> float:
    """`scale` times the logit of a query with itself at distance k, every pair the unit vector
    (1, 0) and the key rotated by k, one pair at a time: (q . R_k q) / (d/2)."""
    total = 0.0
    for angle in inv_freq:
        query = (1.0, 0.0)
        key = (math.cos(k * angle), math.sin(k * angle))  # the query rotated by k
        total += query[0] * key[0] + query[1] * key[1]
    return scale * total / len(inv_freq)


# --- The ViT paper's similarity maps and tiles (Dosovitskiy et al., 2021, Fig. 7 centre) from a
# (patches, d) table, the cosine of its rows: `core.vit_grid` reads the same off the similarity at
# each offset (`offset_similarity_tiles`), these read it off the table itself ------------------
def _grid_patches(embedding, grid_h: int, grid_w: int) -> np.ndarray:
    """The patch rows of a 2-D embedding, a cls row (if any) dropped: ``(grid_h * grid_w, d)``."""
    embedding = np.asarray(embedding, dtype=np.float64)
    assert embedding.shape[0] in (grid_h * grid_w, grid_h * grid_w + 1)
    return embedding[-grid_h * grid_w:]


def patch_similarity_map(embedding, grid_h: int, grid_w: int, row: int, col: int) -> np.ndarray:
    """Cosine similarity of patch (row, col) with every patch, laid out as the grid ``(H, W)``,
    one patch at a time."""
    patches = _grid_patches(embedding, grid_h, grid_w)  # (H*W, d) row-major
    source = patches[row * grid_w + col]
    out = np.zeros((grid_h, grid_w))
    for r in range(grid_h):
        for c in range(grid_w):
            other = patches[r * grid_w + c]
            out[r, c] = source @ other / (np.linalg.norm(source) * np.linalg.norm(other))
    return out


def half_similarity_maps(
    embedding, grid_h: int, grid_w: int, row: int, col: int
) -> tuple[np.ndarray, np.ndarray]:
    """The similarity map from each half alone: ``(column half (H, W), row half (H, W))``.

    Channels [0, d/2) hold the column (x) code, so their map is constant down each column;
    [d/2, d) hold the row (y) code, constant along each row.
    """
    patches = _grid_patches(embedding, grid_h, grid_w)  # (H*W, d)
    half = patches.shape[1] // 2
    return (
        patch_similarity_map(patches[:, :half], grid_h, grid_w, row, col),  # (H, W) x-code
        patch_similarity_map(patches[:, half:], grid_h, grid_w, row, col),  # (H, W) y-code
    )


def similarity_tiles(embedding, grid_h: int, grid_w: int, *, max_tiles: int = 14,
                     max_side: int = 300):
    """One tile per patch for grids up to `max_tiles` per side, else evenly spread patches (first
    and last kept); each tile that patch's cosine similarity with every patch (the table's rows,
    unit length, times each other), resampled one cell at a time (`loop_gaussian_resample`) to
    the grid at one scale s for both axes, the largest s <= 1 that keeps the mosaic (each tile
    and a one-cell gap) within `max_side` cells per side: round(H s) x round(W s), at least one
    cell. A `core.vit_grid.SimilarityTiles`, the dataclass the figures draw."""
    from core.vit_grid import SimilarityTiles

    patches = _grid_patches(embedding, grid_h, grid_w)  # (H*W, d)
    unit = patches / np.linalg.norm(patches, axis=1, keepdims=True)  # (H*W, d)
    tile_rows = np.unique(np.round(np.linspace(0, grid_h - 1, min(grid_h, max_tiles))).astype(int))
    tile_cols = np.unique(np.round(np.linspace(0, grid_w - 1, min(grid_w, max_tiles))).astype(int))
    fit_h = max(1, max_side // tile_rows.size - 1)  # most cells down a tile
    fit_w = max(1, max_side // tile_cols.size - 1)
    scale = min(1.0, fit_h / grid_h, fit_w / grid_w)
    tile_h, tile_w = max(1, round(grid_h * scale)), max(1, round(grid_w * scale))
    sources = [row * grid_w + col for row in tile_rows for col in tile_cols]  # row-major tiles
    maps = np.stack([(unit @ unit[s]).reshape(grid_h, grid_w) for s in sources])  # (th*tw, H, W)
    tiles = loop_gaussian_resample(loop_gaussian_resample(maps, tile_h, axis=1), tile_w, axis=2)
    tiles = tiles.reshape(tile_rows.size, tile_cols.size, tile_h, tile_w)  # (th, tw, h, w)
    return SimilarityTiles(tile_rows=tile_rows, tile_cols=tile_cols, tiles=tiles, grid_h=grid_h,
                           grid_w=grid_w)


# --- 2-D RoPE as a table: each patch's rotation as [cos angle | sin angle] ----------------------
def rope_2d_table(angles: np.ndarray) -> np.ndarray:
    """(rows * cols, 2 pairs) float64: each patch's rotation as [cos angle | sin angle], row by
    row. Every row has norm sqrt(pairs), and the cosine similarity of two rows is
    `core.rope_2d.rope_2d_similarity`'s value for those patches (cos a cos b + sin a sin b =
    cos(a - b)): a table that the similarity maps and tiles above read as they read MAE's."""
    angles = np.asarray(angles, dtype=np.float64)
    assert angles.ndim == 3, "angles must have shape (rows, cols, pairs)"
    flat = angles.reshape(-1, angles.shape[-1])
    return np.concatenate([np.cos(flat), np.sin(flat)], axis=1)


# --- RoPE's wavelengths: the pair at a wavelength --------------------------------------------
def pair_at_wavelength(d_head: int, base: float, wavelength: float) -> float:
    """The fractional pair index i where plain RoPE's wavelength 2 pi base^(2i/d) equals
    `wavelength`: (d/2) log_base(wavelength / 2 pi). Not clamped to [0, d/2 - 1]."""
    return (d_head / 2) * math.log(wavelength / (2 * math.pi), base)


# --- RoPE configs: the published config.json fields, from the tests' own copy ------------------
PUBLISHED_CONFIGS = Path(__file__).with_name("published_configs.json")


@functools.cache
def _published() -> dict[str, dict]:
    return json.loads(PUBLISHED_CONFIGS.read_text(encoding="utf-8"))["models"]


def published_models() -> dict[str, str]:
    """Each preset name in tests/published_configs.json and the Hugging Face model id its
    config.json comes from."""
    return {name: entry["model"] for name, entry in _published().items()}


def published_config(name: str) -> dict:
    """The RoPE fields of preset `name`'s config.json as tests/published_configs.json copies
    them from the model's published file (named there): a fresh, json.dumps-able dict. Written
    apart from `core.rope_config`, whose presets the tests check against it."""
    models = _published()
    if name not in models:
        raise ValueError(f"name={name!r} is not allowed: name must be one of "
                         f"{', '.join(repr(key) for key in models)}")
    return copy.deepcopy(models[name]["config"])


def offset_only_share(matrix) -> float:
    """How much of a similarity matrix the offset alone explains, as docs/user-guide.md defines
    it: 1 - sum (S - mean of its diagonal i - j)^2 / sum (S - mean of S)^2. Loops over the
    diagonals (the app's is vectorised)."""
    import numpy as np

    s = np.asarray(matrix, dtype=np.float64)
    n = s.shape[0]
    mean = s.mean()
    left = 0.0
    total = 0.0
    for k in range(-(n - 1), n):
        diagonal = np.diagonal(s, offset=k)
        left += float(np.sum((diagonal - diagonal.mean()) ** 2))
        total += float(np.sum((diagonal - mean) ** 2))
    return 1.0 - left / total if total > 0 else 1.0
