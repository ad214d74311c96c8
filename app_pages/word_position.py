"""Word + position: a sentence's token embeddings, position vectors and their sums, projected."""

import pandas as pd
import streamlit as st

from core import limits
from core import word_position as wp
from core._checks import InputError
from core.minilm import ModelUnavailableError
from core.word_position import MINILM_WIDTH
from figures.word_position import (
    make_position_path_figure,
    make_word_position_figure,
    projection_axis_titles,
)
from locales import error_text
from server.cache import MB, bounded_cache
from ui.charts import file_stem, show_chart
from ui.controls import start_page
from ui.i18n import current_language, t
from ui.model import cached_minilm
from ui.params import shorten
from ui.text import explain, markdown_text, page_only
from ui.word_position import settle_choices

MAX_CHIPS = 64  # token chips drawn; the table below lists every token


# The page keeps what it draws (projection, norms, the table's first entries: under 1 MB), not
# the (n, d) tables it is made from (48 MB at 512 tokens x 4096): a projection change recomputes.
# The longest sentence worth measuring: 2000 characters, 400 words (more than MAX_TOKENS).
LONGEST_SENTENCE = " ".join(chr(97 + i % 26) + str(i) for i in range(400))


@bounded_cache(max_entries=32, max_bytes=16 * MB, worst_case=[
    ("random", LONGEST_SENTENCE, "sinusoidal", "interleaved", limits.MAX_D_MODEL, True, 7, True,
     False, 3),
    ("minilm", LONGEST_SENTENCE, "learned", "interleaved", 384, False, 0, True, True, 3),
])
def cached_word_view(
    embedding, sentence, encoding, layout, d_model, scale, seed, special_tokens, bert_input,
    components,
) -> wp.WordPositionView:
    if embedding == "article":
        word_position = wp.article_word_position(encoding, scale=scale)
    elif embedding == "random":
        learned = cached_minilm().position_embeddings if encoding == "learned" else None
        word_position = wp.random_word_position(
            sentence, d_model, encoding=encoding, layout=layout, scale=scale, seed=seed,
            learned_table=learned,
        )
    else:
        word_position = wp.minilm_word_position(
            cached_minilm(), sentence, encoding=encoding, layout=layout, scale=scale,
            special_tokens=special_tokens, bert_input=bert_input,
        )
    return wp.word_position_view(word_position, components, seed=seed)


def stop(text: str) -> None:
    st.info(text, icon=":material/info:")
    controls.stop()


lang = current_language()
controls = start_page("word-position")
with st.sidebar:
    # Each control is shown where it changes the vectors: the article's preset has its own
    # sentence, 2-D vectors and no randomness; MiniLM its own width; BERT's real input its
    # learned positions, unscaled. Hidden, a control keeps its value and its link.
    embedding = controls.choice("embedding")
    minilm_input = embedding == "minilm" and controls.current("bert_input")
    with controls.shown(embedding != "article"):
        sentence = controls.text("sentence")
    with controls.shown(not minilm_input):
        encoding = controls.choice("encoding")
    sinusoid = encoding == "sinusoidal" and not minilm_input
    with controls.shown(sinusoid and embedding != "article"):  # d = 2: one (sin, cos) pair
        layout = controls.choice("layout")
    sized = embedding == "random" and sinusoid  # MiniLM's table, and a learned one: 384
    with controls.shown(sized):
        d_model = controls.stops("d_model")
    with controls.shown(not minilm_input):
        scale = controls.toggle("scale")
    with controls.shown(embedding == "minilm"):
        special_tokens = controls.toggle("special_tokens")
        bert_input = controls.toggle("bert_input")
    with controls.shown(embedding == "random"):
        seed = controls.number("seed")
# Page-wide (sidebar): everything that makes the vectors, which the tokens, the chart and the
# table all show. The projection (2-D or 3-D) is the chart's own control, above it in its
# fragment: a change there reruns the chart alone.

explain(t("word-position.intro"))
st.latex(r"x_p = s \cdot W_{t_p} + P_p")

# The chart's fragment keeps one place on the page whatever is said above it (notes, the tokens,
# the article's tables): in Streamlit 1.67 a bound widget in a fragment whose place moved in a
# full rerun no longer reaches the address bar. So everything above it is one block.
above, projection_slot = st.container(), st.container()
with above:
    # --- choices that depend on each other, said out loud -----------------------------------------
    minilm_available = True
    if embedding == "minilm" or (embedding == "random" and encoding == "learned"):
        try:
            cached_minilm()
        except ModelUnavailableError as error:
            minilm_available = False
            st.error(markdown_text(error_text(error, lang, "minilm")), icon=":material/error:")
            if embedding == "minilm":
                stop(t("word-position.without_model"))
    # A width not shown is said replaced only when the visitor chose it (a link, or the slider
    # before the choice that hid it): the default is nobody's choice.
    chosen_width = sized or d_model != controls.params["d_model"].default
    choices, notes = settle_choices(embedding, encoding,
                                    d_model if chosen_width else MINILM_WIDTH, scale=scale,
                                    bert_input=bert_input, minilm_available=minilm_available)
    for note in notes:
        st.info(note.in_language(lang), icon=":material/info:")
    encoding, d_model, scale, bert_input = (choices.encoding, choices.d_model, choices.scale,
                                            choices.bert_input)
    if embedding == "article" and sentence.strip() != wp.ARTICLE_SENTENCE:
        st.info(t("word-position.article_sentence_only", sentence=wp.ARTICLE_SENTENCE),
                icon=":material/info:")
    if embedding != "article" and not wp.word_tokens(sentence):
        stop(t("word-position.no_sentence"))



    def word_view(components: int) -> wp.WordPositionView:
        """The page's vectors, projected to `components` dimensions."""
        return cached_word_view(embedding, sentence, encoding, layout, d_model, scale, seed,
                                special_tokens, bert_input, components)


    def components_of(projection: str) -> int:
        return 3 if projection == "3-D" else 2


    try:  # the projection the chart will ask for: one cache entry serves the page and the chart
        word_position = word_view(components_of(controls.current("projection")))
    except InputError as error:  # e.g. a text of characters the tokenizer drops entirely
        stop(markdown_text(error_text(error, lang, "word-position")))
    n = len(word_position.tokens)

    # --- what convention is on --------------------------------------------------------------------
    if word_position.bert_input:
        convention = t("word-position.convention_bert")
    elif scale:
        convention = t("word-position.convention_scaled", d_model=d_model,
                       scale=word_position.scale)
    else:
        convention = t("word-position.convention_unscaled")
    source = {
        "article": t("word-position.source_article"),
        "random": t("word-position.source_random", d_model=d_model, seed=seed),
        "minilm": t("word-position.source_minilm"),
    }[embedding]
    positions_text = {
        ("article", "learned"): t("word-position.positions_article_learned"),
        ("article", "sinusoidal"): t("word-position.positions_article_sinusoidal"),
    }.get((embedding, encoding), t("word-position.positions_learned") if encoding == "learned"
          else t("word-position.positions_sinusoid", layout=layout))
    explain(t("word-position.settings", source=source, positions=positions_text,
              convention=convention))

    # --- the tokens -------------------------------------------------------------------------------
    st.subheader(t("word-position.tokens", n=n))
    if embedding != "article":
        st.caption(t("word-position.sentence_caption",
                     sentence=markdown_text(shorten(sentence, 300))))
    if word_position.truncated:
        st.warning(
            t("word-position.truncated", total=word_position.total_tokens, n=n,
              max_tokens=wp.MAX_TOKENS, last=wp.MAX_TOKENS - 1),
            icon=":material/content_cut:",
        )
    if word_position.unknown_tokens:
        st.warning(
            t("word-position.unknown_tokens", unknown=word_position.unknown_tokens, n=n),
            icon=":material/help:",
        )
    # One markdown line of badge directives; markdown_text escapes the brackets too, so a token
    # such as "[CLS]" or "]" cannot end its badge early.
    chips = [
        f":blue-badge[{markdown_text(token)} · {position}]"
        for token, position in zip(
            word_position.tokens[:MAX_CHIPS], word_position.positions[:MAX_CHIPS], strict=True
        )
    ]
    if n > MAX_CHIPS:
        chips.append(f":gray-badge[{t('word-position.chips_more', count=n - MAX_CHIPS)}]")
    st.markdown(" ".join(chips))
    if embedding == "minilm":
        explain(t("word-position.uncased"), caption=True)

    # --- the article's table, beside the real d = 2 sinusoid --------------------------------------
    if embedding == "article":
        st.subheader(t("word-position.article_tables"))
        explain(t("word-position.article_tables_text"))
        left, right = st.columns(2, gap="large")
        short_names = {"position": "p", "token": "token", "token[0]": "W[0]",
                       "token[1]": "W[1]", "position[0]": "P[0]", "position[1]": "P[1]",
                       "sum[0]": "X[0]", "sum[1]": "X[1]"}
        for column, table_encoding, heading in (
            (left, "learned", t("word-position.article_p")),
            (right, "sinusoidal", t("word-position.real_sinusoid")),
        ):
            table = wp.vector_table(wp.article_word_position(table_encoding, scale=scale), dims=2)
            with column:
                st.markdown(t("word-position.table_heading", heading=heading,
                              s="s" if scale else ""))
                st.dataframe(
                    pd.DataFrame(table)[list(short_names)].rename(columns=short_names),
                    hide_index=True, key=f"article_table_{table_encoding}",
                )
        for i, j in word_position.coincident:
            point = ", ".join(f"{v:g}" for v in word_position.sums_head[i])
            st.info(  # what the picture shows, not a fault: information
                t("word-position.same_point", first=word_position.tokens[i], i=i,
                  second=word_position.tokens[j], j=j, point=point),
                icon=":material/info:",
            )
        explain(t("word-position.two_d_text"))


# --- the projection ------------------------------------------------------------------------------
@st.fragment
def projection_section() -> None:
    """The sums projected, 2-D or 3-D (the view's own control, under its heading)."""
    components = components_of(controls.current("projection"))
    shown = word_view(components)  # the page's vectors: they made it this far
    projected = shown.projection
    rows = projected.shown.tolist()  # the tokens drawn ([CLS] and [SEP] left out)
    drawn = len(rows)
    st.subheader(t("word-position.projection_pca") if projected.method == "PCA"
                 else t("word-position.projection"))
    # A 2-D table (the article's) is drawn as it is in either projection: the control is not
    # shown there, its value and its link kept (the caption says why).
    with controls.view_row(1)[0], controls.shown(shown.d_model >= 3, "projection"):
        controls.choice("projection", t("word-position.projection_control"))
    repeat = shown.repeat
    if repeat is not None and projected.method == "contrast":
        # The number the picture is about, beside it: the same word's two inputs, apart.
        st.markdown(t("word-position.repeat_distance", token=markdown_text(repeat.token),
                      first=repeat.first, second=repeat.second, distance=repeat.distance,
                      d=shown.d_model, near=repeat.others[0], far=repeat.others[1]))
    if drawn < n:  # what the picture leaves out is said on a slide too (not an aside)
        st.caption(t("word-position.left_out"))
    ratios = projected.explained_variance_ratio
    if projected.method == "raw":
        explain(t("word-position.raw_caption_3d", d=shown.d_model), caption=True)
    elif projected.method == "contrast" and repeat is not None:
        shares = ", ".join(f"{r:.1%}" for r in ratios)
        explain(t("word-position.contrast_caption", token=markdown_text(repeat.token),
                  first=repeat.first, second=repeat.second, d=shown.d_model, shares=shares),
                caption=True)
    else:
        shares = ", ".join(f"PC{i + 1} {r:.1%}" for i, r in enumerate(ratios))
        explain(
            t("word-position.pca_caption", n=drawn, shares=shares, d=shown.d_model,
              kind=t("word-position.pca_inputs") if shown.bert_input
              else t("word-position.pca_sums")),
            caption=True,
        )
    if projected.method != "raw":  # where a newcomer first meets "% of variance"
        explain(t("word-position.variance_help"), caption=True)
    sum_label = (t("word-position.sum_bert") if shown.bert_input
                 else t("word-position.sum_plain"))
    # Files name the view: pe-word-position_minilm_learned_d384_cls-sep_2d.
    show_chart(
        make_word_position_figure(
            projected.coordinates,
            [shown.tokens[i] for i in rows],
            [int(shown.positions[i]) for i in rows],
            axis_titles=projection_axis_titles(
                projected, lang,
                pair=(repeat.token, repeat.first, repeat.second) if repeat else None),
            title=t("word-position.chart_title", sum_label=sum_label),
            sum_label=sum_label,
            lang=lang,
        ),
        key="projection_chart",
        name=file_stem(
            "word-position", embedding, encoding,
            layout if encoding == "sinusoidal" and embedding != "article" else None,
            f"d{d_model}", "scaled" if scale else None,
            f"seed{seed}" if embedding == "random" else None,
            "cls-sep" if embedding == "minilm" and special_tokens else None,
            "bert-input" if bert_input else None, f"{components}d",
        ),
    )


with projection_slot:
    projection_section()

repeated = list(word_position.repeated.items())
if repeated:
    items = t("word-position.list_separator").join(
        t("word-position.repeated_item", token=markdown_text(token),
          positions=", ".join(map(str, where[:8])))
        + (" …" if len(where) > 8 else "")
        for token, where in repeated[:5]
    )
    token, where = repeated[0]
    explain(
        t("word-position.repeated", items=items,
          example=markdown_text(f"{token} @{where[1]}"),
          rest=t("word-position.repeated_more", count=len(repeated) - 5) if len(repeated) > 5
          else t("word-position.repeated_end")),
        caption=True,
    )
if word_position.bert_input:
    explain(t("word-position.layer_norm_caption"), caption=True)

# The positions alone, each a point of its own (beside the words they crowd together).
alone = word_position.positions_alone
if alone is not None:
    with page_only("word-position-path"):
        steps = word_position.position_steps
        explain(t("word-position.path_caption", low=float(steps.min()), high=float(steps.max()),
                  d=word_position.d_model), caption=True)
        show_chart(
            make_position_path_figure(
                alone.coordinates, [int(word_position.positions[i]) for i in alone.shown.tolist()],
                steps, ratios=alone.explained_variance_ratio, d_model=word_position.d_model,
                lang=lang),
            key="position_path_chart",
            name=file_stem("word-position-path", embedding, encoding, f"d{d_model}"),
        )

# --- the numbers ---------------------------------------------------------------------------------
norm = word_position.norms
st.subheader(t("word-position.vectors"))
c1, c2, c3 = st.columns(3)
c1.metric(t("word-position.mean_token"), f"{norm.token_mean:.4f}")
c2.metric(t("word-position.mean_position"), f"{norm.position_mean:.4f}")
c3.metric(t("word-position.norm_ratio"), f"{norm.mean_ratio:.3f}")
explain(t("word-position.ratio_text")
        + (t("word-position.ratio_scaled") if scale else ""))
table = word_position.table
st.dataframe(pd.DataFrame(table), hide_index=True, key="vector_table")
st.download_button(
    t("word-position.download"),
    wp.table_csv(table),
    file_name="word_position.csv",
    mime="text/csv",
    key="download_csv",
    icon=":material/download:",
)
