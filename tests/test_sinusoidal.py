"""`core.sinusoidal`: the articles' worked numbers, the paper's properties, accuracy, errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import core
from tests import reference

# 000_07ab17f223f31f63.txt: d_model = 4, positions 0..4, to 4 decimals: the article sometimes
# truncates (cos 3 = -0.98999 is printed -0.9899), so agreement is to 1e-4; it rounds
# sin(0.01) = 0.0099998 to 0.01, so that column is compared to 2 decimals.
ARTICLE_000_TABLE = np.array([
    [0, 1, 0, 1],
    [0.8415, 0.5403, 0.0100, 0.99995],
    [0.9093, -0.4161, 0.0200, 0.9998],
    [0.1411, -0.9899, 0.0300, 0.99955],
    [-0.7568, -0.6536, 0.0400, 0.9992],
])


def test_article_000_d4_table():
    pe = core.sinusoidal_encoding(5, 4)
    assert pe.shape == (5, 4) and pe.dtype == np.float32
    np.testing.assert_allclose(pe[:, [0, 1, 3]], ARTICLE_000_TABLE[:, [0, 1, 3]], atol=1e-4)
    np.testing.assert_allclose(pe[:, 2], ARTICLE_000_TABLE[:, 2], atol=5e-3)
    assert pe[1, 2] == pytest.approx(0.0099998, abs=1e-7)  # what the article rounded


def test_article_004_bert_sized_position_1():
    # 004_775f8adb18140991.txt: d_model = 768, pos = 1 -> 0.84, 0.54, 0.83, 0.56 ... 0.00, 1.00
    row = core.sinusoidal_encoding(2, 768)[1]
    np.testing.assert_allclose(row[[0, 1, 2, 3]], [0.8415, 0.5403, 0.8284, 0.5601], atol=5e-5)
    np.testing.assert_allclose(row[[766, 767]], [0.0001, 1.0000], atol=5e-5)


def test_article_004_periodicity_of_dimension_0():
    # sin(7) = sin(2.23 pi) = sin(0.23 pi): dimension 0 repeats every 2 pi positions.
    pe = core.sinusoidal_encoding(9, 768)
    assert pe[7, 0] == pytest.approx(math.sin(0.2282 * math.pi), abs=1e-3)
    assert pe[8, 0] == pytest.approx(math.sin(0.5465 * math.pi), abs=1e-3)


def test_wavelengths_geometric_progression():
    w = core.wavelengths(512)
    assert w[0] == 2 * math.pi  # exactly 2 pi
    assert w[-1] == pytest.approx(2 * math.pi * 10000 ** (510 / 512))
    assert w[-1] == pytest.approx(60611.5, abs=0.05)  # not the paper's rounded 62,831.9
    ratios = w[1:] / w[:-1]
    np.testing.assert_allclose(ratios, 10000 ** (2 / 512), rtol=1e-12)
    np.testing.assert_allclose(core.frequencies(512), 2 * math.pi / w, rtol=1e-15)


@pytest.mark.parametrize("num_positions, d_model", [(1, 2), (7, 4), (33, 10), (70, 64)])
@pytest.mark.parametrize("base", [10000.0, 500000.0, 1.5])
def test_equals_slow_loops(num_positions, d_model, base):
    for layout, loop in [("interleaved", reference.loop_interleaved),
                         ("concatenated", reference.loop_concatenated)]:
        expected = loop(num_positions, d_model, base)
        fast = core.sinusoidal_encoding(num_positions, d_model, base=base, layout=layout)
        exact = core.sinusoidal_encoding(
            num_positions, d_model, base=base, layout=layout, dtype=np.float64
        )
        np.testing.assert_allclose(fast, expected, atol=1e-6, rtol=0)
        np.testing.assert_allclose(exact, expected, atol=1e-12, rtol=0)


def test_equals_the_articles_three_implementations():
    ours = core.sinusoidal_encoding(100, 64)
    np.testing.assert_allclose(ours, reference.article_list_comprehension(100, 64), atol=1e-6)
    # The TF tutorial computes its rates in float32 (np.float32(d_model)): 1e-5 agreement.
    np.testing.assert_allclose(ours, reference.article_tf_get_angles(100, 64), atol=1e-5)
    # The torch module computes angles in float32: fine for small positions only.
    np.testing.assert_allclose(ours, reference.article_torch_div_term(100, 64).numpy(), atol=1e-4)


def test_float32_accuracy_for_100k_positions():
    d_model, n = 64, 100_000
    fast = core.sinusoidal_encoding(n, d_model)
    angles = np.arange(n, dtype=np.float64)[:, None] * (
        10000.0 ** (-np.arange(0, d_model, 2) / d_model)
    )
    assert np.abs(fast[:, 0::2] - np.sin(angles)).max() < 1e-6
    assert np.abs(fast[:, 1::2] - np.cos(angles)).max() < 1e-6


def float64_steps(omega: np.ndarray) -> np.ndarray:
    """e^{i r w} for r in [0, 1000): `float64_phasors`' steps, the same for every start."""
    return np.exp(1j * np.multiply.outer(np.arange(1000.0), omega))  # (1000, h)


def float64_phasors(start: int, count: int, omega: np.ndarray,
                    steps: np.ndarray | None = None) -> np.ndarray:
    """e^{i p w} for p in [start, start + count), complex128, to ~1e-15: rows of 1000 positions as
    exact anchors e^{i 1000 j w} times exact steps e^{i r w} (np.exp of float64 angles each;
    `steps`, float64_steps(omega), computed once for many starts)."""
    rows = -(-count // 1000)
    anchors = np.exp(1j * np.multiply.outer(start + 1000.0 * np.arange(rows), omega))  # (J, h)
    steps = float64_steps(omega) if steps is None else steps
    return (anchors[:, None, :] * steps[None]).reshape(rows * 1000, -1)[:count]


def largest_gap(a: np.ndarray, b: np.ndarray) -> float:
    """max |a - b|, with one temporary array instead of two."""
    gap = np.subtract(a, b)
    return float(max(gap.max(), -gap.min()))


@pytest.mark.parametrize("d_model", [64, 512, 768])
def test_float32_error_bound_over_a_million_positions(d_model):
    """The one bound the README, docs/design.md and the docstrings state (FLOAT32_ERROR_BOUND),
    measured over every position 0 .. 1e6; and every entry stays in [-1, 1]."""
    omega = 10000.0 ** (-np.arange(0, d_model, 2) / d_model)
    # the reference itself, against np.sin / np.cos of float64 angles, on a sample of positions
    sample = np.array([0, 1, 999, 1000, 4633, 654_488, 999_999, 1_000_000])
    exact = np.multiply.outer(sample.astype(np.float64), omega)
    check = float64_phasors(0, 1_000_001, omega[:4])[sample]
    np.testing.assert_allclose(check.imag, np.sin(exact[:, :4]), atol=1e-12)
    worst = 0.0
    chunk = 4_000  # small enough for the arrays of a chunk to stay in the CPU's caches
    steps = float64_steps(omega)
    for start in range(0, 1_000_001, chunk):
        count = min(chunk, 1_000_001 - start)
        table = core.sinusoidal_encoding(count, d_model, start=start)  # (count, d) float32
        assert max(table.max(), -table.min()) <= 1.0
        phasor = float64_phasors(start, count, omega, steps)
        worst = max(worst, largest_gap(table[:, 0::2], phasor.imag),
                    largest_gap(table[:, 1::2], phasor.real))
    assert worst <= core.FLOAT32_ERROR_BOUND
    assert worst > core.FLOAT32_ERROR_BOUND / 2  # the bound is measured, not a loose guess


def test_sines_never_leave_the_unit_interval():
    """The products of two rounded unit phasors once gave 1.0000001 (exact: 0.99999998903)."""
    assert core.sinusoidal_encoding(4634, 512)[4633, 291] == np.float32(1.0)
    assert core.sinusoidal_encoding(654489, 64)[654488, 17] == np.float32(-1.0)
    assert np.abs(core.sinusoidal_encoding(5000, 512)).max() <= 1.0  # PositionalEncoding's buffer


@pytest.mark.parametrize("d_model", [2, 4, 64, 512, 768])
@pytest.mark.parametrize("base", [10000.0, 500000.0])
def test_tensor2tensor_timescales_equal_its_timing_signal(d_model, base):
    """timescales="tensor2tensor" with the concatenated layout is tensor2tensor's
    get_timing_signal_1d (a copy in tests/reference.py): its slowest wavelength is exactly
    2 pi base, where the paper's formula stops at 2 pi base^((d-2)/d)."""
    table = core.sinusoidal_encoding(300, d_model, base=base, layout="concatenated",
                                     timescales="tensor2tensor")
    expected = reference.t2t_get_timing_signal_1d(300, d_model, max_timescale=base)
    np.testing.assert_allclose(table, expected, atol=3e-7)
    lengths = core.wavelengths(d_model, base=base, timescales="tensor2tensor")
    assert lengths[0] == pytest.approx(2 * math.pi)
    if d_model > 2:
        assert lengths[-1] == pytest.approx(2 * math.pi * base, rel=1e-12)
        paper = core.wavelengths(d_model, base=base)
        assert paper[-1] == pytest.approx(2 * math.pi * base ** ((d_model - 2) / d_model))
        assert np.all(lengths[1:] > paper[1:])  # every other timescale is longer


def test_paper_and_tensor2tensor_slowest_wavelengths_at_d512():
    """The issue's numbers: 60,611.5 (the formula) vs 62,831.9 (tensor2tensor, = 2 pi 10^4)."""
    assert core.wavelengths(512)[-1] == pytest.approx(60_611.5, abs=0.1)
    assert core.wavelengths(512, timescales="tensor2tensor")[-1] == pytest.approx(62_831.85,
                                                                                  abs=0.01)


def test_worked_entry_uses_the_chosen_timescales():
    paper = core.worked_entry(5, 7, 8)  # pair 3 of 4: exponent 2*3/8
    t2t = core.worked_entry(5, 7, 8, timescales="tensor2tensor")  # exponent 3/3
    assert paper.exponent == pytest.approx(0.75) and t2t.exponent == pytest.approx(1.0)
    assert t2t.value == pytest.approx(math.cos(5 / 10000.0))
    with pytest.raises(ValueError, match="timescales"):
        core.frequencies(8, timescales="t2t")


def test_start_offset_continues_the_table():
    full = core.sinusoidal_encoding(300, 16)
    np.testing.assert_allclose(core.sinusoidal_encoding(100, 16, start=200), full[200:], atol=3e-7)


def test_norm_squared_is_half_d_model():
    pe = core.sinusoidal_encoding(500, 128, dtype=np.float64)
    np.testing.assert_allclose((pe**2).sum(axis=1), 64.0, rtol=1e-12)


@given(
    d_model=st.integers(1, 64).map(lambda h: 2 * h),
    n=st.integers(1, 200),
    base=st.floats(1.01, 1e6),
)
def test_values_in_unit_interval_and_layouts_are_a_permutation(d_model, n, base):
    inter = core.sinusoidal_encoding(n, d_model, base=base, dtype=np.float64)
    concat = core.sinusoidal_encoding(n, d_model, base=base, layout="concatenated",
                                      dtype=np.float64)
    assert np.all(np.abs(inter) <= 1.0)
    half = d_model // 2
    permutation = np.concatenate([np.arange(0, d_model, 2), np.arange(1, d_model, 2)])
    np.testing.assert_array_equal(concat, inter[:, permutation])
    assert half * 2 == d_model
    # Every dot product and distance between positions is the same in both layouts.
    np.testing.assert_allclose(concat @ concat.T, inter @ inter.T, atol=1e-9)


@given(
    d_model=st.integers(1, 32).map(lambda h: 2 * h),
    p=st.integers(0, 5000),
    q=st.integers(0, 5000),
    k=st.integers(-3000, 3000),
)
def test_dot_product_depends_only_on_offset_and_is_symmetric(d_model, p, q, k):
    def rows(*positions):
        return core.encode_positions(np.array(positions), d_model)

    a, b = rows(p, p + k)
    c, e = rows(q, q + k)
    expected = core.offset_dot_product(k, d_model)
    assert a @ b == pytest.approx(expected, abs=1e-9)
    assert c @ e == pytest.approx(expected, abs=1e-9)
    assert core.offset_dot_product(-k, d_model) == pytest.approx(expected, abs=1e-12)
    # the closed form against the explicit sum of cosines
    assert expected == pytest.approx(sum(math.cos(w * k) for w in core.frequencies(d_model)))


@given(
    d_model=st.integers(1, 32).map(lambda h: 2 * h),
    k=st.integers(-500, 500),
    layout=st.sampled_from(["interleaved", "concatenated"]),
    base=st.floats(2.0, 1e5),
)
def test_shift_matrix_moves_every_position_by_k(d_model, k, layout, base):
    m = core.shift_matrix(k, d_model, base=base, layout=layout)
    pe = core.sinusoidal_encoding(600, d_model, base=base, layout=layout, dtype=np.float64,
                                  start=600)
    shifted = core.encode_positions(np.arange(600, 1200) + k, d_model, base=base, layout=layout)
    np.testing.assert_allclose(pe @ m.T, shifted, atol=1e-9)
    np.testing.assert_allclose(m @ m.T, np.eye(d_model), atol=1e-12)  # a rotation: orthogonal


@given(
    d_model=st.integers(1, 32).map(lambda h: 2 * h),
    k=st.integers(-500, 500),
    layout=st.sampled_from(["interleaved", "concatenated"]),
    window=st.integers(1, 64),
)
def test_shift_matrix_window_is_the_matrix_corner(d_model, k, layout, window):
    window = min(window, d_model)
    whole = core.shift_matrix(k, d_model, layout=layout)
    corner = core.shift_matrix(k, d_model, layout=layout, window=window)
    np.testing.assert_array_equal(corner, whole[:window, :window])


def test_shift_matrix_window_is_checked():
    for window in (0, 17, 2.5):
        with pytest.raises(ValueError, match="window"):
            core.shift_matrix(3, 16, window=window)


@given(
    n=st.integers(1, 700),
    d_model=st.integers(1, 40).map(lambda h: 2 * h),
    layout=st.sampled_from(["interleaved", "concatenated"]),
    dtype=st.sampled_from([np.float32, np.float64]),
    timescales=st.sampled_from(["paper", "tensor2tensor"]),
    data=st.data(),
)
def test_sinusoidal_rows_are_the_tables_rows_bit_for_bit(n, d_model, layout, dtype, timescales,
                                                         data):
    rows = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=6))
    table = core.sinusoidal_encoding(n, d_model, layout=layout, dtype=dtype,
                                     timescales=timescales)
    picked = core.sinusoidal_rows(rows, d_model, layout=layout, dtype=dtype,
                                  timescales=timescales)
    assert picked.dtype == table.dtype
    np.testing.assert_array_equal(picked, table[rows])


def test_sinusoidal_rows_takes_positions_only():
    for rows in ([-1], [1.5], [[1, 2]], [np.nan]):
        with pytest.raises(ValueError, match="rows"):
            core.sinusoidal_rows(rows, 16)


def test_shift_matrix_blocks_interleaved():
    m = core.shift_matrix(3, 4)
    w = core.frequencies(4)
    block = np.array([[math.cos(3 * w[1]), math.sin(3 * w[1])],
                      [-math.sin(3 * w[1]), math.cos(3 * w[1])]])
    np.testing.assert_allclose(m[2:, 2:], block)
    assert np.all(m[:2, 2:] == 0) and np.all(m[2:, :2] == 0)


def test_worked_entry_reproduces_article_000():
    for pos in range(5):
        for dim in range(4):
            entry = core.worked_entry(pos, dim, 4)
            tolerance = 5e-3 if dim == 2 else 1e-4
            assert entry.value == pytest.approx(ARTICLE_000_TABLE[pos, dim], abs=tolerance)
    entry = core.worked_entry(1, 2, 4)
    assert (entry.pair, entry.function, entry.denominator) == (1, "sin", 100.0)
    assert entry.wavelength == pytest.approx(200 * math.pi)
    concat = core.worked_entry(1, 1, 4, layout="concatenated")  # the sine of pair 1
    assert (concat.pair, concat.function) == (1, "sin")
    assert concat.value == pytest.approx(math.sin(0.01))


@pytest.mark.parametrize(
    "call, names",
    [
        (lambda: core.sinusoidal_encoding(5, 7), ["d_model=7", "even"]),
        (lambda: core.sinusoidal_encoding(0, 4), ["num_positions=0"]),
        (lambda: core.sinusoidal_encoding(5, 0), ["d_model=0"]),
        (lambda: core.sinusoidal_encoding(5, -4), ["d_model=-4"]),
        (lambda: core.sinusoidal_encoding(5, 4, base=1.0), ["base=1.0", "> 1"]),
        (lambda: core.sinusoidal_encoding(5, 4, base=float("nan")), ["base=nan"]),
        (lambda: core.sinusoidal_encoding(5, 4, base=float("inf")), ["base=inf"]),
        (lambda: core.sinusoidal_encoding(5, 4, layout="diagonal"), ["layout='diagonal'",
                                                                     "'concatenated'"]),
        (lambda: core.sinusoidal_encoding(5, 4, dtype=np.int32), ["dtype"]),
        (lambda: core.sinusoidal_encoding(2.5, 4), ["num_positions=2.5"]),
        (lambda: core.frequencies(3), ["d_model=3"]),
        (lambda: core.offset_dot_product([1, float("nan")], 4), ["offsets", "NaN"]),
        (lambda: core.shift_matrix(float("inf"), 4), ["offset"]),
        (lambda: core.shift_matrix(1, 4, layout="x"), ["layout='x'"]),
        (lambda: core.sincos_2d_encoding(4, 4, 6), ["d_model=6", "divisible by 4"]),
        (lambda: core.sincos_2d_encoding(0, 4, 8), ["grid_h=0"]),
        (lambda: core.worked_entry(1, 9, 8), ["dimension=9", "0 to 7"]),
    ],
)
def test_errors_name_parameter_and_value(call, names):
    with pytest.raises(ValueError) as error:
        call()
    for name in names:
        assert name in str(error.value)


@given(
    d_model=st.one_of(st.integers(-10, 1), st.integers(1, 500).map(lambda h: 2 * h + 1)),
)
def test_any_bad_d_model_is_refused_with_its_value(d_model):
    with pytest.raises(ValueError, match=f"d_model={d_model}"):
        core.sinusoidal_encoding(3, d_model)


@given(base=st.one_of(st.floats(max_value=1.0), st.just(float("nan")), st.just(float("inf"))))
def test_any_bad_base_is_refused(base):
    with pytest.raises(ValueError, match="base="):
        core.frequencies(4, base=base)


@pytest.mark.parametrize(("count", "d_model", "base"),
                         [(1, 2, 1e4), (7, 8, 100.0), (8192, 1024, 1e4), (5000, 6, 2.5)])
def test_offset_dot_products_equal_the_sum_of_cosines(count, d_model, base):
    """The complex matrix product equals the direct sum of cosines, and a plain loop."""
    fast = core.offset_dot_products(count, d_model, base=base)
    direct = core.offset_dot_product(np.arange(count), d_model, base=base)
    assert fast.shape == (count,)
    np.testing.assert_allclose(fast, direct, rtol=0, atol=1e-9)
    for k in (0, count // 2, count - 1):
        loop = sum(math.cos(k / base ** (2 * i / d_model)) for i in range(d_model // 2))
        assert fast[k] == pytest.approx(loop, abs=1e-9)
