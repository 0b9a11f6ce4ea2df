"""Masked PPO self-play for any choco_envs env and player count (CleanRL style).

    choco train --config configs/chocolates_v0/ppo.yaml
    choco train --config configs/chocolates_v0/ppo.yaml --total-timesteps 300000 --seed 2
    python -m choco_envs.train.ppo --env-id le_chocolat_v0 --encoder planes --conv-channels 32 32

This file is the trainer as it reads: its ``Args`` (the shared run description,
``choco_envs.train.run.RunSpec``, plus PPO's own fields), the checks before anything
runs (``prepare``), the PPO update, and the loop (``train``) top to bottom: the network's
start, an imitation warm start, then rollouts against the league, PPO updates,
periodic evaluations, and the final file. The pieces it calls live in modules of their
own: ``rollout`` (the vector games and the per-seat trajectories), ``league`` (who plays
the other seats, the snapshot pool), ``evaluation`` (periodic, ``keep_best``, final),
``outputs`` (the run folder: args.yaml, scalars, curve, checkpoints), ``start`` (resume
and ``init_from``), ``imitation`` (the warm start).

**Per-seat trajectories** (``rollout.SeatRollout``). Every network decision of a learner
seat is one transition of *that seat's* trajectory; the transition that follows it is
the same seat's next decision in the same game; rewards come only at the end, each seat
its own; a transition whose successor is not known yet is carried into the next rollout.

**League** (``league.League``). In every game one seat is the learner; each other seat
is the learner too (``league_self_play``), a frozen past snapshot (``league_past``), or a
baseline bot drawn by ``league_bots`` weight. Games run in this process
(``num_workers: 0``) or in worker processes (``choco_envs.train.games``).

**Policy input.** The network reads the ``encoder``'s observation (``flat`` or
``planes``), then the inputs of the feature function ``feature`` (none by default;
``choco_envs.policy.features``); the checkpoint records both.

**Budget.** ``total_timesteps`` counts env steps: every action applied to a game, the
learner's, past snapshots' and bots' alike (a resumed run counts the steps of the file it
resumes). The run stops at the first batch of moves (one per game, with the bot moves
that follow) that reaches it, learns from that last, shorter rollout, and stops: it ends
at most about ``num_envs`` x (1 + bot moves in a turn) steps past the budget, never a
whole rollout. ``max_minutes`` stops it in time the same way. The progress bar counts
these steps and stops at 100%.

**Outputs**, under ``runs_dir/run_name`` (default ``runs/<env_id>__ppo__<seed>``):
TensorBoard scalars (``charts/``, ``losses/``, ``eval/``, ``imitation/``), ``args.yaml``
(the run's Args as a config), ``imitation.safetensors`` (after an imitation warm start),
``latest.safetensors`` (each periodic evaluation), ``best.safetensors`` (``keep_best``),
and ``final.safetensors`` (or ``save_path``), whose metadata holds the final evaluation
against random and greedy (``final_eval_games`` games each). Nothing is written into the
shipped ``checkpoints/`` folder: ``choco ship`` does that.
"""

from __future__ import annotations

import argparse
import dataclasses
import shlex
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from choco_envs.core.errors import ChocoError, ConfigError
from choco_envs.train.run import PPOLoss


@dataclass
class Args(PPOLoss):
    """The ``ppo`` engine's settings: the shared run description (``RunSpec``, with the
    PPO loss settings of ``PPOLoss``), then this trainer's own."""

    num_envs: int = 64
    """games played in parallel"""
    num_workers: int = 0
    """worker processes running the games (0: all games in this process); imitation
    rounds run their tables' games over as many processes"""
    num_steps: int = 32
    """network decisions per game per rollout"""
    anneal_lr: bool = True
    """anneal the learning rate linearly to 0 over the step budget (or the time budget,
    whichever ends first)"""
    margin_coef: float = 0.0
    """reward shaping: add this times (own final score - best other score) to the rank
    return (evaluation always counts wins)"""
    num_minibatches: int = 4
    """minibatches per epoch"""
    norm_adv: bool = True
    """normalize advantages per minibatch"""
    clip_vloss: bool = True
    """clip the value loss too"""
    target_kl: float | None = None
    """stop an update's epochs early above this approximate KL (None: never)"""
    league_whole_table: float = 0.0
    """probability that a game's other seats are all one bot drawn by league_bots weight
    (the arena's N-1 copies of a bot; at 4+ seats independent draws almost never are)"""
    pool_every: int = 10
    """updates between snapshots added to the pool (0: none)"""
    keep_best: bool = False
    """end with the weights of the periodic evaluation with the best weighted win rate
    (keep_best_weights), not the last update's; the final evaluation, on other deals,
    then measures them"""
    keep_best_weights: dict[str, float] = field(
        default_factory=lambda: {"random": 1.0, "greedy": 1.0}
    )
    """weights of the opponents' win rates in keep_best's mean (keys: random, greedy)"""
    keep_best_tables: bool = False
    """periodic evaluations also play every other player count of a seat-padded run
    (eval_games each), and keep_best keeps the weights with the best mean over the
    counts of win rate / target, each capped at 1 (90% vs random; vs greedy 60% at 2
    players, 1.5 / N beyond: choco_envs.train.evaluation.table_target)"""
    imitate: str = ""
    """teacher bot spec for an imitation warm start before PPO (e.g. greedy; '' for
    none): behaviour cloning then DAgger rounds, choco_envs.train.imitation"""
    imitate_rounds: int = 4
    """imitation rounds: in round 0 the teacher plays; in later rounds (DAgger) the
    network plays its seat and the teacher labels every decision it meets"""
    imitate_games: int = 1000
    """games per imitation round (one seat rotates as the network's seat)"""
    imitate_epochs: int = 6
    """epochs over all imitation data after each round"""
    imitate_opponents: dict[str, float] = field(
        default_factory=lambda: {"greedy": 0.7, "random": 0.3}
    )
    """bot specs in the other seats of imitation games, with their relative weights"""
    imitate_lr: float = 1e-3
    """Adam learning rate of imitation (annealed to 0 over each round's epochs)"""
    imitate_soft: bool = False
    """fit the teacher's policy over the actions, not only its chosen action: a search
    teacher (az) gives its improved policy (expert iteration's target), Le Chocolat's
    `alphabeta:temperature=T` the softmax of its action values; refused for a teacher that
    gives only actions"""
    ENGINE: ClassVar[str] = "ppo"

    def engine_rules(self) -> list[tuple[str, bool, str]]:
        """The ppo engine's own settings' ranges (``check`` reads them after the shared
        ones)."""
        rules: list[tuple[str, bool, str]] = [
            ("num_envs", 1 <= self.num_envs <= 4096, "1..4096"),
            ("num_workers", 0 <= self.num_workers <= 64, "0..64"),
            ("num_steps", 1 <= self.num_steps <= 100_000, "1..100000"),
            ("margin_coef", self.margin_coef >= 0, ">= 0"),
            ("num_minibatches", 1 <= self.num_minibatches <= 10_000, "1..10000"),
            ("target_kl", self.target_kl is None or self.target_kl > 0, "None or > 0"),
            ("league_whole_table", 0 <= self.league_whole_table <= 1, "in [0, 1]"),
            ("pool_every", self.pool_every >= 0, ">= 0"),
            (
                "keep_best",
                not self.keep_best or self.eval_every > 0,
                "true only with eval_every > 0 (it chooses among periodic evaluations)",
            ),  # fmt: skip
            (
                "keep_best_weights",
                set(self.keep_best_weights) <= {"random", "greedy"}
                and all(w >= 0 for w in self.keep_best_weights.values())
                and sum(self.keep_best_weights.values()) > 0,
                "weights >= 0, not all 0, for random and greedy",
            ),  # fmt: skip
            (
                "keep_best_tables",
                not self.keep_best_tables or (self.keep_best and len(self.player_counts) > 1),
                "true only with keep_best and two or more player_counts",
            ),  # fmt: skip
            ("imitate_rounds", 1 <= self.imitate_rounds <= 1000, "1..1000"),
            ("imitate_games", 1 <= self.imitate_games <= 10_000_000, "1..10000000"),
            ("imitate_epochs", 1 <= self.imitate_epochs <= 10_000, "1..10000"),
            ("imitate_lr", 0 < self.imitate_lr <= 1, "in (0, 1]"),
            (
                "imitate_opponents",
                all(w >= 0 for w in self.imitate_opponents.values()),
                "weights >= 0",
            ),
            (
                "imitate_opponents",
                not self.imitate_opponents or sum(self.imitate_opponents.values()) > 0,
                "weights >= 0, not all 0 ({} plays the teacher in every seat)",
            ),
        ]
        if self.num_workers:
            rules.append(("num_envs", self.num_envs % self.num_workers == 0,
                          f"a multiple of num_workers={self.num_workers}"))  # fmt: skip
        return rules


# ---------------------------------------------------------------- the run's setup
@dataclass
class Setup:
    """What the checked Args make: the game, the policy inputs, the network's config,
    the league's role sampler and the file to resume (all built before any side effect)."""

    game: Any
    inputs: Any
    net: Any
    roles: Any
    resume_meta: dict[str, Any] | None
    save_path: Path


def prepare(args: Args) -> Setup:
    """Check everything that needs the env (options, encoder, feature function, bot
    specs, network sizes, the resumed file, the output paths): ConfigError (or
    CheckpointError for the resumed file) before anything runs or is written."""
    from choco_envs import bots
    from choco_envs.policy.checkpoint import read_metadata
    from choco_envs.policy.features import PolicyInputs
    from choco_envs.policy.net import NetConfig, check_config
    from choco_envs.registry import make_game
    from choco_envs.train.games import LeagueRoles
    from choco_envs.train.imitation import check_soft_teacher

    args.check()
    if args.max_players:
        for table in args.tables():
            make_game(args.env_id, **table)  # ConfigError for a count or mode not allowed
        game = make_game(args.env_id, **{**args.options, "num_players": args.max_players})
        if args.num_envs < len(args.env_tables()):
            raise ConfigError(
                f"num_envs={args.num_envs} is not allowed; allowed: at least one game per "
                f"table ({len(args.env_tables())} tables, table_weights counted)"
            )
    else:
        game = make_game(args.env_id, **args.options)
    if args.encoder not in game.encoders:
        raise ConfigError(
            f"encoder={args.encoder!r} is not allowed for {args.env_id}; allowed: "
            + ", ".join(game.encoders)
        )
    inputs = PolicyInputs(game, args.encoder, args.feature, args.max_players, args.mode_marks)
    planes = inputs.encoder.action_planes
    if args.board_actions and planes is None:
        raise ConfigError(
            f"board_actions: {args.env_id}'s {args.encoder!r} observation places no "
            "actions on a board (use encoder planes of an env that has action planes)"
        )
    net = NetConfig(
        inputs.obs_shape,
        game.num_actions,
        tuple(args.hidden),
        tuple(args.conv_channels),
        len(planes.channels) if args.board_actions and planes else 0,
        tuple(planes.index) if args.board_actions and planes else (),
        inputs.extra,
        action_facts=inputs.action_facts(args.action_head) if args.action_head else (),
        facts_head_only=args.action_head_only,
        facts_context=args.action_head_context,
        facts_pool=args.action_head_pool,
    )
    try:
        check_config(net)
    except ValueError as err:
        raise ConfigError(f"the network of these Args is not allowed: {err}") from None
    for name in ("league_bots", "imitate_opponents"):
        for spec in getattr(args, name):
            bots.make(spec, env_id=args.env_id, seed=0)  # ConfigError for a bad spec
    if args.imitate:
        teacher = bots.make(args.imitate, env_id=args.env_id, seed=0)
        if args.imitate_soft:
            check_soft_teacher(teacher, args.imitate)
    elif args.imitate_soft:
        raise ConfigError("imitate_soft=True is not allowed without a teacher; set imitate")
    roles = LeagueRoles(
        args.league_self_play, args.league_past, args.league_bots, args.league_whole_table
    )
    resume_meta = None
    if args.resume:
        resume_meta = read_metadata(args.resume)
        stored = (resume_meta.get("features") or {}).get("name", "")
        if (resume_meta["encoder"], stored) != (args.encoder, args.feature):
            raise ConfigError(
                f"resume: {args.resume!r} reads encoder {resume_meta['encoder']!r} and "
                f"feature {stored!r}; set encoder and feature to those"
            )
    save_path = args.final_path
    args.check_outside_shipped(save_path, args.run_dir)
    return Setup(game, inputs, net, roles, resume_meta, save_path)


# ---------------------------------------------------------------- the PPO update
def ppo_update(model: Any, optimizer: Any, batch: dict[str, Any], args: Args) -> dict[str, float]:
    """CleanRL's PPO update on one rollout of complete transitions."""
    import torch
    from torch import nn

    n = len(batch["act"])
    mb_size = max(1, n // args.num_minibatches)
    clipfracs = []
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
    return {
        "losses/value_loss": v_loss.item(),
        "losses/policy_loss": pg_loss.item(),
        "losses/entropy": entropy_loss.item(),
        "losses/approx_kl": approx_kl.item(),
        "losses/clipfrac": float(np.mean(clipfracs)),
        "losses/explained_variance": float("nan")
        if var_y == 0
        else float(1 - np.var(y_true - y_pred) / var_y),
    }


# ---------------------------------------------------------------- the run
def train(args: Args, command: str = "") -> Path:
    """Train; return the path of the final checkpoint. ``command`` (what was run) goes
    into the checkpoint's metadata. Everything is checked (``prepare``) before any game
    is played or any file written."""
    import torch

    from choco_envs.train.evaluation import PeriodicEvaluation, run_eval
    from choco_envs.train.imitation import warm_start
    from choco_envs.train.league import League
    from choco_envs.train.outputs import RunFiles, progress_bar
    from choco_envs.train.rollout import SeatRollout, make_vec
    from choco_envs.train.start import start_model

    setup = prepare(args)
    command = command or "python -m choco_envs.train.ppo " + shlex.join(sys.argv[1:])
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)
    model, steps_done = start_model(args, setup)
    files = RunFiles(args, setup.game, setup.inputs, command)

    # imitation warm start: behaviour cloning, then DAgger rounds
    imitation: dict[str, Any] | None = None
    if args.imitate:

        def imitation_round(r: int, stats: dict[str, float]) -> None:
            files.log(stats, r)
            files.point(stats, "imitation/win_rate_vs_", steps_done, f"imitation round {r}",
                        args.eval_games)  # fmt: skip

        imitation = warm_start(
            model,
            args,
            log=imitation_round,
            bar=lambda total, desc, unit: progress_bar(args, total, desc, unit),
            evaluate_now=lambda games, seed: run_eval(model, args, games, seed),
        )
        files.save(files.dir / "imitation.safetensors", model, steps_done, imitation["arena"])

    # PPO self-play against the league
    optimizer = torch.optim.Adam(model.parameters(), lr=args.learning_rate, eps=1e-5)
    n, players = args.num_envs, setup.game.num_players
    league = League(n, args.pool_size, args.pool_every, args.seed)
    evaluation = PeriodicEvaluation(args)
    budget = max(0, args.total_timesteps - steps_done)
    bar = progress_bar(args, budget, "PPO", "step")
    buffer = SeatRollout(
        args.num_steps * n + n * players, setup.inputs.size, setup.game.num_actions
    )
    vec = make_vec(args, setup.roles) if budget else None
    dec = vec.reset() if vec is not None else None
    start, update = time.time(), 0

    def out_of_budget() -> bool:
        assert vec is not None
        minutes = (time.time() - start) / 60
        return vec.steps >= budget or bool(args.max_minutes and minutes >= args.max_minutes)

    while vec is not None and dec is not None and not out_of_budget():
        update += 1
        if args.anneal_lr:  # to 0 at the end of the step budget or of the time budget
            done = vec.steps / budget
            if args.max_minutes:
                done = max(done, (time.time() - start) / (60 * args.max_minutes))
            optimizer.param_groups[0]["lr"] = args.learning_rate * max(0.0, 1.0 - done)

        # rollout: one network decision per waiting game, the bots' moves in the vector
        for _ in range(args.num_steps):
            actions = np.zeros(n, dtype=np.int64)
            rows = league.network_rows(dec)
            with torch.inference_mode():
                obs, mask = torch.from_numpy(dec.obs[rows]), torch.from_numpy(dec.mask[rows])
                action, logprob, _, value = model.get_action_and_value(obs, mask)
                actions[rows] = action.numpy()
                buffer.add_decisions(dec, rows, action, logprob, value)
                league.past_actions(dec, actions)
            dec = vec.step(actions)
            for i, returns, seat_roles in dec.finished:
                buffer.end_game(i, returns)
                league.game_ended(i, returns, seat_roles)
            if bar is not None:
                bar.update(min(vec.steps, budget) - bar.n)
            if out_of_budget():
                break  # the last, shorter rollout is learnt from below

        # learning: PPO on the rollout's complete transitions
        batch = buffer.batch(args.gamma, args.gae_lambda)
        stats = ppo_update(model, optimizer, batch, args) if len(batch["act"]) else {}
        buffer.carry_over()
        league.after_update(model, update)

        # bookkeeping and periodic evaluation
        steps = steps_done + vec.steps
        stats["charts/SPS"] = vec.steps / max(1e-9, time.time() - start)
        stats["charts/trained_transitions"] = float(len(batch["act"]))
        stats["charts/learning_rate"] = optimizer.param_groups[0]["lr"]
        stats.update(league.returns())
        if evaluation.due(update):
            arena, best = evaluation.run(model, update, steps)
            stats.update(evaluation.scalars(arena))
            games = {opp: res["games"] for opp, res in arena.items()}
            files.point(stats, "eval/win_rate_vs_", steps, "ppo", games)
            more = {"arena_tables": evaluation.tables} if evaluation.tables else {}
            files.save(files.dir / "latest.safetensors", model, steps, arena, **more)
            if best:
                files.save(files.dir / "best.safetensors", model, steps, arena, **more)
            if evaluation.tables:
                print(evaluation.line(steps, best), flush=True)
            if bar is not None:
                bar.set_postfix({opp: f"{res['win_rate']:.2f}" for opp, res in arena.items()})
        files.log(stats, steps)

    if vec is not None:
        vec.close()
    if bar is not None:
        bar.close()

    # the final file: the kept weights, their final evaluation
    model.eval()
    kept = evaluation.restore_best(model)
    arena, tables = evaluation.final(model)
    steps = steps_done + (0 if vec is None else vec.steps)
    training = files.summary(update, start)
    if imitation is not None:
        training["imitation"] = imitation
    if kept is not None:
        training["kept_best"] = kept
    more = {"arena_tables": tables} if tables else {}
    files.finish(setup.save_path, model, steps, arena, f"{args.env_id} ppo", training=training,
                 **more)  # fmt: skip
    print(f"saved {setup.save_path} after {steps} env steps")
    return setup.save_path


# ---------------------------------------------------------------- command line
def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--config FILE`` and one flag per Args field."""
    from choco_envs.train.config import add_config_and_flags

    add_config_and_flags(parser, Args)


def args_from(ns: argparse.Namespace) -> Args:
    """Args from the defaults, then ``--config``, then the flags given (ConfigError)."""
    from choco_envs.train.config import args_from_namespace

    return args_from_namespace(Args, ns)


def command_line(prog: str, ns: argparse.Namespace) -> str:
    """The command that gives these flags (the ones given, in Args order)."""
    words = ["--config", ns.config] if getattr(ns, "config", None) else []
    for f in dataclasses.fields(Args):
        if hasattr(ns, f.name):
            given = getattr(ns, f.name)
            flag = "--" + f.name.replace("_", "-")
            if isinstance(given, list) and typing_origin(Args, f.name) is dict:
                for item in given:
                    words += [flag, item]
            elif isinstance(given, list):
                words += [flag, *given]
            else:
                words += [flag, given]
    return f"{prog} {shlex.join(words)}".strip()


def typing_origin(cls: type, name: str) -> Any:
    import typing

    return typing.get_origin(typing.get_type_hints(cls)[name])


def main(argv: list[str] | None = None, prog: str = "python -m choco_envs.train.ppo") -> int:
    """Train from the command line: 0 when done, 2 (one line on stderr) on bad input."""
    parser = argparse.ArgumentParser(
        prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_arguments(parser)
    ns = parser.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        train(args_from(ns), command=command_line(prog, ns))
    except ChocoError as err:
        print(f"{prog.split()[-1]}: error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
