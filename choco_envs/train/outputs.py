"""What a run leaves behind, written the same way by every engine.

:class:`RunFiles` keeps a PPO run's folder as it goes (``runs_dir/run_name``):
``args.yaml`` (the run's Args, itself a config), TensorBoard scalars, the learning curve
(``curve.json``, ``curve.png``: ``choco_envs.train.curves``), the checkpoints and the
final report; :func:`progress_bar` the bars on the terminal.

:func:`checkpoint_meta` is the one place where the metadata of a policy file is made:
the ``ppo`` and ``az`` trainers, the RLlib export and ``choco_envs.integrations.checkpoint``
(the examples) all call it, so every file says the same things the same way (the format
and the fields: docs/training.md, "Checkpoints"). ``save_checkpoint``
(``choco_envs.policy.checkpoint``) then adds the format, the network's config and the
observation's layout, and writes the file; ``load_policy`` and ``choco ship`` read it.
"""

from __future__ import annotations

import dataclasses
import datetime
import time
from pathlib import Path
from typing import Any


def stored_options(game: Any) -> dict[str, Any]:
    """The game options a file stores: the game's own values, defaults filled in (the
    component data travels in the file as an object; the config never holds a path)."""
    return {k: v for k, v in game.config.items() if v is not None}


def portable_args(args: dict[str, Any], root: Path | None = None) -> dict[str, Any]:
    """A run's args as a file stores them: every string that is an absolute path inside
    ``root`` (the working folder) made relative to it, so that a shipped file names no
    folder of the machine it was trained on (``init_from``, ``runs_dir``, ...)."""
    root = (root or Path.cwd()).resolve()
    out: dict[str, Any] = {}
    for key, value in args.items():
        inside = isinstance(value, str) and value.startswith("/")
        inside = inside and Path(value).resolve().is_relative_to(root)
        # a path outside the working folder, or any other value, is kept as given
        out[key] = Path(value).resolve().relative_to(root).as_posix() if inside else value
    return out


def checkpoint_meta(
    game: Any,
    encoder: str,
    *,
    steps: int,
    arena: dict[str, Any] | None = None,
    inputs: Any = None,
    args: Any = None,
    engine: str = "",
    command: str = "",
    training: dict[str, Any] | None = None,
    curve: dict[str, Any] | None = None,
    **sections: Any,
) -> dict[str, Any]:
    """The metadata of a policy file of ``game`` (the game the network reads: with seat
    padding, the largest table's) whose network reads ``encoder``'s observation:

    * the env: ``env_id``, ``version``, ``options`` (:func:`stored_options`);
    * what the network reads: ``encoder``, ``features`` (``inputs``' feature function, or
      None), ``observation_shape``, ``num_actions`` (``inputs``: the run's
      ``PolicyInputs``; None: the encoder's observation alone);
    * the tables it covers: ``seats``, for ``args`` of many tables (``RunSpec.max_players``);
    * ``steps_trained`` and the ``arena`` evaluation (per opponent);
    * ``training``: ``engine`` (default ``args.ENGINE``), ``command``, ``args`` (the run's
      Args as a mapping, paths inside the working folder relative: :func:`portable_args`),
      then ``training``'s entries (the engine's summary: updates,
      minutes, imitation, ...), then ``curve``: the learning curve so far
      (``choco_envs.train.curves.Curve.stored``: ``{"unit", "points"}``, a point per
      evaluation, a few dozen), which ``choco ship --curves`` draws;
    * ``sections``: more top-level entries where a run has them (``arena_tables``,
      ``arena_search``, ``search``).
    """
    from choco_envs.policy.features import PolicyInputs

    if inputs is None:
        inputs = PolicyInputs(game, encoder)
    engine = engine or getattr(args, "ENGINE", "")
    summary: dict[str, Any] = {
        **({"engine": engine} if engine else {}),
        **({"command": command} if command else {}),
        **({"args": portable_args(dataclasses.asdict(args))} if args is not None else {}),
        **(training or {}),
        **({"curve": curve} if curve and curve.get("points") else {}),
    }
    meta: dict[str, Any] = {
        "env_id": game.spec.env_id,
        "version": game.spec.version,
        "options": stored_options(game),
        "encoder": encoder,
        "features": inputs.metadata(),
        "observation_shape": [int(x) for x in inputs.obs_shape],
        "num_actions": int(game.num_actions),
        "steps_trained": int(steps),
        "arena": arena or {},
        "training": summary,
    }
    max_players = getattr(args, "max_players", 0) if args is not None else 0
    if max_players:
        meta["seats"] = {
            "max_players": max_players,
            "player_counts": sorted({t["num_players"] for t in args.tables()}),
            "modes": {k: list(v) for k, v in args.modes.items()},
            **({"mode_marks": True} if getattr(args, "mode_marks", None) else {}),
        }
    meta.update(sections)
    return meta


# ---------------------------------------------------------------- a run's folder
def progress_bar(args: Any, total: int, desc: str, unit: str) -> Any:
    """A tqdm progress bar when ``args.progress`` (else None)."""
    if not args.progress:
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit=unit, dynamic_ncols=True, leave=False)


def write_args(args: Any, path: Path) -> None:
    """The run's Args as a config file (``choco train --config`` reruns it)."""
    import yaml

    values = dataclasses.asdict(args)
    values = {k: list(v) if isinstance(v, tuple) else v for k, v in values.items()}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(values, sort_keys=False))


class RunFiles:
    """The folder of a run as it goes: ``args.yaml`` at once, then TensorBoard scalars
    (``track``), learning-curve points (minutes, env steps, win rates; a resumed run
    continues its file's curve), checkpoints whose metadata :func:`checkpoint_meta`
    makes, and the final report."""

    def __init__(self, args: Any, game: Any, inputs: Any, command: str) -> None:
        from choco_envs.train.curves import Curve

        self.args, self.game, self.inputs, self.command = args, game, inputs, command
        self.dir = args.run_dir
        write_args(args, self.dir / "args.yaml")
        self.curve = Curve(self.dir, "steps", Path(args.resume) if args.resume else None)
        self.began = time.time()
        self.minutes_before = self.curve.points[-1]["minutes"] if self.curve.points else 0.0
        self.writer = None
        if args.track:
            from torch.utils.tensorboard import SummaryWriter

            self.writer = SummaryWriter(str(self.dir))
            self.writer.add_text(
                "hyperparameters",
                "|param|value|\n|-|-|\n"
                + "\n".join(f"|{k}|{v}|" for k, v in dataclasses.asdict(args).items()),
            )

    def log(self, stats: dict[str, float], step: int) -> None:
        """TensorBoard scalars at ``step``."""
        if self.writer is not None:
            for key, value in stats.items():
                self.writer.add_scalar(key, value, step)

    def point(
        self, stats: dict[str, float], prefix: str, steps: int, phase: str,
        games: int | dict[str, int] | None = None,
    ) -> None:  # fmt: skip
        """A learning-curve point of the win rates among ``stats`` (keys ``prefix`` +
        opponent), at ``steps`` env steps (none without such keys); ``games``: the games
        each rate is of (the Elo's clamp, ``choco_envs.train.curves.elo``)."""
        rates = {k[len(prefix) :]: v for k, v in stats.items() if k.startswith(prefix)}
        if rates:
            minutes = self.minutes_before + (time.time() - self.began) / 60
            self.curve.add(minutes, steps, rates, phase, games)

    def save(self, path: Path, model: Any, steps: int, arena: dict[str, Any], **more: Any) -> Path:
        """``model`` to ``path`` with its metadata (:func:`checkpoint_meta`, the curve so
        far included; ``more``: its ``training`` summary and more sections)."""
        from choco_envs.policy.checkpoint import save_checkpoint

        meta = checkpoint_meta(
            self.game, self.args.encoder, inputs=self.inputs, args=self.args, steps=steps,
            arena=arena, command=self.command, curve=self.curve.stored(), **more,
        )  # fmt: skip
        return save_checkpoint(path, model, meta)

    @staticmethod
    def summary(updates: int, started: float) -> dict[str, Any]:
        """The final file's ``training`` summary of a PPO run: updates, minutes since
        ``started``, when it finished."""
        return {
            "updates": updates,
            "minutes": round((time.time() - started) / 60, 2),
            "finished": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        }

    def finish(
        self, path: Path, model: Any, steps: int, arena: dict[str, Any], title: str, **more: Any
    ) -> Path:
        """The final evaluation as the curve's last point, then the final file at
        ``path`` (:meth:`save`: its metadata carries the whole curve), ``curve.png``,
        scalars (win rate and Elo) and one printed line per opponent; close the scalars."""
        from choco_envs.train.curves import elo

        rates = {f"eval/win_rate_vs_{opp}": res["win_rate"] for opp, res in arena.items()}
        games = {opp: res.get("games") for opp, res in arena.items()}
        self.point(rates, "eval/win_rate_vs_", steps, "final", games)
        saved = self.save(path, model, steps, arena, **more)
        self.curve.plot(self.dir / "curve.png", title)
        for opp, res in arena.items():
            self.log({f"eval/win_rate_vs_{opp}": res["win_rate"],
                      f"eval/elo_vs_{opp}": elo(res["win_rate"], res.get("games"))}, steps)  # fmt: skip
            low, high = res["win_rate_ci95"]
            print(
                f"final eval vs {opp}: win rate {res['win_rate']:.3f} [{low:.3f}, {high:.3f}] "
                f"over {res['games']} games"
            )
        if self.writer is not None:
            self.writer.close()
        return saved
