"""One manifest per game, one template per game package (issue 27): every registered game
declares every part in its manifest, its package has every module of the template, and
nothing else in the package lists the games."""

from __future__ import annotations

import ast
import dataclasses
import importlib
from pathlib import Path

import pytest

from choco_envs.core.features import FeatureFunction
from choco_envs.core.manifest import GameManifest
from choco_envs.registry import REGISTRY, manifest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "choco_envs"
#: the modules every game package has (``features.py`` only where the game has some)
TEMPLATE = ("__init__", "components", "rules", "encoding", "records", "render")
#: a module of a game package past ``LONG`` lines keeps at most ``HELPER_LINES`` lines of
#: module-level functions: its helpers go to a module of their own (Le Chocolat's grid.py,
#: Chocolates' cards.py, Chocolatiers' sampler.py); no module passes ``MAX_LINES``
LONG, HELPER_LINES, MAX_LINES = 600, 80, 900


def helper_lines(path: Path) -> int:
    """Lines of the module-level functions of ``path``."""
    tree = ast.parse(path.read_text())
    return sum(
        (node.end_lineno or node.lineno) - node.lineno + 1
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
    )


def too_long(folder: Path) -> dict[str, str]:
    """The modules of a game package that should split their helpers out, and why."""
    out = {}
    for path in sorted(folder.glob("*.py")):
        lines = len(path.read_text().splitlines())
        if lines > MAX_LINES:
            out[path.name] = f"{lines} lines (at most {MAX_LINES})"
        elif lines > LONG and helper_lines(path) > HELPER_LINES:
            out[path.name] = f"{lines} lines, {helper_lines(path)} of them module-level helpers"
    return out


ENV_IDS = list(REGISTRY)


def package_dir(found: GameManifest) -> Path:
    return Path(importlib.import_module(found.game.__module__).__file__ or "").parent


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_the_registry_line_names_the_games_manifest(env_id: str) -> None:
    found = manifest(env_id)
    assert found.env_id == env_id
    assert env_id == f"{env_id.rpartition('_v')[0]}_v{found.version}"


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_the_game_package_follows_the_template(env_id: str) -> None:
    found = manifest(env_id)
    folder = package_dir(found)
    assert folder.parent == PACKAGE / "games", folder
    missing = [m for m in TEMPLATE if not (folder / f"{m}.py").is_file()]
    assert not missing, f"{folder.name} lacks {missing}"
    long = too_long(folder)
    assert not long, f"{folder.name}: split the helpers out of {long}"
    package = f"choco_envs.games.{folder.name}"
    assert found.records is importlib.import_module(f"{package}.records")
    assert found.text is importlib.import_module(f"{package}.render")
    assert found.view in (None, found.text)  # a drawn board's view lives in render.py


def problems(found: GameManifest) -> list[str]:
    """What a manifest lacks or gets wrong, in words (empty: every part works)."""
    out = []
    if found.records is None or not all(
        callable(getattr(found.records, f, None)) for f in ("state_to_json", "state_from_json")
    ):
        out.append("records: no module with state_to_json and state_from_json")
    if found.text is None or not isinstance(getattr(found.text, "HELP", None), str):
        out.append("text: no module with HELP and state_to_string")
    elif not callable(getattr(found.text, "state_to_string", None)):
        out.append("text: no state_to_string")
    if found.view is not None and not (callable(found.view.view) and callable(found.view.target)):
        out.append("view: no view and target")
    game = found.game()
    if tuple(game.encoders) != found.encoders:
        out.append(f"encoders: the game builds {tuple(game.encoders)}, not {found.encoders}")
    if found.text is not None and game.legend() != found.text.HELP:
        out.append("text: the game's legend is not its HELP")
    try:
        bots = importlib.import_module(found.bots).BOTS
    except (ImportError, AttributeError) as err:
        out.append(f"bots: {found.bots} has no BOTS ({err})")
    else:
        if "greedy" not in bots:
            out.append(f"bots: {found.bots}.BOTS has no greedy baseline")
    if not found.page or not (ROOT / found.page).is_file():
        out.append(f"page: {found.page!r} is not a file of the repository")
    if not found.bench:
        out.append("bench: choco bench measures no configuration of it")
    for case in found.bench:
        found.game(**case.options)  # a configuration the game accepts
        if not (case.aec > 0 and case.raw > 0):
            out.append(f"bench: budgets of {dict(case.options)} are not positive")
    for function in found.features:
        if not isinstance(function, FeatureFunction) or function.build(game, "flat").size <= 0:
            out.append(f"features: {function!r:.60} gives no input")
    return out


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_every_part_of_the_manifest_works(env_id: str) -> None:
    assert problems(manifest(env_id)) == []


def test_a_manifest_missing_parts_is_refused() -> None:
    found = dataclasses.replace(
        manifest("chocolates_v0"),
        records=None,
        encoders=("flat",),
        bots="choco_envs.bots.base",
        page="docs/games/none.md",
        bench=(),
    )
    assert [p.partition(":")[0] for p in problems(found)] == [
        "records",
        "encoders",
        "bots",
        "page",
        "bench",
    ]


def test_a_long_module_of_helpers_is_refused(tmp_path: Path) -> None:
    helpers = "\n".join(f"def helper_{i}():\n    return {i}\n" for i in range(50))
    (tmp_path / "rules.py").write_text(helpers + "\n" * (LONG - 60))
    assert list(too_long(tmp_path)) == ["rules.py"]
    (tmp_path / "rules.py").write_text("X = 1\n" * (LONG + 10))
    assert too_long(tmp_path) == {}


def env_id_constants(path: Path) -> set[str]:
    """The registered env ids a module names as string constants outside docstrings."""
    tree = ast.parse(path.read_text())
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and node.value in REGISTRY and id(node) not in docstrings
    }


def test_no_list_of_games_outside_the_registry() -> None:
    """Only the registry names several games; a module outside the games may name one env
    id (a default, an example), a game's own package only its own."""
    own = {package_dir(manifest(e)).name: e for e in ENV_IDS}
    lists = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        named = env_id_constants(path)
        if rel.parts[0] == "games" and len(rel.parts) > 2:
            named -= {own.get(rel.parts[1], "")}
            if named:
                lists[str(rel)] = sorted(named)
        elif len(named) > 1 and path != PACKAGE / "registry.py":
            lists[str(rel)] = sorted(named)
    assert not lists, f"these modules list games (read the manifests instead): {lists}"


def test_the_games_list_check_sees_a_list(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(f'"""{ENV_IDS[0]}"""\nENVS = {tuple(ENV_IDS)!r}\n')
    assert env_id_constants(module) == set(ENV_IDS)
