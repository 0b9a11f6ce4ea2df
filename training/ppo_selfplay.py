"""Masked PPO self-play for any choco_envs env and player count (CleanRL style).

    python training/ppo_selfplay.py --config configs/chocolates_v0/ppo.yaml
    choco train --config configs/chocolates_v0/ppo.yaml --total-timesteps 200000

Every seat's trajectory is its own observations, actions and final reward
(``choco_envs.policy.selfplay.SeatRollout``); multi-step turns are consecutive
transitions of the same seat. League: in every game one seat is the learner and each
other seat is the learner too (``league_self_play``), a frozen past snapshot
(``league_past``) or a baseline bot drawn by ``league_bots`` weight. Games run in this
process (``num_workers=0``) or in worker processes. TensorBoard scalars go to
``runs/<run_name>`` (``charts/``, ``losses/``, ``eval/``); the arena evaluation against
random and greedy (duplicate deals, seats rotated) runs every ``eval_every`` updates.
The final checkpoint goes to ``save_path`` with the last evaluation in its metadata.
"""

from __future__ import annotations

import argparse
import dataclasses
import shlex
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np


@dataclass
class Args:
    env_id: str = "chocolates_v0"
    """the env to train on (see `choco list`)"""
    options: dict = field(default_factory=lambda: {"num_players": 2})
    """game options (num_players and rule options)"""
    encoder: str = "flat"
    """observation encoder: flat, planes (with conv_channels), or an env's own (Chocolates'
    beliefs, Chocolatiers' and Le Chocolat's derived; `choco_envs.make(env).unwrapped.game.encoders`)"""
    seed: int = 1
    """seed of the games, the league and torch"""
    total_timesteps: int = 500_000
    """env steps to collect (all seats and bots together)"""
    max_minutes: float = 0.0
    """stop after this many minutes of training, whatever total_timesteps says (0: no limit)"""
    num_envs: int = 64
    """games played in parallel"""
    num_workers: int = 0
    """worker processes running the games (0: all games in this process)"""
    num_steps: int = 32
    """decisions per env per rollout"""
    learning_rate: float = 2.5e-4
    """Adam learning rate"""
    anneal_lr: bool = True
    """anneal the learning rate linearly to 0 (over total_timesteps or max_minutes,
    whichever ends first)"""
    gamma: float = 1.0
    """discount factor (rewards come only at the end of a game)"""
    margin_coef: float = 0.0
    """reward shaping: add this times (own final score - best other score) to the win/loss
    return (evaluation always counts wins)"""
    gae_lambda: float = 0.95
    """lambda of generalized advantage estimation"""
    num_minibatches: int = 4
    """minibatches per epoch"""
    update_epochs: int = 4
    """epochs over each rollout"""
    norm_adv: bool = True
    """normalize advantages per minibatch"""
    clip_coef: float = 0.2
    """PPO clipping coefficient"""
    clip_vloss: bool = True
    """clip the value loss too"""
    ent_coef: float = 0.01
    """entropy bonus coefficient"""
    vf_coef: float = 0.5
    """value loss coefficient"""
    max_grad_norm: float = 0.5
    """gradient clipping norm"""
    target_kl: float | None = None
    """stop an update's epochs early above this approximate KL (None: never)"""
    hidden: tuple = (256, 256)
    """sizes of the MLP hidden layers"""
    conv_channels: tuple = ()
    """channels of 3x3 conv layers before the MLP (planes encoder only)"""
    board_actions: bool = False
    """also score actions with a 1x1 conv over the last conv layer, at the board positions
    the encoder's action planes give them (planes encoder, conv_channels; Le Chocolat)"""
    league_self_play: float = 0.6
    """probability that a non-learner seat is also played (and trained) by the learner"""
    league_past: float = 0.2
    """probability that a non-learner seat is a past snapshot of the learner"""
    league_bots: dict = field(default_factory=lambda: {"random": 0.5, "greedy": 0.5})
    """baseline bots for the remaining seats, with their relative weights"""
    pool_size: int = 10
    """past snapshots kept in the league pool"""
    pool_every: int = 10
    """updates between snapshots added to the pool"""
    eval_every: int = 25
    """updates between evaluations against random and greedy (0: only at the end)"""
    eval_games: int = 100
    """games per evaluation opponent (duplicate deals, seats rotated)"""
    final_eval_games: int = 400
    """games per opponent in the final evaluation stored in the checkpoint"""
    keep_best: bool = False
    """end with the weights of the periodic evaluation that had the best weighted mean win
    rate over random and greedy (not the last update's); the final evaluation, on other
    deals, then measures those weights. Saved as runs/<run_name>/best.safetensors as it goes"""
    keep_best_weights: dict = field(default_factory=lambda: {"random": 1.0, "greedy": 1.0})
    """weights of the evaluation opponents' win rates in keep_best's mean"""
    save_path: str = ""
    """final checkpoint (default: runs/<run_name>/final.safetensors); the one of the last
    periodic evaluation is runs/<run_name>/latest.safetensors"""
    imitate: str = ""
    """teacher bot for an imitation warm start before PPO (e.g. greedy; empty: none):
    behaviour cloning with DAgger rounds, choco_envs.policy.imitation"""
    imitate_rounds: int = 4
    """imitation rounds: in round 0 the teacher plays; in later rounds (DAgger) the network
    plays its seat and the teacher labels every decision it meets"""
    imitate_games: int = 1000
    """games per imitation round (one seat rotates as the network's seat)"""
    imitate_epochs: int = 6
    """epochs over all imitation data after each round"""
    imitate_opponents: dict = field(default_factory=lambda: {"greedy": 0.7, "random": 0.3})
    """bots in the other seats of imitation games, with their relative weights"""
    imitate_lr: float = 1e-3
    """Adam learning rate of imitation (annealed to 0 over each round's epochs)"""
    resume: str = ""
    """checkpoint to continue training from (weights and step count; total_timesteps
    counts its steps too; the optimizer state and the league pool start afresh)"""
    run_name: str = ""
    """name of the run (default: <env_id>__ppo_selfplay__<seed>)"""
    track: bool = True
    """write TensorBoard scalars to runs/<run_name>"""
    progress: bool = True
    """show a progress bar"""
    torch_threads: int = 1
    """torch CPU threads"""


def parse_args(argv: list[str] | None = None) -> Args:
    from choco_envs.policy.args import add_arguments, build, load_config

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--config", default=None, help="YAML file of Args overrides")
    add_arguments(parser, Args)
    ns = parser.parse_args(argv)
    config = load_config(ns.config) if ns.config else {}
    return build(Args, config, ns)


def make_vec(args: Args, roles: Any, bot_specs: list[str]) -> Any:
    from choco_envs.policy.vec import GameVec, ProcVec

    kwargs = dict(
        env_id=args.env_id,
        options=args.options,
        encoder=args.encoder,
        roles=roles,
        bot_specs=bot_specs,
        margin_coef=args.margin_coef,
    )
    if args.num_workers > 0:
        return ProcVec(args.num_workers, args.num_envs, args.seed, **kwargs)
    return GameVec(num_envs=args.num_envs, seed=args.seed, **kwargs)


def run_eval(model: Any, args: Args, games: int, seed: int) -> dict[str, dict[str, float]]:
    from choco_envs.policy.selfplay import evaluate

    return {
        opp: evaluate(model, args.env_id, args.options, args.encoder, opp, games, seed)
        for opp in ("random", "greedy")
    }


def best_score(arena: dict[str, Any], weights: dict[str, float]) -> float:
    """The keep_best criterion: the weighted mean of the evaluation win rates."""
    total = sum(weights.get(opp, 0.0) for opp in arena)
    return sum(weights.get(opp, 0.0) * res["win_rate"] for opp, res in arena.items()) / total


def checkpoint_meta(
    args: Args, game: Any, steps: int, arena: dict[str, Any], command: str
) -> dict[str, Any]:
    return {
        "env_id": args.env_id,
        "version": game.spec.version,
        "options": {k: v for k, v in game.config.items() if isinstance(v, (bool, int, float, str))},
        "encoder": args.encoder,
        "observation_shape": list(game.encoder(args.encoder).shape),
        "num_actions": int(game.num_actions),
        "steps_trained": int(steps),
        "arena": arena,
        "training": {"command": command, "args": dataclasses.asdict(args)},
    }


def _bar(args: Args, total: int, desc: str, unit: str) -> Any:
    """A tqdm progress bar when ``args.progress`` (else None)."""
    if not args.progress:
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit=unit, dynamic_ncols=True, leave=False)


def imitation_warm_start(model: Any, args: Args, log: Any) -> dict[str, Any]:
    """Fit ``model`` to the teacher ``args.imitate`` (behaviour cloning, then DAgger
    rounds); log each round; return the arena evaluation of the result, the number of
    decisions fitted and the held-out accuracy (for the checkpoint's metadata)."""
    from choco_envs.policy.imitation import Demos, collect, fit

    if args.imitate_rounds < 1:
        raise ValueError(f"imitate_rounds={args.imitate_rounds}: imitation needs at least 1 round")
    parts = []
    for r in range(args.imitate_rounds):
        t0 = time.time()
        bar = _bar(args, args.imitate_games, f"imitation round {r}: games", "game")
        parts.append(
            collect(
                args.env_id,
                args.options,
                args.encoder,
                args.imitate,
                args.imitate_games,
                args.seed + 50_000 + 1_000 * r,
                student=model if r else None,
                opponents=args.imitate_opponents,
                margin_coef=args.margin_coef,
                progress=None if bar is None else lambda _done, b=bar: b.update(1),
            )
        )
        if bar is not None:
            bar.close()
        demos = Demos.concat(parts)
        t1 = time.time()
        bar = _bar(args, args.imitate_epochs, f"imitation round {r}: fitting", "epoch")
        stats = fit(
            model,
            demos,
            args.imitate_epochs,
            args.seed + r,
            args.imitate_lr,
            progress=None if bar is None else lambda _done, b=bar: b.update(1),
        )
        if bar is not None:
            bar.close()
        arena = run_eval(model, args, args.eval_games, args.seed + 20_000 + r)
        for opp, res in arena.items():
            stats[f"imitation/win_rate_vs_{opp}"] = res["win_rate"]
        stats["imitation/decisions"] = float(len(demos))
        log(r, stats)
        print(
            f"imitation round {r}: {len(demos)} decisions ({t1 - t0:.0f} s playing, "
            f"{time.time() - t1:.0f} s fitting), held-out accuracy "
            f"{stats.get('imitation/holdout_accuracy', float('nan')):.3f}, win rate vs random "
            f"{arena['random']['win_rate']:.3f}, vs greedy {arena['greedy']['win_rate']:.3f}",
            flush=True,
        )
    model.train()
    return {
        "teacher": args.imitate,
        "decisions": len(demos),
        "holdout_accuracy": stats.get("imitation/holdout_accuracy"),
        "arena": arena,
    }


def ppo_update(model: Any, optimizer: Any, batch: dict[str, Any], args: Args) -> dict[str, float]:
    """CleanRL's PPO update on one rollout of complete transitions."""
    import torch
    from torch import nn

    n = len(batch["act"])
    mb_size = max(1, n // args.num_minibatches)
    clipfracs, stats = [], {}
    for _epoch in range(args.update_epochs):
        perm = torch.randperm(n).numpy()
        for start in range(0, n, mb_size):
            mb = perm[start : start + mb_size]
            _, newlogprob, entropy, newvalue = model.get_action_and_value(
                batch["obs"][mb], batch["mask"][mb], batch["act"][mb]
            )
            logratio = newlogprob - batch["logp"][mb]
            ratio = logratio.exp()
            with torch.no_grad():
                approx_kl = ((ratio - 1) - logratio).mean()
                clipfracs.append(((ratio - 1.0).abs() > args.clip_coef).float().mean().item())
            mb_adv = batch["adv"][mb]
            if args.norm_adv and len(mb) > 1:
                mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
            pg_loss = torch.max(
                -mb_adv * ratio,
                -mb_adv * torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef),
            ).mean()
            v_unclipped = (newvalue - batch["ret"][mb]) ** 2
            if args.clip_vloss:
                v_clipped = batch["val"][mb] + torch.clamp(
                    newvalue - batch["val"][mb], -args.clip_coef, args.clip_coef
                )
                v_loss = 0.5 * torch.max(v_unclipped, (v_clipped - batch["ret"][mb]) ** 2).mean()
            else:
                v_loss = 0.5 * v_unclipped.mean()
            entropy_loss = entropy.mean()
            loss = pg_loss - args.ent_coef * entropy_loss + v_loss * args.vf_coef
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
            optimizer.step()
        if args.target_kl is not None and approx_kl > args.target_kl:
            break
    y_pred, y_true = batch["val"].numpy(), batch["ret"].numpy()
    var_y = np.var(y_true)
    stats = {
        "losses/value_loss": v_loss.item(),
        "losses/policy_loss": pg_loss.item(),
        "losses/entropy": entropy_loss.item(),
        "losses/approx_kl": approx_kl.item(),
        "losses/clipfrac": float(np.mean(clipfracs)),
        "losses/explained_variance": float("nan")
        if var_y == 0
        else float(1 - np.var(y_true - y_pred) / var_y),
    }
    return stats


def train(args: Args, command: str = "") -> Path:
    """Train; return the path of the final checkpoint. ``command`` (what was run) goes
    into the checkpoint's metadata."""
    import torch

    from choco_envs.core.errors import ConfigError
    from choco_envs.policy.checkpoint import load_policy, read_metadata, save_checkpoint
    from choco_envs.policy.net import ActorCritic, NetConfig
    from choco_envs.policy.selfplay import SeatRollout, SnapshotPool
    from choco_envs.policy.vec import LEARNER, PAST, LeagueRoles
    from choco_envs.registry import make_game

    command = command or "python training/ppo_selfplay.py " + shlex.join(sys.argv[1:])
    run_name = args.run_name or f"{args.env_id}__ppo_selfplay__{args.seed}"
    save_path = Path(args.save_path or f"runs/{run_name}/final.safetensors")
    if save_path.suffix != ".safetensors":  # refused before training, not after it
        raise ConfigError(f"save_path {str(save_path)!r} must end in '.safetensors'")
    weights = args.keep_best_weights
    if (
        set(weights) - {"random", "greedy"}
        or not all(isinstance(w, (int, float)) and 0 <= w < float("inf") for w in weights.values())
        or not sum(weights.values()) > 0
    ):
        raise ConfigError(
            f"keep_best_weights {weights!r} is not allowed; allowed: weights >= 0 (not all 0) "
            "for the evaluation opponents random and greedy"
        )
    if args.keep_best and not args.eval_every:
        raise ConfigError("keep_best chooses among periodic evaluations: set eval_every > 0")
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)
    torch.distributions.Distribution.set_default_validate_args(False)  # masked logits are valid
    game = make_game(args.env_id, **args.options)
    if args.resume:
        trained_on = read_metadata(args.resume)["encoder"]
        if trained_on != args.encoder:
            raise ConfigError(
                f"resume: {args.resume!r} was trained on the {trained_on!r} observation, "
                f"but encoder is {args.encoder!r}; set encoder: {trained_on} (a flat policy "
                "can be given a longer observation with training/widen_checkpoint.py)"
            )
    if args.board_actions and game.encoder(args.encoder).action_planes is None:
        raise ConfigError(
            f"board_actions: {args.env_id}'s {args.encoder!r} observation places no "
            "actions on a board (use encoder planes of an env that has action planes)"
        )
    roles = LeagueRoles(args.league_self_play, args.league_past, args.league_bots)
    vec = make_vec(args, roles, roles.bot_specs)

    steps_done = 0
    if args.resume:
        model, meta = load_policy(args.resume, args.env_id, args.options)
        model.train()
        steps_done = int(meta["steps_trained"])
    else:
        encoder = game.encoder(args.encoder)
        planes = encoder.action_planes
        config = NetConfig(
            tuple(encoder.shape),
            game.num_actions,
            tuple(args.hidden),
            tuple(args.conv_channels),
            len(planes.channels) if args.board_actions and planes else 0,
            planes.index if args.board_actions and planes else (),
        )
        model = ActorCritic(config)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.learning_rate, eps=1e-5)
    pool = SnapshotPool(args.pool_size, args.seed)
    writer = None
    if args.track:
        from torch.utils.tensorboard import SummaryWriter

        writer = SummaryWriter(f"runs/{run_name}")
        writer.add_text(
            "hyperparameters",
            "|param|value|\n|-|-|\n"
            + "\n".join(f"|{k}|{v}|" for k, v in dataclasses.asdict(args).items()),
        )
    imitation: dict[str, Any] | None = None
    if args.imitate:

        def log_round(r: int, stats: dict[str, float]) -> None:
            if writer is not None:
                for key, value in stats.items():
                    writer.add_scalar(key, value, r)

        imitation = imitation_warm_start(model, args, log_round)
        save_checkpoint(
            f"runs/{run_name}/imitation.safetensors",
            model,
            checkpoint_meta(args, game, steps_done, imitation["arena"], command),
        )
    progress = None
    if args.progress:
        from tqdm import tqdm

        progress = tqdm(
            total=args.total_timesteps, unit="step", dynamic_ncols=True, mininterval=2.0
        )

    n, players = args.num_envs, game.num_players
    buffer = SeatRollout(args.num_steps * n + n * players, model.config.obs_shape, game.num_actions)
    env_idx = np.arange(n)
    dec = vec.reset()
    past_pick = [pool.pick() for _ in range(n)]
    start, last_steps, update = time.time(), vec.steps, 0
    outcomes: dict[str, list[float]] = {}
    arena: dict[str, Any] = {}
    best: tuple[float, int, dict[str, Any]] | None = None  # (score, steps, weights)
    num_updates = max(0, (args.total_timesteps - steps_done) // (n * args.num_steps))
    for update in range(1, num_updates + 1):
        if args.anneal_lr:  # to 0 at the end of the step budget or of the time budget
            done = (update - 1.0) / num_updates
            if args.max_minutes:
                done = max(done, (time.time() - start) / (60 * args.max_minutes))
            optimizer.param_groups[0]["lr"] = args.learning_rate * max(0.0, 1.0 - done)
        for _ in range(args.num_steps):
            actions = np.zeros(n, dtype=np.int64)
            own = (dec.role == LEARNER) | ((dec.role == PAST) & (np.array(past_pick) < 0))
            obs_t, mask_t = torch.from_numpy(dec.obs), torch.from_numpy(dec.mask)
            with torch.inference_mode():
                rows = np.flatnonzero(own)
                a, logp, _, v = model.get_action_and_value(obs_t[rows], mask_t[rows])
                actions[rows] = a.numpy()
                train_rows = dec.role[rows] == LEARNER
                r = rows[train_rows]
                buffer.add(
                    env_idx[r],
                    dec.seat[r],
                    dec.obs[r],
                    dec.mask[r],
                    a.numpy()[train_rows],
                    logp.numpy()[train_rows],
                    v.numpy()[train_rows],
                )
                for k in set(past_pick[i] for i in np.flatnonzero(dec.role == PAST)) - {-1}:
                    rows = np.array(
                        [i for i in np.flatnonzero(dec.role == PAST) if past_pick[i] == k]
                    )
                    actions[rows] = (
                        pool.models[k].get_action_and_value(obs_t[rows], mask_t[rows])[0].numpy()
                    )
            dec = vec.step(actions)
            for i, ret, seat_roles in dec.finished:
                buffer.end_game(i, ret)
                past_pick[i] = pool.pick()
                learner = [p for p, ro in enumerate(seat_roles) if ro == LEARNER]
                others = {ro for ro in seat_roles if ro != LEARNER}
                kind = "self" if not others else ("past" if others == {PAST} else "bots")
                outcomes.setdefault(kind, []).append(float(np.mean([ret[p] for p in learner])))

        idx, adv = buffer.advantages(args.gamma, args.gae_lambda)
        batch = {
            "obs": torch.from_numpy(buffer.obs[idx]),
            "mask": torch.from_numpy(buffer.mask[idx]),
            "act": torch.from_numpy(buffer.action[idx]),
            "logp": torch.from_numpy(buffer.logprob[idx]),
            "val": torch.from_numpy(buffer.value[idx]),
            "adv": torch.from_numpy(adv),
            "ret": torch.from_numpy(adv + buffer.value[idx]),
        }
        stats = ppo_update(model, optimizer, batch, args) if len(idx) else {}
        buffer.carry_over()

        steps = steps_done + vec.steps
        elapsed = time.time() - start
        stats["charts/SPS"] = vec.steps / elapsed
        stats["charts/trained_transitions"] = float(len(idx))
        stats["charts/learning_rate"] = optimizer.param_groups[0]["lr"]
        for kind, values in outcomes.items():
            stats[f"charts/mean_return_vs_{kind}"] = float(np.mean(values))
        outcomes = {}
        if args.pool_every and update % args.pool_every == 0:
            pool.add(model)
        if args.eval_every and update % args.eval_every == 0:
            arena = run_eval(model, args, args.eval_games, args.seed + 10_000 + update)
            for opp, res in arena.items():
                stats[f"eval/win_rate_vs_{opp}"] = res["win_rate"]
                stats[f"eval/mean_return_vs_{opp}"] = res["mean_return"]
            save_checkpoint(
                f"runs/{run_name}/latest.safetensors",
                model,
                checkpoint_meta(args, game, steps, arena, command),
            )
            score = best_score(arena, args.keep_best_weights)
            if args.keep_best and (best is None or score > best[0]):
                snapshot = {k: v.detach().clone() for k, v in model.state_dict().items()}
                best = (score, steps, snapshot)
                save_checkpoint(
                    f"runs/{run_name}/best.safetensors",
                    model,
                    checkpoint_meta(args, game, steps, arena, command),
                )
        if writer is not None:
            for key, value in stats.items():
                writer.add_scalar(key, value, steps)
        if progress is not None:
            progress.update(vec.steps - last_steps)
            progress.set_postfix(
                {k.split("/")[1]: f"{v:.3g}" for k, v in stats.items() if k.startswith("eval/win")},
                refresh=False,
            )
        last_steps = vec.steps
        if args.max_minutes and elapsed > 60 * args.max_minutes:
            break

    vec.close()
    if progress is not None:
        progress.close()
    model.eval()
    kept = None
    if best is not None:
        model.load_state_dict(best[2])
        kept = {
            "eval_mean_win_rate": round(best[0], 4),
            "weights": args.keep_best_weights,
            "at_step": best[1],
        }
        print(f"keeping the weights of step {best[1]} (weighted evaluation win rate {best[0]:.3f})")
    arena = (
        run_eval(model, args, args.final_eval_games, args.seed + 99_991)
        if args.final_eval_games
        else arena
    )
    meta = checkpoint_meta(args, game, steps_done + vec.steps, arena, command)
    meta["training"].update({"updates": update, "minutes": round((time.time() - start) / 60, 2)})
    if imitation is not None:
        meta["training"]["imitation"] = imitation
    if kept is not None:
        meta["training"]["kept_best"] = kept
    save_checkpoint(save_path, model, meta)
    for opp, res in arena.items():
        if writer is not None:
            writer.add_scalar(f"eval/win_rate_vs_{opp}", res["win_rate"], steps_done + vec.steps)
        print(f"final eval vs {opp}: win rate {res['win_rate']:.3f} over {int(res['games'])} games")
    if writer is not None:
        writer.close()
    print(f"saved {save_path} after {steps_done + vec.steps} env steps")
    return save_path


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    argv = sys.argv[1:] if argv is None else argv
    train(args, "python training/ppo_selfplay.py " + shlex.join(argv))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
