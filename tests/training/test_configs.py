"""Configs and flags of training/ppo_selfplay.py: only Args overrides, checked."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from choco_envs.core.errors import ConfigError
from choco_envs.policy.args import add_arguments, build, field_docs, load_config
from choco_envs.policy.train_cli import find_script, load_script
from choco_envs.registry import make_game

REPO = Path(__file__).resolve().parents[2]
CONFIGS = sorted((REPO / "configs").glob("*/ppo*.yaml"))
Args = load_script(find_script()).Args


@pytest.mark.parametrize("path", CONFIGS, ids=[f"{p.parent.name}/{p.name}" for p in CONFIGS])
def test_shipped_config_builds_valid_args_for_its_env(path: Path) -> None:
    args = build(Args, load_config(path))
    assert args.env_id == path.parent.name
    make_game(args.env_id, **args.options)  # the options are valid for the env
    assert args.save_path.startswith(f"checkpoints/{args.env_id}/")


def test_every_env_and_edition_has_a_config() -> None:
    names = {f"{p.parent.name}/{p.name}" for p in CONFIGS}
    assert {
        "chocolates_v0/ppo.yaml",
        "le_chocolat_v0/ppo.yaml",
        "chocolatiers_v1/ppo.yaml",
        "chocolatiers_v1/ppo_classic.yaml",
        "chocolate_factory_v1/ppo.yaml",
    } <= names


def test_every_args_field_has_a_docstring() -> None:
    docs = field_docs(Args)
    assert set(docs) == set(Args.__dataclass_fields__) and all(docs.values())


def test_unknown_config_key_is_refused_naming_the_allowed_ones(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("env_id: chocolates_v0\nlearning_rat: 0.1\n")
    with pytest.raises(
        ConfigError, match=r"unknown config key\(s\) \['learning_rat'\].*learning_rate"
    ):
        build(Args, load_config(bad))


def test_flags_override_the_config_and_dicts_merge(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("seed: 5\nhidden: [64, 64]\noptions: {num_players: 3}\n")
    parser = argparse.ArgumentParser()
    add_arguments(parser, Args)
    ns = parser.parse_args(["--seed", "7", "--options", "edition=classic", "--anneal-lr", "false"])
    args = build(Args, load_config(config), ns)
    assert (args.seed, args.hidden, args.anneal_lr) == (7, (64, 64), False)
    assert args.options == {"num_players": 3, "edition": "classic"}


def test_bad_flag_value_names_the_field() -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser, Args)
    with pytest.raises(ConfigError, match="bad value 'many' for num_envs"):
        build(Args, {}, parser.parse_args(["--num-envs", "many"]))
