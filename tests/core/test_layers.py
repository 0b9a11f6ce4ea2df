"""The package's layers, read from its source with ``ast`` (imports inside functions count,
``if TYPE_CHECKING:`` blocks do not; ``importlib.import_module("choco_envs...")`` with a
literal name counts as an import, so a cycle cannot hide behind a string):

* core imports only core; a game package imports only core and itself (its bots are named
  in its manifest by dotted string and imported by the bots layer);
* no import cycle between modules of choco_envs (a package re-exporting its own
  submodules is not a cycle);
* no package code reaches into the repository around it: no ``tests`` import, no path to
  ``tests/`` or outside the repository.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "choco_envs"
#: the one module allowed to look beside the package: in an editable install the shipped
#: checkpoints are the source checkout's ``checkpoints/`` (``$CHOCO_CHECKPOINTS`` overrides;
#: a wheel has none), see ``choco_envs.policy.checkpoint.checkpoint_dir``
BESIDE_THE_PACKAGE = {"choco_envs.policy.checkpoint"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def type_checking_lines(tree: ast.AST) -> set[int]:
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(n.lineno for n in ast.walk(node) if hasattr(n, "lineno"))
    return skip


def imported(module: str, node: ast.AST) -> list[str]:
    """The modules of choco_envs that ``node`` imports (nearest known enclosing module)."""
    names: list[str] = []
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    elif isinstance(node, ast.ImportFrom):
        base = module.split(".")
        if node.level:
            if MODULES[module].name != "__init__.py":
                base = base[:-1]
            base = base[: len(base) - (node.level - 1)]
            prefix = ".".join(base + ([node.module] if node.module else []))
        else:
            prefix = node.module or ""
        names = [prefix] + [f"{prefix}.{a.name}" for a in node.names]
    elif (
        isinstance(node, ast.Call)
        and ast.unparse(node.func).endswith("import_module")
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        names = [node.args[0].value]
    out = []
    for name in names:
        while name and name not in MODULES:
            name = name.rpartition(".")[0]
        if name and name != module:
            out.append(name)
    return out


def import_graph() -> dict[str, dict[str, int]]:
    """module -> {imported module: line}."""
    graph: dict[str, dict[str, int]] = {}
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text())
        skip = type_checking_lines(tree)
        edges: dict[str, int] = {}
        for node in ast.walk(tree):
            if getattr(node, "lineno", None) in skip:
                continue
            for target in imported(module, node):
                edges.setdefault(target, node.lineno)  # type: ignore[attr-defined]
        graph[module] = edges
    return graph


GRAPH = import_graph()


def game_of(module: str) -> str | None:
    parts = module.split(".")
    return ".".join(parts[:3]) if parts[:2] == ["choco_envs", "games"] and len(parts) > 2 else None


def test_the_graph_is_read() -> None:
    # the reader must see what it checks: the env adapter imports the game protocol, and
    # the bots registry imports the policy bot by a literal name
    assert "choco_envs.core.game" in GRAPH["choco_envs.core.env"]
    assert "choco_envs.policy.bot" in GRAPH["choco_envs.bots.registry"]


def test_core_imports_only_core_and_games_only_core_and_themselves() -> None:
    bad = []
    for module, edges in GRAPH.items():
        if module.startswith("choco_envs.core"):
            allowed = ("choco_envs.core",)
        elif game_of(module):
            allowed = ("choco_envs.core", str(game_of(module)))
        else:
            continue
        for target, line in edges.items():
            if not any(target == a or target.startswith(a + ".") for a in allowed):
                bad.append(f"{module} imports {target} (line {line})")
    assert not bad, "\n".join(bad)


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def own_child(a: str, b: str) -> bool:
    return b.startswith(a + ".") and MODULES[a].name == "__init__.py"


def test_no_import_cycle() -> None:
    graph = {
        a: {b for b in edges if not own_child(a, b) and not own_child(b, a)}
        for a, edges in GRAPH.items()
    }
    cycles = strongly_connected(graph)
    assert not cycles, "\n".join(" <-> ".join(c) for c in cycles)


def test_the_cycle_check_finds_a_cycle() -> None:
    assert strongly_connected({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


@pytest.mark.parametrize("module", sorted(MODULES))
def test_package_code_stays_inside_the_package(module: str) -> None:
    tree = ast.parse(MODULES[module].read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
            assert not any((n or "").split(".")[0] == "tests" for n in names), (
                f"{module} imports the tests (line {node.lineno})"
            )
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            assert "../shared" not in node.value, f"{module} points outside the repository"
        if (
            isinstance(node, ast.Subscript)
            and ast.unparse(node.value).endswith(".parents")
            and module not in BESIDE_THE_PACKAGE
        ):
            pytest.fail(f"{module} climbs out of its folder (line {node.lineno}): use a path given")
        if isinstance(node, ast.Constant) and node.value == "tests":
            pytest.fail(f"{module} names the tests folder (line {node.lineno})")
