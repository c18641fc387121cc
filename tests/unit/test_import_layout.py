"""The package has no import circle: every `import` of ours, including the ones under
`if TYPE_CHECKING:` and the ones inside functions, points one way (issue 11, item 21)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "webapp"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, modules: set[str]) -> set[str]:
    """Our modules that `path` imports, anywhere in the file."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for target in targets:
            # `from webapp.engine import x` imports the package (its __init__) or a submodule.
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def import_graph() -> dict[str, set[str]]:
    paths = sorted(ROOT.rglob("*.py"))
    modules = {_module_name(p) for p in paths}
    return {_module_name(p): _imports(p, modules) for p in paths}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _is_package_init_edge(src: str, dst: str) -> bool:
    # A package's __init__ re-exporting its own submodules is not a circle of design.
    return src == dst.rpartition(".")[0] or dst == src.rpartition(".")[0]


def test_no_import_circle_inside_webapp() -> None:
    graph = import_graph()
    pruned = {m: {d for d in deps if not _is_package_init_edge(m, d)} for m, deps in graph.items()}
    assert _cycles(pruned) == []


def test_the_detector_sees_a_circle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_layers_point_down() -> None:
    """manifest and kubectl import nothing else of ours; the engine imports only the
    manifest below it; nothing below the web layer imports it."""
    graph = import_graph()
    allowed = {
        "webapp.manifest": ("webapp.manifest",),
        "webapp.kubectl": ("webapp.kubectl",),
        "webapp.engine": ("webapp.engine", "webapp.manifest"),
    }
    for module, deps in graph.items():
        for layer, ok in allowed.items():
            if module == layer or module.startswith(layer + "."):
                assert all(d.startswith(ok) for d in deps), (module, sorted(deps))


def test_engine_subpackages_import_no_wiring() -> None:
    """The kubelet, controllers, API rules and machinery never import the Simulation or the
    user actions that wire them together."""
    graph = import_graph()
    for module, deps in graph.items():
        if module.startswith(("webapp.engine.kubelet", "webapp.engine.controllers",
                              "webapp.engine.api", "webapp.engine.core")):  # fmt: skip
            assert not deps & {"webapp.engine.simulation", "webapp.engine.actions"}, module


def test_the_store_is_the_engines_bottom_layer() -> None:
    """webapp/engine/store (the API object store) imports nothing of ours but itself."""
    graph = import_graph()
    store_modules = [m for m in graph if m.startswith("webapp.engine.store")]
    assert "webapp.engine.store.store" in store_modules
    for module in store_modules:
        outside = {d for d in graph[module] if not d.startswith("webapp.engine.store")}
        assert not outside, (module, sorted(outside))
