"""One run description (``choco_envs.train.run.RunSpec``) read by every engine of
``choco train``: the same settings under the same names with the same defaults, old names
refused naming the new one, a shared setting an engine does not read refused unless at
its default; every refusal one line with exit status 2."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from choco_envs.cli import main
from choco_envs.core.errors import ConfigError
from choco_envs.train import az, ppo
from choco_envs.train.config import field_docs
from choco_envs.train.run import RENAMED, PPOLoss, RunSpec


def engine_args() -> dict[str, type]:
    """Every engine's Args class (rllib's only where Ray RLlib is installed)."""
    out: dict[str, type] = {"ppo": ppo.Args, "az": az.Args}
    try:
        from choco_envs.integrations.rllib.args import Args as RllibArgs
    except ImportError:
        return out
    out["rllib"] = RllibArgs
    return out


def defaults(cls: type) -> dict[str, Any]:
    made = cls()
    return {f.name: getattr(made, f.name) for f in dataclasses.fields(RunSpec)}


def test_every_engine_extends_the_one_run_description_with_the_same_defaults() -> None:
    engines = engine_args()
    pytest.importorskip("ray.rllib")
    assert set(engines) == {"ppo", "az", "rllib"}
    shared = defaults(RunSpec)
    assert shared["final_eval_games"] == 400 and shared["learning_rate"] == 2.5e-4
    for name, cls in engines.items():
        assert issubclass(cls, RunSpec) and cls.ENGINE == name
        assert defaults(cls) == shared, name
        # the same help text for the same setting
        docs = field_docs(cls)
        assert {k: docs[k] for k in shared} == {k: field_docs(RunSpec)[k] for k in shared}
        # no field of an engine's own repeats a shared setting under another name
        own = {f.name for f in dataclasses.fields(cls)} - set(shared)
        assert not own & set(RENAMED), (name, own & set(RENAMED))
        assert cls.NOT_READ.keys() <= shared.keys()
    # the PPO loss settings: one name and default in the two PPO engines
    loss = {f.name for f in dataclasses.fields(PPOLoss)} - set(shared)
    assert loss == {"gamma", "gae_lambda", "clip_coef", "ent_coef", "vf_coef", "max_grad_norm"}
    for name in ("ppo", "rllib"):
        assert issubclass(engines[name], PPOLoss)
        made = engines[name]()
        assert {k: getattr(made, k) for k in loss} == {k: getattr(PPOLoss(), k) for k in loss}


def test_the_run_folder_is_named_after_the_engine(tmp_path: Path) -> None:
    engines = engine_args()
    tags = {"ppo": "ppo", "az": "az", "rllib": "rllib_ppo"}
    for name, cls in engines.items():
        args = cls(env_id="chocolates_v0", seed=4, runs_dir=str(tmp_path))
        assert args.run_dir == tmp_path / f"chocolates_v0__{tags[name]}__4"
        assert args.final_path == args.run_dir / "final.safetensors"
        assert cls(save_path="x.safetensors").final_path == Path("x.safetensors")


def renamed_cases() -> list[tuple[str, str, str]]:
    """(engine, old name, new name) for every engine that has the new name (az has no
    PPO loss settings: its old names are plain unknown keys there)."""
    return [
        (engine, old, new)
        for engine, cls in engine_args().items()
        for old, new in sorted(RENAMED.items())
        if new in {f.name for f in dataclasses.fields(cls)}
    ]


def test_every_old_name_has_an_engine_that_refuses_it() -> None:
    assert {old for _, old, _ in renamed_cases()} == set(RENAMED)
    assert {engine for engine, _, _ in renamed_cases()} >= {"ppo", "az"}


@pytest.mark.parametrize(("engine", "old", "new"), renamed_cases())
def test_old_names_are_refused_naming_the_new_one(
    engine: str, old: str, new: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """In a config and as a flag, for every engine that has the new name; nothing is
    written."""
    if engine == "rllib":
        pytest.importorskip("ray.rllib")
    config = tmp_path / "old.yaml"
    config.write_text(f"env_id: chocolates_v0\n{old}: 1\n")
    assert main(["train", "--engine", engine, "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert err == f"choco train: error: config {str(config)!r}: key {old} was renamed; use {new}\n"
    flag, new_flag = "--" + old.replace("_", "-"), "--" + new.replace("_", "-")
    assert main(["train", "--engine", engine, flag, "1", "--runs-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err == f"choco train: error: {flag} was renamed; use {new_flag}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.yaml"]


NOT_READ = [
    ("az", ["--league-past", "0.1"], "league_past=0.1 is not allowed: the az engine does not read"),
    (
        "rllib",
        ["--player-counts", "2", "3"],
        "player_counts=(2, 3) is not allowed: the rllib engine",
    ),
    ("rllib", ["--mark-modes", "false"], "mark_modes=False is not allowed: the rllib engine"),
    ("az", ["--total-timesteps", "10"], "does not read total_timesteps (its budget is max_minutes"),
    ("az", ["--update-epochs", "2"], "the az engine does not read update_epochs (reuse"),
    ("rllib", ["--feature", "chocolates_truth"], "the rllib engine does not read feature"),
    ("rllib", ["--init-from", "x.safetensors"], "the rllib engine does not read init_from"),
    ("rllib", ["--conv-channels", "8"], "conv_channels=(8,) is not allowed: the rllib engine"),
]


@pytest.mark.parametrize(
    ("engine", "flags", "message"), NOT_READ, ids=[" ".join(c[1]) for c in NOT_READ]
)
def test_a_shared_setting_an_engine_does_not_read_is_refused(
    engine: str, flags: list[str], message: str, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    if engine == "rllib":
        pytest.importorskip("ray.rllib")
    code = main(["train", "--engine", engine, *flags, "--max-minutes", "1",
                 "--runs-dir", str(tmp_path)])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("choco train: error: ") and message in err, err
    assert err.count("\n") == 1 and "allowed: its default" in err
    assert not list(tmp_path.iterdir())


def test_the_help_of_a_setting_an_engine_does_not_read_says_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["train", "--engine", "az", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "[not read by the az engine: eval_every_minutes]" in out
    assert "--lr" not in out and "--learning-rate" in out


def test_an_az_run_needs_a_budget() -> None:
    """``max_minutes`` 0 is no limit, as for every engine; az then needs total_games."""
    with pytest.raises(ConfigError, match=r"max_minutes=0.0 is not allowed; allowed: > 0, or 0"):
        az.Args().check()
    az.Args(total_games=10).check()
    az.Args(max_minutes=1.0).check()


def test_rllib_refuses_settings_that_cannot_train() -> None:
    pytest.importorskip("ray.rllib")
    from choco_envs.integrations.rllib.args import Args
    from choco_envs.integrations.rllib.train import check_args

    for bad, message in (
        (Args(total_timesteps=0), "total_timesteps=0 is not allowed; allowed: >= 1"),
        (Args(minibatch_size=8000), "minibatch_size=8000 is not allowed; allowed: at most"),
        (Args(hidden=()), "hidden=() is not allowed; allowed: at least one layer size"),
        (Args(learning_rate=2.0), "learning_rate=2.0 is not allowed; allowed: in (0, 1]"),
    ):
        with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
            check_args(bad)


def test_one_metadata_writer_serves_every_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ppo, az, the RLlib export and the examples' ``save_policy`` all make their file's
    metadata with ``choco_envs.train.outputs.checkpoint_meta``: the same fields, the
    engine named, every file loadable."""
    from choco_envs.integrations.checkpoint import actor_critic, save_policy
    from choco_envs.policy.checkpoint import load_policy, read_metadata
    from choco_envs.train import outputs
    from tests.training.toy_nim import ENV_ID

    made: list[dict[str, Any]] = []
    real = outputs.checkpoint_meta

    def spy(*args: Any, **kwargs: Any) -> dict[str, Any]:
        made.append(real(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(outputs, "checkpoint_meta", spy)
    tiny = dict(env_id=ENV_ID, hidden=(8,), eval_games=2, final_eval_games=2, track=False,
                progress=False, runs_dir=str(tmp_path))  # fmt: skip
    files = {
        "ppo": ppo.train(
            ppo.Args(
                **tiny, total_timesteps=64, num_envs=4, num_steps=8, eval_every=0, run_name="p"
            )
        ),  # fmt: skip
        "az": az.train(
            az.Args(
                **tiny,
                total_games=2,
                num_games=2,
                simulations=2,
                max_considered=2,
                play_simulations=2,
                batch_size=8,
                run_name="a",
            )
        ),  # fmt: skip
    }
    model = actor_critic((26,), 3, (8,))
    files["example"] = save_policy(
        tmp_path / "e.safetensors", model, ENV_ID, {}, "flat", 5, training={"engine": "example"}
    )
    try:
        from choco_envs.integrations.rllib import module as rllib_module
        from choco_envs.integrations.rllib.args import Args as RllibArgs
        from choco_envs.integrations.rllib.train import export_weights
    except ImportError:
        pass
    else:
        monkeypatch.setattr(rllib_module, "to_actor_critic", lambda w, shape, n, h: model)
        args = RllibArgs(env_id=ENV_ID, hidden=(8,), runs_dir=str(tmp_path))
        files["rllib"] = export_weights({}, tmp_path / "r.safetensors", args, 7, {},
                                        {"command": "test", "iterations": 1})  # fmt: skip
    engines = [m["training"].get("engine") for m in made]
    assert set(engines) == set(files) and len(made) >= len(files)
    base = {"env_id", "version", "options", "encoder", "features", "observation_shape",
            "num_actions", "steps_trained", "arena", "training"}  # fmt: skip
    for engine, path in files.items():
        meta = read_metadata(path)
        assert base <= set(meta) and meta["training"]["engine"] == engine, engine
        assert (
            meta["env_id"] == ENV_ID and meta["options"] == read_metadata(files["ppo"])["options"]
        )
        load_policy(path, ENV_ID)
    assert read_metadata(files["az"])["search"]["simulations"] == 2
    assert read_metadata(files["ppo"])["training"]["args"]["final_eval_games"] == 2
    if "rllib" in files:
        rllib = read_metadata(files["rllib"])["training"]
        assert rllib["command"] == "test" and rllib["iterations"] == 1
        assert rllib["args"]["learning_rate"] == 2.5e-4 and "lr" not in rllib["args"]
