"""core.bias_curves: T5's buckets and xPos's decay laid out for the ALiBi page's charts (the
schemes themselves are pinned to Hugging Face and torchscale in their own tests; the page's
charts to them in tests/test_app_alibi.py)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core import bias_curves


@settings(max_examples=40, deadline=None)
@given(num_buckets=st.integers(4, 64).map(lambda n: 2 * (n // 2)),
       max_distance=st.integers(40, 300), reach=st.integers(1, 400))
def test_t5_buckets_are_exact_near_and_shared_far(num_buckets, max_distance, reach):
    buckets = bias_curves.t5_buckets(reach, num_buckets=num_buckets, max_distance=max_distance)
    relative = buckets.relative
    assert relative[0] == -reach and relative[-1] == reach and relative.size == 2 * reach + 1
    # the decoder: the future is bucket 0, the past one bucket per distance below num_buckets/2
    assert (buckets.causal[relative >= 0] == 0).all()
    near = (relative < 0) & (-relative < buckets.exact_causal)
    np.testing.assert_array_equal(buckets.causal[near], -relative[near])
    # the encoder: each direction its half, one bucket per distance below num_buckets/4
    half = num_buckets // 2
    near = np.abs(relative) < buckets.exact_bidirectional
    np.testing.assert_array_equal(buckets.bidirectional[near],
                                  np.abs(relative[near]) + half * (relative[near] > 0))
    # far: every distance from max_distance on shares the last bucket of its direction
    far = np.abs(relative) >= max_distance
    np.testing.assert_array_equal(buckets.bidirectional[far & (relative < 0)], half - 1)
    np.testing.assert_array_equal(buckets.bidirectional[far & (relative > 0)], num_buckets - 1)
    np.testing.assert_array_equal(buckets.causal[far & (relative < 0)], num_buckets - 1)
    # and the buckets grow (never shrink) with distance in each direction
    past = buckets.causal[relative <= 0][::-1]
    assert (np.diff(past.astype(int)) >= 0).all()


def test_t5_bucket_matrix_is_the_curve_on_every_diagonal():
    buckets = bias_curves.t5_buckets(40, num_buckets=16, max_distance=30)
    for bidirectional, row in ((True, buckets.bidirectional), (False, buckets.causal)):
        matrix = bias_curves.t5_bucket_matrix(buckets, 41, bidirectional=bidirectional)
        assert matrix.shape == (41, 41) and matrix.dtype == np.int16
        for i in range(0, 41, 7):
            for j in range(0, 41, 5):
                assert matrix[i, j] == row[(j - i) + 40]
    with pytest.raises(ValueError, match="positions"):
        bias_curves.t5_bucket_matrix(buckets, 42, bidirectional=True)  # past the curve's reach
    with pytest.raises(ValueError, match="reach"):
        bias_curves.t5_buckets(0)


def test_xpos_decay_starts_at_one_and_its_envelope_falls():
    decay = bias_curves.xpos_decay(2000, 64, gamma=0.4, scale_base=512)
    assert decay.rope[0] == pytest.approx(1.0) and decay.xpos[0] == pytest.approx(1.0)
    assert (np.diff(decay.envelope) < 0).all()  # every zeta_i < 1: a strictly falling mean
    assert (np.abs(decay.xpos) <= decay.envelope + 1e-6).all()  # damped within its envelope
    slower = bias_curves.xpos_decay(2000, 64, gamma=2.0, scale_base=512)
    assert slower.envelope[-1] > decay.envelope[-1]  # a larger gamma: zeta nearer 1
    with pytest.raises(ValueError, match="base"):
        bias_curves.xpos_decay(10, 64, base=1.0)
