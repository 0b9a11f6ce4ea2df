"""Golden playthroughs (OpenSpiel style): one seeded game per env, every step written out
(acting agent, its observation as sparse index:value pairs, its mask as legal ids, the
action and its name, rewards), one file per configuration in a folder you name. The
repository's test diffs them against ``tests/golden/``; after an intended behaviour
change, regenerate them from the repository root with

    python -m choco_envs.playthrough --dir tests/golden --update

and bump the env version if the rules changed.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path
from typing import Any

import numpy as np

from choco_envs.registry import list_envs, make_raw

SEED = 20261129


def playthrough_configs(env_id: str) -> list[dict[str, Any]]:
    """The configurations that get a golden file: the default, plus one per value of each
    enumerable rule option other than its default (e.g. the classic edition)."""
    from choco_envs.registry import game_class

    spec = game_class(env_id).spec
    configs: list[dict[str, Any]] = [{}]
    for opt in spec.options:
        if opt.rule and opt.allowed is not None and len(opt.allowed) <= 3:
            configs += [{opt.name: v} for v in opt.allowed if v != opt.default]
    return configs


def golden_name(env_id: str, config: dict[str, Any]) -> str:
    suffix = "".join(f"__{k}={v}" for k, v in sorted(config.items()))
    return f"{env_id}{suffix}.txt"


def _sparse(obs: np.ndarray) -> str:
    flat = obs.reshape(-1)
    nz = np.flatnonzero(flat)
    return " ".join(f"{i}:{flat[i]:.4g}" for i in nz)


def generate(env_id: str, config: dict[str, Any], seed: int = SEED) -> str:
    """The playthrough text of one seeded random game."""
    env = make_raw(env_id, illegal_action="raise", **config)
    env.reset(seed=seed)
    rng = random.Random(seed)
    lines = [
        f"# golden playthrough: {env_id} version {env.game.spec.version}",
        f"# options: {env.options}",
        f"# seed: {seed}",
        f"# observation shape: {env.encoder.shape}, actions: {env.game.num_actions}",
        "",
        "## initial state (spectator view)",
        env.game.state_to_string(env.state_, None),
        "",
    ]
    step = 0
    while not any(env.terminations.values()):
        agent = env.agent_selection
        obs = env.observe(agent)
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        action = rng.choice(legal)
        lines.append(f"step {step} {agent}")
        lines.append(f"  obs {_sparse(obs['observation'])}")
        lines.append(f"  legal {' '.join(map(str, legal))}")
        lines.append(f"  action {action} {env.action_to_string(action)}")
        env.step(action)
        rewards = " ".join(f"{env.rewards[a]:g}" for a in env.possible_agents)
        lines.append(f"  rewards {rewards}")
        step += 1
    lines += [
        "",
        "## final state (spectator view)",
        env.game.state_to_string(env.state_, None),
        f"scores {env.scores()}",
        f"returns {[env.rewards[a] for a in env.possible_agents]}",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--dir", type=Path, required=True, help="the folder of golden files (tests/golden)"
    )
    parser.add_argument("--update", action="store_true", help="rewrite the golden files")
    parser.add_argument("--env", action="append", help="only these env ids")
    args = parser.parse_args(argv)
    if not args.dir.is_dir():
        parser.error(f"--dir {args.dir}: not a folder (the golden files' folder, tests/golden)")
    changed = 0
    for env_id in args.env or list_envs():
        for config in playthrough_configs(env_id):
            path = args.dir / golden_name(env_id, config)
            text = generate(env_id, config)
            same = path.exists() and path.read_text() == text
            if not same:
                changed += 1
                if args.update:
                    path.write_text(text)
            print(f"{'ok     ' if same else ('written' if args.update else 'DIFFERS')} {path.name}")
    return 0 if (args.update or changed == 0) else 1


if __name__ == "__main__":
    raise SystemExit(main())
