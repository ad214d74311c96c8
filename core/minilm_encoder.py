r"""all-MiniLM-L6-v2 run whole, offline: its six transformer layers, with or without its learned
positions.

The encoder is BERT's (Devlin et al. 2019; Hugging Face ``BertModel``, eager attention),
written out in numpy from the installed package's ``model.safetensors``. For layer
$l = 1 \dots 6$, heads $h = 1 \dots 12$ of width $d_h = 32$:

$$A^{(l,h)} = \mathrm{softmax}\!\left(\frac{(X W_Q^h + b_Q^h)(X W_K^h + b_K^h)^T}{\sqrt{d_h}}
\right), \qquad
Y = \mathrm{LN}\big(X + [A^{(l,1)} V^1 \dots A^{(l,12)} V^{12}] W_O + b_O\big),$$

$$X' = \mathrm{LN}\big(Y + \mathrm{GELU}(Y W_1 + b_1) W_2 + b_2\big)$$

(GELU with erf, LayerNorm eps 1e-12, dropout off at inference). The input is the embedding
layer's $\mathrm{LN}(W_{t_p} + P_p + T_0)$ (`core.minilm.embed_ids`); with ``positions="none"``
the $P_p$ term is left out, which is the same as running a copy of the model whose position
table is all zeros. The sentence vector is what the model's sentence-transformers pipeline
returns: the mean of the last layer over the tokens, L2-normalised.

numpy rather than torch: the same numbers (the tests pin them to ``transformers.BertModel``),
and a hosted demo does not pay torch's few hundred megabytes to show a 22M-parameter model.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Literal, get_args

import numpy as np

from core._checks import check_choice
from core.minilm import LAYER_NORM_EPS, MiniLM, ModelUnavailableError, model_path

Positions = Literal["learned", "none"]
POSITIONS: tuple[str, ...] = get_args(Positions)
NUM_LAYERS = 6  # the model's config.json: num_hidden_layers
NUM_HEADS = 12  # num_attention_heads


@dataclass(frozen=True, eq=False)
class EncoderLayer:
    """One transformer layer's weights, float32, laid out for ``x @ W`` (Hugging Face stores
    ``(out, in)``; these are transposed)."""

    query: np.ndarray  # (384, 384)
    query_bias: np.ndarray  # (384,)
    key: np.ndarray
    key_bias: np.ndarray
    value: np.ndarray
    value_bias: np.ndarray
    attention_out: np.ndarray  # (384, 384)
    attention_out_bias: np.ndarray
    attention_norm_weight: np.ndarray  # (384,)
    attention_norm_bias: np.ndarray
    intermediate: np.ndarray  # (384, 1536)
    intermediate_bias: np.ndarray  # (1536,)
    output: np.ndarray  # (1536, 384)
    output_bias: np.ndarray
    output_norm_weight: np.ndarray
    output_norm_bias: np.ndarray


_LAYER_TENSORS = {  # EncoderLayer field -> name under encoder.layer.<l>.
    "query": "attention.self.query.weight", "query_bias": "attention.self.query.bias",
    "key": "attention.self.key.weight", "key_bias": "attention.self.key.bias",
    "value": "attention.self.value.weight", "value_bias": "attention.self.value.bias",
    "attention_out": "attention.output.dense.weight",
    "attention_out_bias": "attention.output.dense.bias",
    "attention_norm_weight": "attention.output.LayerNorm.weight",
    "attention_norm_bias": "attention.output.LayerNorm.bias",
    "intermediate": "intermediate.dense.weight", "intermediate_bias": "intermediate.dense.bias",
    "output": "output.dense.weight", "output_bias": "output.dense.bias",
    "output_norm_weight": "output.LayerNorm.weight", "output_norm_bias": "output.LayerNorm.bias",
}


@functools.lru_cache(maxsize=1)  # ~42 MB: read once per process, on first use (errors not cached)
def load_encoder() -> tuple[EncoderLayer, ...]:
    """The six layers' weights from the installed package's ``model.safetensors``. Raises
    `ModelUnavailableError` when the package or a tensor of it cannot be used."""
    from safetensors import safe_open

    file = model_path() / "model.safetensors"
    try:
        layers = []
        with safe_open(str(file), framework="numpy") as weights:
            for index in range(NUM_LAYERS):
                arrays = {}
                for name, key in _LAYER_TENSORS.items():
                    array = np.asarray(weights.get_tensor(f"encoder.layer.{index}.{key}"),
                                       dtype=np.float32)
                    array = np.ascontiguousarray(array.T if array.ndim == 2 else array)
                    if not np.isfinite(array).all():
                        raise ValueError(f"encoder.layer.{index}.{key} is not finite")
                    array.setflags(write=False)  # shared by every session
                    arrays[name] = array
                layers.append(EncoderLayer(**arrays))
    except Exception as error:  # SafetensorError, a tensor missing or misshapen ...
        raise ModelUnavailableError.file_broken("model.safetensors") from error
    return tuple(layers)


@dataclass(frozen=True, eq=False)
class ForwardResult:
    """What the encoder did with one sentence. Arrays are read-only float32."""

    tokens: tuple[str, ...]  # WordPiece tokens, [CLS] first and [SEP] last
    positions: str  # "learned" or "none"
    attentions: np.ndarray  # (6, 12, T, T): layer, head, query token, key token; rows sum to 1
    hidden_states: np.ndarray  # (7, T, 384): the embedding layer's output, then each layer's
    sentence_embedding: np.ndarray  # (384,): mean over the tokens of the last layer, unit length


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)  # (T, 1)
    var = x.var(axis=-1, keepdims=True)  # (T, 1), biased, as torch's LayerNorm
    return ((x - mean) / np.sqrt(var + LAYER_NORM_EPS) * weight + bias).astype(np.float32)


def _erf(x: np.ndarray) -> np.ndarray:
    """erf to within 1.5e-7 everywhere (Abramowitz & Stegun 7.1.26), vectorised: below
    float32's resolution of the activations it feeds."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741
                                                       + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-a * a))


def _gelu(x: np.ndarray) -> np.ndarray:
    """BERT's GELU, x * Phi(x) with erf (not the tanh approximation)."""
    return (0.5 * x * (1.0 + _erf(x / np.sqrt(2.0)))).astype(np.float32)


def minilm_forward(model: MiniLM, text: str, *, positions: Positions = "learned") -> ForwardResult:
    """Run all-MiniLM-L6-v2 on `text` (as sentence A, with [CLS] and [SEP]) and return every
    layer's attention and hidden state and the sentence vector (see the module's doc).

    `positions="learned"` adds the learned position vectors of positions 0..T-1 (the model as
    shipped); `"none"` leaves them out, so the encoder sees the tokens as a set. Raises
    ValueError for a bad `positions` or past the model's 512 positions."""
    check_choice("positions", positions, POSITIONS)
    if not isinstance(text, str):
        raise ValueError(f"text={text!r} is not allowed: text must be a string")
    ids = np.asarray(model.token_ids(text, add_special_tokens=True), dtype=np.int64)  # (T,)
    if ids.size > model.max_positions:
        raise ValueError(
            f"text has {ids.size} tokens: at most {model.max_positions} fit MiniLM's learned "
            "positions; shorten it"
        )
    layers = load_encoder()
    # Matrices of a few dozen rows: one BLAS thread is fastest, and threads spinning beside a
    # busy server's other work cost seconds (measured: 0.8 s for 8 tokens, 0.07 s in one thread).
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        return _forward(model, ids, positions, layers)


def _forward(model: MiniLM, ids: np.ndarray, positions: str,
             layers: tuple[EncoderLayer, ...]) -> ForwardResult:
    d = model.hidden_size
    head = d // NUM_HEADS  # 32
    # float32 throughout, as the model runs (and numpy's matmul stays on BLAS: mixed float32
    # and float64 operands take a slow loop).
    summed = model.token_embeddings[ids] + model.token_type_embeddings[0]  # (T, d) word, A
    if positions == "learned":
        summed = summed + model.position_embeddings[: ids.size]  # (T, d) positions 0..T-1
    x = _layer_norm(summed.astype(np.float32), model.layer_norm_weight,
                    model.layer_norm_bias)  # (T, d)
    hidden, attentions = [x], []
    for layer in layers:
        def heads(w, b, x=x):
            return (x @ w + b).reshape(-1, NUM_HEADS, head).transpose(1, 0, 2)  # (H, T, d_h)

        q = heads(layer.query, layer.query_bias)
        k = heads(layer.key, layer.key_bias)
        v = heads(layer.value, layer.value_bias)
        scores = q @ k.transpose(0, 2, 1) / np.float32(np.sqrt(head))  # (H, T, T)
        scores = scores - scores.max(axis=-1, keepdims=True)
        weights = np.exp(scores)
        weights /= weights.sum(axis=-1, keepdims=True)  # (H, T, T) softmax over keys
        attentions.append(weights)
        context = (weights @ v).transpose(1, 0, 2).reshape(-1, d)  # (T, d) heads side by side
        y = _layer_norm(x + context @ layer.attention_out + layer.attention_out_bias,
                        layer.attention_norm_weight, layer.attention_norm_bias)  # (T, d)
        inner = _gelu(y @ layer.intermediate + layer.intermediate_bias)  # (T, 1536)
        x = _layer_norm(y + inner @ layer.output + layer.output_bias,
                        layer.output_norm_weight, layer.output_norm_bias)  # (T, d)
        hidden.append(x)
    pooled = x.mean(axis=0)  # (d,) mean over the tokens (one sentence: no padding)
    sentence = pooled / max(np.linalg.norm(pooled), 1e-12)  # (d,) unit length

    def frozen(array: np.ndarray) -> np.ndarray:
        array = np.ascontiguousarray(array, dtype=np.float32)
        array.setflags(write=False)
        return array

    return ForwardResult(
        tokens=tuple(model.id_to_token(i) for i in ids), positions=positions,
        attentions=frozen(np.stack(attentions)), hidden_states=frozen(np.stack(hidden)),
        sentence_embedding=frozen(sentence),
    )


def attention_change(learned: ForwardResult, blind: ForwardResult) -> np.ndarray:
    """Per layer and head, the largest change the positions make to any attention weight:
    ``max |A_learned - A_none|`` over query and key, ``(6, 12)``."""
    if learned.tokens != blind.tokens:
        raise ValueError("learned and blind must be runs on the same text")
    return np.abs(learned.attentions - blind.attentions).max(axis=(2, 3))  # (L, H)


@dataclass(frozen=True)
class RepeatedToken:
    """Two occurrences of one token (the article's two "the"): how far apart their attention
    rows and their outputs are, every layer and head at once."""

    token: str
    first: int  # its index in the tokens, [CLS] being 0
    second: int
    attention_gap: float  # max over layers, heads and keys of |A[first] - A[second]|
    output_gap: float  # max over layers and dimensions of |h[first] - h[second]|


def repeated_token(result: ForwardResult) -> RepeatedToken | None:
    """The first token that occurs twice in `result` (special tokens aside), or None."""
    seen: dict[str, int] = {}
    for index, token in enumerate(result.tokens):
        if token in ("[CLS]", "[SEP]"):
            continue
        if token in seen:
            first = seen[token]
            rows = result.attentions[:, :, [first, index]]  # (L, H, 2, T)
            outputs = result.hidden_states[:, [first, index]]  # (L+1, 2, d)
            return RepeatedToken(
                token=token, first=first, second=index,
                attention_gap=float(np.abs(rows[:, :, 0] - rows[:, :, 1]).max()),
                output_gap=float(np.abs(outputs[:, 0] - outputs[:, 1]).max()),
            )
        seen[token] = index
    return None


def sentence_cosine(a: ForwardResult, b: ForwardResult) -> float:
    """Cosine of two sentence vectors (unit length: their dot product), in float64."""
    return float(np.dot(a.sentence_embedding.astype(np.float64),
                        b.sentence_embedding.astype(np.float64)))
