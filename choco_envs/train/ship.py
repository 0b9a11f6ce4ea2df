"""Shipping a trained file into the checkpoints folder, only when it is measurably
better: the comparison, the copy, the model card and the checkpoints README's table.
The `choco ship` command (``choco_envs.cli.ship``) explains the rules."""

from __future__ import annotations

import datetime
import math
import os
import shlex
import shutil
from pathlib import Path
from typing import Any

from choco_envs.core.errors import CheckpointError, ConfigError
from choco_envs.policy.search import SearchConfig

#: games a stored evaluation (and a head-to-head) needs, per opponent
MIN_GAMES = 400
TABLE_BEGIN, TABLE_END = "<!-- stored-evaluations:begin -->", "<!-- stored-evaluations:end -->"
CARDS_HEADING = "## Model cards"
TEMPLATE = f"""# Shipped checkpoints

One file per env and edition, each served by `choco_envs.bots.make("ppo", env_id=...)`
(the file whose options match the env's). A file gets here only through `choco ship
RUN_FILE` (docs/training.md#shipping): it needs a stored evaluation of >= 400 games
against random and against greedy, and replaces a file only when it is measurably better.
Every file reads game information only (`flat` or `planes`, and a policy-layer feature
function where its card says so). The wheel carries this folder, cards included, as
`choco_envs/checkpoints/`; `CHOCO_CHECKPOINTS=DIR` points `ppo` at another copy.

## Stored evaluations

Regenerated from the files' metadata by `choco ship --table`.

{TABLE_BEGIN}
{TABLE_END}

{CARDS_HEADING}

One card per file, written by `choco ship`: the env, version and options; what the file
reads (encoder, feature function and version); the network and the file's size; how it
was trained (env steps, minutes, the imitation teacher) and the exact training command;
its stored figures against random and greedy (win rate, 95% interval, games, seed of the
deals); the ship command and date; how it compared with the file it replaced; its sha256.
"""


def destination(to: str | None) -> Path:
    """The checkpoints folder to write to."""
    from choco_envs.policy.checkpoint import checkpoint_dir

    if to:
        folder = Path(to)
        if not folder.is_dir():
            raise ConfigError(f"--to {to!r} is not a folder")
        return folder
    found = checkpoint_dir()
    if found is None:
        raise ConfigError(
            "no checkpoints folder: this is not a source checkout; pass --to DIR or set "
            "CHOCO_CHECKPOINTS=DIR"
        )
    found.mkdir(exist_ok=True)
    return found


# ---------------------------------------------------------------- the rule
def interval(result: dict[str, Any]) -> tuple[float, float]:
    """The stored 95% interval of a win rate (recomputed from rate and games if absent)."""
    from choco_envs.arena.stats import wilson_interval

    if "win_rate_ci95" in result:
        low, high = result["win_rate_ci95"]
        return float(low), float(high)
    return wilson_interval(result["win_rate"] * result["games"], int(result["games"]))


def stored_evaluation(meta: dict[str, Any], path: Path) -> dict[str, dict[str, Any]]:
    """The file's evaluation against random and greedy, each >= MIN_GAMES games."""
    arena: dict[str, Any] = meta["arena"] if isinstance(meta.get("arena"), dict) else {}
    out: dict[str, dict[str, Any]] = {}
    for opponent in ("random", "greedy"):
        result = arena.get(opponent)
        if not isinstance(result, dict):
            result = {}
        games = result.get("games", 0)
        if not isinstance(games, (int, float)) or games < MIN_GAMES or "win_rate" not in result:
            raise ConfigError(
                f"{str(path)!r} stores no evaluation of >= {MIN_GAMES} games against "
                f"{opponent} (found: {games!r} games); train with final_eval_games >= "
                f"{MIN_GAMES} (the default)"
            )
        out[opponent] = result
    return out


def compare_stored(new: dict[str, Any], old: dict[str, Any]) -> tuple[bool, str]:
    """The stored-evaluation rule: (passed, what was compared)."""
    new_g, old_g = interval(new["greedy"]), interval(old["greedy"])
    new_r, old_r = interval(new["random"]), interval(old["random"])
    better = new_g[0] > old_g[1]
    not_worse = not new_r[1] < old_r[0]
    text = (
        f"stored evaluations: vs greedy new {_pct(new['greedy'])} against old "
        f"{_pct(old['greedy'])} ({'above' if better else 'not above'}); vs random new "
        f"{_pct(new['random'])} against old {_pct(old['random'])} "
        f"({'not below' if not_worse else 'below'})"
    )
    return better and not_worse, text


def random_not_below(meta: dict[str, Any], old_meta: dict[str, Any]) -> bool:
    """The stored interval against random of the new file is not wholly below the old's."""
    new_r, old_r = interval(meta["arena"]["random"]), interval(old_meta["arena"]["random"])
    return not new_r[1] < old_r[0]


def random_clause(meta: dict[str, Any], old_meta: dict[str, Any]) -> tuple[bool, str]:
    """``random_not_below`` and the words every match rule ends its comparison with."""
    not_worse = random_not_below(meta, old_meta)
    return not_worse, (
        f"vs random new {_pct(meta['arena']['random'])} against old "
        f"{_pct(old_meta['arena']['random'])} ({'not below' if not_worse else 'below'})"
    )


def compare_head_to_head(
    model: Any, meta: dict[str, Any], old_path: Path, old_meta: dict[str, Any], games: int,
    seed: int, progress: bool,
) -> tuple[bool, str, dict[str, Any]]:  # fmt: skip
    """The head-to-head rule: (passed, what was compared, the match's result)."""
    from choco_envs.train.evaluate import evaluate

    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=games, desc="head-to-head", unit="game", leave=False)
    feature = (meta.get("features") or {}).get("name", "")
    seats = meta.get("seats") or {}
    max_players = seats.get("max_players", 0)
    marks = seats["modes"] if seats.get("mode_marks") else None
    table = old_meta["options"] if max_players else meta["options"]  # the old file's table
    result = evaluate(
        model, meta["env_id"], table, meta["encoder"], f"policy:{old_path}", games,
        seed, feature=feature, max_players=max_players, mode_marks=marks,
        progress=None if bar is None else lambda done: bar.update(done - bar.n),
    )  # fmt: skip
    if bar is not None:
        bar.close()
    share = 1.0 / int(table.get("num_players", 2))
    low, high = interval(result)
    better = low > share
    not_worse, against_random = random_clause(meta, old_meta)
    text = (
        f"head-to-head: new won {_pct(result)} of {result['games']} games against the old "
        f"file (even share {share:.1%}: {'above' if better else 'not above'}); "
        f"{against_random}"
    )
    return better and not_worse, text, result


def compare_search_head_to_head(
    run_file: Path, meta: dict[str, Any], old_path: Path, old_meta: dict[str, Any],
    games: int, seed: int, progress: bool,
) -> tuple[bool, str, dict[str, Any]]:  # fmt: skip
    """The head-to-head rule played by the two files' searches (``--head-to-head N
    --search``; both az files): ``az:checkpoint=NEW`` against ``az:checkpoint=OLD``, each
    with its file's default search, N games at the old file's table on duplicate deals,
    seats rotated (one process a core, at most two). Passed as ``compare_head_to_head``:
    the new search's 95% interval wholly above an even share and the new file's stored
    interval against random not wholly below the old one's. A value fitted anew under
    the same policy changes what the search plays, not what the network alone plays, so
    this is how such a file shows it is better."""
    from choco_envs.arena import run_arena

    kinds = {engine_of(meta), engine_of(old_meta)}
    if kinds != {"az"}:
        raise ConfigError(
            f"--search compares two az files' searches; the new file is {engine_of(meta)!r}, "
            f"the shipped one {engine_of(old_meta)!r} (drop --search to compare networks)"
        )
    table = dict(old_meta["options"])
    players = int(table.pop("num_players", 2))
    bots = [f"az:checkpoint={run_file}", f"az:checkpoint={old_path}"]
    report = run_arena(
        meta["env_id"], bots, players=players, games=games, seed=seed, env_options=table,
        workers=min(2, os.cpu_count() or 1), progress=progress,
    )  # fmt: skip
    row = next(r for r in report["bots"] if r["name"] == bots[0])
    result = {
        "bot": "az (its default search)",
        "opponent": "az of the file it replaced",
        "win_rate": row["win_rate"],
        "win_rate_ci95": row["win_rate_ci95"],
        "games": report["games_played"],
        "seed": seed,
        "seconds_per_move": row.get("seconds_per_move"),
    }
    share = 1.0 / players
    better = interval(result)[0] > share
    not_worse, against_random = random_clause(meta, old_meta)
    text = (
        f"head-to-head of the searches: new az won {_pct(result)} of {result['games']} games "
        f"against the old file's az (even share {share:.1%}: "
        f"{'above' if better else 'not above'}); network {against_random}"
    )
    return better and not_worse, text, result


def compare_every_table(
    run_file: Path, meta: dict[str, Any], old_path: Path, old_meta: dict[str, Any],
    games: int, seed: int, progress: bool,
) -> tuple[bool, str, dict[str, Any]]:  # fmt: skip
    """The every-table rule, for a file for many tables replacing one for the same
    tables: both play every table (count x modes) against greedy in every other seat,
    ``games`` games each on the same deals. Passed when the new file's pooled win rate
    has a 95% interval wholly above the old one's, no table's interval lies wholly below
    the old file's at that table, and its stored interval against random is not wholly
    below the old one's. (What the result holds: each table's two win rates.)"""
    from choco_envs.arena.stats import wilson_interval
    from choco_envs.train.evaluate import evaluate_tables

    new_seats, old_seats = meta.get("seats"), old_meta.get("seats")
    if not isinstance(old_seats, dict) or not isinstance(new_seats, dict):
        raise ConfigError("--every-table compares two files for many tables (seats)")
    same = (
        sorted(new_seats["player_counts"]) == sorted(old_seats["player_counts"])
        and new_seats["modes"] == old_seats["modes"]
    )
    if not same:
        raise ConfigError(
            f"--every-table compares files for the same tables; new plays "
            f"{new_seats['player_counts']} x {new_seats['modes']}, old "
            f"{old_seats['player_counts']} x {old_seats['modes']}"
        )
    if (os.cpu_count() or 1) > 1:  # the two files at once, one process each
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        print("playing both files at every table, one process each", flush=True)
        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=2, mp_context=ctx) as pool:
            jobs = [pool.submit(evaluate_tables, str(path), games, seed, ("greedy",))
                    for path in (run_file, old_path)]  # fmt: skip
            new_rows, old_rows = (job.result() for job in jobs)
    else:
        new_rows = evaluate_tables(str(run_file), games, seed, ("greedy",), progress=progress)
        old_rows = evaluate_tables(str(old_path), games, seed, ("greedy",), progress=progress)
    tables, below = [], []
    wins = {"new": 0.0, "old": 0.0}
    played = 0
    for a, b in zip(new_rows, old_rows, strict=True):
        assert a["table"] == b["table"]
        tables.append({"table": a["table"], "new": a["win_rate"], "old": b["win_rate"],
                       "games": a["games"]})  # fmt: skip
        where = " ".join(f"{k}={v}" for k, v in sorted(a["table"].items()))
        print(f"  {where}: new {_pct(a)}, old {_pct(b)} ({a['games']} games)", flush=True)
        if interval(a)[1] < interval(b)[0]:
            below.append(", ".join(f"{k}={v}" for k, v in sorted(a["table"].items())))
        wins["new"] += a["win_rate"] * a["games"]
        wins["old"] += b["win_rate"] * b["games"]
        played += a["games"]
    new_ci = wilson_interval(wins["new"], played)
    old_ci = wilson_interval(wins["old"], played)
    pooled_above = new_ci[0] > old_ci[1]
    not_worse, against_random = random_clause(meta, old_meta)
    text = (
        f"every table ({len(tables)} tables x {games} games vs greedy, seed {seed}): pooled "
        f"new {wins['new'] / played:.1%} [{new_ci[0]:.1%}, {new_ci[1]:.1%}] against old "
        f"{wins['old'] / played:.1%} [{old_ci[0]:.1%}, {old_ci[1]:.1%}] "
        f"({'above' if pooled_above else 'not above'}); tables wholly below: "
        f"{'; '.join(below) or 'none'}; {against_random}"
    )
    result = {"tables": tables, "games": played, "seed": seed}
    return pooled_above and not below and not_worse, text, result


def _pct(result: dict[str, Any]) -> str:
    low, high = interval(result)
    return f"{result['win_rate']:.1%} [{low:.1%}, {high:.1%}]"


# ---------------------------------------------------------------- shipping
def ship(
    run_file: Path,
    root: Path,
    name: str | None = None,
    force: bool = False,
    head_to_head: int = 0,
    seed: int = 7,
    command: str = "",
    progress: bool = False,
    every_table: int = 0,
    float16: bool = False,
    search: bool = False,
) -> Path:
    """Ship ``run_file`` into ``root`` by the rules of the module docstring; returns the
    shipped path. ConfigError (or CheckpointError) on every refusal, before any write
    into ``root``. With ``float16`` the file shipped (and compared) is its float16 copy
    (``choco_envs.train.compact``, written beside it, its evaluation measured again).
    With ``search`` the head-to-head plays the two files' searches
    (``compare_search_head_to_head``)."""
    from choco_envs.policy.checkpoint import (
        SHIPPED_BUDGET_BYTES,
        SUFFIX,
        load_policy,
        read_metadata,
    )

    if head_to_head and head_to_head < MIN_GAMES:
        raise ConfigError(f"--head-to-head {head_to_head} is not allowed; allowed: >= {MIN_GAMES}")
    if every_table and every_table < MIN_GAMES:
        raise ConfigError(f"--every-table {every_table} is not allowed; allowed: >= {MIN_GAMES}")
    if every_table and head_to_head:
        raise ConfigError("give --head-to-head or --every-table, not both")
    if search and not head_to_head:
        raise ConfigError(f"--search plays the head-to-head by search; it needs --head-to-head "
                          f"N (N >= {MIN_GAMES})")  # fmt: skip
    if name is not None and (not name or "/" in name or name.startswith(".")):
        raise ConfigError(f"--name {name!r} is not allowed; allowed: a file name without suffix")
    if float16:
        from choco_envs.train.compact import float16_copy

        run_file = float16_copy(run_file, progress=progress)
    model, meta = load_policy(run_file)
    evaluation = stored_evaluation(meta, run_file)
    training = meta.get("training")
    outside = outside_paths(str(training.get("command", ""))) if isinstance(training, dict) else []
    if outside:
        raise ConfigError(
            f"{str(run_file)!r} was trained by a command naming {', '.join(outside)}, outside "
            "the project: its card must give a command anyone can rerun from a checkout; "
            "train from a config under configs/ (paths relative to the project root)"
        )
    size = run_file.stat().st_size
    if size > SHIPPED_BUDGET_BYTES:
        raise ConfigError(
            f"{str(run_file)!r} is {size / 1024:,.0f} KB; a shipped file must be at most "
            f"{SHIPPED_BUDGET_BYTES / 1024:,.0f} KB (the wheel carries every one): ship its "
            "float16 copy (--float16) or train a smaller network"
        )
    folder = root / meta["env_id"]
    kind = engine_of(meta)
    incumbent = None
    for path in sorted(folder.glob(f"*{SUFFIX}")) if folder.is_dir() else []:
        try:
            other = read_metadata(path)
            same = engine_of(other) == kind and (
                other["options"] == meta["options"]
                or (covers(meta, other, path) and name in (None, path.stem))
            )
        except CheckpointError:
            same = path.stem == (name or kind)
        if same:
            incumbent = path
    if name is None:
        name = incumbent.stem if incumbent is not None else kind
    if not name.startswith(kind):
        raise ConfigError(
            f"--name {name!r} is not allowed for a file trained by the {kind} engine; allowed: "
            f"a name starting with {kind!r} (bots.make({kind!r}) finds files by that prefix)"
        )
    target = folder / f"{name}{SUFFIX}"
    if target.resolve() == run_file.resolve():
        raise ConfigError(f"{str(run_file)!r} is already the shipped file")
    if target.exists() and target != incumbent:
        raise ConfigError(
            f"{str(target)!r} serves other options ({read_metadata(target)['options']}); give "
            "another --name"
        )
    comparison = "nothing replaced"
    h2h = None
    if incumbent is not None:
        if not force:
            raise ConfigError(
                f"{str(incumbent)!r} is shipped for these options; pass --force to replace "
                "it (it is replaced only if the new file is measurably better)"
            )
        try:
            _, old_meta = load_policy(incumbent)
        except CheckpointError as err:
            comparison = f"replaced {incumbent.name}, which no longer loads ({err})"
        else:
            old_eval = stored_evaluation(old_meta, incumbent)
            if head_to_head and search:
                passed, comparison, h2h = compare_search_head_to_head(
                    run_file, meta, incumbent, old_meta, head_to_head, seed, progress
                )
            elif head_to_head:
                passed, comparison, h2h = compare_head_to_head(
                    model, meta, incumbent, old_meta, head_to_head, seed, progress
                )
            elif every_table:
                passed, comparison, _ = compare_every_table(
                    run_file, meta, incumbent, old_meta, every_table, seed, progress
                )
            else:
                passed, comparison = compare_stored(evaluation, old_eval)
            if not passed:
                raise ConfigError(
                    f"not shipped: {run_file} is not measurably better than {incumbent} "
                    f"({comparison})"
                )
    folder.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(".shipping")
    shutil.copyfile(run_file, tmp)
    tmp.chmod(0o644)
    tmp.replace(target)
    if incumbent is not None and incumbent != target:
        incumbent.unlink()
        _drop_image(root, incumbent)
    drawn = ship_curve(root, target, meta)
    card = model_card(target, meta, command, comparison, h2h, drawn)
    write_readme(root, f"{meta['env_id']}/{target.name}", card)
    return target


# ---------------------------------------------------------------- learning curves
#: where a source checkout keeps the shipped files' curves, beside the checkpoints folder
CURVES_FOLDER = Path("docs") / "img" / "curves"
NO_CURVE = "no curve stored (trained before curves were kept)"


def curve_name(path: Path) -> str:
    """The PNG name of the shipped file ``path``: ``<env_id>__<name>.png``."""
    return f"{path.parent.name}__{path.stem}.png"


def curves_folder(root: Path) -> Path | None:
    """``docs/img/curves`` beside ``root``'s parent where it exists (a source
    checkout), else None (an installed wheel: no curve images are written)."""
    folder = root.resolve().parent / CURVES_FOLDER
    return folder if folder.is_dir() else None


def draw_curve(path: Path, meta: dict[str, Any], folder: Path) -> Path | None:
    """The learning curve stored in ``meta`` (the shipped file ``path``'s) as
    ``folder/<env_id>__<name>.png``; None (nothing written) for a file without one."""
    from choco_envs.train.curves import plot_curve, stored_curve

    curve = stored_curve(meta)
    if curve is None:
        return None
    out = folder / curve_name(path)
    title = f"{path.parent.name}/{path.name} ({engine_of(meta)})"
    plot_curve(curve["points"], out, title, curve["unit"])
    return out


def ship_curve(root: Path, target: Path, meta: dict[str, Any]) -> Path | None:
    """When ``root`` lies in a source checkout (:func:`curves_folder`), the shipped
    file's curve drawn there (an image of a file it replaced, now stale, removed when
    the new file has none); None where nothing was drawn."""
    folder = curves_folder(root)
    if folder is None:
        return None
    drawn = draw_curve(target, meta, folder)
    if drawn is None:
        (folder / curve_name(target)).unlink(missing_ok=True)
    return drawn


def _drop_image(root: Path, path: Path) -> None:
    folder = curves_folder(root)
    if folder is not None:
        (folder / curve_name(path)).unlink(missing_ok=True)


def shipped_files(root: Path) -> list[tuple[str, Path, dict[str, Any] | CheckpointError]]:
    """(``<env_id>/<name>``, path, metadata or why it is unreadable) of every shipped file
    under ``root``, in name order."""
    from choco_envs.policy.checkpoint import SUFFIX, read_metadata

    out: list[tuple[str, Path, dict[str, Any] | CheckpointError]] = []
    for path in sorted(root.glob(f"*/*{SUFFIX}")):
        try:
            meta: dict[str, Any] | CheckpointError = read_metadata(path)
        except CheckpointError as err:
            meta = err
        out.append((f"{path.parent.name}/{path.name}", path, meta))
    return out


def write_curves(root: Path, folder: Path) -> list[str]:
    """``choco ship --curves DIR``: every shipped file's stored curve under ``root`` as
    ``folder/<env_id>__<name>.png``; one line per file (written, or why not)."""

    if folder.exists() and not folder.is_dir():
        raise ConfigError(
            f"--curves {str(folder)!r} is not a folder; allowed: a folder (made if missing)"
        )
    folder.mkdir(parents=True, exist_ok=True)
    lines = []
    for key, path, meta in shipped_files(root):
        if isinstance(meta, CheckpointError):
            lines.append(f"{key}: unreadable ({meta})")
            continue
        drawn = draw_curve(path, meta, folder)
        lines.append(f"{key}: {'wrote ' + str(drawn) if drawn is not None else NO_CURVE}")
    if not lines:
        lines.append(f"no shipped files under {str(root)!r}")
    return lines


def retire(
    path: Path, root: Path, head_to_head: int, seed: int = 7, command: str = "",
    progress: bool = False,
) -> Path:  # fmt: skip
    """Remove the shipped file ``path``, a file for one table, in favour of the shipped
    file for many tables (same engine) that covers that table, so that one file serves
    the env and edition. Only after ``head_to_head`` (>= MIN_GAMES) games between the two
    at that table on duplicate deals, seats rotated, where the covering file's 95%
    interval does not lie wholly below an even share (it is not measurably weaker), and
    its stored interval against random is not wholly below the retired file's. The
    covering file's card gets a row naming the file it took over and the match; the
    retired file's card leaves the README. Returns the covering file's path.
    ConfigError (or CheckpointError) on every refusal, before any change."""
    from choco_envs.policy.checkpoint import SUFFIX, load_policy, read_metadata

    if head_to_head < MIN_GAMES:
        raise ConfigError(
            f"--retire needs --head-to-head N with N >= {MIN_GAMES} (got {head_to_head})"
        )
    if not path.is_absolute() and not path.exists():
        path = root / path
    if not path.is_file() or path.resolve().parent.parent != root.resolve():
        shipped = sorted(f"{p.parent.name}/{p.name}" for p in root.glob(f"*/*{SUFFIX}"))
        raise ConfigError(
            f"--retire {str(path)!r} is not a shipped file of {str(root)!r}; shipped: "
            f"{', '.join(shipped) or 'none'}"
        )
    _, old_meta = load_policy(path)
    stored_evaluation(old_meta, path)
    if isinstance(old_meta.get("seats"), dict):
        raise ConfigError(
            f"--retire takes a file for one table; {path.name} plays many "
            f"({old_meta['seats'].get('player_counts')} players)"
        )
    kind = engine_of(old_meta)
    covering = None
    for other in sorted(path.parent.glob(f"*{SUFFIX}")):
        if other == path:
            continue
        try:
            meta = read_metadata(other)
        except CheckpointError:
            continue
        if engine_of(meta) == kind and covers(meta, old_meta, path):
            covering = other
            break
    if covering is None:
        raise ConfigError(
            f"no shipped {kind} file for many tables covers the table of {path.name} "
            f"({_options(old_meta)}); ship one first (choco ship RUN_FILE --name "
            f"{kind}_tables)"
        )
    model, meta = load_policy(covering)
    stored_evaluation(meta, covering)
    _, text, result = compare_head_to_head(
        model, meta, path, old_meta, head_to_head, seed, progress
    )
    share = 1.0 / int(old_meta["options"].get("num_players", 2))
    weaker = interval(result)[1] < share
    if weaker or not random_not_below(meta, old_meta):
        raise ConfigError(f"not retired: {covering.name} is measurably weaker than {path.name} "
                          f"at its table ({text})")  # fmt: skip
    key = f"{meta['env_id']}/{covering.name}"
    date = datetime.date.today().isoformat()
    note = (
        f"`{meta['env_id']}/{path.name}` ({_options(old_meta)}), retired {date} by "
        f"`{command}`: {text}"
    )
    path.unlink()
    add_card_row(root, key, "took over", note)
    write_readme(root, None, None)
    return covering


# ---------------------------------------------------------------- recorded search runs
#: the report fields a recorded run needs
REPORT_FIELDS = ("bots", "config", "games_played")


def _report(path: Path) -> dict[str, Any]:
    import json

    if not path.is_file():
        raise ConfigError(f"--record {str(path)!r} does not exist; allowed: the --json "
                          "report of a `choco eval` run")  # fmt: skip
    try:
        report = json.loads(path.read_text())
    except (ValueError, UnicodeDecodeError) as err:
        raise ConfigError(f"--record {str(path)!r} is not JSON ({err})") from None
    missing = [k for k in REPORT_FIELDS if not isinstance(report, dict) or k not in report]
    if missing:
        raise ConfigError(
            f"--record {str(path)!r} is not an arena report: no {', '.join(missing)} "
            "(write one with `choco eval ... --json PATH`)"
        )
    return report


#: Opponent kinds a file keeps one search result against: its comparison with ``mcts``
#: is the one at the search's own time a move (issue 25's column), so a result against
#: ``mcts`` at another setting replaces the earlier one instead of standing beside it.
ONE_ROW_KINDS = ("mcts",)


def record(report_path: Path, root: Path, default_search: bool = False) -> tuple[Path, str]:
    """``choco ship --record REPORT``: store a search bot's arena result (a ``choco eval
    --json`` report of >= 400 games at 2 players, the search bot against one other bot)
    in the shipped file it played (found by its tensors' digest, which the report names:
    ``config.checkpoints``), under ``arena_search[<opponent>]``, and in its card.
    Returns (the file, a line saying what was stored). The card's row ends with the
    ``choco eval`` command that replays the run. The file's tensors stay as they are; its
    metadata (and so its sha256, which the card follows) changes. With
    ``default_search`` the recorded bot's ``c_scale`` (and its number of simulations, when
    it played one) becomes the file's default search (``meta["search"]``, what a plain
    ``az`` plays), refused unless every search result the file then stores was played at
    that setting: a file's default is the setting its stored figures measured. A result
    against ``mcts`` replaces one stored against ``mcts`` at another setting
    (``ONE_ROW_KINDS``), row and card row."""
    from choco_envs.policy.checkpoint import SUFFIX, read_metadata, rewrite_metadata, weights_sha256

    report = _report(report_path)
    config = report["config"]
    where = f"--record {str(report_path)!r}"
    names = config.get("bots")
    if not isinstance(names, list) or len(names) != 2:
        raise ConfigError(f"{where}: {names!r} played; allowed: two bots, the search bot and "
                          "its opponent")  # fmt: skip
    if config.get("players") != 2:
        raise ConfigError(f"{where}: played at {config.get('players')!r} players; allowed: 2")
    games = report["games_played"]
    if not isinstance(games, int) or games < MIN_GAMES:
        raise ConfigError(f"{where}: {games!r} games; allowed: >= {MIN_GAMES}")
    files = config.get("checkpoints") or {}
    shipped = {}
    for path in sorted(root.glob(f"*/*{SUFFIX}")):
        try:
            shipped[weights_sha256(path)] = path
        except CheckpointError:
            continue
    played = {name: shipped.get(str((files.get(name) or {}).get("weights_sha256")))
              for name in names}  # fmt: skip
    ours = [name for name in names if played[name] is not None]
    if len(ours) != 1:
        raise ConfigError(
            f"{where}: {len(ours)} of its bots play a shipped file under {str(root)!r}; "
            "allowed: exactly one (a report of an earlier `choco eval` names no file, or "
            "the file has been replaced since)"
        )
    bot = ours[0]
    opponent = next(name for name in names if name != bot)
    if not bot.split(":", 1)[0] == "az":
        raise ConfigError(
            f"{where}: {bot!r} is not a search bot; allowed: az, az:simulations=N, "
            "az:time=S (the network alone's figures are the training's final evaluation)"
        )
    target = played[bot]
    assert target is not None
    meta = read_metadata(target)
    if config.get("env") != meta["env_id"]:
        raise ConfigError(f"{where}: played {config.get('env')!r}; the file is for "
                          f"{meta['env_id']!r}")  # fmt: skip
    rows = {row.get("name"): row for row in report["bots"] if isinstance(row, dict)}
    if set(rows) != set(names):
        raise ConfigError(f"{where}: its bots' rows name {sorted(map(str, rows))}, not {names}")
    row = rows[bot]
    search = (files.get(bot) or {}).get("search")
    result = {
        "opponent": opponent,
        "bot": bot,
        **({"search": search} if isinstance(search, dict) else {}),
        "win_rate": row["win_rate"],
        "win_rate_ci95": row["win_rate_ci95"],
        "games": games,
        "seed": config.get("seed"),
        "players": 2,
        "env_options": config.get("env_options") or {},
        "seconds_per_move": row.get("seconds_per_move"),
        "opponent_seconds_per_move": rows[opponent].get("seconds_per_move"),
        "mean_margin": row.get("mean_margin"),
        "recorded": datetime.date.today().isoformat(),
    }
    result["command"] = eval_command(config)
    searched = dict(meta.get("arena_search") or {})
    before = searched.get(opponent)
    kind = opponent.split(":", 1)[0]
    superseded = [
        name
        for name in searched
        if kind in ONE_ROW_KINDS and name != opponent and name.split(":", 1)[0] == kind
    ]
    for name in superseded:
        before = searched.pop(name)
    searched[opponent] = result
    meta["arena_search"] = searched
    if default_search:
        meta["search"] = default_search_of(meta, searched, opponent, where)
    rewrite_metadata(target, meta)
    key = f"{meta['env_id']}/{target.name}"
    line = f"{bot} vs {opponent}: {_search_figure(result)}"
    for name in superseded:
        remove_card_row(root, key, f"with search vs {name}")
    set_card_row(root, key, f"with search vs {opponent}", f"{line}; `{result['command']}`")
    from choco_envs.policy.checkpoint import file_sha256

    set_card_row(root, key, "sha256", f"`{file_sha256(target)}`")
    write_readme(root, None, None)
    if isinstance(before, dict) and "win_rate" in before:
        was = f"{before.get('bot', 'the search')} vs {before.get('opponent', opponent)}"
        line += f" (replaces {was} at {before['win_rate']:.1%})"
    if default_search:
        line += f"; the file's default search now plays c_scale {meta['search']['c_scale']}"
        if "simulations" in meta["search"]:
            line += f" with {meta['search']['simulations']} simulations"
    return target, line


def default_search_of(
    meta: dict[str, Any], searched: dict[str, Any], opponent: str, where: str
) -> dict[str, Any]:
    """The file's ``search`` block with the ``c_scale`` of the result just recorded
    against ``opponent``, and its ``simulations`` when it played a number of simulations
    (not seconds a move); ConfigError (nothing written) when that result names no
    ``c_scale``, or another stored result was played at a different ``c_scale`` or, with
    a number of simulations, at a different number, or at another ``leaf_batch``
    (absent: 1) or ``max_considered`` (absent: the file's, or the search's default),
    which the block takes from the result too."""
    search = searched[opponent].get("search") or {}
    c_scale = search.get("c_scale")
    if not isinstance(c_scale, (int, float)) or isinstance(c_scale, bool):
        raise ConfigError(f"{where} --default-search: the report names no c_scale of its "
                          "search bot; allowed: a report of `choco eval` that does")  # fmt: skip
    block = {**(meta.get("search") or {}), "c_scale": float(c_scale)}
    file_considered = block.get("max_considered", SearchConfig.max_considered)
    if search.get("max_considered") is not None:
        block["max_considered"] = int(search["max_considered"])
    if not search.get("seconds") and isinstance(search.get("simulations"), int):
        block["simulations"] = search["simulations"]
    sims = block.get("simulations")
    batch = int(search.get("leaf_batch", 1))
    block.pop("leaf_batch", None)
    if batch != 1:
        block["leaf_batch"] = batch

    def setting(row: dict[str, Any]) -> tuple[Any, Any]:
        played = row.get("search") or {}
        return played.get("c_scale"), None if played.get("seconds") else played.get("simulations")

    def batch_of(row: dict[str, Any]) -> int:
        return int((row.get("search") or {}).get("leaf_batch", 1))

    def considered_of(row: dict[str, Any]) -> Any:
        return (row.get("search") or {}).get("max_considered", file_considered)

    stale = {}
    for name, row in sorted(searched.items()):
        if name == opponent or not isinstance(row, dict):
            continue
        c, n = setting(row)
        if c != c_scale or (n is not None and sims is not None and n != sims):
            stale[name] = (c, n)
        elif batch_of(row) != batch:
            raise ConfigError(
                f"{where} --default-search: leaf_batch {batch} would not be what the file's "
                f"result vs {name} measured (leaf_batch {batch_of(row)}); allowed: record it "
                f"again at batch={batch} first"
            )
        elif considered_of(row) != block.get("max_considered", file_considered):
            considered = block.get("max_considered", file_considered)
            raise ConfigError(
                f"{where} --default-search: {considered} root actions considered would not "
                f"be what the file's result vs {name} measured ({considered_of(row)}); "
                f"allowed: record it again at considered={considered} first"
            )
    if stale:
        at = f"c_scale {c_scale!r}" + (f" with {sims} simulations" if sims is not None else "")
        rows = ", ".join(
            f"vs {name} at c_scale {c!r}" + (f" with {n} simulations" if n is not None else "")
            for name, (c, n) in stale.items()
        )
        spec = f"c_scale={c_scale}" + (f",simulations={sims}" if sims is not None else "")
        raise ConfigError(
            f"{where} --default-search: {at} would not be what the file's stored results "
            f"measured ({rows}); allowed: record those again at {at} first (`choco eval "
            f"... --bots az:{spec} OPPONENT`)"
        )
    return block


def eval_command(config: dict[str, Any]) -> str:
    """The ``choco eval`` command that plays the arena run of a report's ``config``."""
    words = ["choco", "eval", "--env", str(config.get("env"))]
    for key, value in sorted((config.get("env_options") or {}).items()):
        words += ["--env-option", f"{key}={value}"]
    words += ["--players", str(config.get("players")), "--bots", *map(str, config["bots"])]
    words += ["--games", str(config.get("games_requested")), "--seed", str(config.get("seed"))]
    return shlex.join(words)


def _search_figure(result: dict[str, Any]) -> str:
    """A recorded search result as the card shows it."""
    spm = result.get("seconds_per_move")
    opp_spm = result.get("opponent_seconds_per_move")
    timing = ""
    if isinstance(spm, (int, float)) and isinstance(opp_spm, (int, float)):
        timing = f"; {spm:.3f} s a move, the opponent {opp_spm:.3f}"
    options = ", ".join(f"{k}={v}" for k, v in sorted(result.get("env_options", {}).items()))
    search = result.get("search") or {}
    budget = ""
    if search.get("seconds"):
        budget = f"; {search['seconds']} s a move, c_scale {search.get('c_scale')}"
    elif search.get("simulations"):
        budget = f"; {search['simulations']} simulations, c_scale {search.get('c_scale')}"
    if search.get("leaf_batch", 1) != 1:
        budget += f", leaf batch {search['leaf_batch']}"
    if budget and search.get("max_considered") not in (None, 16):
        budget += f", {search['max_considered']} root actions considered"
    return f"{_figure(result)}" + (f", options {options}" if options else "") + budget + timing


def _edit_card(root: Path, key: str, edit: Any) -> None:
    """Apply ``edit`` (a function of the card's lines, changing them in place) to the card
    of ``key`` in ``root/README.md`` (nothing when the README has no such card)."""
    readme = root / "README.md"
    marker = f"<!-- card: {key} -->"
    text = readme.read_text() if readme.is_file() else ""
    if marker not in text:
        return
    head, tail = text.split(marker, 1)
    body, rest = tail.split("<!-- end card -->", 1)
    lines = body.split("\n")
    edit(lines)
    readme.write_text(head + marker + "\n".join(lines) + "<!-- end card -->" + rest)


def _before_sha(lines: list[str]) -> int:
    return next((i for i, line in enumerate(lines) if line.startswith("| sha256 |")),
                len(lines) - 1)  # fmt: skip


def set_card_row(root: Path, key: str, label: str, value: str) -> None:
    """Set the row ``label | value`` of the card of ``key``: the row of that label
    replaced, else added before the sha256 row."""

    def edit(lines: list[str]) -> None:
        same = [i for i, line in enumerate(lines) if line.startswith(f"| {label} |")]
        if same:
            lines[same[0]] = f"| {label} | {value} |"
        else:
            lines.insert(_before_sha(lines), f"| {label} | {value} |")

    _edit_card(root, key, edit)


def remove_card_row(root: Path, key: str, label: str) -> None:
    """Remove the row ``label`` from the card of ``key`` (nothing when it has none)."""

    def edit(lines: list[str]) -> None:
        lines[:] = [line for line in lines if not line.startswith(f"| {label} |")]

    _edit_card(root, key, edit)


def add_card_row(root: Path, key: str, label: str, value: str) -> None:
    """Add the row ``label | value`` to the card of ``key`` in ``root/README.md``, before
    its sha256 row (nothing when the README has no such card)."""
    _edit_card(root, key, lambda lines: lines.insert(_before_sha(lines), f"| {label} | {value} |"))


def covers(meta: dict[str, Any], other: dict[str, Any], path: Path) -> bool:
    """Whether ``meta``'s file, a policy for many tables, plays the one table of the
    file ``other`` (so shipping it replaces that file, compared at that table)."""
    from choco_envs.policy.checkpoint import _table_options

    seats = meta.get("seats")
    if not isinstance(seats, dict) or other.get("seats") is not None:
        return False
    try:
        _table_options(meta, seats, other["options"], str(path))
    except CheckpointError:
        return False
    return True


def tables_line(meta: dict[str, Any]) -> str:
    """The file's win rates against greedy at its other player counts (``arena_tables``),
    as "3 p 55.6% [50.7, 60.4] (399); ..." ('-' for a file of one table)."""
    tables = meta.get("arena_tables")
    if not isinstance(tables, dict):
        return "-"
    parts = []
    for n, arena in sorted(tables.items(), key=lambda kv: int(kv[0])):
        greedy = arena.get("greedy") if isinstance(arena, dict) else None
        if isinstance(greedy, dict) and "win_rate" in greedy:
            parts.append(f"{n} p {_pct(greedy)} ({greedy['games']})")
    return "; ".join(parts) or "-"


# ---------------------------------------------------------------- the README
def portable_command(command: str) -> str:
    """The training command as anyone reruns it: without ``--runs-dir`` (where this
    machine kept the run's folder changes nothing it learns)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return command
    out, skip = [], False
    for word in words:
        if skip:
            skip = False
        elif word == "--runs-dir":
            skip = True
        elif not word.startswith("--runs-dir="):
            out.append(word)
    return shlex.join(out)


def outside_paths(command: str) -> list[str]:
    """The paths a training command names that a checkout of the project does not hold
    (absolute, home-relative or climbing out with ``..``): a card's command must be one
    anyone can rerun from a checkout."""
    try:
        words = shlex.split(portable_command(command))
    except ValueError:
        words = command.split()
    paths = [word.split("=", 1)[-1] if word.startswith("--") else word for word in words]
    return [
        path
        for path in paths
        if path.startswith(("/", "~")) or path == ".." or path.startswith("../") or "/../" in path
    ]


def engine_of(meta: dict[str, Any]) -> str:
    """``az`` for a file of the search-and-learn engine, else ``ppo`` (the network alone;
    RLlib exports included): the prefix of its shipped name."""
    training = meta.get("training")
    return "az" if isinstance(training, dict) and training.get("engine") == "az" else "ppo"


def model_card(
    path: Path, meta: dict[str, Any], command: str, comparison: str, h2h: dict[str, Any] | None,
    curve: Path | None = None,
) -> str:  # fmt: skip
    """The markdown card of a shipped file (``curve``: its learning curve's image, in
    ``docs/img/curves`` beside the checkpoints folder, linked from the README there)."""
    from choco_envs.policy.checkpoint import file_sha256

    net = meta["network"]
    layers = [f"conv {'-'.join(map(str, net['conv_channels']))}"] if net["conv_channels"] else []
    layers.append(f"MLP {'x'.join(map(str, net['hidden'])) or '(linear)'}")
    if net.get("action_channels"):
        layers.append("board action head")
    feature = meta.get("features")
    reads = f"`{meta['encoder']}` {meta['observation_shape']}" + (
        f" + feature function `{feature['name']}` v{feature['version']} ({feature['size']} inputs)"
        if feature
        else ""
    )
    training = meta.get("training", {})
    unit = "self-play games" if engine_of(meta) == "az" else "env steps"
    trained = f"{meta['steps_trained']:,} {unit}"
    if "minutes" in training:
        trained += f", {training['minutes']} min of {'search and learning' if engine_of(meta) == 'az' else 'PPO'}"
    targs = training.get("args") or {}
    if engine_of(meta) == "az" and targs.get("value_warmup_games"):
        against = (
            " against " + ", ".join(f"`{b}`" for b in targs.get("league_bots") or {})
            if targs.get("bot_seats") == 1.0
            else ""
        )
        trained += (
            f", after fitting its value on {targs['value_warmup_games']:,} games of the "
            f"started policy{against} (value_warmup_games)"
        )
    imitation = training.get("imitation")
    if imitation:
        trained += (
            f", after imitating `{imitation['teacher']}` ({imitation['rounds']} rounds, "
            f"{imitation['decisions']:,} decisions)"
        )
    init_from = (training.get("args") or {}).get("init_from") or ""
    start = f", starting from `{init_from}` as it stood when the run began" if init_from else ""
    date = datetime.date.today().isoformat()
    rows = [
        ("env", f"{meta['env_id']} version {meta['version']}, options {_options(meta)}"),
        ("reads", reads),
        (
            "network",
            ", ".join(layers)
            + f" ({path.stat().st_size / 1024:.0f} KB"
            + (
                ", float16 weights: the figures below are the rounded network's"
                if (meta.get("weights") or {}).get("dtype") == "float16"
                else ""
            )
            + ")",
        ),
        ("trained", trained),
        ("training command", f"`{portable_command(training.get('command', '?'))}`{start}"),
        ("vs random", _figure(meta["arena"]["random"])),
        ("vs greedy", _figure(meta["arena"]["greedy"])),
    ]
    seats = meta.get("seats")
    if isinstance(seats, dict):
        modes = "".join(f"; {k} in {v}" for k, v in sorted(seats["modes"].items()))
        span = (
            f"{seats['player_counts']} players{modes} (seat-padded input of {seats['max_players']})"
        )
        rows.insert(1, ("tables", span))
        base = (training.get("args") or {}).get("options", {}).get("num_players", 2)
        rows[-2:] = [(f"{name} at {base} players", value) for name, value in rows[-2:]]
        tables = meta.get("arena_tables") or {}
        for n, arena in sorted(tables.items(), key=lambda kv: int(kv[0])):
            for opponent in ("random", "greedy"):
                if isinstance(arena.get(opponent), dict):
                    label = f"vs {int(n) - 1} x {opponent} at {n} players (par {100 / int(n):.1f}%)"
                    rows.append((label, _figure(arena[opponent])))
    search = meta.get("search") or {}
    for opponent, result in sorted((meta.get("arena_search") or {}).items()):
        rows.append(
            (f"az ({search.get('simulations', '?')} simulations) vs {opponent}", _figure(result))
        )
    if h2h is not None:
        rows.append(("vs the file it replaced", _figure(h2h)))
    if curve is not None:
        where = f"{CURVES_FOLDER.as_posix()}/{curve.name}"
        rows.append(("curve", f"[{where}](../{where}) (win rate and Elo vs the bots over minutes)"))
    rows += [
        ("shipped", f"{date} by `{command}`"),
        ("comparison", comparison),
        ("sha256", f"`{file_sha256(path)}`"),
    ]
    key = f"{meta['env_id']}/{path.name}"
    body = "\n".join(f"| {k} | {v} |" for k, v in rows)
    return f"### {key}\n\n<!-- card: {key} -->\n| | |\n|---|---|\n{body}\n<!-- end card -->\n"


def _options(meta: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(meta["options"].items()))


def _figure(result: dict[str, Any]) -> str:
    return (
        f"{_pct(result)} over {result['games']} games (duplicate deals, seats rotated; "
        f"seed {result.get('seed', '?')})"
    )


def search_line(meta: dict[str, Any]) -> str:
    """The table's "with search" cell: each ``arena_search`` result, as "BOT vs OPPONENT:
    rate [interval] (games)" (a result recorded by ``--record`` names its bot; an az
    run's own evaluation plays the file's stored simulations); '-' for none."""
    sims = (meta.get("search") or {}).get("simulations", "?")
    parts = []
    for opponent, result in sorted((meta.get("arena_search") or {}).items()):
        if not isinstance(result, dict) or "win_rate" not in result:
            continue
        bot = result.get("bot") or f"az ({sims} sims)"
        parts.append(f"{bot} vs {opponent}: {_pct(result)} ({result['games']})")
    return "; ".join(parts) or "-"


def table(root: Path) -> str:
    """The markdown table of every shipped file's stored evaluation (metadata only)."""

    lines = [
        "| file | env | options | reads | vs random | vs greedy | vs greedy at more players "
        "(par 1/N) | with search (az) | steps | KB |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for key, path, meta in shipped_files(root):
        if isinstance(meta, CheckpointError):
            lines.append(f"| `{key}` | unreadable: {meta} | | | | | | | | |")
            continue
        arena = meta.get("arena", {})
        rates = [_pct(arena[o]) + f" ({arena[o]['games']})" if o in arena else "-"
                 for o in ("random", "greedy")]  # fmt: skip
        feature = meta.get("features")
        reads = meta["encoder"] + (f" + {feature['name']} v{feature['version']}" if feature else "")
        searched = search_line(meta)
        lines.append(
            f"| `{key}` | {meta['env_id']} v{meta['version']} | {_options(meta)} | {reads} | "
            f"{rates[0]} | {rates[1]} | {tables_line(meta)} | {searched} | {meta['steps_trained']:,} | "
            f"{math.ceil(path.stat().st_size / 1024)} |"
        )
    if len(lines) == 2:
        lines.append("| (none shipped yet) | | | | | | | | | |")
    return "\n".join(lines)


def write_readme(root: Path, key: str | None, card: str | None) -> str:
    """Rewrite ``root/README.md``: the table regenerated, the card of ``key`` replaced
    (or added), and the cards of files no longer there dropped. Returns the table."""
    readme = root / "README.md"
    text = readme.read_text() if readme.is_file() else TEMPLATE
    if TABLE_BEGIN not in text or TABLE_END not in text:
        text = text.rstrip() + f"\n\n## Stored evaluations\n\n{TABLE_BEGIN}\n{TABLE_END}\n"
    if CARDS_HEADING not in text:
        text = text.rstrip() + f"\n\n{CARDS_HEADING}\n"
    head, rest = text.split(TABLE_BEGIN, 1)
    _, tail = rest.split(TABLE_END, 1)
    rows = table(root)
    text = f"{head}{TABLE_BEGIN}\n{rows}\n{TABLE_END}{tail}"
    before, cards = text.split(CARDS_HEADING, 1)
    kept = [c for c in _cards(cards) if (root / c[0]).is_file() and c[0] != key]
    if key is not None and card is not None:
        kept.append((key, card))
    intro = cards.split("### ", 1)[0].rstrip()
    blocks = "\n".join(block for _, block in sorted(kept))
    readme.write_text(f"{before}{CARDS_HEADING}{intro}\n\n{blocks}".rstrip() + "\n")
    return rows


def _cards(text: str) -> list[tuple[str, str]]:
    """(key, block) of every card in ``text``."""
    out = []
    for chunk in text.split("### ")[1:]:
        key = chunk.split("\n", 1)[0].strip()
        out.append((key, "### " + chunk.rstrip() + "\n"))
    return out
