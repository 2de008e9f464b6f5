"""The architecture invariants ARCHITECTURE.md writes down, checked on the package's source:
every import counted (at load time, inside functions, and for types only)."""

from __future__ import annotations

import ast
from pathlib import Path

import lsp_server

PACKAGE = Path(lsp_server.__file__).parent
PROTOCOL_LIBRARIES = ("lsprotocol", "pygls")
# The modules of the front ends and their harness; everything else is the engine or the
# session, which speak no LSP and import no click.
FRONT_ENDS = ("lsp_server.server", "lsp_server.lsp", "lsp_server.cli", "lsp_server.mcp",
              "lsp_server.testing")


def _module_name(path: Path) -> tuple[str, bool]:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    is_package = parts[-1] == "__init__"
    return ".".join(parts[:-1] if is_package else parts), is_package


def _targets(module: str, is_package: bool, node: ast.Import | ast.ImportFrom) -> list[str]:
    """What an import statement names: modules, and names that may be modules."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = module.split(".") if is_package else module.split(".")[:-1]
    if node.level:
        base = base[:len(base) - node.level + 1]
        target = ".".join([*base, node.module] if node.module else base)
    else:
        target = node.module or ""
    return [target, *(f"{target}.{alias.name}" for alias in node.names)]


def _imports() -> dict[str, set[str]]:
    """Every module of the package and every name it imports (any import statement)."""
    graph: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module, is_package = _module_name(path)
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                found.update(_targets(module, is_package, node))
        graph[module] = found
    return graph


def _package_graph(imports: dict[str, set[str]]) -> dict[str, set[str]]:
    return {module: {t for t in targets if t in imports and t != module}
            for module, targets in imports.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def _within(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def test_the_package_has_no_import_cycle() -> None:
    assert _cycles(_package_graph(_imports())) == []


def test_the_cycle_check_finds_a_cycle_through_a_typing_only_import() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]


def test_nothing_below_the_server_imports_it() -> None:
    importers = [module for module, targets in _imports().items()
                 if "lsp_server.server" in targets and module != "lsp_server.__main__"]
    assert importers == []


def test_only_the_front_ends_speak_lsp_or_click() -> None:
    offenders = {}
    for module, targets in _imports().items():
        if _within(module, FRONT_ENDS):
            continue
        libraries = {t.split(".")[0] for t in targets} & {*PROTOCOL_LIBRARIES, "click"}
        if libraries:
            offenders[module] = sorted(libraries)
    assert offenders == {}


def test_the_session_writes_no_file() -> None:
    writes = []
    for path in sorted((PACKAGE / "session").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in (
                    "write_text", "write_bytes", "replace", "rename", "unlink", "mkdir"):
                writes.append(f"{path.name}:{node.lineno} .{node.attr}")
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "open":
                writes.append(f"{path.name}:{node.lineno} open()")
    assert writes == []
