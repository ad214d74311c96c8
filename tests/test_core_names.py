"""One name per idea in `core`: no public function, class or constant is defined in two modules
(a module that needs another's name imports it), and core's docstrings do not describe the app."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

CORE = Path(__file__).resolve().parent.parent / "core"


def _is_limits_cap(value: ast.expr | None) -> bool:
    """``limits.MAX_X``: a module's local name for one of `core.limits`' caps (the same number,
    not a second definition of an idea)."""
    return (isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name)
            and value.value.id == "limits")


def _defined(tree: ast.Module) -> set[str]:
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign) and not _is_limits_cap(node.value):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
              and not _is_limits_cap(node.value)):
            names.add(node.target.id)
    return {name for name in names if not name.startswith("_") and name != "__all__"}


def test_no_public_name_is_defined_in_two_core_modules():
    homes = defaultdict(list)
    for path in sorted(CORE.glob("*.py")):
        for name in _defined(ast.parse(path.read_text(encoding="utf-8"))):
            homes[name].append(path.name)
    twins = {name: where for name, where in homes.items() if len(where) > 1}
    assert twins == {}


def test_core_docstrings_do_not_talk_about_the_app():
    """Pages, URL parameters and widgets are the app's (app_pages/, ui/); `core.limits` alone
    may say that the app reads its caps."""
    words = ("page", "url", "widget", "select box", "slider", "visitor")
    found = []
    for path in sorted(CORE.glob("*.py")):
        if path.name == "limits.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)):
                text = (ast.get_docstring(node) or "").lower()
                found += [(path.name, word) for word in words if word in text]
    assert found == []
