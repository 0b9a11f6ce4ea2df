"""`choco ship`: the one step that puts a file into checkpoints/, only with a stored
evaluation of >= 400 games, never over a shipped file without --force, and only when
measurably better; it writes the file's model card and the table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch

from choco_envs.arena.stats import wilson_interval
from choco_envs.cli import main
from choco_envs.core.errors import ConfigError
from choco_envs.policy.checkpoint import file_sha256, read_metadata, save_checkpoint
from choco_envs.policy.net import ActorCritic, NetConfig
from choco_envs.train.ship import TABLE_BEGIN, TABLE_END, ship
from tests.training.conftest import toy_meta
from tests.training.toy_nim import ENV_ID

OPTIONS = {"stones": 13}


def result(rate: float, games: int = 400) -> dict[str, Any]:
    low, high = wilson_interval(rate * games, games)
    return {"win_rate": rate, "games": games, "win_rate_ci95": [low, high], "seed": 1}


def nim_model(perfect: bool) -> ActorCritic:
    """A linear policy over the one-hot pile: perfect play (leave a multiple of 4), or
    always taking one stone."""
    config = NetConfig((26,), 3, ())
    model = ActorCritic(config)
    with torch.no_grad():
        model.actor.weight.zero_()
        model.actor.bias.copy_(torch.tensor([1.0, 0.0, 0.0]))
        if perfect:
            for stones in range(1, 22):
                if stones % 4:
                    model.actor.weight[stones % 4 - 1, stones] = 10.0
    return model


def checkpoint(
    path: Path, random: float = 0.9, greedy: float = 0.5, games: int = 400, perfect: bool = False
) -> Path:
    meta = toy_meta(**OPTIONS)
    meta["arena"] = {"random": result(random, games), "greedy": result(greedy, games)}
    meta["training"] = {"command": f"choco train --seed {len(path.name)}", "minutes": 1.0}
    return save_checkpoint(path, nim_model(perfect), meta)


def test_first_ship_copies_the_file_and_writes_its_card_and_the_table(tmp_path: Path) -> None:
    root = tmp_path / "checkpoints"
    root.mkdir()
    run = checkpoint(tmp_path / "run.safetensors")
    shipped = ship(run, root, command="choco ship run.safetensors")
    assert shipped == root / ENV_ID / "ppo.safetensors"
    assert file_sha256(shipped) == file_sha256(run)
    readme = (root / "README.md").read_text()
    table = readme.split(TABLE_BEGIN)[1].split(TABLE_END)[0]
    assert f"`{ENV_ID}/ppo.safetensors`" in table and "50.0% [45.1%, 54.9%] (400)" in table
    assert f"### {ENV_ID}/ppo.safetensors" in readme
    assert "| shipped |" in readme and "`choco ship run.safetensors`" in readme
    assert "| training command | `choco train --seed 15` |" in readme
    assert f"| sha256 | `{file_sha256(shipped)}` |" in readme
    assert "| comparison | nothing replaced |" in readme


@pytest.mark.parametrize("games", [0, 399])
def test_a_file_without_a_400_game_evaluation_is_refused(tmp_path: Path, games: int) -> None:
    run = checkpoint(tmp_path / "run.safetensors", games=max(games, 1))
    if games == 0:
        meta = read_metadata(run)
        meta.pop("format")
        meta["arena"] = {}
        from choco_envs.policy.checkpoint import load_policy

        run = save_checkpoint(run, load_policy(run)[0], meta)
    with pytest.raises(ConfigError, match="no evaluation of >= 400 games against random"):
        ship(run, tmp_path)
    assert not (tmp_path / ENV_ID).exists()


@pytest.mark.parametrize(
    "command",
    [
        "choco train --config /tmp/elsewhere/ppo.yaml",
        "choco train --config=../outside/ppo.yaml",
        "choco train --config configs/x.yaml --init-from ~/runs/best.safetensors",
    ],
)
def test_a_file_trained_by_a_command_naming_outside_paths_is_refused(
    tmp_path: Path, command: str
) -> None:
    """The card gives the training command for anyone to rerun from a checkout: a command
    naming a path outside the project is refused, nothing written; ``--runs-dir`` (where
    a run was kept, dropped from the card) and paths inside the project pass."""
    run = checkpoint(tmp_path / "run.safetensors")
    meta = read_metadata(run)
    meta.pop("format")
    from choco_envs.policy.checkpoint import load_policy

    model = load_policy(run)[0]
    meta["training"] = {"command": command, "minutes": 1.0}
    run = save_checkpoint(run, model, meta)
    with pytest.raises(ConfigError, match="outside the project: its card must give a command"):
        ship(run, tmp_path)
    assert not (tmp_path / ENV_ID).exists()
    meta["training"]["command"] = "choco train --config configs/x.yaml --runs-dir /tmp/runs"
    ok = save_checkpoint(tmp_path / "ok.safetensors", model, meta)
    assert ship(ok, tmp_path).exists()


def test_replacing_needs_force_and_a_measurably_better_file(tmp_path: Path) -> None:
    """The stored-evaluation rule: against greedy the new 95% interval lies wholly above
    the old one's, and against random it is not wholly below."""
    old = ship(checkpoint(tmp_path / "a.safetensors", greedy=0.50), tmp_path)
    before = file_sha256(old)
    close = checkpoint(tmp_path / "b.safetensors", greedy=0.55)
    with pytest.raises(ConfigError, match="pass --force to replace it"):
        ship(close, tmp_path)
    with pytest.raises(ConfigError, match="not measurably better.*vs greedy new 55.0%.*not above"):
        ship(close, tmp_path, force=True)
    worse_vs_random = checkpoint(tmp_path / "c.safetensors", random=0.7, greedy=0.70)
    with pytest.raises(ConfigError, match=r"vs random new 70.0%.*\(below\)"):
        ship(worse_vs_random, tmp_path, force=True)
    assert file_sha256(old) == before
    better = checkpoint(tmp_path / "d.safetensors", greedy=0.65)
    assert ship(better, tmp_path, force=True, command="choco ship d --force") == old
    assert file_sha256(old) == file_sha256(better)
    readme = (tmp_path / "README.md").read_text()
    assert readme.count(f"### {ENV_ID}/ppo.safetensors") == 1  # the card was replaced
    assert "vs greedy new 65.0% [60.2%, 69.5%] against old 50.0% [45.1%, 54.9%] (above)" in readme


def test_head_to_head_decides_by_a_400_game_match(tmp_path: Path) -> None:
    """``--head-to-head N``: the new file must win more than an even share against the
    old one on duplicate deals; perfect Nim beats always-take-one in every game."""
    ship(checkpoint(tmp_path / "old.safetensors"), tmp_path)
    perfect = checkpoint(tmp_path / "new.safetensors", perfect=True)
    with pytest.raises(ConfigError, match="--head-to-head 399 is not allowed"):
        ship(perfect, tmp_path, force=True, head_to_head=399)
    with pytest.raises(ConfigError, match="--every-table 399 is not allowed"):
        ship(perfect, tmp_path, force=True, every_table=399)
    with pytest.raises(ConfigError, match="not both"):
        ship(perfect, tmp_path, force=True, every_table=400, head_to_head=400)
    with pytest.raises(ConfigError, match="--every-table compares two files for many tables"):
        ship(perfect, tmp_path, force=True, every_table=400)
    ship(perfect, tmp_path, force=True, head_to_head=400)
    readme = (tmp_path / "README.md").read_text()
    assert "head-to-head: new won 100.0% [99.1%, 100.0%] of 400 games" in readme
    assert "| vs the file it replaced | 100.0%" in readme
    # the other way round, the old file (always one stone) loses the match: refused
    weak = checkpoint(tmp_path / "weak.safetensors")
    with pytest.raises(ConfigError, match="head-to-head: new won 0.0%"):
        ship(weak, tmp_path, force=True, head_to_head=400)


def test_a_shipped_file_that_no_longer_loads_is_replaced_without_comparison(
    tmp_path: Path,
) -> None:
    (tmp_path / ENV_ID).mkdir()
    (tmp_path / ENV_ID / "ppo.safetensors").write_bytes(b"an old format")
    run = checkpoint(tmp_path / "run.safetensors", greedy=0.2)
    with pytest.raises(ConfigError, match="pass --force"):
        ship(run, tmp_path)
    ship(run, tmp_path, force=True)
    assert "which no longer loads" in (tmp_path / "README.md").read_text()


def test_choco_ship_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = checkpoint(tmp_path / "run.safetensors", games=100)
    root = tmp_path / "shipped"
    root.mkdir()
    assert main(["ship", str(run), "--to", str(root)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("choco ship: error:") and err.count("\n") == 1
    good = checkpoint(tmp_path / "good.safetensors")
    assert main(["ship", str(good), "--to", str(root), "--name", "ppo_toy"]) == 0
    assert (root / ENV_ID / "ppo_toy.safetensors").is_file()
    assert f"choco ship {good} --name ppo_toy --to {root}" in (root / "README.md").read_text()
    (root / ENV_ID / "ppo_toy.safetensors").unlink()
    assert main(["ship", "--table", "--to", str(root)]) == 0
    readme = (root / "README.md").read_text()
    assert "(none shipped yet)" in readme and "### " not in readme  # stale card dropped


def test_the_card_drops_where_the_run_folder_was_kept() -> None:
    """The card's training command is the one anyone reruns: --runs-dir (a folder of the
    machine that trained) changes nothing the run learns."""
    from choco_envs.train.ship import portable_command

    command = "choco train --config configs/x.yaml --runs-dir /work/main/runs --progress false"
    assert portable_command(command) == "choco train --config configs/x.yaml --progress false"
    assert portable_command("choco train --runs-dir=/tmp/r --seed 3") == "choco train --seed 3"
    assert portable_command("choco train --config 'a b.yaml'") == "choco train --config 'a b.yaml'"


def test_the_card_names_the_file_a_continued_run_started_from(tmp_path: Path) -> None:
    """A run that continues a file (``init_from``) is not rerun by its command alone: the
    card says which file it started from."""
    root = tmp_path / "checkpoints"
    root.mkdir()
    meta = toy_meta(**OPTIONS)
    meta["arena"] = {"random": result(0.9, 400), "greedy": result(0.5, 400)}
    meta["training"] = {
        "command": "choco train --seed 3",
        "minutes": 1.0,
        "args": {"init_from": "checkpoints/x/ppo.safetensors"},
    }
    run = save_checkpoint(tmp_path / "run.safetensors", nim_model(False), meta)
    ship(run, root, command="choco ship run.safetensors")
    readme = (root / "README.md").read_text()
    assert (
        "| training command | `choco train --seed 3`, starting from "
        "`checkpoints/x/ppo.safetensors` as it stood when the run began |"
    ) in readme


def test_a_file_over_the_size_budget_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The wheel carries every shipped file: one larger than the budget is refused,
    naming its size and the budget, and nothing is written."""
    import choco_envs.policy.checkpoint as checkpoint_module

    big = checkpoint(tmp_path / "big.safetensors")
    monkeypatch.setattr(checkpoint_module, "SHIPPED_BUDGET_BYTES", big.stat().st_size - 1)
    with pytest.raises(ConfigError, match=r"KB; a shipped file must be at most .* KB"):
        ship(big, tmp_path / "shipped")
    assert not (tmp_path / "shipped").exists()


def test_every_shipped_file_is_within_the_size_budget() -> None:
    from choco_envs.policy.checkpoint import SHIPPED_BUDGET_BYTES

    root = Path(__file__).resolve().parents[2] / "checkpoints"
    files = sorted(root.rglob("*.safetensors"))
    assert files
    over = {f.name: f.stat().st_size for f in files if f.stat().st_size > SHIPPED_BUDGET_BYTES}
    assert not over, over


def _trained_nim(tmp_path: Path) -> Path:
    from choco_envs.train.ppo import Args, train

    args = Args(
        env_id=ENV_ID, options=dict(OPTIONS), total_timesteps=256, num_envs=4, num_steps=8,
        hidden=(32,), eval_every=0, final_eval_games=400, track=False, progress=False,
        runs_dir=str(tmp_path / "runs"), run_name="nim",
    )  # fmt: skip
    return train(args)


def test_a_float16_copy_halves_the_weights_and_measures_its_evaluation_again(
    tmp_path: Path,
) -> None:
    """``choco ship --float16`` ships a copy whose weights are rounded to float16: half
    the bytes, the evaluation played again by the rounded network on the run's deals."""
    import json
    import struct

    from choco_envs.policy.checkpoint import load_policy
    from choco_envs.train.compact import float16_copy

    run = _trained_nim(tmp_path)
    model, meta = load_policy(run)
    copy = float16_copy(run)
    assert copy == run.with_name("final.float16.safetensors")
    with copy.open("rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
    header.pop("__metadata__")
    assert {entry["dtype"] for entry in header.values()} == {"F16"}
    data = lambda p: p.stat().st_size - 8 - struct.unpack("<Q", p.read_bytes()[:8])[0]  # noqa: E731
    assert data(copy) * 2 == data(run)
    half, half_meta = load_policy(copy)
    for name, tensor in model.state_dict().items():
        assert half.state_dict()[name].dtype == torch.float32  # widened on load
        assert torch.equal(half.state_dict()[name], tensor.half().float())
    assert half_meta["weights"] == {
        "dtype": "float16", "rounded_from": file_sha256(run), "arena_before": meta["arena"],
    }  # fmt: skip
    for opponent in ("random", "greedy"):  # the same games on the same deals
        again, before = half_meta["arena"][opponent], meta["arena"][opponent]
        assert (again["games"], again["seed"]) == (before["games"], before["seed"])
    # measured again, not copied: a file whose stored figure no network earns
    meta["arena"]["random"] = result(0.123)
    marked = save_checkpoint(tmp_path / "marked.safetensors", model, meta)
    remeasured = read_metadata(float16_copy(marked))
    assert remeasured["weights"]["arena_before"]["random"]["win_rate"] == 0.123
    assert (
        remeasured["arena"]["random"]["win_rate"]
        == half_meta["arena"]["random"]["win_rate"]
        != 0.123
    )
    with pytest.raises(ConfigError, match="holds float16 weights already"):
        float16_copy(copy)
    root = tmp_path / "shipped"
    shipped = ship(run, root, float16=True, command="choco ship final.safetensors --float16")
    assert file_sha256(shipped) == file_sha256(copy)
    assert (
        "float16 weights: the figures below are the rounded network's"
        in (root / "README.md").read_text()
    )


def test_a_float16_copy_of_an_az_file_is_measured_again_by_the_az_engines_evaluation(
    tmp_path: Path,
) -> None:
    """An ``az`` engine's file (its own training arguments) makes a float16 copy too: the
    network alone played again by that engine's final evaluation (its ``eval_opponents``,
    the same deals), and the search's stored figures, the float32 network's, set aside
    (``weights.arena_search_before``) rather than carried over as the copy's."""
    from choco_envs.policy.checkpoint import load_policy
    from choco_envs.train import az
    from choco_envs.train.compact import float16_copy

    run = az.train(
        az.Args(
            env_id="chocolates_v0", options={"num_players": 2}, hidden=(16,), total_games=2,
            num_games=2, simulations=2, max_considered=2, play_simulations=2,
            eval_opponents=("random",), final_eval_games=4, search_eval_games=2,
            search_eval_opponents=("random",), eval_every_minutes=60.0, track=False,
            progress=False, runs_dir=str(tmp_path), run_name="az",
        )
    )  # fmt: skip
    _, meta = load_policy(run)
    assert set(meta["arena"]) == {"random"} and meta["arena_search"]
    half = read_metadata(float16_copy(run))
    assert half["weights"]["dtype"] == "float16"
    assert half["weights"]["arena_before"] == meta["arena"]
    assert set(half["arena"]) == {"random"}  # the az engine's opponents, not random+greedy
    again, before = half["arena"]["random"], meta["arena"]["random"]
    assert (again["games"], again["seed"]) == (before["games"], before["seed"])
    assert half["arena_search"] == {}
    assert half["weights"]["arena_search_before"] == meta["arena_search"]


def test_an_az_files_card_names_its_value_warm_up_and_the_bots_it_was_fitted_against(
    tmp_path: Path,
) -> None:
    """A file of a value warm-up alone (no self-play game) says on its card what trained
    it: the warm-up's games and, when every other seat was a league bot, which."""
    from choco_envs.policy.checkpoint import load_policy
    from choco_envs.train import az
    from choco_envs.train.ship import model_card

    start = _trained_nim(tmp_path)
    run = az.train(
        az.Args(
            env_id=ENV_ID, options=dict(OPTIONS), hidden=(32,), init_from=str(start),
            value_warmup_games=4, bot_seats=1.0, league_bots={"greedy": 1.0},
            max_minutes=0.0, total_games=0, final_eval_games=4, track=False,
            progress=False, runs_dir=str(tmp_path / "runs"), run_name="fitted",
        )
    )  # fmt: skip
    _, meta = load_policy(run)
    card = model_card(run, meta, "choco ship", "nothing replaced", None, None)
    assert (
        "| trained | 0 self-play games, 0.0 min of search and learning, after fitting its "
        "value on 4 games of the started policy against `greedy` (value_warmup_games) |"
    ) in card


def az_file(path: Path, perfect: bool, simulations: int = 2) -> Path:
    """A file of the az engine on toy Nim: the linear policy of ``nim_model`` with a stored
    search of ``simulations``, its stored evaluation 400 games a bot."""
    meta = read_metadata(checkpoint(path, perfect=perfect))
    meta["training"] = {"command": "choco train --engine az", "engine": "az", "minutes": 1.0}
    meta["search"] = {"simulations": simulations, "c_scale": 0.1}
    return save_checkpoint(path, nim_model(perfect), meta)


def test_head_to_head_search_plays_the_two_az_files_searches(tmp_path: Path) -> None:
    """``--head-to-head N --search``: the new az file replaces the shipped one only when
    ``az:checkpoint=NEW`` beats ``az:checkpoint=OLD`` (each its file's default search)
    with a 95% interval wholly above an even share; the same file against itself is not
    above it and is refused, the shipped file untouched."""
    root = tmp_path / "checkpoints"
    old = ship(az_file(tmp_path / "weak.safetensors", perfect=False), root)
    assert old == root / ENV_ID / "az.safetensors"
    before = file_sha256(old)
    same = az_file(tmp_path / "same.safetensors", perfect=False)
    with pytest.raises(ConfigError, match="head-to-head of the searches: new az won"):
        ship(same, root, force=True, head_to_head=400, search=True, seed=3)
    assert file_sha256(old) == before
    strong = az_file(tmp_path / "strong.safetensors", perfect=True)
    shipped = ship(strong, root, force=True, head_to_head=400, search=True, seed=3)
    assert shipped == old and file_sha256(shipped) == file_sha256(strong)
    card = (root / "README.md").read_text()
    assert "head-to-head of the searches: new az won" in card
    assert "(even share 50.0%: above)" in card


def test_head_to_head_search_is_refused_without_head_to_head_or_for_a_ppo_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--search`` needs ``--head-to-head N``, and compares two az files: a PPO file
    on either side is refused, naming both engines; nothing is written."""
    root = tmp_path / "checkpoints"
    ship(checkpoint(tmp_path / "ppo_old.safetensors"), root)
    new = az_file(tmp_path / "new.safetensors", perfect=True)
    assert main(["ship", str(new), "--to", str(root), "--force", "--search"]) == 2
    assert "--search plays the head-to-head by search; it needs --head-to-head N" in (
        capsys.readouterr().err
    )
    ppo_run = checkpoint(tmp_path / "ppo_new.safetensors", perfect=True)
    with pytest.raises(ConfigError, match="the new file is 'ppo', the shipped one 'ppo'"):
        ship(ppo_run, root, force=True, head_to_head=400, search=True)
    assert sorted(p.name for p in (root / ENV_ID).iterdir()) == ["ppo.safetensors"]


# ---------------------------------------------------------------- learning curves
CURVE = {
    "unit": "steps",
    "points": [
        {"minutes": 1.0, "steps": 100, "win_rate": {"random": 0.6, "greedy": 0.2},
         "elo": {"random": 70.4, "greedy": -240.8}, "phase": "ppo"},
        {"minutes": 3.0, "steps": 300, "win_rate": {"random": 0.9, "greedy": 0.5},
         "elo": {"random": 381.7, "greedy": 0.0}, "phase": "final"},
    ],
}  # fmt: skip


def curved(path: Path, greedy: float = 0.5) -> Path:
    """A run file whose metadata stores its learning curve."""
    meta = read_metadata(checkpoint(path, greedy=greedy))
    meta["training"]["curve"] = CURVE
    return save_checkpoint(path, nim_model(False), meta)


def test_choco_ship_curves_draws_each_stored_curve_and_names_the_files_without(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "checkpoints"
    (root / ENV_ID).mkdir(parents=True)
    curved(root / ENV_ID / "ppo.safetensors")
    checkpoint(root / ENV_ID / "ppo_old.safetensors")
    out = tmp_path / "docs" / "curves"
    assert main(["ship", "--curves", str(out), "--to", str(root)]) == 0
    lines = capsys.readouterr().out.splitlines()
    png = out / f"{ENV_ID}__ppo.png"
    assert lines == [
        f"{ENV_ID}/ppo.safetensors: wrote {png}",
        f"{ENV_ID}/ppo_old.safetensors: no curve stored (trained before curves were kept)",
    ]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in out.iterdir()) == [png.name]
    assert not (root / "README.md").exists()  # drawing ships nothing


@pytest.mark.parametrize(
    "extra, named",
    [(["RUN"], "RUN_FILE"), (["--force"], "--force"), (["--name", "ppo_x"], "--name 'ppo_x'"),
     (["--head-to-head", "400"], "--head-to-head 400"), (["--every-table", "400"],
     "--every-table 400"), (["--table"], "--table")],
)  # fmt: skip
def test_choco_ship_curves_ships_nothing_and_refuses_what_would(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], named: str
) -> None:
    run = curved(tmp_path / "run.safetensors")
    root = tmp_path / "checkpoints"
    root.mkdir()
    extra = [str(run) if word == "RUN" else word for word in extra]
    out = tmp_path / "curves"
    assert main(["ship", "--curves", str(out), "--to", str(root), *extra]) == 2
    err = capsys.readouterr().err
    assert err.startswith("choco ship: error:") and err.count("\n") == 1
    assert named in err and "drop" in err
    assert not out.exists() and not any(root.iterdir())


def test_shipping_a_file_with_a_curve_draws_it_in_a_source_checkout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """In a source checkout (docs/img/curves beside checkpoints/) the shipped file's
    curve is drawn there and the card links it; an installed copy (no such folder)
    writes no image and no row; a file without a curve replacing one drops the stale
    image."""
    repo = tmp_path / "repo"
    (repo / "docs" / "img" / "curves").mkdir(parents=True)
    root = repo / "checkpoints"
    root.mkdir()
    run = curved(tmp_path / "run.safetensors")
    assert main(["ship", str(run), "--to", str(root)]) == 0
    png = repo / "docs" / "img" / "curves" / f"{ENV_ID}__ppo.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"its learning curve: {png}" in capsys.readouterr().out
    where = f"docs/img/curves/{ENV_ID}__ppo.png"
    assert f"| curve | [{where}](../{where}) " in (root / "README.md").read_text()
    # replaced by a better file that stores no curve: the old image goes with the old file
    ship(checkpoint(tmp_path / "plain.safetensors", greedy=0.7), root, force=True)
    assert not png.exists() and "| curve |" not in (root / "README.md").read_text()
    # an installed copy: nothing beside the checkpoints folder, nothing written there
    wheel = tmp_path / "site" / "checkpoints"
    wheel.mkdir(parents=True)
    ship(run, wheel)
    assert sorted(p.name for p in wheel.parent.iterdir()) == ["checkpoints"]
    assert "| curve |" not in (wheel / "README.md").read_text()


# ---------------------------------------------------------------- --record
def _shipped_and_report(tmp_path: Path, games: int = 400) -> tuple[Path, Path, Path]:
    """(the checkpoints folder, the shipped toy file, the JSON report of `az` on it
    against random, ``games`` games at 2 players)."""
    import json

    from choco_envs.arena import run_arena

    root = tmp_path / "checkpoints"
    root.mkdir()
    shipped = ship(checkpoint(tmp_path / "run.safetensors", perfect=True), root)
    report = run_arena(
        ENV_ID, [f"az:checkpoint={shipped},simulations=4", "random"], games=games, seed=3,
        env_options=OPTIONS, progress=False,
    )  # fmt: skip
    path = tmp_path / "report.json"
    path.write_text(json.dumps(report))
    return root, shipped, path


def test_record_stores_a_search_result_in_the_file_it_played_and_its_card(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``choco ship --record REPORT``: the search bot's 400-game result lands in the
    shipped file it played (``arena_search``), found by the digest of its tensors; the
    tensors stay, the card gains the row and follows the file's new sha256, the table
    shows it."""
    import json

    from choco_envs.policy.checkpoint import weights_sha256

    root, shipped, path = _shipped_and_report(tmp_path)
    report = json.loads(path.read_text())
    bot = f"az:checkpoint={shipped},simulations=4"
    row = next(r for r in report["bots"] if r["name"] == bot)
    weights, before = weights_sha256(shipped), file_sha256(shipped)
    assert main(["ship", "--record", str(path), "--to", str(root)]) == 0
    assert f"recorded in {shipped}: {bot} vs random" in capsys.readouterr().out
    stored = read_metadata(shipped)["arena_search"]["random"]
    assert stored["win_rate"] == row["win_rate"] and stored["games"] == 400
    assert stored["bot"] == bot and stored["seed"] == 3 and stored["players"] == 2
    assert stored["search"]["simulations"] == 4  # the budget the report's bot was given
    assert weights_sha256(shipped) == weights and file_sha256(shipped) != before
    readme = (root / "README.md").read_text()
    assert f"| with search vs random | {bot} vs random: {row['win_rate']:.1%}" in readme
    assert "; 4 simulations, c_scale " in readme
    replay = f"`choco eval --env {ENV_ID} --env-option stones=13 --players 2 --bots {bot} random "
    assert replay + "--games 400 --seed 3` |" in readme  # the command that replays the run
    assert f"| sha256 | `{file_sha256(shipped)}` |" in readme and before not in readme
    table = readme.split(TABLE_BEGIN)[1].split(TABLE_END)[0]
    assert f"{bot} vs random: {row['win_rate']:.1%}" in table
    # the file still plays: its network and the rest of its metadata as they were
    from choco_envs.policy.checkpoint import load_policy

    model, meta = load_policy(shipped)
    assert meta["arena"]["greedy"]["win_rate"] == 0.5
    assert torch.equal(model.actor.weight, nim_model(True).actor.weight)


def test_record_default_search_sets_the_c_scale_every_stored_result_played(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``choco ship --record REPORT --default-search``: the recorded bot's ``c_scale``
    becomes what a plain ``az`` plays with the file, and is refused (nothing written)
    while another stored result was played at a different ``c_scale``."""
    import json

    from choco_envs.arena import run_arena
    from choco_envs.policy.az_bot import AZBot
    from choco_envs.train.ship import record

    root, shipped, path = _shipped_and_report(tmp_path)
    before = AZBot(shipped, ENV_ID).config.c_scale
    assert before != 0.5
    assert main(["ship", "--record", str(path), "--to", str(root)]) == 0  # vs random
    played = {}
    for opponent in ("random", "greedy"):
        report = run_arena(
            ENV_ID, [f"az:checkpoint={shipped},simulations=4,c_scale=0.5", opponent],
            games=400, seed=5, env_options=OPTIONS, progress=False,
        )  # fmt: skip
        played[opponent] = tmp_path / f"c05_{opponent}.json"
        played[opponent].write_text(json.dumps(report))
    # the stored result vs random was played at the file's c_scale, not 0.5: refused
    sha = file_sha256(shipped)
    with pytest.raises(ConfigError, match=rf"c_scale 0.5 .*vs random at c_scale {before!r}"):
        record(played["greedy"], root, default_search=True)
    assert file_sha256(shipped) == sha and AZBot(shipped, ENV_ID).config.c_scale == before
    # recorded again at 0.5 (replacing the row vs random): now every row played 0.5
    assert main(["ship", "--record", str(played["random"]), "--to", str(root)]) == 0
    assert main(["ship", "--record", str(played["greedy"]), "--to", str(root),
                 "--default-search"]) == 0  # fmt: skip
    assert "the file's default search now plays c_scale 0.5 with 4 simulations" in (
        capsys.readouterr().out
    )
    meta = read_metadata(shipped)
    assert meta["search"]["c_scale"] == 0.5 and meta["search"]["simulations"] == 4
    assert {row["search"]["c_scale"] for row in meta["arena_search"].values()} == {0.5}
    assert AZBot(shipped, ENV_ID).config.c_scale == 0.5
    # a report that names no c_scale, and the flag without --record, are refused
    bare = json.loads(played["greedy"].read_text())
    for entry in bare["config"]["checkpoints"].values():
        entry["search"].pop("c_scale")
    played["greedy"].write_text(json.dumps(bare))
    with pytest.raises(ConfigError, match="names no c_scale"):
        record(played["greedy"], root, default_search=True)
    assert main(["ship", "--default-search", "--to", str(root)]) == 2


def test_record_default_search_sets_the_simulations_every_stored_result_played(
    tmp_path: Path,
) -> None:
    """A result played at a number of simulations makes that number the file's default
    too, refused (nothing written) while another stored result played another number at
    the same ``c_scale``; a result at seconds a move leaves the default's number alone."""
    import json

    from choco_envs.arena import run_arena
    from choco_envs.policy.az_bot import AZBot
    from choco_envs.train.ship import record

    root, shipped, _ = _shipped_and_report(tmp_path)
    c_scale = AZBot(shipped, ENV_ID).config.c_scale
    before = AZBot(shipped, ENV_ID).simulations
    played = {}
    for opponent, budget in (("random", "simulations=4"), ("greedy", "simulations=8"),
                             ("random#t", "time=0.001")):  # fmt: skip
        report = run_arena(
            ENV_ID, [f"az:checkpoint={shipped},{budget},c_scale={c_scale}",
                     opponent.split("#")[0]],
            games=400, seed=5, env_options=OPTIONS, progress=False,
        )  # fmt: skip
        played[opponent] = tmp_path / f"{opponent}.json"
        played[opponent].write_text(json.dumps(report))
    record(played["random"], root)  # 4 simulations vs random
    sha = file_sha256(shipped)
    with pytest.raises(ConfigError, match=r"8 simulations .*vs random at c_scale .* with 4 simul"):
        record(played["greedy"], root, default_search=True)
    assert file_sha256(shipped) == sha and AZBot(shipped, ENV_ID).simulations == before
    record(played["random#t"], root)  # vs random again, now at seconds a move
    record(played["greedy"], root, default_search=True)
    meta = read_metadata(shipped)
    assert meta["search"]["simulations"] == 8 and AZBot(shipped, ENV_ID).simulations == 8


def test_default_search_takes_the_leaf_batch_and_considered_every_stored_result_played() -> None:
    """``--default-search`` takes the recorded result's ``leaf_batch`` (``az:batch=K``;
    absent: 1) and ``max_considered`` (``az:considered=K``) into the file's default,
    refused while another stored result was played at another batch or number considered,
    and a result at batch 1 drops an earlier default's batch."""
    from choco_envs.train.ship import default_search_of

    def row(batch: int | None) -> dict[str, Any]:
        search: dict[str, Any] = {"simulations": 64, "c_scale": 0.1, "seconds": None}
        if batch is not None:
            search["leaf_batch"] = batch
        return {"search": search}

    meta: dict[str, Any] = {"search": {"c_scale": 0.1, "simulations": 64}}
    block = default_search_of(meta, {"greedy": row(4), "random": row(4)}, "greedy", "w")
    assert block == {"c_scale": 0.1, "simulations": 64, "leaf_batch": 4}
    with pytest.raises(ConfigError, match="leaf_batch 4 .*vs random measured .leaf_batch 1"):
        default_search_of(meta, {"greedy": row(4), "random": row(None)}, "greedy", "w")
    back = default_search_of({"search": block}, {"greedy": row(1)}, "greedy", "w")
    assert "leaf_batch" not in back

    # the number of root actions considered: taken from the result, refused while another
    # stored row played another number (a row that names none played the file's 16)
    def narrow(considered: int | None) -> dict[str, Any]:
        row_search = {**row(None)["search"]}
        if considered is not None:
            row_search["max_considered"] = considered
        return {"search": row_search}

    wide = {"search": {**back, "max_considered": 16}}
    taken = default_search_of(wide, {"greedy": narrow(8), "random": narrow(8)}, "greedy", "w")
    assert taken["max_considered"] == 8
    with pytest.raises(ConfigError, match=r"8 root actions considered .*vs random .*\(16\)"):
        default_search_of(wide, {"greedy": narrow(8), "random": narrow(None)}, "greedy", "w")
    unnamed = {"search": {"c_scale": 0.1, "simulations": 64}}  # the search's default: 16
    with pytest.raises(ConfigError, match=r"\(16\)"):
        default_search_of(unnamed, {"greedy": narrow(8), "random": narrow(None)}, "greedy", "w")
    assert default_search_of(wide, {"greedy": narrow(16), "random": narrow(None)}, "greedy",
                             "w")["max_considered"] == 16  # fmt: skip


def test_record_against_mcts_replaces_the_files_result_against_mcts_at_another_setting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file keeps one comparison with ``mcts`` (at the search's own time a move): a
    result against ``mcts`` at another setting replaces the stored one, in the file and on
    its card, while results against other bots stay beside it."""
    import json

    from choco_envs.arena import run_arena
    from choco_envs.train.ship import record

    root, shipped, path = _shipped_and_report(tmp_path)
    record(path, root)  # vs random
    bot = f"az:checkpoint={shipped},simulations=4"
    played = {}
    for opponent in ("mcts:simulations=2", "mcts:simulations=8"):
        report = run_arena(ENV_ID, [bot, opponent], games=400, seed=5, env_options=OPTIONS,
                           progress=False)  # fmt: skip
        played[opponent] = tmp_path / f"{opponent.replace(':', '_')}.json"
        played[opponent].write_text(json.dumps(report))
    record(played["mcts:simulations=2"], root)
    first = read_metadata(shipped)["arena_search"]["mcts:simulations=2"]["win_rate"]
    assert main(["ship", "--record", str(played["mcts:simulations=8"]), "--to", str(root)]) == 0
    out = capsys.readouterr().out
    assert f"(replaces {bot} vs mcts:simulations=2 at {first:.1%})" in out
    stored = read_metadata(shipped)["arena_search"]
    assert sorted(stored) == ["mcts:simulations=8", "random"]
    card = (root / "README.md").read_text().split("<!-- card: ")[1]
    assert "| with search vs mcts:simulations=8 |" in card
    assert "| with search vs mcts:simulations=2 |" not in card
    assert "| with search vs random |" in card


def test_record_refuses_what_is_not_a_400_game_search_result_on_a_shipped_file(
    tmp_path: Path,
) -> None:
    import json

    from choco_envs.train.ship import record

    root, shipped, path = _shipped_and_report(tmp_path, games=40)
    before = file_sha256(shipped)
    with pytest.raises(ConfigError, match="40 games; allowed: >= 400"):
        record(path, root)
    report = json.loads(path.read_text())
    report["games_played"] = 400
    for change, why in (
        ({"players": 3}, "played at 3 players; allowed: 2"),
        ({"bots": ["greedy", "random"]}, "0 of its bots play a shipped file"),
        ({"bots": ["a", "b", "c"]}, "allowed: two bots"),
        ({"checkpoints": {}}, "0 of its bots play a shipped file"),
    ):
        bad = {**report, "config": {**report["config"], **change}}
        path.write_text(json.dumps(bad))
        with pytest.raises(ConfigError, match=why):
            record(path, root)
    # the network alone is not recorded this way: its figures are the training's
    alone = {**report, "config": {**report["config"]}}
    name = f"policy:{shipped}"
    first = alone["config"]["bots"][0]
    alone["config"]["bots"] = [name, "random"]
    alone["config"]["checkpoints"] = {name: alone["config"]["checkpoints"][first]}
    alone["bots"] = [
        {**r, "name": name if r["name"] == first else r["name"]} for r in alone["bots"]
    ]
    path.write_text(json.dumps(alone))
    with pytest.raises(ConfigError, match="is not a search bot"):
        record(path, root)
    path.write_text("{not json")
    with pytest.raises(ConfigError, match="is not JSON"):
        record(path, root)
    path.write_text("{}")
    with pytest.raises(ConfigError, match="is not an arena report"):
        record(path, root)
    with pytest.raises(ConfigError, match="does not exist"):
        record(tmp_path / "missing.json", root)
    assert file_sha256(shipped) == before, "a refused record changes nothing"
    assert main(["ship", str(shipped), "--record", str(path), "--to", str(root)]) == 2
