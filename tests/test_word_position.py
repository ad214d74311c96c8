"""`core.word_position` and its figures: the article's table, the presets, PCA, norms, against
independent numbers; the page's settled choices (`ui.word_position`)."""

from __future__ import annotations

import io
import math

import numpy as np
import pandas as pd
import pytest

import core
from core import word_position as wp
from figures.word_position import LABEL_PLACES, _merge_coincident, make_word_position_figure
from tests import reference
from ui.word_position import settle_choices

# 001_f180268f58001bd4.txt, steps 1-3, as printed.
ARTICLE_W = {"The": [0.1, 0.2], "cat": [0.3, 0.4], "sat": [0.5, 0.6], "on": [0.7, 0.8],
             "the": [0.9, 1.0], "mat": [1.1, 1.2]}
ARTICLE_P = [[0.0, 1.0], [0.8, 0.6], [0.5, 0.8], [0.2, 0.9], [0.9, 0.4], [0.7, 0.2]]
ARTICLE_X = {"The": [0.1, 1.2], "cat": [1.1, 1.0], "sat": [1.0, 1.4], "on": [0.9, 1.7],
             "the": [1.8, 1.4], "mat": [1.8, 1.4]}
XSS = "<img src=x onerror=alert(1)>"


@pytest.fixture(scope="module")
def model():
    return core.load_minilm()


# --- the article ---------------------------------------------------------------------------------
def test_article_preset_reproduces_the_articles_table():
    article = wp.article_word_position("learned")
    assert article.tokens == ("The", "cat", "sat", "on", "the", "mat")
    np.testing.assert_array_equal(article.positions, np.arange(6))
    np.testing.assert_allclose(article.token_vectors, list(ARTICLE_W.values()), atol=1e-15)
    np.testing.assert_allclose(article.position_vectors, ARTICLE_P, atol=1e-15)
    np.testing.assert_allclose(article.sums, list(ARTICLE_X.values()), atol=1e-12)
    assert article.scale == 1.0 and not article.truncated and not article.bert_input


def test_article_x_the_equals_x_mat():
    article = wp.article_word_position("learned")
    np.testing.assert_allclose(article.sums[4], article.sums[5], atol=1e-12)
    np.testing.assert_allclose(article.sums[4], [1.8, 1.4], atol=1e-12)
    assert wp.coincident_sums(article) == [(4, 5)]


def test_article_with_the_real_d2_sinusoid():
    article = wp.article_word_position("sinusoidal")
    # [sin p, cos p]; 000_07ab17f223f31f63.txt prints 0.8415, 0.5403, 0.9093, -0.4161.
    np.testing.assert_allclose(article.position_vectors[:3],
                               [[0, 1], [0.8415, 0.5403], [0.9093, -0.4161]], atol=1e-4)
    expected = [[math.sin(p), math.cos(p)] for p in range(6)]
    np.testing.assert_allclose(article.position_vectors, expected, atol=1e-15)
    np.testing.assert_allclose(article.sums, np.add(list(ARTICLE_W.values()), expected))
    assert wp.coincident_sums(article) == []  # the real sinusoid separates the and mat
    # d = 2 has one frequency: the wavelength is 2 pi positions.
    assert core.wavelengths(2)[0] == pytest.approx(2 * math.pi)


def test_scaling_multiplies_token_embeddings_by_sqrt_d():
    scaled = wp.article_word_position("learned", scale=True)
    assert scaled.scale == pytest.approx(math.sqrt(2))
    np.testing.assert_allclose(scaled.token_vectors,
                               np.array(list(ARTICLE_W.values())) * math.sqrt(2))
    np.testing.assert_allclose(scaled.sums, scaled.token_vectors + np.array(ARTICLE_P))


# --- random and MiniLM presets -------------------------------------------------------------------
def test_word_tokens():
    assert wp.word_tokens("The cat sat on the mat.") == ["The", "cat", "sat", "on", "the", "mat",
                                                         "."]
    assert wp.word_tokens("**x**") == ["*", "*", "x", "*", "*"]
    assert wp.word_tokens("   ") == []
    assert wp.word_tokens("猫坐 😀") == ["猫坐", "😀"]


def test_random_embeddings_depend_on_word_and_seed_only():
    a = wp.random_token_embeddings(["The", "cat", "the"], 64, seed=3)
    assert a.shape == (3, 64)
    np.testing.assert_array_equal(a[0], a[2])  # case folded: The == the
    np.testing.assert_array_equal(wp.random_token_embeddings(["cat"], 64, seed=3)[0], a[1])
    assert not np.allclose(wp.random_token_embeddings(["cat"], 64, seed=4)[0], a[1])
    big = wp.random_token_embeddings([f"w{i}" for i in range(200)], 256, seed=0)
    assert big.std() == pytest.approx(256**-0.5, rel=0.02)  # N(0, 1/d): unit norm on average


def test_random_preset_uses_the_sinusoid(model):
    out = wp.random_word_position("The cat sat on the mat", 16, layout="concatenated", seed=1)
    np.testing.assert_allclose(out.position_vectors, reference.loop_concatenated(6, 16),
                               atol=1e-12)
    np.testing.assert_allclose(out.sums, out.token_vectors + out.position_vectors)


@pytest.mark.parametrize("encoding", ["sinusoidal", "learned"])
def test_same_word_at_two_positions_gives_two_sums(model, encoding):
    learned = model.position_embeddings if encoding == "learned" else None
    d = 384 if encoding == "learned" else 32
    random = wp.random_word_position("The cat sat on the mat", d, encoding=encoding,
                                     learned_table=learned)
    np.testing.assert_array_equal(random.token_vectors[0], random.token_vectors[4])
    assert np.linalg.norm(random.sums[0] - random.sums[4]) > 0.1
    real = wp.minilm_word_position(model, "The cat sat on the mat", encoding=encoding)
    assert real.tokens == ("[CLS]", "the", "cat", "sat", "on", "the", "mat", "[SEP]")
    np.testing.assert_array_equal(real.token_vectors[1], real.token_vectors[5])
    assert np.linalg.norm(real.sums[1] - real.sums[5]) > 0.1
    # ... and they stay two points after the projection, far enough apart to be seen: one PCA
    # of everything drew them 0.3% of the plot apart ([CLS] and P0 took the first axes).
    projection = wp.project_word_position(real, 2, seed=0)
    assert projection.shown.tolist() == [1, 2, 3, 4, 5, 6]  # [CLS] and [SEP] left out
    points = projection.coordinates  # (18, 2): 6 tokens, 6 positions, 6 sums
    sums = points[12:]
    extent = points.max(axis=0) - points.min(axis=0)
    assert np.abs(sums[4] - sums[0])[1] > 0.5 * extent[1]
    # The last axis is the pair's own direction: its gap is their distance in 384-D.
    assert abs(sums[4, 1] - sums[0, 1]) == pytest.approx(
        np.linalg.norm(real.position_vectors[5] - real.position_vectors[1]))
    # Position vectors are told apart too: P1 .. P6 spread along that axis.
    assert np.ptp(points[6:12, 1]) > 0.5 * extent[1]


def test_minilm_preset_learned_rows_and_bert_input(model, learned_table):
    real = wp.minilm_word_position(model, "The cat sat on the mat", encoding="learned")
    np.testing.assert_allclose(real.position_vectors, learned_table[:8])
    np.testing.assert_allclose(real.token_vectors,
                               model.token_embeddings[[101, 1996, 4937, 2938, 2006, 1996, 13523,
                                                       102]])
    bert = wp.minilm_word_position(model, "The cat sat on the mat", bert_input=True)
    assert bert.bert_input
    expected = core.bert_input_embeddings(model, "The cat sat on the mat")
    np.testing.assert_allclose(bert.sums, expected)
    bare = wp.minilm_word_position(model, "The cat", special_tokens=False)
    assert bare.tokens == ("the", "cat")
    np.testing.assert_allclose(bare.position_vectors, learned_table[:2])
    with pytest.raises(ValueError, match="bert_input=True"):
        wp.minilm_word_position(model, "x", encoding="sinusoidal", bert_input=True)


def test_long_text_is_cut_at_512_tokens_with_sep_last(model):
    out = wp.minilm_word_position(model, "cat " * 600)
    assert len(out.tokens) == 512 and out.truncated and out.total_tokens == 602
    assert out.tokens[0] == "[CLS]" and out.tokens[-1] == "[SEP]"
    words = wp.random_word_position("cat " * 600, 8)
    assert len(words.tokens) == 512 and words.total_tokens == 600


def test_unknown_tokens_are_counted(model):
    out = wp.minilm_word_position(model, "猫坐在垫子上 😀")
    assert out.unknown_tokens == 5


def test_empty_and_bad_inputs_name_the_parameter(model):
    with pytest.raises(ValueError, match="text has no word"):
        wp.random_word_position("  ", 8)
    with pytest.raises(ValueError, match="text has no token"):
        wp.minilm_word_position(model, "")
    with pytest.raises(ValueError, match="encoding='bogus' is not allowed"):
        wp.article_word_position("bogus")
    with pytest.raises(ValueError, match="learned_table has width 384"):
        wp.random_word_position(
            "a b", 8, encoding="learned", learned_table=model.position_embeddings
        )
    with pytest.raises(ValueError, match="n_components=4 is out of range"):
        wp.project(np.ones((5, 8)), 4)


# --- projection ----------------------------------------------------------------------------------
def test_pca_is_reproducible_and_equals_an_svd(model):
    real = wp.minilm_word_position(model, "A cat sat on one mat", encoding="learned")
    first = wp.project_word_position(real, 3, seed=7)
    again = wp.project_word_position(real, 3, seed=7)
    np.testing.assert_array_equal(first.coordinates, again.coordinates)
    words = slice(1, -1)  # [CLS] and [SEP] are left out of the fit and the picture
    stacked = np.concatenate([real.token_vectors[words], real.position_vectors[words],
                              real.sums[words]])
    centred = stacked - stacked.mean(axis=0)
    u, s, _ = np.linalg.svd(centred, full_matrices=False)
    expected = u[:, :3] * s[:3]
    # Principal axes are defined up to sign.
    np.testing.assert_allclose(np.abs(first.coordinates), np.abs(expected), atol=1e-8)
    np.testing.assert_allclose(first.explained_variance_ratio, s[:3] ** 2 / np.sum(s**2))
    assert first.method == "PCA" and first.axis_titles[0].startswith("PC1 (")


@pytest.mark.parametrize("components", [2, 3])
def test_a_repeated_word_spans_the_second_axis_and_the_rest_is_a_pca(model, components):
    """By hand, with numpy's SVD: the principal components of what the axis from the first
    "the" to the second leaves, then that axis; each share of the variance of the whole."""
    real = wp.minilm_word_position(model, "The cat sat on the mat", encoding="learned")
    got = wp.project_word_position(real, components, seed=0)
    assert got.method == "contrast" and got.pair == (1, 5)
    words = slice(1, 7)
    stacked = np.concatenate([real.token_vectors[words], real.position_vectors[words],
                              real.sums[words]])
    centred = stacked - stacked.mean(axis=0)
    unit = (real.sums[5] - real.sums[1]) / np.linalg.norm(real.sums[5] - real.sums[1])
    along = centred @ unit
    rest = centred - np.outer(along, unit)
    u, s, _ = np.linalg.svd(rest, full_matrices=False)
    total = np.sum(centred**2)
    expected = np.column_stack([u[:, : components - 1] * s[: components - 1], along])
    np.testing.assert_allclose(np.abs(got.coordinates), np.abs(expected), atol=1e-8)
    shares = [*(s[: components - 1] ** 2 / total), np.sum(along**2) / total]
    np.testing.assert_allclose(got.explained_variance_ratio, shares, atol=1e-12)
    view = wp.word_position_view(real, components)
    assert (view.repeat.token, view.repeat.first, view.repeat.second) == ("the", 1, 5)
    assert view.repeat.distance == pytest.approx(
        np.linalg.norm(real.position_vectors[5] - real.position_vectors[1]))
    near, far = view.repeat.others  # the other words' sums: farther apart than the two "the"
    assert view.repeat.distance < near <= far


def test_the_positions_alone_are_their_own_pca_and_steps(model):
    """MiniLM's P1 .. P6 of the article's sentence on two axes of their own (numpy's SVD by
    hand), and each one's distance to the next in all 384 dimensions."""
    real = wp.minilm_word_position(model, "The cat sat on the mat", encoding="learned")
    alone = wp.project_positions(real)
    assert alone.shown.tolist() == [1, 2, 3, 4, 5, 6]  # [CLS] and [SEP]: P0 and P7 left out
    rows = real.position_vectors[1:7]
    centred = rows - rows.mean(axis=0)
    u, s, _ = np.linalg.svd(centred, full_matrices=False)
    np.testing.assert_allclose(np.abs(alone.coordinates), np.abs(u[:, :2] * s[:2]), atol=1e-8)
    steps = wp.position_steps(real, alone.shown)
    expected = [np.linalg.norm(real.position_vectors[p + 1] - real.position_vectors[p])
                for p in range(1, 6)]
    np.testing.assert_allclose(steps, expected)
    # Each a point of its own: consecutive ones a third of the picture apart or more.
    extent = np.ptp(alone.coordinates, axis=0).max()
    assert np.all(np.linalg.norm(np.diff(alone.coordinates, axis=0), axis=1) / extent > 0.3)
    view = wp.word_position_view(real, 2)
    np.testing.assert_array_equal(view.positions_alone.coordinates, alone.coordinates)
    # The article's 2-D table is drawn as it is: no second picture.
    assert wp.project_positions(wp.article_word_position()) is None


def test_two_d_tables_are_drawn_as_they_are():
    article = wp.article_word_position("learned")
    projection = wp.project_word_position(article, 3)
    assert projection.method == "raw" and projection.coordinates.shape == (18, 2)
    np.testing.assert_array_equal(projection.coordinates[12:], article.sums)
    assert projection.axis_titles == ("dimension 0", "dimension 1")


# --- norms, the table ----------------------------------------------------------------------------
def test_norms_and_ratio():
    article = wp.article_word_position("learned")
    norm = wp.norms(article)
    token = [math.hypot(*v) for v in ARTICLE_W.values()]
    position = [math.hypot(*v) for v in ARTICLE_P]
    np.testing.assert_allclose(norm.token, token)
    np.testing.assert_allclose(norm.ratio, np.divide(token, position))
    assert norm.token_mean == pytest.approx(np.mean(token))
    assert norm.position_mean == pytest.approx(np.mean(position))
    assert norm.mean_ratio == pytest.approx(np.mean(token) / np.mean(position))


def test_vector_table_and_csv_are_safe_for_spreadsheets():
    article = wp.article_word_position("learned")
    table = wp.vector_table(article, dims=4)
    assert table["token"] == list(ARTICLE_W)
    assert table["sum[0]"] == pytest.approx([v[0] for v in ARTICLE_X.values()])
    assert "token[2]" not in table  # d = 2: only two entries exist
    csv_text = wp.table_csv({"token": ["=cmd()", "cat", "-1"], "value": [-1.5, 2.0, 3.0]})
    assert csv_text.splitlines() == ["token,value", "'=cmd(),-1.5", "cat,2.0", "'-1,3.0"]


def test_repeated_tokens():
    assert wp.repeated_tokens(wp.article_word_position()) == {}  # W_The != W_the there
    random = wp.random_word_position("The cat sat on the mat", 8)
    assert wp.repeated_tokens(random) == {"The": [0, 4]}
    real = wp.repeated_tokens(wp.minilm_word_position(core.load_minilm(), "猫坐在垫子上 😀"))
    assert real == {"[UNK]": [1, 2, 3, 4, 7]}


def test_project_in_place_gives_the_same_picture_and_leaves_the_input_otherwise():
    rng = np.random.default_rng(4)
    vectors = rng.normal(size=(700, 600)) + 5.0  # off-centre: centring changes the values
    before = vectors.copy()
    kept = wp.project(vectors, 3, seed=2)
    np.testing.assert_array_equal(vectors, before)  # not overwritten without `overwrite`
    scratch = vectors.copy()
    in_place = wp.project(scratch, 3, seed=2, overwrite=True)
    np.testing.assert_allclose(in_place.coordinates, kept.coordinates, atol=1e-9)
    np.testing.assert_allclose(in_place.explained_variance_ratio, kept.explained_variance_ratio)
    assert not np.array_equal(scratch, before)  # centred in place: no copy was made


# --- figures -------------------------------------------------------------------------------------
def test_word_position_figure_2d_labels_arrows_and_axis_titles():
    article = wp.article_word_position("learned")
    projection = wp.project_word_position(article, 2)
    fig = make_word_position_figure(
        projection.coordinates, article.tokens, article.positions.tolist(),
        axis_titles=projection.axis_titles, title="t",
    )
    names = [trace.name for trace in fig.data]
    assert names == ["token → sum", "token embedding", "position vector", "token + position"]
    arrows = fig.data[0]
    assert list(arrows.x[:3]) == [0.1, 0.1, None] and arrows.marker.symbol == "arrow"
    sums = fig.data[3]
    assert sums.text[4] == "the @4 = mat @5" and sums.text[5] == ""  # one point, both names
    assert fig.layout.xaxis.title.text == "dimension 0"
    assert fig.layout.yaxis.scaleanchor == "x"
    # The labels as placed again for a phone's square plot (the chart element swaps them in):
    # one per point at most, each where plotly can put it, the shared one kept there too.
    narrow = fig.layout.meta["narrow"]["data"]
    assert sorted(narrow) == ["1", "2", "3"]
    for index, given in narrow.items():
        shown = fig.data[int(index)].text
        assert len(given["text"]) == len(given["textposition"]) == len(shown)
        assert set(given["text"]) - {""} <= set(shown) - {""}
        assert set(given["textposition"]) <= {place for place, _ in LABEL_PLACES}
    assert narrow["3"]["text"][4] == "the @4 = mat @5"


def test_word_position_figure_3d_and_escaped_text(model):
    real = wp.minilm_word_position(model, f"{XSS} **x**")
    projection = wp.project_word_position(real, 3, seed=0)
    rows = projection.shown
    fig = make_word_position_figure(
        projection.coordinates, [real.tokens[i] for i in rows], real.positions[rows].tolist(),
        axis_titles=projection.axis_titles, title="t",
    )
    assert {trace.type for trace in fig.data} == {"scatter3d"}
    assert fig.layout.meta is None  # plotly places a turning plot's labels itself
    assert fig.layout.scene.xaxis.title.text.startswith("PC1 (")
    texts = " ".join(t for t in fig.data[1].text if t)
    assert "&lt;" in texts and "<" not in texts  # plotly reads tags in labels: escaped
    with pytest.raises(ValueError, match="coordinates must have shape"):
        make_word_position_figure(np.zeros((4, 2)), ["a"], [0], axis_titles=("x", "y"), title="t")


@pytest.mark.parametrize(
    "args, expected, notes",
    [
        (("article", "learned", 128, False, False, True), ("learned", 2, False, False), 0),
        (("minilm", "sinusoidal", 64, True, False, True), ("sinusoidal", 384, True, False), 0),
        (("random", "sinusoidal", 64, False, True, True), ("sinusoidal", 64, False, False), 0),
        (("random", "learned", 64, False, False, True), ("learned", 384, False, False), 1),
        (("random", "learned", 384, False, False, True), ("learned", 384, False, False), 0),
        (("random", "learned", 64, False, False, False), ("sinusoidal", 64, False, False), 1),
        (("minilm", "sinusoidal", 384, True, True, True), ("learned", 384, False, True), 1),
        (("minilm", "learned", 384, False, True, True), ("learned", 384, False, True), 0),
    ],
)
def test_settle_choices(args, expected, notes):
    embedding, encoding, d_model, scale, bert_input, available = args
    choices, said = settle_choices(embedding, encoding, d_model, scale=scale,
                                      bert_input=bert_input, minilm_available=available)
    assert (choices.encoding, choices.d_model, choices.scale, choices.bert_input) == expected
    assert choices.embedding == embedding
    assert len(said) == notes


def test_csv_text_is_spreadsheet_safe():
    table = core.word_position.vector_table(
        core.word_position.random_word_position("=1+2 cat", 4), dims=1
    )
    frame = pd.read_csv(io.StringIO(core.word_position.table_csv(table)))
    assert frame["token"].tolist()[0] == "'="


def _merged_labels_one_pair_at_a_time(points, labels):
    """The rule written as a loop over pairs with np.allclose (the reference)."""
    scale = max(float(np.abs(points).max(initial=0.0)), 1.0)
    merged, taken = list(labels), set()
    for i in range(len(points)):
        if i in taken:
            continue
        same = [j for j in range(i + 1, len(points))
                if j not in taken and np.allclose(points[i], points[j], atol=1e-9 * scale)]
        if same:
            merged[i] = " = ".join(dict.fromkeys([labels[i]] + [labels[j] for j in same]))
            for j in same:
                merged[j] = ""
                taken.add(j)
    return merged


def test_coincident_points_share_one_label_as_the_pairwise_rule_says():
    rng = np.random.default_rng(3)
    points = rng.normal(size=(40, 3))
    points[[5, 17, 33]] = points[2]  # three copies of one point
    points[30] = points[9] * (1 + 1e-7)  # close within allclose's rtol
    points[31] = points[9] + 1e-3  # not close
    labels = [f"w{i % 7}" for i in range(40)]
    merged = _merge_coincident(points, labels)
    assert merged == _merged_labels_one_pair_at_a_time(points, labels)
    assert merged[2] == "w2 = w5 = w3" and merged[5] == merged[17] == merged[33] == ""
    assert merged[31] == "w3"
    assert _merge_coincident(np.zeros((0, 2)), []) == []


@pytest.mark.parametrize("shape", [(40, 8), (6, 384), (18, 384), (300, 64)],
                         ids=["tall", "wide", "sentence", "table"])
def test_principal_components_equal_scikit_learns_pca_signs_included(shape):
    """The app's PCA is numpy's; scikit-learn (a test dependency here only) is the oracle:
    the same coordinates, signs included, and the same shares of the variance."""
    from sklearn.decomposition import PCA

    rng = np.random.default_rng(sum(shape))
    vectors = rng.normal(size=shape) * np.geomspace(3.0, 0.1, shape[1]) + 2.0
    reference = PCA(n_components=3, svd_solver="full")
    expected = reference.fit_transform(vectors)
    got = wp.project(vectors, 3)
    np.testing.assert_allclose(got.coordinates, expected, atol=1e-8)
    np.testing.assert_allclose(got.explained_variance_ratio,
                               reference.explained_variance_ratio_, rtol=1e-9)


def test_principal_components_of_equal_rows_carry_nothing():
    got = wp.project(np.full((5, 8), 3.0), 3)
    np.testing.assert_array_equal(got.coordinates, np.zeros((5, 3)))
    np.testing.assert_array_equal(got.explained_variance_ratio, np.zeros(3))
