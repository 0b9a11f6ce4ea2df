"""What a run leaves behind, written the same way by every engine.

:func:`checkpoint_meta` is the one place where the metadata of a policy file is made:
the ``ppo`` and ``az`` trainers, the RLlib export and ``choco_envs.integrations.checkpoint``
(the examples) all call it, so every file says the same things the same way (the format
and the fields: docs/training.md, "Checkpoints"). ``save_checkpoint``
(``choco_envs.policy.checkpoint``) then adds the format, the network's config and the
observation's layout, and writes the file; ``load_policy`` and ``choco ship`` read it.
"""

from __future__ import annotations

import dataclasses
from typing import Any


def stored_options(game: Any) -> dict[str, Any]:
    """The game options a file stores: the game's own values, defaults filled in (the
    component data travels in the file as an object; the config never holds a path)."""
    return {k: v for k, v in game.config.items() if v is not None}


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
      Args as a mapping), then ``training``'s entries (the engine's summary: updates,
      minutes, imitation, ...);
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
        **({"args": dataclasses.asdict(args)} if args is not None else {}),
        **(training or {}),
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
