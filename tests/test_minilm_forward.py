"""core.minilm_forward: all-MiniLM-L6-v2 run whole, equal to Hugging Face's BertModel (eager
attention) on the same installed files, with its learned positions and without them; and the
articles' claim made measurable: without positions the encoder sees a set of tokens."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from core import minilm
from core.minilm_encoder import minilm_forward

SENTENCES = [
    "The cat sat on the mat",
    "The mat sat on the cat",
    "Attention is all you need.",
    "a b a b a b",
    "Positional encodings tell a Transformer where each token is!",
]


@pytest.fixture(scope="module")
def model():
    return minilm.load_minilm()


@pytest.fixture(scope="module")
def reference():
    """BertModel from the installed package's files (the app never imports transformers), and
    a copy whose position table is all zeros."""
    import torch
    from transformers import BertModel

    bert = BertModel.from_pretrained(str(minilm.model_path()), local_files_only=True,
                                     attn_implementation="eager").eval()
    blind = copy.deepcopy(bert)
    with torch.no_grad():
        blind.embeddings.position_embeddings.weight.zero_()
    return {"learned": bert, "none": blind}


def run_reference(bert, model, text):
    import torch

    ids = torch.tensor([model.token_ids(text, add_special_tokens=True)])
    with torch.no_grad():
        out = bert(input_ids=ids, output_attentions=True, output_hidden_states=True)
    attentions = np.stack([a[0].numpy() for a in out.attentions])  # (6, 12, T, T)
    hidden = np.stack([h[0].numpy() for h in out.hidden_states])  # (7, T, 384)
    pooled = hidden[-1].mean(axis=0)
    return attentions, hidden, pooled / np.linalg.norm(pooled)


@pytest.mark.parametrize("positions", ["learned", "none"])
@pytest.mark.parametrize("text", SENTENCES)
def test_equals_bert_model(model, reference, text, positions):
    result = minilm_forward(model, text, positions=positions)
    attentions, hidden, sentence = run_reference(reference[positions], model, text)
    assert result.tokens[0] == "[CLS]" and result.tokens[-1] == "[SEP]"
    assert len(result.tokens) == attentions.shape[-1]
    assert result.attentions.shape == attentions.shape == (6, 12, len(result.tokens),
                                                           len(result.tokens))
    assert result.hidden_states.shape == hidden.shape == (7, len(result.tokens), 384)
    np.testing.assert_allclose(result.attentions, attentions, atol=2e-5)
    np.testing.assert_allclose(result.hidden_states, hidden, atol=2e-4)
    np.testing.assert_allclose(result.sentence_embedding, sentence, atol=2e-5)
    assert np.linalg.norm(result.sentence_embedding) == pytest.approx(1.0, abs=1e-5)


def test_sentence_embedding_is_the_sentence_transformers_pipelines(model):
    """Mean pooling then L2 normalisation (the package's 1_Pooling config says mean tokens):
    "the cat sat on the mat" is closer to a paraphrase than to an unrelated sentence."""
    vec = {t: minilm_forward(model, t).sentence_embedding for t in
           ("The cat sat on the mat", "A cat is sitting on a rug", "Stock markets fell today")}
    near = vec["The cat sat on the mat"] @ vec["A cat is sitting on a rug"]
    far = vec["The cat sat on the mat"] @ vec["Stock markets fell today"]
    assert near > far + 0.3


def _permutation(result_a, result_b):
    """Where each token of a stands in b: [CLS] and [SEP] stay, equal words matched in order."""
    used, order = set(), []
    for token in result_a.tokens:
        index = next(i for i, t in enumerate(result_b.tokens) if t == token and i not in used)
        used.add(index)
        order.append(index)
    return np.array(order)


@pytest.mark.parametrize(("text", "shuffled"), [
    ("The cat sat on the mat", "The mat sat on the cat"),
    ("The cat sat on the mat", "mat the on sat cat The"),
    ("dogs chase cats", "cats chase dogs"),
])
def test_without_positions_a_permutation_only_permutes_the_outputs(model, text, shuffled):
    a = minilm_forward(model, text, positions="none")
    b = minilm_forward(model, shuffled, positions="none")
    order = _permutation(a, b)  # a's token i is b's token order[i]
    np.testing.assert_allclose(a.hidden_states, b.hidden_states[:, order], atol=1e-4)
    np.testing.assert_allclose(a.attentions, b.attentions[:, :, order][:, :, :, order],
                               atol=1e-4)
    np.testing.assert_allclose(a.sentence_embedding, b.sentence_embedding, atol=1e-4)
    # With its positions the model tells the two orders apart.
    a = minilm_forward(model, text)
    b = minilm_forward(model, shuffled)
    assert np.abs(a.hidden_states[1:] - b.hidden_states[1:, order]).max() > 1e-2
    assert np.abs(a.sentence_embedding - b.sentence_embedding).max() > 1e-3


def test_without_positions_equal_words_get_equal_rows(model):
    """The two "the" of the article's sentence: identical attention rows and outputs without
    positions, different with them."""
    blind = minilm_forward(model, "The cat sat on the mat", positions="none")
    first, second = [i for i, t in enumerate(blind.tokens) if t == "the"]
    assert np.abs(blind.hidden_states[:, first] - blind.hidden_states[:, second]).max() < 1e-5
    assert np.abs(blind.attentions[:, :, first] - blind.attentions[:, :, second]).max() < 1e-6
    seeing = minilm_forward(model, "The cat sat on the mat")
    assert np.abs(seeing.hidden_states[-1, first] - seeing.hidden_states[-1, second]).max() > 0.1


def test_results_are_read_only_rows_of_probabilities(model):
    result = minilm_forward(model, "The cat sat on the mat")
    np.testing.assert_allclose(result.attentions.sum(axis=-1), 1.0, atol=1e-5)
    assert result.attentions.dtype == np.float32 and not result.attentions.flags.writeable
    with pytest.raises(ValueError):
        result.hidden_states[0, 0, 0] = 1.0


@pytest.mark.parametrize("positions", ["absolute", "", None, "LEARNED"])
def test_a_bad_positions_setting_is_refused_by_name(model, positions):
    with pytest.raises(ValueError, match="positions"):
        minilm_forward(model, "The cat", positions=positions)


def test_text_past_the_models_512_positions_is_refused(model):
    with pytest.raises(ValueError, match="512"):
        minilm_forward(model, "cat " * 600)
    with pytest.raises(ValueError, match="text"):
        minilm_forward(model, 42)
