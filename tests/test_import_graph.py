"""The project's import graph, read from the source (every `import`, at any depth of a module, a
function's included): no cycle between modules; the layers run down (pages -> ui -> server,
export -> figures -> core, nothing imports a page; the host's plumbing, server/, draws
nothing); `core` draws and hosts nothing; `figures` draws and starts no process, thread or
event loop (the export machinery does: export/)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("core", "figures", "ui", "server", "export", "locales", "app_pages")
# What each package may import of the project's (besides itself).
ALLOWED = {
    "core": set(),
    "locales": set(),
    "figures": {"core", "locales"},
    "export": {"core", "figures", "locales"},
    # The host's plumbing: memory, queues, caches, runtime hooks. It draws nothing, so it
    # imports no widget (ui) and no figure.
    "server": {"core", "locales"},
    "ui": {"core", "figures", "export", "locales", "server"},
    "app_pages": {"core", "figures", "export", "locales", "server", "ui"},
}
HOSTING = {"subprocess", "threading", "asyncio", "multiprocessing", "signal",
           "concurrent", "socket"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found[module_name(path)] = path
    return found


MODULES = project_modules()


def imports_of(name: str) -> set[str]:
    """The modules `name` imports (absolute names; relative imports resolved)."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            out.add(base)
            out |= {f"{base}.{alias.name}" for alias in node.names}  # `from pkg import mod`
    return out


def project_imports(name: str) -> set[str]:
    return {imported for imported in imports_of(name) if imported in MODULES} - {name}


def test_the_graph_sees_the_project():
    assert {"core.rope", "figures.common", "ui.controls", "app_pages.order"} <= set(MODULES)
    assert "core.sinusoidal" in project_imports("figures.heatmap") or any(
        m.startswith("core") for m in project_imports("figures.heatmap"))


def test_no_module_imports_itself_back_through_others():
    graph = {name: project_imports(name) for name in MODULES}
    # Packages import their modules in __init__ for the names they export: an edge from a
    # package to its own module is not a cycle unless the module needs the package's names.
    state: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt.startswith(node + "."):  # a package importing its own module
                continue
            if state.get(nxt) == 1:
                cycles.append([*stack[stack.index(nxt):], nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name)
    assert cycles == [], cycles


@pytest.mark.parametrize("name", sorted(MODULES))
def test_each_module_imports_only_its_layer_and_those_below(name):
    layer = name.split(".")[0]
    above = {imported.split(".")[0] for imported in project_imports(name)} - {layer}
    assert above <= ALLOWED[layer], (name, above - ALLOWED[layer])


@pytest.mark.parametrize("name", sorted(m for m in MODULES if m.split(".")[0] in ("core",
                                                                                 "figures")))
def test_core_and_figures_start_no_process_thread_or_event_loop(name):
    started = {imported.split(".")[0] for imported in imports_of(name)} & HOSTING
    assert not started, (name, started)


@pytest.mark.parametrize("name", sorted(m for m in MODULES if m.startswith("core")))
def test_core_imports_no_drawing_or_hosting_library(name):
    drawn = {imported.split(".")[0] for imported in imports_of(name)} & {
        "streamlit", "plotly", "figures", "ui", "export", "app_pages", "locales"}
    assert not drawn, (name, drawn)
