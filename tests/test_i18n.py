"""The message catalogues (locales): both languages have exactly the same keys and the same
placeholders, every key the code asks for exists, and messages format in both languages."""

from __future__ import annotations

import ast
import re
import string
from pathlib import Path

import pytest

from core import alibi, rope
from figures.alibi import make_alibi_head_figure
from figures.rope import make_context_extension_figure
from locales import LANGUAGES, catalogue, error_text, language_from_locale, message
from ui.pages import HOME, PAGES

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted(
    [*ROOT.glob("app.py"), *ROOT.glob("app_pages/*.py"), *ROOT.glob("ui/**/*.py"),
     *ROOT.glob("core/**/*.py")]
)
# Functions whose first argument is a catalogue key: ui.i18n.t, locales.message, and the
# messages and errors that are put in a language later.
KEY_FUNCTIONS = {"t", "message", "ParamError", "LocalizedError", "Text"}
# Where a key may be a variable: the functions that pass a key on, and the page list
# (pages.<url_path>.title, checked by test_every_page_has_a_title_and_summary).
# Files that build keys from values; each has a test that every key it can build exists (the
# option labels: test_every_choice_has_a_label_in_both_languages).
PASS_KEYS_ON = {
    "ui/i18n.py",
    "locales/__init__.py",
    "ui/params.py",
    "ui/pages.py",
    "ui/controls.py",
    "ui/player/presenter.py",  # a tour slide's takeaway: its key is a literal in ui/tour.py
}


def placeholders(text: str) -> set[str]:
    return {field.split(".")[0].split("[")[0]
            for _, field, _, _ in string.Formatter().parse(text) if field is not None}


def key_calls():
    """(file, line, first argument node) of every t(...) / message(...) call in the app."""
    for path in SOURCES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in KEY_FUNCTIONS and node.args):
                yield path.relative_to(ROOT), node.lineno, node.args[0]


def test_both_catalogues_have_exactly_the_same_keys():
    en, zh = catalogue("en"), catalogue("zh")
    assert sorted(set(en) - set(zh)) == [], "keys only in English"
    assert sorted(set(zh) - set(en)) == [], "keys only in Chinese"
    assert len(en) > 50


def test_placeholders_match_between_languages():
    en, zh = catalogue("en"), catalogue("zh")
    different = {k: (placeholders(en[k]), placeholders(zh[k]))
                 for k in en if placeholders(en[k]) != placeholders(zh[k])}
    assert different == {}


def test_chinese_catalogue_is_chinese():
    """Not a copy of the English text: most messages hold CJK characters."""
    zh = catalogue("zh")
    cjk = [k for k, v in zh.items() if any("\u4e00" <= c <= "\u9fff" for c in v)]
    assert len(cjk) / len(zh) > 0.6


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_message_speaks_to_developers(lang):
    """Prose for students and audiences: no parameter names of a library (random_state), no
    complexity notation, no float talk (pages keep such remarks for the curious in words)."""
    developer = re.compile(r"random_state|O\(n|float error|floating-point|浮点")
    said = {key: developer.findall(text) for key, text in catalogue(lang).items()}
    assert {key: found for key, found in said.items() if found} == {}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_message_writes_a_subscript_with_an_underscore(lang):
    """P_i, m_h, R_k: a chart shows the underscore as typed and a slide's audience reads code.
    Subscripts are typeset: <sub> in chart text, $...$ in the page's Markdown, or Unicode
    (Mₖ). Code names in backticks (`rope_theta`) and placeholders are left as they are."""
    subscript = re.compile(r"(?<![A-Za-z_])[A-Za-z]{1,2}_[A-Za-z0-9]{1,2}(?![A-Za-z_])")
    found = {}
    for key, text in catalogue(lang).items():
        prose = re.sub(r"\$[^$]*\$|`[^`]*`|\{[^}]*\}", "", text)
        if subscript.search(prose):
            found[key] = subscript.findall(prose)
    assert found == {}


def test_every_key_used_in_the_code_exists():
    en = catalogue("en")
    missing = [f"{path}:{line}: {arg.value}" for path, line, arg in key_calls()
               if isinstance(arg, ast.Constant) and arg.value not in en]
    assert missing == []


def test_keys_are_literal_strings():
    """A key built at run time could not be checked above: every call names its key, or
    passes on a key that is a literal elsewhere (next test)."""
    dynamic = [f"{path}:{line}" for path, line, arg in key_calls()
               if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str))
               and str(path) not in PASS_KEYS_ON]
    assert dynamic == []


def test_every_key_like_string_exists():
    """Keys chosen from a table ({1: "params.allowed_int", ...}) exist too: any string in the
    code that starts with a catalogue section and looks like a key must be one."""
    en = catalogue("en")
    sections = {key.split(".")[0] for key in en} - {"pages"}
    pattern = re.compile(r"^[a-z][a-z0-9_-]*(\.[a-z0-9_-]+)+$")
    missing = []
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                    and pattern.match(node.value) and node.value.split(".")[0] in sections
                    and not node.value.endswith((".py", ".toml"))
                    and node.value not in en):
                missing.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value}")
    assert missing == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_page_has_a_title_and_summary(lang):
    for page in (HOME, *PAGES):
        assert page.title_in(lang).strip()
        assert page.summary_in(lang).strip()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_message_formats(lang):
    """Each message formats with dummy values (a lone brace would raise here, not on a page)."""
    for key, text in catalogue(lang).items():
        values = {name: 1 for name in placeholders(text)}
        try:
            message(key, lang, **values)
        except (ValueError, IndexError) as error:
            # A format spec that needs another type (e.g. {name:s}): try text.
            message(key, lang, **{name: "x" for name in values}) if "s}" in text else (
                pytest.fail(f"{key}: {error}"))


@pytest.mark.parametrize(
    ("locale", "expected"),
    [("zh-CN", "zh"), ("zh-TW", "zh"), ("zh", "zh"), ("ZH_cn", "zh"), ("en-US", "en"),
     ("fr-FR", "en"), ("", "en"), (None, "en"), ("zhx", "en")],
)
def test_language_from_browser_locale(locale, expected):
    assert language_from_locale(locale) == expected


def test_parameter_messages_in_both_languages():
    from ui.params import D_MODEL_PARAM, ParamError

    with pytest.raises(ParamError) as raised:
        D_MODEL_PARAM.parse("7")
    assert str(raised.value) == (
        "d_model=7 is not allowed: d_model must be an even whole number from 2 to 4096"
    )
    assert raised.value.in_language("zh") == "d_model=7 不可用：d_model 必须是 2 到 4096 之间的偶数"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_choice_has_a_label_in_both_languages(lang):
    """Radios show `options.<value>` (ui.controls), the URL keeps the value: every choice of
    every page but the language switch (which shows its languages' own names) has a label."""
    from ui.pages import PAGE_PARAMS
    from ui.params import ChoiceParam

    labels = catalogue(lang)
    missing = sorted({
        choice
        for params in PAGE_PARAMS.values() for param in params
        if isinstance(param, ChoiceParam) and param.name != "lang"
        for choice in param.choices if f"options.{choice}" not in labels
    })
    assert missing == []
    if lang == "zh":  # translated, not copied
        assert labels["options.curves"] != catalogue("en")["options.curves"]


def _core_errors():
    """Every error `core` raises with a reason, with the catalogue section the app words it
    from and the values only the app adds (what is allowed)."""
    from core import learned_tables, minilm, vit_grid, wavelength_views
    from core import word_position as wp

    def raised(call, *args):
        with pytest.raises(ValueError) as info:
            call(*args)
        return info.value

    allowed_dims = {"max_dims": wavelength_views.MAX_DIMS, "last": 63, "half": 32,
                    "half_next": 33}
    allowed_patch = {"last_row": 3, "last_col": 4, "grid_h": 4, "grid_w": 5}
    return [
        (raised(wavelength_views.parse_dims, "abc", 64), "wavelengths",
         ("wavelengths.dims_allowed", allowed_dims)),
        (raised(wavelength_views.parse_dims, ",".join(map(str, range(13))), 64), "wavelengths",
         ("wavelengths.dims_allowed", allowed_dims)),
        (raised(vit_grid.parse_patch, "x", 4, 5), "vit-grid",
         ("vit-grid.patch_allowed", allowed_patch)),
        (raised(vit_grid.parse_patch, "9,9", 4, 5), "vit-grid",
         ("vit-grid.patch_allowed", allowed_patch)),
        (raised(wp.random_word_position, "   ", 8), "word-position", None),
        (minilm.ModelUnavailableError.not_installed(), "minilm", None),
        (minilm.ModelUnavailableError.file_missing("tokenizer.json"), "minilm", None),
        (minilm.ModelUnavailableError.file_broken("model.safetensors"), "minilm", None),
        *((raised(learned_tables.read_table, data, name), "learned_table", None)
          for data, name in _bad_table_files()),
    ]


def _bad_table_files():
    """A file for each of core.learned_tables' refusals (tests/test_learned_tables.py has them
    all, each with the reason it must give)."""
    from tests.test_learned_tables import BAD_FILES

    return [BAD_FILES[case] for case in BAD_FILES] + [
        (b'{"a": 1}', "x.safetensors"),  # not_format, through its header
    ]


def test_core_errors_are_english_and_the_app_words_them_in_both_languages():
    """`core` raises plain English errors with a reason; the app's catalogue has the reason in
    both languages, and its English is exactly core's message."""
    for error, section, allowed in _core_errors():
        extra = {} if allowed is None else {
            "allowed": message(allowed[0], "en", **allowed[1])}
        assert error_text(error, "en", section, **extra) == str(error), error.reason
        extra_zh = {} if allowed is None else {
            "allowed": message(allowed[0], "zh", **allowed[1])}
        zh_text = error_text(error, "zh", section, **extra_zh)
        assert zh_text != str(error) and re.search(r"[\u4e00-\u9fff]", zh_text), error.reason


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_numbers_in_figure_text_are_the_same_in_both_languages(lang):
    """The catalogues' format specs, not the code, round the numbers: both languages agree."""
    fig = make_alibi_head_figure(alibi.alibi_bias_overview(2, 4), 0, alibi.alibi_slopes(2),
                                 lang=lang)  # head 1 of 2: m = 2^-4
    assert "−0.0625·(i − j)" in fig.layout.title.text
    ext = rope.rope_context_extension(8, 10, 40, factor=4)
    assert "×4: 10 → 40" in make_context_extension_figure(ext, lang=lang).layout.title.text.replace(
        "：", ": ")
