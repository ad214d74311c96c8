"""Order in a real model: all-MiniLM-L6-v2 run whole on a sentence, with its learned positions
and without them (core.minilm_forward)."""

import random

import numpy as np
import streamlit as st

from core import limits, nope
from core import minilm_encoder as mf
from core.minilm import ModelUnavailableError
from figures.order import (
    add_attention_pair_states,
    add_head_outline_states,
    attention_top,
    make_attention_pair_figure,
    make_causal_mean_figure,
    make_facts_figure,
    make_head_change_figure,
)
from locales import error_text
from server.cache import MB, bounded_cache
from ui.charts import file_stem, show_chart
from ui.controls import start_page
from ui.i18n import current_language, t
from ui.model import cached_minilm
from ui.plotly_react import clicked_cell
from ui.text import explain, markdown_text

LONGEST = " ".join(["cat"] * (limits.MAX_ORDER_TOKENS - 2))  # the cap: the largest entries


# An entry at the cap is ~1.9 MB (attentions (6, 12, 64, 64) and hidden states (7, 64, 384),
# float32); the article's sentence ~0.1 MB, so the four runs of the facts view fit.
@bounded_cache(max_entries=4, max_bytes=5 * MB,
               worst_case=[(LONGEST, "learned"), (LONGEST, "none")])
def cached_forward(text: str, positions: str) -> mf.ForwardResult:
    return mf.minilm_forward(cached_minilm(), text, positions=positions)


# An entry is (8, length) float64: 131 KB at the cap.
@bounded_cache(max_entries=4, max_bytes=MB // 2,
               worst_case=[(limits.MAX_NOPE_LENGTH, limits.MAX_NOPE_WIDTH)])
def cached_causal_means(length: int, width: int) -> np.ndarray:
    return nope.causal_mean_norms(length, width)


lang = current_language()
controls = start_page("order")
view = controls.current("view")
with st.sidebar:  # page-wide: the views run the model on these (NoPE's draws random sentences)
    with controls.shown(view != "nope"):
        text = controls.text("text")
    # The second sentence is the facts view's alone (the attention view draws the first): shown
    # there, kept (hidden, in the URL and the link) in the other.
    with controls.shown(view == "facts"):
        other = controls.text("other")
explain(t("order.intro"))


@st.fragment
def nope_view() -> None:
    """No positions and a causal mask: the mean of p + 1 random vectors, its norm and the
    position read back from it (core.nope)."""
    length_column, width_column = controls.view_row(2)
    with length_column:
        length = controls.stops("length")
    with width_column:
        width = controls.stops("width")
    explain(t("order.nope_text"))
    norms = cached_causal_means(length, width)
    last = length - 1
    left, middle, right = st.columns(3)
    left.metric(t("order.nope_last"), f"{norms[:, last].mean():.4f}")
    middle.metric(t("order.nope_expected_last"), f"{nope.expected_norm(length)[last]:.4f}")
    right.metric(t("order.nope_read_last"),
                 f"{np.median(nope.read_position(norms[:, last])):.1f}")
    show_chart(make_causal_mean_figure(norms, nope.expected_norm(length),
                                       nope.read_position_spread(norms), width=width,
                                       lang=lang),
               key="order_nope_chart", name=file_stem("order-nope", f"T{length}", f"w{width}"))


if view == "nope":  # random vectors: the model below is not needed (nor a usable sentence)
    controls.sections({"attention": controls.stop, "facts": controls.stop, "nope": nope_view})
    controls.stop()

# The model is asked for where it is used, never kept in this module's names: the fragments keep
# this module alive, and with it whatever model it named, past an image's turn that drops the
# model (ui.model.release_minilm), when the next run reads another copy.
def token_count(sentence: str) -> int:
    return len(cached_minilm().token_ids(sentence, add_special_tokens=True))


try:
    cached_minilm()
except ModelUnavailableError as error:
    st.error(markdown_text(error_text(error, lang, "minilm")), icon=":material/error:")
    controls.stop()
sentences = {}
labels = {"text": t("order.first_sentence"), "other": t("order.second_sentence")}
for name, sentence in (("text", text), ("other", other)):
    count = token_count(sentence)
    if count <= 2:
        st.info(t("order.empty", name=labels[name]), icon=":material/info:")
        controls.stop()
    if count > limits.MAX_ORDER_TOKENS:
        st.warning(t("order.too_long", name=labels[name], count=count,
                     most=limits.MAX_ORDER_TOKENS),
                   icon=":material/content_cut:")
        controls.stop()
    sentences[name] = sentence


HEAD_MAP = "order_change_chart"


def pick_head() -> None:
    """A click on the head map's cell (x: head, y: layer) draws that head: the sliders take its
    numbers before the view reruns, and the link with them."""
    cell = clicked_cell(HEAD_MAP)
    if cell is None:
        return
    head, layer = int(cell[0]), int(cell[1])
    params = controls.params
    if 1 <= layer <= params["layer"].maximum and 1 <= head <= params["head"].maximum:
        st.session_state["layer"], st.session_state["head"] = layer, head


@st.fragment
def attention_view() -> None:
    """One head with and without positions, and every head's change to pick from."""
    learned, blind = cached_forward(text, "learned"), cached_forward(text, "none")
    change = mf.attention_change(learned, blind)  # (6, 12)
    layer_column, head_column = controls.view_row(2)
    with layer_column:
        layer = controls.slider("layer")
    with head_column:
        head = controls.slider("head")
    order = np.argsort(change, axis=None)[::-1][:3]  # the three heads the positions change most
    marked = [(int(i) // change.shape[1] + 1, int(i) % change.shape[1] + 1) for i in order]
    explain(t("order.change_text", heads=", ".join(f"{a}.{b}" for a, b in marked)),
            caption=True)
    # Both charts follow the layer and head sliders while they are dragged (live states).
    head_map = make_head_change_figure(change, layer=layer, head=head, marked=marked, lang=lang)
    show_chart(add_head_outline_states(head_map, layers=change.shape[0], heads=change.shape[1],
                                       layer=layer, head=head),
               key=HEAD_MAP, name=file_stem("order-change", f"T{len(learned.tokens)}"),
               on_click=pick_head)
    pair = make_attention_pair_figure(learned.tokens, learned.attentions[layer - 1, head - 1],
                                      blind.attentions[layer - 1, head - 1], layer=layer,
                                      head=head, lang=lang,
                                      top=attention_top(learned.attentions, blind.attentions))
    show_chart(
        add_attention_pair_states(pair, learned.attentions, blind.attentions, layer=layer,
                                  head=head, lang=lang),
        key="order_attention_chart",
        name=file_stem("order-attention", f"layer{layer}", f"head{head}",
                       f"T{len(learned.tokens)}"),
    )


def shuffle_other() -> None:
    """`other` becomes the words of `text` in a new random order."""
    words = text.split()
    if len(set(words)) > 1:
        shuffled = words[:]
        while shuffled == words:
            random.shuffle(shuffled)
        st.session_state["other"] = " ".join(shuffled)


@st.fragment
def facts_view() -> None:
    """The articles' claim, computed: without positions equal words are equal, and a
    permutation of the words is the same sentence."""
    runs = {(name, positions): cached_forward(sentences[name], positions)
            for name in sentences for positions in mf.POSITIONS}
    repeated = {positions: mf.repeated_token(runs["text", positions])
                for positions in mf.POSITIONS}
    if repeated["learned"] is None:
        st.info(t("order.no_repeat"), icon=":material/info:")
    else:
        same = repeated["learned"]
        st.subheader(t("order.repeat_heading", token=markdown_text(same.token),
                       first=same.first, second=same.second))
        left, right = st.columns(2)
        left.metric(t("order.attention_gap_learned"), f"{same.attention_gap:.3g}")
        left.metric(t("order.attention_gap_none"), f"{repeated['none'].attention_gap:.3g}")
        right.metric(t("order.output_gap_learned"), f"{same.output_gap:.3g}")
        right.metric(t("order.output_gap_none"), f"{repeated['none'].output_gap:.3g}")
    st.subheader(t("order.cosine_heading"))
    permutation = sorted(runs["text", "none"].tokens) == sorted(runs["other", "none"].tokens)
    left, right = st.columns(2)
    left.metric(t("order.cosine_learned"),
                f"{mf.sentence_cosine(runs['text', 'learned'], runs['other', 'learned']):.6f}")
    right.metric(t("order.cosine_none"),
                 f"{mf.sentence_cosine(runs['text', 'none'], runs['other', 'none']):.6f}")
    st.markdown(t("order.permutation") if permutation else t("order.not_permutation"))
    cosine = {p: mf.sentence_cosine(runs["text", p], runs["other", p]) for p in mf.POSITIONS}
    if permutation:  # a cosine near 1 with positions reads as "order barely matters"
        explain(t("order.cosine_meaning", cosine=cosine["learned"],
                  gap=max(1 - cosine["learned"], 0.0)))
    measures = [(t("fig.order.cosine_gap"), max(1 - cosine["learned"], 0.0),
                 max(1 - cosine["none"], 0.0))]
    if repeated["learned"] is not None:
        measures = [
            (t("fig.order.row_gap"), repeated["learned"].attention_gap,
             repeated["none"].attention_gap),
            (t("fig.order.output_gap"), repeated["learned"].output_gap,
             repeated["none"].output_gap),
            *measures,
        ]
    show_chart(make_facts_figure(measures, lang=lang), key="order_facts_chart",
               name=file_stem("order-facts", f"T{len(runs['text', 'learned'].tokens)}"))
    if st.button(t("order.shuffle"), on_click=shuffle_other, icon=":material/shuffle:",
                 help=t("order.shuffle_help"), key="shuffle"):
        st.rerun(scope="app")  # the second sentence is page-wide: every view uses it


controls.sections({"attention": attention_view, "facts": facts_view, "nope": nope_view})
