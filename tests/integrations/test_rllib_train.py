"""The RLlib trainer end to end on a local Ray (``ray.init(num_cpus=2)``): a few tiny
iterations on two envs, a snapshot, the export, the exported file against the trained
RLlib module on 1,000 states, and one arena game with it through ``choco eval``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

import torch  # noqa: E402

from choco_envs.integrations.rllib.args import Args  # noqa: E402
from tests.integrations.test_rllib_env import decision_states  # noqa: E402

TINY = dict(
    iterations=2,
    train_batch_size=256,
    minibatch_size=128,
    update_epochs=1,
    hidden=(32, 32),
    num_envs_per_env_runner=2,
    win_rate_threshold=-1.0,  # snapshot at every chance: the snapshot path runs
    snapshot_gap=1,
    league_self_play=0.3,
    league_past=0.4,
    eval_every=2,
    eval_games=2,
    final_eval_games=2,
    num_cpus=2,
)


@pytest.fixture(scope="module")
def local_ray():
    import ray

    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    if started:
        ray.shutdown()


@pytest.mark.parametrize(
    ("env_id", "options", "runners"),
    [("chocolates_v0", {"num_players": 2}, 0), ("le_chocolat_v0", {}, 1)],
)
def test_train_export_and_play(
    local_ray, tmp_path: Path, monkeypatch, env_id, options, runners
) -> None:
    from ray.rllib.core.rl_module.rl_module import RLModule

    from choco_envs.cli import main as choco
    from choco_envs.integrations.checkpoint import load_policy
    from choco_envs.integrations.rllib.__main__ import main as rllib_cli
    from choco_envs.integrations.rllib.module import module_logits
    from choco_envs.integrations.rllib.train import train

    monkeypatch.chdir(tmp_path)
    args = Args(env_id=env_id, options=options, num_env_runners=runners, seed=3, **TINY)
    path = train(args, command="test")
    assert path == Path(f"runs/{env_id}__rllib_ppo__3/final.safetensors")
    model, meta = load_policy(path, env_id)
    assert meta["training"]["engine"] == "rllib"
    assert meta["training"]["reward_mismatches"] == 0, "PettingZoo issue 1147"
    assert meta["steps_trained"] >= 2 * 256
    assert set(meta["arena"]) == {"random", "greedy"}
    snapshots = meta["training"]["snapshots"]
    assert [s["module"] for s in snapshots][:1] == ["main_v1"], "win-rate snapshots ran"
    assert list(Path(f"runs/{env_id}__rllib_ppo__3").glob("events.out.tfevents.*"))

    # the exported network chooses the trained RLlib module's action on 1,000 states
    rllib_dir = Path(f"runs/{env_id}__rllib_ppo__3/rllib")
    module = RLModule.from_checkpoint(
        str((rllib_dir / "learner_group/learner/rl_module/main").resolve())
    )
    obs, masks = decision_states(env_id, options, 1000, seed=11)
    obs_t, mask_t = torch.from_numpy(obs), torch.from_numpy(masks)
    with torch.no_grad():
        own, _ = model(obs_t, mask_t.bool())
    theirs = module_logits(module, obs_t, mask_t)
    assert torch.equal(own.argmax(-1), theirs.argmax(-1))
    legal = mask_t.bool()
    torch.testing.assert_close(own[legal], theirs[legal], rtol=1e-5, atol=1e-5)

    # `export` from RLlib's checkpoint gives the same weights
    assert rllib_cli(["export", "--checkpoint", str(rllib_dir), "--out", "again.safetensors"]) == 0
    again, _ = load_policy("again.safetensors", env_id)
    for key, value in model.state_dict().items():
        assert torch.equal(value, again.state_dict()[key])

    # one arena game with the exported file
    report = tmp_path / "arena.json"
    code = choco(
        [
            "eval",
            "--env",
            env_id,
            "--bots",
            f"policy:{path}",
            "greedy",
            "--games",
            "1",
            "--seed",
            "1",
            "--json",
            str(report),
        ]
    )
    assert code == 0
    games = json.loads(report.read_text())["games_played"]
    assert games >= 1


def test_bad_settings_are_refused_before_ray_starts(tmp_path: Path) -> None:
    from choco_envs.core.errors import ConfigError
    from choco_envs.integrations.rllib.train import check_args

    for bad in (
        Args(env_id="nope_v0"),
        Args(encoder="nope"),
        Args(iterations=0),
        Args(minibatch_size=8000),
        Args(save_path="x.pt"),
        Args(options={"num_players": 2, "observation": "planes"}),
    ):
        with pytest.raises(ConfigError):
            check_args(bad)


def test_config_file_and_flags(tmp_path: Path) -> None:
    import argparse

    from choco_envs.core.errors import ConfigError
    from choco_envs.train.config import add_config_and_flags, args_from_namespace

    def build(ns: argparse.Namespace) -> Args:
        return args_from_namespace(Args, ns)

    config = tmp_path / "c.yaml"
    config.write_text("env_id: le_chocolat_v0\nhidden: [64, 64]\nleague_bots: {greedy: 1}\n")
    parser = argparse.ArgumentParser()
    add_config_and_flags(parser, Args)
    args = build(
        parser.parse_args(
            [
                "--config",
                str(config),
                "--num-env-runners",
                "2",
                "--league-bots",
                "random=0.5",
                "--rllib-checkpoint",
                "false",
            ]
        )
    )
    assert args.env_id == "le_chocolat_v0" and args.hidden == (64, 64)
    assert args.num_env_runners == 2 and args.rllib_checkpoint is False
    assert args.league_bots == {"greedy": 1, "random": 0.5}
    config.write_text("env: x\n")
    with pytest.raises(ConfigError, match="unknown key"):
        build(parser.parse_args(["--config", str(config)]))
    assert np.isfinite(args.learning_rate)
    # the RLlib trainer's old names are refused, naming the new one
    config.write_text("lr: 0.001\n")
    with pytest.raises(ConfigError, match="key lr was renamed; use learning_rate"):
        build(parser.parse_args(["--config", str(config)]))
    with pytest.raises(ConfigError, match="--num-epochs was renamed; use --update-epochs"):
        build(parser.parse_args(["--num-epochs", "2"]))


def test_address_joins_a_cluster_and_ships_this_package(monkeypatch) -> None:
    """``--address`` joins a running Ray (checked by hand against `ray start --head`,
    docs/scale.md) and uploads this choco_envs to its workers unless told not to."""
    import ray

    import choco_envs
    from choco_envs.integrations.rllib.train import init_ray

    calls = []
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", lambda **kw: calls.append(kw))
    init_ray(Args(address="auto"))
    init_ray(Args(address="ray://head:10001", ship_package=False))
    package = str(Path(choco_envs.__file__).resolve().parent)
    assert calls[0]["address"] == "auto"
    assert calls[0]["runtime_env"] == {"py_modules": [package]}
    assert calls[1]["address"] == "ray://head:10001" and calls[1]["runtime_env"] is None
    init_ray(Args(num_cpus=2))
    assert calls[2]["num_cpus"] == 2 and "address" not in calls[2]


def test_choco_train_engine_rllib_can_reuse_configure_and_run(monkeypatch, tmp_path: Path) -> None:
    """What `choco train --engine rllib` needs: the options on its own parser (which
    has its own --config) and a run that trains from them."""
    import argparse

    from choco_envs.integrations.rllib import __main__ as rllib_cli
    from choco_envs.integrations.rllib import train as train_module

    trained = []
    monkeypatch.setattr(
        train_module, "train", lambda args, command="": trained.append((args, command))
    )
    config = tmp_path / "c.yaml"
    config.write_text("env_id: chocolatiers_v1\n")
    parser = argparse.ArgumentParser(prog="choco train")
    parser.add_argument("--config")
    parser.add_argument("--engine", choices=["ppo", "rllib"], default="ppo")
    rllib_cli.configure(parser, config_flag=False)
    ns = parser.parse_args(["--engine", "rllib", "--config", str(config), "--num-env-runners", "3"])
    assert rllib_cli.run(ns, command="choco train --engine rllib") == 0
    ((args, command),) = trained
    assert args.env_id == "chocolatiers_v1" and args.num_env_runners == 3
    assert command == "choco train --engine rllib"
