"""The message catalogues (core/locales): both languages have exactly the same keys and the same
placeholders, every key the code asks for exists, and messages format in both languages."""

from __future__ import annotations

import ast
import re
import string
from pathlib import Path

import pytest

from core.i18n import LANGUAGES, catalogue, language_from_locale, message
from ui.pages import HOME, PAGES

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted(
    [*ROOT.glob("app.py"), *ROOT.glob("app_pages/*.py"), *ROOT.glob("ui/*.py"),
     *ROOT.glob("core/**/*.py")]
)
# Functions whose first argument is a catalogue key: ui.i18n.t, core.i18n.message, and the
# messages and errors that are put in a language later.
KEY_FUNCTIONS = {"t", "message", "ParamError", "LocalizedError", "Text"}
# Where a key may be a variable: the functions that pass a key on, and the page list
# (pages.<url_path>.title, checked by test_every_page_has_a_title_and_summary).
# Files that build keys from values; each has a test that every key it can build exists (the
# option labels: test_every_choice_has_a_label_in_both_languages).
PASS_KEYS_ON = {"ui/i18n.py", "core/i18n.py", "core/params.py", "ui/pages.py", "ui/controls.py"}


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
    from core.params import D_MODEL, ParamError

    with pytest.raises(ParamError) as raised:
        D_MODEL.parse("7")
    assert str(raised.value) == (
        "d_model=7 is not allowed: d_model must be an even whole number from 2 to 4096"
    )
    assert raised.value.in_language("zh") == "d_model=7 不可用：d_model 必须是 2 到 4096 之间的偶数"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_choice_has_a_label_in_both_languages(lang):
    """Radios show `options.<value>` (ui.controls), the URL keeps the value: every choice of
    every page but the language switch (which shows its languages' own names) has a label."""
    from core.page_params import PAGE_PARAMS
    from core.params import ChoiceParam

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
