"""T5's buckets, xPos's scale and Qwen2-VL's M-RoPE (core.relative_bias, core.mrope) against the
reference code: Hugging Face's T5Attention and Qwen2-VL modules (installed), torchscale's XPOS
(written out in tests/reference.py)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from transformers.models.qwen2_vl.modeling_qwen2_vl import Qwen2VLModel, Qwen2VLRotaryEmbedding
from transformers.models.t5.modeling_t5 import T5Attention

import core
from core import mrope
from tests import reference

DISTANCES = np.arange(-300, 301)


@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize(("num_buckets", "max_distance"), [
    (32, 128),  # T5's own
    (16, 128), (64, 128), (32, 64), (32, 20), (8, 300), (4, 10), (128, 256),
])
def test_t5_buckets_match_hugging_face_on_every_distance(bidirectional, num_buckets,
                                                         max_distance):
    expected = T5Attention._relative_position_bucket(
        torch.tensor(DISTANCES), bidirectional=bidirectional, num_buckets=num_buckets,
        max_distance=max_distance).numpy()
    got = core.t5_relative_bucket(DISTANCES, bidirectional=bidirectional,
                                  num_buckets=num_buckets, max_distance=max_distance)
    np.testing.assert_array_equal(got, expected)
    assert got.shape == DISTANCES.shape and got.dtype == np.int64


def test_t5_buckets_keep_the_shape_of_a_matrix_of_offsets():
    index = np.arange(50)
    offsets = index[None, :] - index[:, None]
    got = core.t5_relative_bucket(offsets)
    expected = T5Attention._relative_position_bucket(torch.tensor(offsets)).numpy()
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"relative_position": [0.5]}, "whole numbers"),
    ({"relative_position": [1], "num_buckets": 31}, "even"),
    ({"relative_position": [1], "num_buckets": 2}, "num_buckets"),  # no exact bucket
    ({"relative_position": [1], "max_distance": 8}, "max_distance"),  # 8 exact buckets
    ({"relative_position": [10**9]}, "relative_position reaches"),
    ({"relative_position": [1], "bidirectional": "yes"}, "bidirectional"),
])
def test_t5_bucket_bad_input_names_the_argument(kwargs, match):
    with pytest.raises(ValueError, match=match):
        core.t5_relative_bucket(**kwargs)


@pytest.mark.parametrize(("d_head", "gamma", "scale_base"), [(64, 0.4, 512), (128, 0.4, 512),
                                                             (32, 1.0, 64), (8, 0.1, 16)])
def test_xpos_scale_is_torchscales(d_head, gamma, scale_base):
    positions = np.arange(-40, 300, 7)
    np.testing.assert_allclose(
        core.xpos_scale(positions, d_head, gamma=gamma, scale_base=scale_base),
        reference.xpos_scale(positions, d_head, gamma=gamma, scale_base=scale_base), rtol=1e-12)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(0, 3000), m=st.integers(0, 3000), shift=st.integers(-500, 500),
       d_head=st.sampled_from([16, 64, 128]))
def test_xpos_dot_product_depends_on_the_offset_only(n, m, shift, d_head):
    """q scaled by row n, k by the inverse of row m: per pair zeta ** ((n - m) / B), wherever
    the two positions stand."""
    def carried(q_at, k_at):
        rows = core.xpos_scale([q_at, k_at], d_head)
        return rows[0] / rows[1]
    np.testing.assert_allclose(carried(n, m), carried(n + shift, m + shift), rtol=1e-9)
    assert (carried(n, m) <= 1 + 1e-12).all() == (n >= m)  # a key in the past: damped


def test_xpos_bad_input_names_the_argument():
    for kwargs, match in (({"d_head": 7}, "even"), ({"gamma": 0.0}, "gamma"),
                          ({"scale_base": 0}, "scale_base")):
        with pytest.raises(ValueError, match=match):
            core.xpos_scale([0, 1], **{"d_head": 64, **kwargs})


@pytest.mark.parametrize(("d_head", "section"), [(128, (16, 24, 24)), (64, (8, 12, 12)),
                                                 (80, (8, 16, 16)), (16, (2, 2, 2, 2))])
def test_mrope_pair_axes_are_qwen2_vls_split(d_head, section):
    """Hugging Face's recomposition fed frequencies that are their axis number: each pair reads
    back the axis it takes."""
    freq = torch.arange(3, dtype=torch.float32).view(3, 1, 1, 1).expand(3, 1, 1, d_head // 2)
    fake = SimpleNamespace(mrope_section=list(section))
    chosen = Qwen2VLRotaryEmbedding.recomposition_frequencies(fake, freq)  # (1, 1, d_head)
    expected = chosen[0, 0, : d_head // 2].numpy().astype(np.int64)
    np.testing.assert_array_equal(core.mrope_pair_axes(d_head, section), expected)


def test_mrope_pair_axes_bad_sections():
    for section in ((16, 24, 23), (), "16,24,24"):
        with pytest.raises(ValueError, match="mrope_section"):
            core.mrope_pair_axes(128, section)


def hf_position_ids(segments, merge: int = 2) -> np.ndarray:
    """Qwen2VLModel.get_rope_index on a batch of one: text tokens of type 0, each image's tokens
    of type 1 with its grid before merging (h and w times `merge`)."""
    types, grids = [], []
    for kind, size in segments:
        if kind == "text":
            types += [0] * size
        else:
            t, h, w = size
            types += [1] * (t * h * w)
            grids.append([t, h * merge, w * merge])
    model = SimpleNamespace(
        config=SimpleNamespace(vision_config=SimpleNamespace(spatial_merge_size=merge)),
        get_vision_position_ids=lambda *a, **k: Qwen2VLModel.get_vision_position_ids(None, *a,
                                                                                     **k))
    position_ids, _ = Qwen2VLModel.get_rope_index(
        model, torch.zeros(1, len(types), dtype=torch.long), torch.tensor([types]),
        image_grid_thw=torch.tensor(grids) if grids else None)
    return position_ids[:, 0].numpy()


@pytest.mark.parametrize("segments", [
    [("text", 3), ("image", (1, 2, 3)), ("text", 4)],  # the example
    [("image", (1, 4, 4)), ("text", 2)],
    [("text", 5), ("image", (1, 3, 7)), ("text", 1), ("image", (1, 6, 2)), ("text", 3)],
    [("text", 7)],
    [("text", 1), ("image", (2, 3, 3)), ("text", 2)],  # two frames (t < max(h, w))
])
def test_mrope_position_ids_are_get_rope_index(segments):
    np.testing.assert_array_equal(core.mrope_position_ids(segments), hf_position_ids(segments))


def test_mrope_position_ids_of_the_example_written_out():
    ids = core.mrope_position_ids([("text", 3), ("image", (1, 2, 3)), ("text", 4)])
    assert ids.tolist() == [[0, 1, 2, 3, 3, 3, 3, 3, 3, 6, 7, 8, 9],
                            [0, 1, 2, 3, 3, 3, 4, 4, 4, 6, 7, 8, 9],
                            [0, 1, 2, 3, 4, 5, 3, 4, 5, 6, 7, 8, 9]]


def test_mrope_position_ids_bad_segments():
    for segments, match in (([], "non-empty"), ([("audio", 3)], "segments"),
                            ([("image", (1, 2))], r"\(t, h, w\)"),
                            ([("text", 0)], "text length"),
                            ([("image", (1, 200, 200))], "at most")):
        with pytest.raises(ValueError, match=match):
            core.mrope_position_ids(segments)


# Sequences of a few text runs and images (merged grids of 1-2 frames, 1-5 patches a side).
TEXT = st.tuples(st.just("text"), st.integers(1, 6))
IMAGE = st.tuples(st.just("image"), st.tuples(st.integers(1, 2), st.integers(1, 5),
                                              st.integers(1, 5)))
# As a chat template writes them: an image always stands between text (its vision start and end
# tokens at least), never next to another image.
SEGMENTS = st.lists(st.tuples(TEXT, IMAGE), min_size=1, max_size=3).flatmap(
    lambda runs: st.tuples(st.booleans(), st.booleans()).map(
        lambda ends: [*[s for run in runs for s in run][ends[0]:], *([("text", 2)] * ends[1])]))


@settings(max_examples=40, deadline=None)
@given(segments=SEGMENTS)
def test_mrope_position_ids_are_get_rope_index_for_any_sequence(segments):
    np.testing.assert_array_equal(core.mrope_position_ids(segments), hf_position_ids(segments))


@settings(max_examples=60)
@given(segments=SEGMENTS)
def test_mrope_text_counts_on_and_images_take_their_grid(segments):
    """Text tokens carry one running index on all three axes; an image's ids span its grid
    (t, h, w) from the next index, and the text after it resumes max(h, w) later."""
    ids = core.mrope_position_ids(segments)
    assert ids.shape == (3, sum(n if kind == "text" else int(np.prod(n))
                                for kind, n in segments))
    at = start = 0
    for kind, size in segments:
        count = size if kind == "text" else int(np.prod(size))
        block = ids[:, at:at + count]
        if kind == "text":
            for axis in range(3):
                np.testing.assert_array_equal(block[axis], start + np.arange(count))
        else:
            assert block.min(axis=1).tolist() == [start] * 3
            assert (block.max(axis=1) - start).tolist() == [side - 1 for side in size]
            # one token per (t, h, w) of the grid, in row-major order
            assert len({tuple(column) for column in block.T}) == count
        at += count
        start += count if kind == "text" else max(size[1:])


@settings(max_examples=60)
@given(data=st.data(), pairs=st.integers(1, 64))
def test_mrope_pair_axes_cycle_through_the_chunks(data, pairs):
    """Chunk k of mrope_section (consecutive pairs) follows axis k % 3, whatever the split."""
    cuts = sorted(data.draw(st.sets(st.integers(1, pairs - 1), max_size=5)) if pairs > 1 else [])
    sizes = np.diff([0, *cuts, pairs]).tolist()
    axes = core.mrope_pair_axes(2 * pairs, sizes)
    assert axes.shape == (pairs,)
    np.testing.assert_array_equal(axes, np.repeat(np.arange(len(sizes)) % 3, sizes))


@settings(max_examples=40)
@given(offsets=st.lists(st.integers(-4000, 4000), min_size=1, max_size=20),
       section=st.sampled_from([(16, 24, 24), (8, 12, 12), (2, 2, 2, 2)]))
def test_mrope_relative_logits_are_the_mean_cosine_of_the_pairs_each_axis_turns(offsets,
                                                                                section):
    """A slow loop: each pair either turns by theta_i * offset (its axis moved) or stays."""
    d_head = 2 * sum(section)
    logits = mrope.mrope_relative_logits(np.array(offsets), d_head, section, base=10000.0)
    axes = core.mrope_pair_axes(d_head, section)
    for j, offset in enumerate(offsets):
        for row, moved in enumerate([{0}, {1}, {2}, {0, 1, 2}]):
            total = sum(np.cos(offset * 10000.0 ** (-2 * i / d_head)) if axes[i] in moved
                        else 1.0 for i in range(d_head // 2))
            assert logits[row, j] == pytest.approx(total / (d_head // 2), abs=1e-12)
