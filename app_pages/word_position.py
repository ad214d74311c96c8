"""Word + position: a sentence's token embeddings, position vectors and their sums, projected."""

import pandas as pd
import streamlit as st

from core import word_position as wp
from core.figures.word_position import make_word_position_figure
from core.minilm import ModelUnavailableError
from core.page_params import PAGE_PARAMS
from core.params import shorten
from ui.controls import PageControls
from ui.model import cached_minilm
from ui.text import escape_markdown

MAX_CHIPS = 64  # token chips drawn; the table below lists every token


@st.cache_data(max_entries=32, show_spinner=False)
def cached_word_position(
    embedding, sentence, encoding, layout, d_model, scale, seed, special_tokens, bert_input
) -> wp.WordPosition:
    if embedding == "article":
        return wp.article_word_position(encoding, scale=scale)
    if embedding == "random":
        learned = cached_minilm().position_embeddings if encoding == "learned" else None
        return wp.random_word_position(
            sentence, d_model, encoding=encoding, layout=layout, scale=scale, seed=seed,
            learned_table=learned,
        )
    return wp.minilm_word_position(
        cached_minilm(), sentence, encoding=encoding, layout=layout, scale=scale,
        special_tokens=special_tokens, bert_input=bert_input,
    )


@st.cache_data(max_entries=32, show_spinner=False)
def cached_projection(_word_position: wp.WordPosition, key: tuple, components: int, seed: int):
    # `key` stands for the (unhashed) word_position: the arguments of cached_word_position.
    return wp.project_word_position(_word_position, components, seed=seed)


def stop(message: str) -> None:
    st.info(message, icon=":material/info:")
    controls.finish()
    st.stop()


st.title("Word + position")
controls = PageControls("word-position", PAGE_PARAMS["word-position"])
with st.sidebar:
    embedding = controls.choice(
        "embedding",
        "token embeddings",
        help="article: the 2-D example of the source article; random: one Gaussian vector per "
        "word; minilm: the real WordPiece embeddings of all-MiniLM-L6-v2 (384-D).",
    )
    sentence = controls.text("sentence", "sentence", help="Used by random and minilm.")
    encoding = controls.choice(
        "encoding",
        "position vectors",
        help="sinusoidal: the paper's formula; learned: a trained table (MiniLM's 512 x 384; for "
        "the article preset, its made-up P values).",
    )
    layout = controls.choice("layout", "sinusoid layout", help="Column order of the sinusoid.")
    d_model = controls.number("d_model", "d_model (random preset)", help="Even, 2 to 4096.")
    scale = controls.toggle(
        "scale", "multiply token embeddings by √d_model", help="As the paper's code does "
        "(Vaswani et al. §3.4); BERT and the article add them as they are."
    )
    special_tokens = controls.toggle(
        "special_tokens", "MiniLM: add [CLS] and [SEP]", help="As BERT sees a sentence."
    )
    bert_input = controls.toggle(
        "bert_input",
        "MiniLM: BERT's real input",
        help="LayerNorm(word + learned position + token type 0), the output of BERT's embedding "
        "layer, instead of the plain sum.",
    )
    projection = controls.choice("projection", "projection")
    seed = controls.number("seed", "seed", help="Random word vectors and the PCA's random_state.")

st.markdown(
    "A Transformer adds a **position vector** to each **token embedding** before the first "
    "layer, so the same word at two positions becomes two different inputs:"
)
st.latex(r"x_p = s \cdot W_{t_p} + P_p")

# --- choices that depend on each other, said out loud --------------------------------------------
minilm_available = True
if embedding == "minilm" or (embedding == "random" and encoding == "learned"):
    try:
        cached_minilm()
    except ModelUnavailableError as error:
        minilm_available = False
        st.error(escape_markdown(str(error)), icon=":material/error:")
        if embedding == "minilm":
            stop("The article and random presets work without it.")
choices, notes = wp.settle_choices(embedding, encoding, d_model, scale=scale,
                                   bert_input=bert_input, minilm_available=minilm_available)
encoding, d_model, scale, bert_input = (choices.encoding, choices.d_model, choices.scale,
                                        choices.bert_input)
for note in notes:
    st.info(note, icon=":material/info:")
if embedding == "article" and sentence.strip() != wp.ARTICLE_SENTENCE:
    st.info(
        "The article preset has numbers for its own sentence only, "
        f"*{wp.ARTICLE_SENTENCE}*: choose random or minilm to use yours.",
        icon=":material/info:",
    )
if embedding != "article" and not wp.word_tokens(sentence):
    stop("Type a sentence in the sidebar: there is no word to embed.")

try:
    word_position = cached_word_position(
        embedding, sentence, encoding, layout, d_model, scale, seed, special_tokens, bert_input
    )
except ValueError as error:  # e.g. a text of characters the tokenizer drops entirely
    stop(escape_markdown(str(error)))
n = len(word_position.tokens)

# --- what convention is on -----------------------------------------------------------------------
if word_position.bert_input:
    convention = (
        "**BERT's real input**: $\\mathrm{LayerNorm}(W_t + P_p + T_0)$ with MiniLM's learned "
        "positions, token type 0 and $\\epsilon = 10^{-12}$ (no $\\sqrt{d}$ scaling)."
    )
elif scale:
    convention = (
        f"**Convention: scaled.** Token embeddings are multiplied by "
        f"$s = \\sqrt{{d_{{model}}}} = \\sqrt{{{d_model}}} = {word_position.scale:.4f}$ before the "
        "position is added, as the paper's code does."
    )
else:
    convention = (
        "**Convention: unscaled** ($s = 1$). Token embeddings are added as they are, as BERT and "
        "the article do."
    )
source = {
    "article": "the article's 2-D word vectors",
    "random": f"random {d_model}-D word vectors (seed {seed})",
    "minilm": "all-MiniLM-L6-v2's 384-D WordPiece embeddings",
}[embedding]
positions_text = {
    ("article", "learned"): "the article's illustrative P (a free table, like a learned one)",
    ("article", "sinusoidal"): "the real d = 2 sinusoid",
}.get((embedding, encoding), "MiniLM's learned positions" if encoding == "learned"
      else f"the sinusoid ({layout})")
st.markdown(f"Tokens: {source}. Positions: {positions_text}. {convention}")

# --- the tokens ----------------------------------------------------------------------------------
st.subheader(f"{n} tokens")
if embedding != "article":
    st.caption("Sentence: " + escape_markdown(shorten(sentence, 300)))
if word_position.truncated:
    st.warning(
        f"The text has {word_position.total_tokens} tokens: only the first {n} are used "
        f"(a learned table has {wp.MAX_TOKENS} positions, 0 to {wp.MAX_TOKENS - 1}).",
        icon=":material/content_cut:",
    )
if word_position.unknown_tokens:
    st.warning(
        f"{word_position.unknown_tokens} of {n} tokens are [UNK]: MiniLM's English WordPiece "
        "vocabulary has no entry for most Chinese, Japanese and Korean characters, emoji and rare "
        "symbols, so they all share one vector, the [UNK] embedding.",
        icon=":material/help:",
    )
# One markdown line of badge directives; escape_markdown escapes the brackets too, so a token
# such as "[CLS]" or "]" cannot end its badge early.
chips = [
    f":blue-badge[{escape_markdown(token)} · {position}]"
    for token, position in zip(
        word_position.tokens[:MAX_CHIPS], word_position.positions[:MAX_CHIPS], strict=True
    )
]
if n > MAX_CHIPS:
    chips.append(f":gray-badge[… {n - MAX_CHIPS} more in the table below]")
st.markdown(" ".join(chips))
if embedding == "minilm":
    st.caption("WordPiece is uncased: “The” and “the” are the same token, `the`.")

# --- the article's table, beside the real d = 2 sinusoid -----------------------------------------
if embedding == "article":
    st.subheader("The article's table, and the real sinusoid")
    st.markdown(
        "Left, the article's own numbers: its $P_p$ are made up for the example, a free table "
        "like a learned one (position vectors: *learned*). Right, the same words with the real "
        "sinusoid at $d = 2$, $P_p = [\\sin p, \\cos p]$ (position vectors: *sinusoidal*)."
    )
    left, right = st.columns(2, gap="large")
    short_names = {"position": "p", "token": "token", "token[0]": "W[0]", "token[1]": "W[1]",
                   "position[0]": "P[0]", "position[1]": "P[1]", "sum[0]": "X[0]", "sum[1]": "X[1]"}
    for column, table_encoding, heading in (
        (left, "learned", "The article's P"),
        (right, "sinusoidal", "The real sinusoid"),
    ):
        table = wp.vector_table(
            cached_word_position("article", "", table_encoding, "interleaved", 2, scale, 0,
                                 False, False),
            dims=2,
        )
        with column:
            st.markdown(f"**{heading}**: $X_p = {'s' if scale else ''}W + P_p$")
            st.dataframe(
                pd.DataFrame(table)[list(short_names)].rename(columns=short_names),
                hide_index=True, key=f"article_table_{table_encoding}",
            )
    pairs = wp.coincident_sums(word_position)
    for i, j in pairs:
        point = ", ".join(f"{v:g}" for v in word_position.sums[i])
        st.warning(
            f"**{word_position.tokens[i]}** (position {i}) and **{word_position.tokens[j]}** "
            f"(position {j}) land on the same point [{point}]: after the sum, two different "
            "words cannot be told apart.",
            icon=":material/warning:",
        )
    st.markdown(
        "At $d = 2$ there is a single frequency, $\\omega_0 = 1$: $P_p = (\\sin p, \\cos p)$ is a "
        "point on the unit circle that turns one radian per position, so positions repeat every "
        "$2\\pi \\approx 6.28$ positions, and position 6 is already back near position 0. "
        "Real models use hundreds of dimensions, with wavelengths from $2\\pi$ to "
        "$2\\pi \\cdot 10000$, so that no two positions collide."
    )

# --- the projection ------------------------------------------------------------------------------
components = 3 if projection == "3-D" else 2
cache_key = (embedding, sentence, encoding, layout, d_model, scale, seed, special_tokens,
             bert_input)
projected = cached_projection(word_position, cache_key, components, seed)
st.subheader("Projection" + (" (PCA)" if projected.method == "PCA" else ""))
if projected.method == "raw":
    st.caption(
        f"d = {word_position.d_model}: the vectors are drawn as they are, no projection needed"
        + (" (a 2-D table has no third axis)." if components == 3 else ".")
    )
else:
    ratios = projected.explained_variance_ratio
    shares = ", ".join(f"PC{i + 1} {r:.1%}" for i, r in enumerate(ratios))
    st.caption(
        f"One PCA of the {n} token embeddings, {n} position vectors and {n} "
        f"{'inputs' if word_position.bert_input else 'sums'} together (random_state={seed}). "
        f"Share of the variance on each axis: {shares}; the rest of the {word_position.d_model} "
        "dimensions is not shown, so points close here may be far apart."
    )
sum_label = "BERT input (LayerNorm)" if word_position.bert_input else "token + position"
st.plotly_chart(
    make_word_position_figure(
        projected.coordinates,
        word_position.tokens,
        word_position.positions.tolist(),
        axis_titles=projected.axis_titles,
        title=f"Token embeddings, position vectors and {sum_label}",
        sum_label=sum_label,
    ),
    key="projection_chart",
)
repeated = list(wp.repeated_tokens(word_position).items())
if repeated:
    st.caption(
        "Same token, different inputs (the red diamonds): "
        + "; ".join(
            f"“{escape_markdown(token)}” at positions {', '.join(map(str, where[:8]))}"
            + (" …" if len(where) > 8 else "")
            for token, where in repeated[:5]
        )
        + (f"; and {len(repeated) - 5} more repeated tokens." if len(repeated) > 5 else ".")
    )
if word_position.bert_input:
    st.caption(
        "LayerNorm rescales every input to mean 0 and variance 1 (then γ, β): the inputs are "
        "much longer than the word and position vectors they come from, so they lie far out."
    )

# --- the numbers ---------------------------------------------------------------------------------
norm = wp.norms(word_position)
st.subheader("The vectors")
c1, c2, c3 = st.columns(3)
c1.metric("mean |token|", f"{norm.token_mean:.4f}")
c2.metric("mean |position|", f"{norm.position_mean:.4f}")
c3.metric("|token| / |position|", f"{norm.mean_ratio:.3f}")
st.markdown(
    "The ratio decides how far a position moves a word: far above 1, the word dominates its sum "
    "and the position is a small nudge; far below 1, the position drowns the word."
    + (" Here the scaled words are larger by √d." if scale else "")
)
table = wp.vector_table(word_position, dims=4)
st.dataframe(pd.DataFrame(table), hide_index=True, key="vector_table")
st.download_button(
    "Download the table (CSV)",
    wp.table_csv(table),
    file_name="word_position.csv",
    mime="text/csv",
    key="download_csv",
    icon=":material/download:",
)

controls.finish()
