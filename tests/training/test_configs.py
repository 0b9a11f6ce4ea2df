"""Configs and flags of `choco train`: only Args overrides, every bad one a one-line
ConfigError with exit status 2 and nothing written."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from choco_envs.cli import main
from choco_envs.core.errors import ConfigError
from choco_envs.registry import make_game
from choco_envs.train.config import add_flags, build, field_docs, load_yaml
from choco_envs.train.ppo import Args, prepare

REPO = Path(__file__).resolve().parents[2]
CONFIGS = sorted((REPO / "configs").glob("*/ppo*.yaml"))
AZ_CONFIGS = sorted((REPO / "configs").glob("*/az*.yaml"))
RLLIB_CONFIGS = sorted((REPO / "configs").glob("*/rllib*.yaml"))


@pytest.mark.parametrize("path", CONFIGS, ids=[f"{p.parent.name}/{p.name}" for p in CONFIGS])
def test_each_config_makes_valid_args_for_its_env(path: Path) -> None:
    """Everything a run checks before it starts passes; it writes under runs/."""
    args = build(Args, load_yaml(path))
    assert args.env_id == path.parent.name and args.encoder in ("flat", "planes")
    setup = prepare(args)
    assert setup.save_path.parts[0] == "runs" and "checkpoints" not in setup.save_path.parts
    make_game(args.env_id, **args.options)


@pytest.mark.parametrize("path", AZ_CONFIGS, ids=[f"{p.parent.name}/{p.name}" for p in AZ_CONFIGS])
def test_each_az_config_makes_valid_args_for_its_env(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The search-and-learn configs (``choco train --engine az``): only az Args overrides,
    every check before a run passes (its init_from file loads for the env)."""
    from choco_envs.train import az

    monkeypatch.chdir(REPO)
    args = build(az.Args, load_yaml(path))
    assert args.env_id == path.parent.name
    if args.init_from.startswith("runs/"):
        # a run's file that a checkout does not hold: the chain that makes it is
        # documented, and the env's shipped PPO file (the chain's start, the same
        # network) passes every check in its place
        assert (
            f"--run-name {Path(args.init_from).parent.name}"
            in (REPO / "docs" / "training.md").read_text()
        )
        args.init_from = str(REPO / "checkpoints" / args.env_id / "ppo.safetensors")
    az.prepare(args)
    assert args.run_dir.parts[0] == "runs"


@pytest.mark.parametrize(
    "path", RLLIB_CONFIGS, ids=[f"{p.parent.name}/{p.name}" for p in RLLIB_CONFIGS]
)
def test_each_rllib_config_makes_valid_args_for_its_env(path: Path) -> None:
    """The RLlib trainer's configs (``choco train --engine rllib``), read by the same
    loader: only overrides of its Args, every check before Ray starts passes."""
    pytest.importorskip("ray.rllib")
    from choco_envs.integrations.rllib.args import Args as RllibArgs
    from choco_envs.integrations.rllib.train import check_args

    args = build(RllibArgs, load_yaml(path))
    assert args.env_id == path.parent.name
    check_args(args)
    assert args.run_dir.parts[0] == "runs" and args.final_path.parts[0] == "runs"


def test_one_config_per_env_edition_and_engine() -> None:
    assert {f"{p.parent.name}/{p.name}" for p in AZ_CONFIGS} == {
        "chocolates_v0/az.yaml",
        "chocolatiers_v1/az_standard.yaml",
        "chocolatiers_v1/az_classic.yaml",
        "chocolate_factory_v2/az.yaml",
        "le_chocolat_v0/az.yaml",
    }
    names = {f"{p.parent.name}/{p.name}" for p in CONFIGS}
    assert names == {
        "chocolates_v0/ppo.yaml",
        "le_chocolat_v0/ppo.yaml",
        "chocolatiers_v1/ppo_standard.yaml",
        "chocolatiers_v1/ppo_classic.yaml",
        "chocolate_factory_v2/ppo.yaml",
        # the recipes of the many-table files (ppo_tables) beside the 2-player ones; each
        # becomes its env's only PPO config once its file replaces the 2-player file
        "chocolate_factory_v2/ppo_tables.yaml",
        "chocolates_v0/ppo_tables.yaml",
        "chocolatiers_v1/ppo_tables_classic.yaml",
        "chocolatiers_v1/ppo_tables_standard.yaml",
    }
    assert {p.parent.name for p in RLLIB_CONFIGS} == {
        "chocolates_v0", "chocolatiers_v1", "chocolate_factory_v2", "le_chocolat_v0"
    } and {p.name for p in RLLIB_CONFIGS} == {"rllib.yaml"}  # fmt: skip
    # one folder of configs: every engine's, nothing else, nowhere else
    assert sorted((REPO / "configs").glob("*/*.yaml")) == sorted(
        CONFIGS + AZ_CONFIGS + RLLIB_CONFIGS
    )
    assert not (REPO / "examples" / "configs").exists()
    editions = {build(Args, load_yaml(p)).options.get("edition") for p in CONFIGS}
    assert {"standard", "classic"} <= editions


def _keys_as_text(value: object) -> object:
    """``value`` as the stored args hold it: through JSON (mapping keys as text, tuples as
    lists)."""
    return json.loads(json.dumps(value))


def test_every_shipped_file_has_a_recipe_and_every_recipe_is_its_files_run() -> None:
    """Each shipped file's config (``configs/<env>/<name>.yaml``, the one its card names) is
    the recipe of the file as shipped: every setting the config gives equals the one the
    file's run stored (``training.args``). A config changed for an experiment after its
    file shipped fails here until the file is replaced or the config restored
    (experiments override it with flags)."""
    from choco_envs.policy.checkpoint import read_metadata

    shipped = sorted((REPO / "checkpoints").glob("*/*.safetensors"))
    assert shipped
    for file in shipped:
        # the recipe of checkpoints/<env>/<name>.safetensors is configs/<env>/<name>.yaml
        config = REPO / "configs" / file.parent.name / f"{file.stem}.yaml"
        assert config.is_file(), f"{file.name} has no recipe {config.relative_to(REPO)}"
        stored = _keys_as_text(read_metadata(file)["training"]["args"])
        assert isinstance(stored, dict)
        for key, value in load_yaml(config).items():
            assert stored.get(key) == _keys_as_text(value), (file.name, config.name, key)


def test_every_args_field_has_a_docstring_shown_by_help(capsys: pytest.CaptureFixture[str]) -> None:
    import dataclasses

    names = [f.name for f in dataclasses.fields(Args)]
    docs = field_docs(Args)
    assert set(docs) == set(names) and all(docs.values())
    with pytest.raises(SystemExit) as done:
        main(["train", "--help"])
    out = capsys.readouterr().out
    assert done.value.code == 0
    for name in names:
        assert "--" + name.replace("_", "-") in out


def test_flags_override_the_config_and_dicts_merge(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("seed: 5\nhidden: [64, 64]\noptions: {num_players: 3}\nlearning_rate: 1e-3\n")
    parser = argparse.ArgumentParser()
    add_flags(parser, Args)
    flags = ["--seed", "7", "--options", "edition=classic", "--anneal-lr", "false",
             "--conv-channels", "--hidden", "32,32", "16"]  # fmt: skip
    args = build(Args, load_yaml(config), parser.parse_args(flags))
    assert (args.seed, args.hidden, args.anneal_lr, args.conv_channels) == (
        7,
        (32, 32, 16),
        False,
        (),
    )
    assert args.options == {"num_players": 3, "edition": "classic"}
    assert args.learning_rate == 1e-3  # YAML reads 1e-3 as text; the field is a float


def test_a_dict_flag_takes_many_pairs_at_once_or_repeated() -> None:
    """``--league-bots random=0.8 greedy=0.2`` (as docs/results.md writes it) and the flag
    repeated once a pair read the same."""
    parser = argparse.ArgumentParser()
    add_flags(parser, Args)
    together = build(Args, {}, parser.parse_args(["--league-bots", "random=0.8", "greedy=0.2"]))
    apart = build(
        Args, {}, parser.parse_args(["--league-bots", "random=0.8", "--league-bots", "greedy=0.2"])
    )
    assert together.league_bots == apart.league_bots == {"random": 0.8, "greedy": 0.2}


def test_a_dict_flag_takes_a_mapping_per_key_and_clears_an_entry_with_an_empty_one() -> None:
    """``--table-weights 'num_players={3: 2, 4: 2}'`` reads as the YAML ``table_weights:
    {num_players: {3: 2, 4: 2}}``, merged into the config key by key; ``num_players={}``
    empties that key (every count weighs 1), so a config's mapping is replaced by flags."""
    parser = argparse.ArgumentParser()
    add_flags(parser, Args)
    config = {
        "env_id": "chocolate_factory_v2", "player_counts": [2, 3, 4],
        "modes": {"length": ["short", "long"]},
        "table_weights": {"num_players": {2: 2}, "length": {"long": 3}},
    }  # fmt: skip
    args = build(Args, config, parser.parse_args(["--table-weights", "num_players={3: 2, 4: 2}"]))
    assert args.table_weights == {"num_players": {3: 2, 4: 2}, "length": {"long": 3}}
    cleared = build(Args, config, parser.parse_args(["--table-weights", "num_players={}"]))
    assert cleared.table_weights == {"num_players": {}, "length": {"long": 3}}
    with pytest.raises(
        ConfigError, match=r"--table-weights num_players: '\{3: 2' is not a YAML mapping"
    ):
        build(Args, {}, parser.parse_args(["--table-weights", "num_players={3: 2"]))
    with pytest.raises(ConfigError, match="allowed: an integer"):
        build(Args, {}, parser.parse_args(["--table-weights", "num_players={3: many}"]))


BAD_CONFIGS = [
    (
        "unknown key",
        "env_id: toy_nim_v0\nlearning_rat: 0.1\n",
        "unknown key(s) learning_rat; allowed keys: env_id",
    ),
    ("lr", "lr: -1\n", "key lr was renamed; use learning_rate"),
    ("num_epochs", "num_epochs: 2\n", "key num_epochs was renamed; use update_epochs"),
    ("clip_param", "clip_param: 0.1\n", "key clip_param was renamed; use clip_coef"),
    ("broken YAML", "env_id: [toy_nim_v0\n", "is not valid YAML at line"),
    ("not a mapping", "- 1\n- 2\n", "must hold a mapping"),
    ("num_envs 0", "num_envs: 0\n", "num_envs=0 is not allowed; allowed: 1..4096"),
    ("num_envs text", "num_envs: many\n", "num_envs: 'many' is not allowed; allowed: an integer"),
    ("num_envs float", "num_envs: 2.5\n", "num_envs: 2.5 is not allowed; allowed: an integer"),
    (
        "learning_rate -1",
        "learning_rate: -1\n",
        "learning_rate=-1.0 is not allowed; allowed: in (0, 1]",
    ),
    ("torch_threads 0", "torch_threads: 0\n", "torch_threads=0 is not allowed"),
    ("league_self_play 2.5", "league_self_play: 2.5\n", "league_self_play=2.5 is not allowed"),
    ("total_timesteps -100", "total_timesteps: -100\n", "total_timesteps=-100 is not allowed"),
    ("hidden [0]", "hidden: [0]\n", "hidden=(0,) is not allowed; allowed: sizes in 1..8192"),
    ("hidden text", "hidden: wide\n", "hidden: 'wide' is not allowed; allowed: a list"),
    ("gamma 5", "gamma: 5\n", "gamma=5.0 is not allowed; allowed: in (0, 1]"),
    ("nan", "ent_coef: .nan\n", "ent_coef: nan is not allowed; allowed: a finite number"),
    ("bool for int", "num_steps: true\n", "num_steps: True is not allowed; allowed: an integer"),
    ("league sum", "league_self_play: 0.8\nleague_past: 0.5\n", "league_past=0.5 is not allowed"),
    ("bad bot", "league_bots: {alphazero: 1}\n", "unknown bot kind 'alphazero'"),
    ("bad teacher", "imitate: nobody\n", "unknown bot kind 'nobody'"),
    ("bad options", "options: {num_players: 9}\n", "num_players"),
    ("removed encoder", "encoder: derived\n", "encoder='derived' is not allowed for toy_nim_v0"),
    ("bad save_path", "save_path: model.pt\n", "save_path='model.pt' is not allowed"),
    ("keep_best alone", "keep_best: true\neval_every: 0\n", "keep_best=True is not allowed"),
    ("workers", "num_workers: 3\nnum_envs: 8\n", "a multiple of num_workers=3"),
    (
        "opponents all 0",
        "imitate_opponents: {greedy: 0}\n",
        "imitate_opponents={'greedy': 0.0} is not allowed",
    ),
    ("conv on flat", "conv_channels: [8]\n", "conv_channels need (C, H, W) observations"),
]


@pytest.mark.parametrize(("case", "text", "message"), BAD_CONFIGS, ids=[c[0] for c in BAD_CONFIGS])
def test_bad_configs_are_one_line_errors_with_status_2(
    case: str, text: str, message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "bad.yaml"
    base = (
        "" if text.startswith(("- ", "env_id")) or case == "bad options" else "env_id: toy_nim_v0\n"
    )
    config.write_text(base + text)
    assert main(["train", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("choco train: error: ") and message in err, err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.yaml"]  # nothing written


def test_missing_config_and_bad_flags_are_one_line_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["train", "--config", str(tmp_path / "nowhere.yaml")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["train", "--env-id", "toy_nim_v0", "--gamma", "5"]) == 2
    assert "gamma=5.0 is not allowed" in capsys.readouterr().err
    assert main(["train", "--env-id", "toy_nim_v0", "--options", "stones"]) == 2
    assert "--options expects KEY=VALUE, got 'stones'" in capsys.readouterr().err


def test_bad_config_in_a_subprocess_exits_2_without_a_traceback(tmp_path: Path) -> None:
    """Through the installed entry points: `python -m choco_envs.cli train` and the
    launcher `training/ppo_selfplay.py`."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("env_id: chocolates_v0\nnum_envs: 0\n")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for command in (
        [sys.executable, "-m", "choco_envs.cli", "train", "--config", str(bad)],
        [sys.executable, str(REPO / "training" / "ppo_selfplay.py"), "--config", str(bad)],
    ):
        done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=120)  # fmt: skip
        assert done.returncode == 2, done.stderr
        assert done.stderr.strip().endswith("num_envs=0 is not allowed; allowed: 1..4096")
        assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_a_run_may_not_write_into_the_shipped_checkpoints(tmp_path: Path) -> None:
    from choco_envs.policy.checkpoint import checkpoint_dir

    shipped = checkpoint_dir()
    assert shipped is not None
    for bad in (
        {"save_path": str(shipped / "toy_nim_v0" / "ppo.safetensors")},
        {"runs_dir": str(shipped)},
    ):
        with pytest.raises(ConfigError, match="inside the shipped checkpoints folder"):
            prepare(Args(env_id="toy_nim_v0", **bad))


def test_docs_list_every_args_field_with_its_default() -> None:
    """docs/training.md's table of Args fields follows the dataclass."""
    import dataclasses

    from choco_envs.train.config import field_docs

    text = (REPO / "docs" / "training.md").read_text()
    docs = field_docs(Args)
    for f in dataclasses.fields(Args):
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[misc]
        assert f"| `{f.name}` | `{default!r}` | {docs[f.name]} |" in text, f.name
