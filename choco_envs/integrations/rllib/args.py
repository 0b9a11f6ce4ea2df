"""``Args`` of the RLlib trainer (CleanRL style: one field, one docstring, one flag) and
their reading from a YAML config plus command-line flags (flags win)."""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from choco_envs.core.errors import ConfigError


@dataclass
class Args:
    env_id: str = "chocolates_v0"
    """the env to train on (see `choco list`)"""
    options: dict = field(default_factory=lambda: {"num_players": 2})
    """game options (num_players and rule options; `--options num_players=3`)"""
    encoder: str = "flat"
    """observation encoder (flat, or planes, flattened for the MLP)"""
    seed: int = 1
    """seed of RLlib, the league draws and torch"""
    iterations: int = 100
    """training iterations (each samples train_batch_size env steps, then updates)"""
    total_timesteps: int = 0
    """also stop once this many env steps were sampled (RLlib's count: network decisions;
    0: no limit)"""
    max_minutes: float = 0.0
    """also stop after this many minutes (0: no limit)"""
    address: str = ""
    """Ray cluster to join (`auto` on a cluster node, or `ray://HEAD:10001`); empty: start
    a local Ray with num_cpus CPUs"""
    ship_package: bool = True
    """with address: upload this choco_envs package to the cluster's workers (Ray
    runtime_env py_modules), so that every node runs this version of it"""
    num_cpus: int = 2
    """CPUs of the local Ray (ignored with address)"""
    num_env_runners: int = 0
    """remote EnvRunner actors sampling games (0: sample in the driver process)"""
    num_envs_per_env_runner: int = 8
    """games each EnvRunner steps together (one batched forward pass)"""
    num_learners: int = 0
    """remote Learner actors (0: learn in the driver process)"""
    num_gpus_per_learner: float = 0.0
    """GPUs per Learner (0: CPU)"""
    train_batch_size: int = 4000
    """env steps per training iteration (per learner)"""
    minibatch_size: int = 500
    """SGD minibatch size"""
    num_epochs: int = 4
    """epochs over each train batch"""
    lr: float = 2.5e-4
    """Adam learning rate"""
    gamma: float = 1.0
    """discount factor (rewards come only at the end of a game)"""
    gae_lambda: float = 0.95
    """lambda of generalized advantage estimation"""
    clip_param: float = 0.2
    """PPO clipping coefficient"""
    entropy_coeff: float = 0.01
    """entropy bonus coefficient"""
    vf_loss_coeff: float = 0.5
    """value loss coefficient"""
    grad_clip: float = 0.5
    """gradient clipping (global norm)"""
    hidden: tuple = (256, 256)
    """sizes of the MLP hidden layers (the exported ActorCritic has the same)"""
    league_self_play: float = 0.5
    """probability that a non-learner seat is main too (self-play)"""
    league_past: float = 0.3
    """probability that a non-learner seat is a frozen snapshot of main"""
    league_bots: dict = field(default_factory=lambda: {"random": 0.5, "greedy": 0.5})
    """baseline bots for the remaining seats, with their relative weights"""
    win_rate_threshold: float = 0.6
    """snapshot main when its win rate over the last 100 games against the league (bots
    and snapshots) exceeds this"""
    pool_size: int = 5
    """frozen snapshots kept in the league (the oldest is overwritten)"""
    snapshot_gap: int = 5
    """iterations at least between two snapshots"""
    eval_every: int = 0
    """iterations between arena evaluations of the exported policy against random and
    greedy (0: only at the end)"""
    eval_games: int = 40
    """games per opponent in each periodic evaluation"""
    final_eval_games: int = 100
    """games per opponent in the final evaluation stored in the checkpoint (0: none)"""
    save_path: str = ""
    """exported checkpoint (default runs/<run_name>/final.safetensors)"""
    rllib_checkpoint: bool = True
    """also save RLlib's own checkpoint to runs/<run_name>/rllib (export reads it)"""
    run_name: str = ""
    """name of the run (default <env_id>__rllib_ppo__<seed>)"""
    track: bool = True
    """write TensorBoard scalars to runs/<run_name>"""
    torch_threads: int = 1
    """torch CPU threads of the driver (the learner)"""


def field_docs(cls: type) -> dict[str, str]:
    """The docstring under each field of a dataclass."""
    body = ast.parse(textwrap.dedent(inspect.getsource(cls))).body[0]
    items = getattr(body, "body", [])
    docs = {}
    for node, after in zip(items, items[1:], strict=False):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
        ):
            docs[node.target.id] = " ".join(str(after.value.value).split())
    return docs


def _kind(name: str) -> type:
    return {f.name: f for f in dataclasses.fields(Args)}[name].type  # type: ignore[return-value]


def convert(name: str, value: Any) -> Any:
    """A config or flag value as the type of field ``name``; ConfigError if it is not."""
    kind = str(_kind(name))
    try:
        if kind == "bool":
            if isinstance(value, bool):
                return value
            if str(value).lower() in ("true", "1", "yes"):
                return True
            if str(value).lower() in ("false", "0", "no"):
                return False
            raise ValueError("expected true or false")
        if kind == "tuple":
            parts = value.split(",") if isinstance(value, str) else value
            return tuple(int(v) for v in parts if str(v).strip())
        if kind == "dict":
            if not isinstance(value, dict):
                raise ValueError("expected a mapping")
            return dict(value)
        if kind == "int":
            if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
                raise ValueError("expected an integer")
            return int(float(value)) if isinstance(value, str) else int(value)
        if kind == "float":
            return float(value)
        return str(value)
    except (TypeError, ValueError) as err:
        raise ConfigError(f"bad value {value!r} for {name} ({kind}): {err}") from err


def add_arguments(parser: argparse.ArgumentParser, config_flag: bool = True) -> None:
    """``--config`` (unless the parser has its own) and one ``--kebab-case`` flag per
    Args field."""
    if config_flag:
        parser.add_argument("--config", help="YAML file of Args overrides")
    docs = field_docs(Args)
    defaults = Args()
    for f in dataclasses.fields(Args):
        flag = "--" + f.name.replace("_", "-")
        help_text = f"{docs.get(f.name, '')} (default: {getattr(defaults, f.name)!r})"
        if str(f.type) == "dict":
            parser.add_argument(flag, action="append", metavar="KEY=VALUE", help=help_text)
        else:
            parser.add_argument(flag, default=None, help=help_text)


def build(ns: argparse.Namespace) -> Args:
    """Args from the defaults, then ``ns.config``, then the flags given."""
    import yaml

    config: dict[str, Any] = {}
    if getattr(ns, "config", None):
        path = Path(ns.config)
        if not path.is_file():
            raise ConfigError(f"config file {str(path)!r} does not exist")
        config = yaml.safe_load(path.read_text()) or {}
        if not isinstance(config, dict):
            raise ConfigError(f"config file {str(path)!r} must hold a mapping of Args fields")
    names = [f.name for f in dataclasses.fields(Args)]
    unknown = sorted(set(config) - set(names))
    if unknown:
        raise ConfigError(f"unknown config key(s) {unknown}; allowed keys: {', '.join(names)}")
    values = {k: convert(k, v) for k, v in config.items()}
    for name in names:
        given = getattr(ns, name, None)
        if given is None:
            continue
        if str(_kind(name)) == "dict":
            merged = dict(values.get(name, getattr(Args(), name)))
            for item in given:
                key, sep, raw = item.partition("=")
                if not sep:
                    raise ConfigError(f"--{name.replace('_', '-')} expects KEY=VALUE, got {item!r}")
                merged[key] = yaml.safe_load(raw)
            values[name] = merged
        else:
            values[name] = convert(name, given)
    return Args(**values)
