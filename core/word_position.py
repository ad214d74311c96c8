r"""Word + position: token embeddings, position encodings, their sums, and a view of them.

A Transformer's first layer sees, for the token $t$ at position $p$,

$$x_p = s \cdot W_t + P_p, \qquad s = \sqrt{d_{model}} \text{ (Vaswani et al. §3.4) or } 1
\text{ (BERT, the article)}$$

Three sources of $W$ and two of $P$:

- ``article``: the illustrative 2-D numbers of 001_f180268f58001bd4.txt ("The cat sat on the
  mat"): its made-up $P_0..P_5$ play the ``learned`` table (a free table of numbers), the real
  $d=2$ sinusoid plays ``sinusoidal``.
- ``random``: one Gaussian vector per word, $\mathcal{N}(0, 1/d)$ per entry (the paper's
  initialisation, so that $\sqrt{d}\,W_t$ has unit-variance entries); the same word (case folded)
  always gets the same vector.
- ``minilm``: all-MiniLM-L6-v2's real WordPiece embeddings (`core.minilm`), with its real learned
  position table or the sinusoid of the same width; or BERT's real input
  LayerNorm(W + P + T_0).

A PCA (exact, numpy; scikit-learn's signs) of the token vectors, the position vectors and the
sums together shows them in 2-D or 3-D. Statistics of a position table alone (learned against
the sinusoid) are `core.learned_vs_sinusoidal`'s.
"""

from __future__ import annotations

import csv
import io
import re
import zlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, get_args

import numpy as np

from core._checks import InputError, check_choice, check_finite_array, check_int
from core.sinusoidal import LAYOUTS, Layout, sinusoidal_encoding

if TYPE_CHECKING:
    from core.minilm import MiniLM

Embedding = Literal["article", "random", "minilm"]
EMBEDDINGS: tuple[str, ...] = get_args(Embedding)
Encoding = Literal["sinusoidal", "learned"]
ENCODINGS: tuple[str, ...] = get_args(Encoding)

# A sentence is cut at this many tokens: the 512 rows of BERT's (and MiniLM's) learned table, so
# every preset and encoding covers the same positions.
MAX_TOKENS = 512

# --- The article's example (001_f180268f58001bd4.txt, steps 1-3) -------------------------------
ARTICLE_SENTENCE = "The cat sat on the mat"
ARTICLE_TOKENS: tuple[str, ...] = ("The", "cat", "sat", "on", "the", "mat")
ARTICLE_TOKEN_EMBEDDINGS = np.array(  # W_The .. W_mat; "The" and "the" differ in the article
    [[0.1, 0.2], [0.3, 0.4], [0.5, 0.6], [0.7, 0.8], [0.9, 1.0], [1.1, 1.2]]
)  # (6, 2)
ARTICLE_POSITION_EMBEDDINGS = np.array(  # P_0 .. P_5: illustrative, not the formula's values
    [[0.0, 1.0], [0.8, 0.6], [0.5, 0.8], [0.2, 0.9], [0.9, 0.4], [0.7, 0.2]]
)  # (6, 2)


@dataclass(frozen=True, eq=False)
class WordPosition:
    """A sentence's token vectors, position vectors and what the model's first layer sees."""

    tokens: tuple[str, ...]  # what each row is (words, or WordPiece tokens with [CLS]/[SEP])
    positions: np.ndarray  # (n,) int64: the position of each row
    token_vectors: np.ndarray  # (n, d) float64: W_t, times `scale`
    position_vectors: np.ndarray  # (n, d) float64: P_p
    sums: np.ndarray  # (n, d) float64: token + position, or BERT's input when `bert_input`
    scale: float  # the factor applied to the token embeddings (1 or sqrt(d))
    bert_input: bool  # True: `sums` is LayerNorm(W + P + T_0), not the plain sum
    total_tokens: int  # tokens before the cut at MAX_TOKENS (== n when nothing was cut)
    unknown_tokens: int  # how many rows are [UNK] (MiniLM; characters its vocabulary lacks)

    @property
    def d_model(self) -> int:
        return self.token_vectors.shape[1]

    @property
    def truncated(self) -> bool:
        return self.total_tokens > len(self.tokens)


def word_tokens(text: str) -> list[str]:
    """Split `text` into words and punctuation marks, as the article does (no subwords)."""
    if not isinstance(text, str):
        raise ValueError(f"text={text!r} is not allowed: text must be a string")
    return re.findall(r"\w+|[^\w\s]", text)


def random_token_embeddings(words: list[str], d_model: int, *, seed: int = 0) -> np.ndarray:
    """One N(0, 1/d_model) vector per word, ``(len(words), d_model)`` float64.

    The vector depends only on (seed, word case-folded), so "The" and "the" share one and the same
    word keeps its vector in every sentence.
    """
    d_model = check_int("d_model", d_model, minimum=1)
    seed = check_int("seed", seed, minimum=0)
    out = np.empty((len(words), d_model))  # (n, d)
    for row, word in enumerate(words):
        key = zlib.crc32(word.casefold().encode("utf-8"))  # stable across processes, unlike hash
        out[row] = np.random.default_rng([seed, key]).normal(0.0, d_model**-0.5, d_model)
    return out


def _sinusoid_rows(count: int, d_model: int, layout: str) -> np.ndarray:
    return sinusoidal_encoding(count, d_model, layout=layout, dtype=np.float64)  # (n, d)


def _assemble(tokens, token_vectors, position_vectors, *, scale, total, unknown=0, sums=None):
    n = len(tokens)
    token_vectors = token_vectors * (np.sqrt(token_vectors.shape[1]) if scale else 1.0)  # (n, d)
    return WordPosition(
        tokens=tuple(tokens),
        positions=np.arange(n, dtype=np.int64),
        token_vectors=token_vectors,
        position_vectors=position_vectors,
        sums=token_vectors + position_vectors if sums is None else sums,  # (n, d)
        scale=float(np.sqrt(token_vectors.shape[1])) if scale else 1.0,
        bert_input=sums is not None,
        total_tokens=total,
        unknown_tokens=unknown,
    )


def article_word_position(encoding: Encoding = "learned", *, scale: bool = False) -> WordPosition:
    """The article's sentence in 2-D: its W, and its illustrative P (``learned``) or the real
    d=2 sinusoid (``sinusoidal``). With ``learned`` and no scaling the sums are the article's
    table, X_the == X_mat == [1.8, 1.4]."""
    encoding = check_choice("encoding", encoding, ENCODINGS)
    n = len(ARTICLE_TOKENS)
    if encoding == "learned":
        positions = ARTICLE_POSITION_EMBEDDINGS.copy()  # (6, 2)
    else:
        positions = _sinusoid_rows(n, 2, "interleaved")  # (6, 2): [sin p, cos p]
    return _assemble(ARTICLE_TOKENS, ARTICLE_TOKEN_EMBEDDINGS.copy(), positions, scale=scale,
                     total=n)


def random_word_position(
    text: str,
    d_model: int,
    *,
    encoding: Encoding = "sinusoidal",
    layout: Layout = "interleaved",
    scale: bool = False,
    seed: int = 0,
    learned_table: np.ndarray | None = None,
) -> WordPosition:
    """Random word vectors (`random_token_embeddings`) plus the sinusoid of width `d_model`, or
    the rows of `learned_table` ``(max_positions, d_model)`` for ``learned``.

    Cut at MAX_TOKENS words (and at the learned table's length). Raises ValueError when the text
    has no word.
    """
    encoding = check_choice("encoding", encoding, ENCODINGS)
    layout = check_choice("layout", layout, LAYOUTS)
    d_model = check_int("d_model", d_model, minimum=1)
    words = word_tokens(text)
    if not words:
        raise InputError("sentence_no_word", "text has no word: give a sentence")
    limit = MAX_TOKENS
    if encoding == "learned":
        if learned_table is None:
            raise ValueError("encoding='learned' needs learned_table (max_positions, d_model)")
        learned_table = check_finite_array("learned_table", learned_table, ndim=2)
        if learned_table.shape[1] != d_model:
            raise ValueError(
                f"learned_table has width {learned_table.shape[1]}: it must equal "
                f"d_model={d_model}"
            )
        limit = min(limit, learned_table.shape[0])
    kept = words[:limit]
    tokens = random_token_embeddings(kept, d_model, seed=seed)  # (n, d)
    if encoding == "learned":
        positions = learned_table[: len(kept)].astype(np.float64)  # (n, d)
    else:
        if d_model % 2:
            raise ValueError(f"d_model={d_model} is not allowed: the sinusoid needs an even width")
        positions = _sinusoid_rows(len(kept), d_model, layout)  # (n, d)
    return _assemble(kept, tokens, positions, scale=scale, total=len(words))


def minilm_word_position(
    model: MiniLM,
    text: str,
    *,
    encoding: Encoding = "learned",
    layout: Layout = "interleaved",
    scale: bool = False,
    special_tokens: bool = True,
    bert_input: bool = False,
) -> WordPosition:
    """MiniLM's WordPiece embeddings ``(n, 384)`` plus its learned positions or the sinusoid.

    `special_tokens` wraps the tokens in [CLS] ... [SEP] as BERT does (so the first word is at
    position 1). `bert_input` replaces the plain sums by BERT's real input,
    LayerNorm(W + P_learned + T_0): it needs ``learned`` and no scaling (BERT does neither
    otherwise). More than 512 positions are cut (as BERT's tokenizer does, [SEP] kept last).
    """
    from core.minilm import UNKNOWN_TOKEN, embed_ids

    encoding = check_choice("encoding", encoding, ENCODINGS)
    layout = check_choice("layout", layout, LAYOUTS)
    if bert_input and (encoding != "learned" or scale):
        raise ValueError(
            "bert_input=True is BERT's own input: it needs encoding='learned' and scale=False"
        )
    ids = model.token_ids(text)
    if not ids:
        raise InputError("sentence_no_token", "text has no token: give a sentence")
    room = min(MAX_TOKENS, model.max_positions) - (2 if special_tokens else 0)
    kept = ids[:room]
    if special_tokens:
        kept = [model.cls_id, *kept, model.sep_id]
    tokens = [model.id_to_token(i) for i in kept]
    word = model.token_embeddings[kept].astype(np.float64)  # (n, 384)
    if encoding == "learned":
        positions = model.position_embeddings[: len(kept)].astype(np.float64)  # (n, 384)
    else:
        positions = _sinusoid_rows(len(kept), model.hidden_size, layout)  # (n, 384)
    sums = embed_ids(model, kept).astype(np.float64) if bert_input else None  # (n, 384)
    return _assemble(
        tokens, word, positions, scale=scale,
        total=len(ids) + (2 if special_tokens else 0),
        unknown=sum(t == UNKNOWN_TOKEN for t in tokens), sums=sums,
    )


MINILM_WIDTH = 384  # all-MiniLM-L6-v2's hidden size: its learned table is this wide


# --- Projection -------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Projection:
    """Points in 2-D or 3-D: principal components, the raw coordinates when d <= 3, or (a
    sentence with a repeated word, `project_word_position`) principal components of the rest
    and a last axis along the repeated word's two sums."""

    coordinates: np.ndarray  # (m, k) float64
    explained_variance_ratio: np.ndarray  # (k,): share of the total variance on each axis
    method: Literal["PCA", "raw", "contrast"]
    shown: np.ndarray | None = None  # (n',) the token rows drawn (None: every row)
    pair: tuple[int, int] | None = None  # "contrast": the rows whose sums span the last axis

    @property
    def axis_titles(self) -> tuple[str, ...]:
        if self.method == "raw":
            return tuple(f"dimension {i}" for i in range(self.coordinates.shape[1]))
        if self.method == "contrast":
            ratios = self.explained_variance_ratio
            return (*(f"PC{i + 1} ({ratio:.1%} of variance)"
                      for i, ratio in enumerate(ratios[:-1])),
                    f"the repeated word's two sums ({ratios[-1]:.1%} of variance)")
        return tuple(
            f"PC{i + 1} ({ratio:.1%} of variance)"
            for i, ratio in enumerate(self.explained_variance_ratio)
        )


def project(
    vectors: np.ndarray, n_components: int, *, seed: int = 0, overwrite: bool = False
) -> Projection:
    """PCA of the rows of `vectors` ``(m, d)`` onto `n_components` (2 or 3) axes.

    When d <= n_components the vectors are returned as they are (``method="raw"``, k = d):
    a 2-D table needs no projection. The axes are exact principal components with scikit-learn's
    sign convention (`principal_components`), so the same input gives the same picture; `seed` is
    kept for callers and has no effect. With `overwrite` a float64
    `vectors` is centred in place (a caller's scratch array: one (m, d) copy fewer at the peak).
    """
    vectors = check_finite_array("vectors", vectors, ndim=2)
    owned = overwrite or vectors.dtype != np.float64
    vectors = vectors.astype(np.float64, copy=False)  # a float64 input is not copied
    n_components = check_int("n_components", n_components, minimum=2, maximum=3)
    seed = check_int("seed", seed, minimum=0)
    m, d = vectors.shape
    if m < 1:
        raise ValueError("vectors has no row: there is nothing to project")
    if d <= n_components:
        variance = vectors.var(axis=0)  # (d,)
        total = variance.sum()
        ratio = variance / total if total > 0 else np.zeros(d)
        return Projection(coordinates=vectors.copy(), explained_variance_ratio=ratio, method="raw")
    k = min(n_components, m)
    coordinates, ratio = principal_components(vectors, k, centre_in_place=owned)  # (m, k), (k,)
    if k < n_components:  # fewer points than axes: the missing axes carry nothing
        coordinates = np.pad(coordinates, ((0, 0), (0, n_components - k)))
        ratio = np.pad(ratio, (0, n_components - k))
    return Projection(coordinates=coordinates, explained_variance_ratio=ratio, method="PCA")


SPECIAL_TOKENS = ("[CLS]", "[SEP]")  # BERT's markers, left out of a sentence's projection


def first_repeat(word_position: WordPosition, rows: np.ndarray) -> tuple[int, int] | None:
    """The first two of `rows` with one token vector (the same word at two positions), or None."""
    first: dict[bytes, int] = {}
    for row in rows.tolist():
        key = word_position.token_vectors[row].tobytes()
        if key in first:
            return first[key], row
        first[key] = row
    return None


def project_word_position(
    word_position: WordPosition, n_components: int, *, seed: int = 0
) -> Projection:
    """The token vectors, the position vectors and the sums of the sentence's words in one
    picture: rows [0, m) tokens, [m, 2m) positions, [2m, 3m) sums of the m rows `shown`.
    ``(3m, k)``.

    BERT's [CLS] and [SEP] are left out: their vectors lie far from the words' (MiniLM's P0
    too), and one PCA of all of them crowded every word into one spot. Where a word repeats,
    the last axis (up) is the direction from its first sum to its second (P_j - P_i, unit),
    so the two are drawn as far apart as they are in d dimensions; the others are principal
    components of what that axis leaves (one PCA of the words, whose differences are ~4x a
    position's, drew MiniLM's two "the" 0.3% of the plot apart). Otherwise one PCA."""
    shown = np.array([i for i, token in enumerate(word_position.tokens)
                      if token not in SPECIAL_TOKENS], dtype=np.int64)
    if shown.size == 0:  # a sentence of markers only: draw them
        shown = np.arange(len(word_position.tokens), dtype=np.int64)
    stacked = np.concatenate([word_position.token_vectors[shown],
                              word_position.position_vectors[shown],
                              word_position.sums[shown]])  # (3m, d), a new array
    d = stacked.shape[1]
    pair = first_repeat(word_position, shown)
    if pair is not None:
        direction = word_position.sums[pair[1]] - word_position.sums[pair[0]]  # (d,)
        length = float(np.linalg.norm(direction))
        if d <= n_components or length == 0.0:
            pair = None
    if pair is None:
        projected = project(stacked, n_components, seed=seed, overwrite=True)
        return Projection(projected.coordinates, projected.explained_variance_ratio,
                          projected.method, shown=shown)
    unit = direction / length  # (d,)
    stacked -= stacked.mean(axis=0)  # (3m, d) centred
    total = float(np.sum(stacked**2))
    along = stacked @ unit  # (3m,): the first axis
    stacked -= np.outer(along, unit)  # what the first axis leaves, (3m, d)
    left = float(np.sum(stacked**2))
    if n_components == 3:  # two more axes: principal components of the rest
        rest = project(stacked, 2, seed=seed, overwrite=True)
        others, shares = rest.coordinates, rest.explained_variance_ratio  # (3m, 2)
    else:  # one more axis: the first principal component of the rest
        others, shares = _first_component(stacked, seed)  # (3m, 1)
    shares = shares * (left / total if total else 0.0)  # of all the variance, not the rest's
    ratio = np.array([*shares, float(np.sum(along**2)) / total if total else 0.0])
    # The pair's axis last: up (y in 2-D, z in 3-D), the words' wider spread across.
    coordinates = np.column_stack([others, along])  # (3m, k)
    return Projection(coordinates, ratio, "contrast", shown=shown, pair=pair)


def project_positions(word_position: WordPosition, *, seed: int = 0) -> Projection | None:
    """The sentence's position vectors alone, their own 2-D PCA ``(m, 2)`` (the rows `shown` by
    `project_word_position`: [CLS], [SEP] and their positions left out), with `shown` set: one
    picture with the words draws consecutive positions a few pixels apart (MiniLM's
    |P_{k+1} - P_k| is 0.2-0.3, two different words 1.1-1.9), here they span the plot. None
    for fewer than three positions, or a table of at most two dimensions (the main picture
    draws it as it is)."""
    shown = np.array([i for i, token in enumerate(word_position.tokens)
                      if token not in SPECIAL_TOKENS], dtype=np.int64)
    if shown.size < 3 or word_position.d_model <= 2:
        return None
    projected = project(word_position.position_vectors[shown], 2, seed=seed)  # (m, 2)
    return Projection(projected.coordinates, projected.explained_variance_ratio,
                      projected.method, shown=shown)


def position_steps(word_position: WordPosition, shown: np.ndarray) -> np.ndarray:
    """|P_{shown[k+1]} - P_{shown[k]}| in all d dimensions: ``(m - 1,)``."""
    rows = word_position.position_vectors[shown]  # (m, d)
    return np.linalg.norm(np.diff(rows, axis=0), axis=1)  # (m - 1,)


def principal_components(vectors: np.ndarray, k: int, *, centre_in_place: bool = False
                         ) -> tuple[np.ndarray, np.ndarray]:
    """The first `k` principal components of the rows of `vectors` ``(m, d)`` float64: their
    coordinates ``(m, k)`` and each one's share of the total variance ``(k,)`` (0 where every
    row is equal). Exact, with numpy alone: an eigendecomposition of the smaller of the
    covariance ``(d, d)`` and the Gram matrix ``(m, m)``. Each axis's sign is scikit-learn's
    (``svd_flip(u_based_decision=False)``: the largest |entry| of the component positive), so
    the picture equals ``sklearn.decomposition.PCA``'s; scikit-learn and scipy are not imported
    (they held ~78 MB of a server's memory for good after its first projection).
    `centre_in_place` centres `vectors` itself (a caller's scratch array)."""
    m, d = vectors.shape
    k = min(k, m, d)
    if centre_in_place:
        vectors -= vectors.mean(axis=0)
        centred = vectors
    else:
        centred = vectors - vectors.mean(axis=0)  # (m, d)
    total = float(np.sum(centred * centred))
    if d <= m:  # the covariance: its eigenvectors are the components
        values, eigenvectors = np.linalg.eigh(centred.T @ centred)  # ascending, (d,), (d, d)
        components = eigenvectors[:, ::-1][:, :k].T  # (k, d)
    else:  # the Gram matrix: its eigenvectors are the coordinates' directions
        values, left = np.linalg.eigh(centred @ centred.T)  # (m,), (m, m)
        left = left[:, ::-1][:, :k]  # (m, k)
        components = left.T @ centred  # (k, d), rows of length s_i
        norms = np.linalg.norm(components, axis=1, keepdims=True)
        components = np.divide(components, norms, out=np.zeros_like(components),
                               where=norms > 0)
    values = np.clip(values[::-1][:k], 0.0, None)  # (k,) squared singular values
    signs = np.sign(components[np.arange(k), np.argmax(np.abs(components), axis=1)])
    signs[signs == 0] = 1.0
    components *= signs[:, None]
    coordinates = centred @ components.T  # (m, k)
    ratio = values / total if total > 0 else np.zeros(k)
    return coordinates, ratio


def _first_component(centred: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The first principal component of the rows of `centred` ``(m, d)`` (already centred):
    its coordinates ``(m, 1)`` and its share of their variance ``(1,)``."""
    return principal_components(centred, 1)


# --- Norms, the table, coincidences ------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Norms:
    token: np.ndarray  # (n,) |s W_t|
    position: np.ndarray  # (n,) |P_p|
    sum: np.ndarray  # (n,) |x_p|

    @property
    def ratio(self) -> np.ndarray:
        """(n,) |token| / |position| per row: above 1 the word dominates its sum."""
        return self.token / self.position

    @property
    def token_mean(self) -> float:
        return float(self.token.mean())

    @property
    def position_mean(self) -> float:
        return float(self.position.mean())

    @property
    def mean_ratio(self) -> float:
        """mean |token| / mean |position|: how far a position moves a typical word."""
        return self.token_mean / self.position_mean


def norms(word_position: WordPosition) -> Norms:
    """The Euclidean norms of every row of the three tables."""
    return Norms(
        token=np.linalg.norm(word_position.token_vectors, axis=1),  # (n,)
        position=np.linalg.norm(word_position.position_vectors, axis=1),  # (n,)
        sum=np.linalg.norm(word_position.sums, axis=1),  # (n,)
    )


def vector_table(word_position: WordPosition, *, dims: int = 4) -> dict[str, list]:
    """The rows as table columns: position, token, norms, ratio and the first `dims` entries of
    each vector (all of them when d <= dims)."""
    dims = min(check_int("dims", dims, minimum=1), word_position.d_model)
    norm = norms(word_position)
    sum_name = "bert_input" if word_position.bert_input else "sum"
    table: dict[str, list] = {
        "position": word_position.positions.tolist(),
        "token": list(word_position.tokens),
        "|token|": norm.token.tolist(),
        "|position|": norm.position.tolist(),
        "|token|/|position|": norm.ratio.tolist(),
        f"|{sum_name}|": norm.sum.tolist(),
    }
    for name, vectors in (("token", word_position.token_vectors),
                          ("position", word_position.position_vectors),
                          (sum_name, word_position.sums)):
        for i in range(dims):
            table[f"{name}[{i}]"] = vectors[:, i].tolist()
    return table


def table_csv(table: dict[str, list]) -> str:
    """The table as CSV. Text cells that a spreadsheet would run as a formula (=, +, -, @ first)
    get a leading apostrophe: a sentence is user input."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(table)
    for row in zip(*table.values(), strict=True):
        writer.writerow(
            "'" + cell if isinstance(cell, str) and cell[:1] in ("=", "+", "-", "@", "\t", "\r")
            else cell
            for cell in row
        )
    return out.getvalue()


def coincident_sums(word_position: WordPosition, *, atol: float = 1e-9) -> list[tuple[int, int]]:
    """Pairs (i, j), i < j, of different tokens whose sums are the same point: the article's
    X_the == X_mat, where the position made two words indistinguishable."""
    sums = word_position.sums  # (n, d)
    pairs = []
    for i in range(len(sums)):
        close = np.nonzero(np.all(np.abs(sums[i + 1 :] - sums[i]) <= atol, axis=1))[0]
        pairs += [(i, i + 1 + int(j)) for j in close
                  if word_position.tokens[i] != word_position.tokens[i + 1 + int(j)]]
    return pairs


def repeated_tokens(word_position: WordPosition) -> dict[str, list[int]]:
    """Tokens whose embedding occurs more than once (one vector, several positions), keyed by
    their first spelling: "The" and "the" share one in the random and MiniLM presets, not in
    the article, which gives them different vectors."""
    seen: dict[bytes, list[int]] = {}
    spelling: dict[bytes, str] = {}
    for token, position, vector in zip(word_position.tokens, word_position.positions,
                                       word_position.token_vectors, strict=True):
        key = vector.tobytes()
        spelling.setdefault(key, token)
        seen.setdefault(key, []).append(int(position))
    return {spelling[key]: where for key, where in seen.items() if len(where) > 1}


@dataclass(frozen=True)
class RepeatDistance:
    """How far apart the same word's two inputs are, in all d dimensions, beside how far apart
    two different words' inputs are in the same sentence."""

    token: str
    first: int  # the two positions
    second: int
    distance: float  # |x_second - x_first| = |P_second - P_first| (same word vector)
    others: tuple[float, float]  # (nearest, farthest) two different words' sums, or (nan, nan)


def repeat_distance(word_position: WordPosition, pair: tuple[int, int] | None,
                    shown: np.ndarray) -> RepeatDistance | None:
    """`RepeatDistance` of the rows `pair` (`first_repeat`), the other words among `shown`."""
    if pair is None:
        return None
    i, j = pair
    sums = word_position.sums[shown]  # (m, d)
    vectors = word_position.token_vectors[shown]  # (m, d)
    gaps = [float(np.linalg.norm(sums[a] - sums[b]))
            for a in range(len(shown)) for b in range(a + 1, len(shown))
            if not np.array_equal(vectors[a], vectors[b])]
    return RepeatDistance(
        token=word_position.tokens[i], first=int(word_position.positions[i]),
        second=int(word_position.positions[j]),
        distance=float(np.linalg.norm(word_position.sums[j] - word_position.sums[i])),
        others=(min(gaps), max(gaps)) if gaps else (float("nan"), float("nan")),
    )


# --- A compact view ------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class WordPositionView:
    """A `WordPosition`'s projection, norms, table head and repeated tokens, without its three
    (n, d) tables: at 512 tokens and d = 4096 they are 48 MB, this is under 1 MB (small enough to
    cache)."""

    tokens: tuple[str, ...]
    positions: np.ndarray  # (n,) int64
    d_model: int
    scale: float
    bert_input: bool
    total_tokens: int
    unknown_tokens: int
    projection: Projection  # (3n, k): tokens, positions, sums
    norms: Norms
    table: dict[str, list]  # `vector_table` with the first `dims` entries of each vector
    repeated: dict[str, list[int]]  # `repeated_tokens`
    sums_head: np.ndarray  # (n, min(d, dims)): the first entries of each sum
    coincident: list[tuple[int, int]]  # `coincident_sums`, looked for when d <= dims
    repeat: RepeatDistance | None = None  # the projection's repeated word, in d dimensions
    positions_alone: Projection | None = None  # `project_positions`
    position_steps: np.ndarray | None = None  # (m - 1,) `position_steps` of its rows

    @property
    def truncated(self) -> bool:
        return self.total_tokens > len(self.tokens)


def word_position_view(
    word_position: WordPosition, n_components: int, *, seed: int = 0, dims: int = 4
) -> WordPositionView:
    """The projection (`project_word_position`), norms, table and repeated tokens of
    `word_position`; coincident sums only for a table of at most `dims` dimensions (the
    article's 2-D one: in a wide table two different words never share a point)."""
    dims = check_int("dims", dims, minimum=1)
    projection = project_word_position(word_position, n_components, seed=seed)
    alone = project_positions(word_position, seed=seed)
    return WordPositionView(
        tokens=word_position.tokens,
        positions=word_position.positions,
        d_model=word_position.d_model,
        scale=word_position.scale,
        bert_input=word_position.bert_input,
        total_tokens=word_position.total_tokens,
        unknown_tokens=word_position.unknown_tokens,
        projection=projection,
        norms=norms(word_position),
        table=vector_table(word_position, dims=dims),
        repeated=repeated_tokens(word_position),
        sums_head=word_position.sums[:, :dims].copy(),  # a copy: the (n, d) table is let go
        coincident=coincident_sums(word_position) if word_position.d_model <= dims else [],
        repeat=repeat_distance(word_position, projection.pair, projection.shown),
        positions_alone=alone,
        position_steps=None if alone is None else position_steps(word_position, alone.shown),
    )
