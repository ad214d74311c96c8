"""The word-position page's controls that depend on each other: which apply together, and the
sentence that says what was changed and why."""

from __future__ import annotations

from dataclasses import dataclass

from core._checks import check_choice
from core.word_position import EMBEDDINGS, ENCODINGS, MINILM_WIDTH
from locales import Text


@dataclass(frozen=True)
class Choices:
    """The word-position page's controls after settling the ones that depend on each other."""

    embedding: str
    encoding: str
    d_model: int
    scale: bool
    bert_input: bool


def settle_choices(
    embedding: str, encoding: str, d_model: int, *, scale: bool, bert_input: bool,
    minilm_available: bool = True,
) -> tuple[Choices, list[Text]]:
    """Make the controls consistent and say, in one sentence each (a `Text`: English by `str()`,
    any language by `in_language`), what was changed and why:

    - the article preset is 2-D, MiniLM 384-D; a learned table is MiniLM's, so 384-D too;
    - without the MiniLM package there is no learned table (the sinusoid is used);
    - BERT's real input exists only for MiniLM's embeddings, with its learned positions and
      no sqrt(d) scaling.
    """
    embedding = check_choice("embedding", embedding, EMBEDDINGS)
    encoding = check_choice("encoding", encoding, ENCODINGS)
    notes: list[Text] = []
    if embedding == "random" and encoding == "learned" and not minilm_available:
        notes.append(Text("word-position.note_no_minilm"))
        encoding = "sinusoidal"
    if embedding == "article":
        d_model = 2
    elif embedding == "minilm":
        d_model = MINILM_WIDTH
    elif encoding == "learned" and d_model != MINILM_WIDTH:
        notes.append(Text("word-position.note_learned_width", width=MINILM_WIDTH, d_model=d_model))
        d_model = MINILM_WIDTH
    if embedding != "minilm":
        bert_input = False  # BERT's real input exists for BERT's own embeddings only
    if bert_input and (encoding != "learned" or scale):
        notes.append(Text("word-position.note_bert_input"))
        encoding, scale = "learned", False
    return Choices(embedding, encoding, d_model, scale, bert_input), notes
