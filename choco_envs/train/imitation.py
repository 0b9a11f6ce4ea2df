"""Imitation: behaviour cloning with DAgger rounds, the warm start of a PPO run.

A policy learns to play like a *teacher*, any bot spec of ``choco_envs.bots.make``
(``greedy``, a game's stronger kinds, ``mcts:...``, ``policy:PATH``), before PPO takes
over. Round 0 lets the teacher play every recorded decision; each later round lets the
student play its own seat (argmax) while the teacher labels every decision the student
meets (DAgger: Ross, Gordon and Bagnell, 2011), so the student learns to recover from its
own mistakes. Every round's data is kept and the network is refitted on all of it.

The teacher is a bot like any other: it sees an ``AgentView`` of its seat (the seat's
observation, mask and a view that can only be determinized), so imitation learns nothing
a seat may not know. With ``soft`` (``imitate_soft`` in a config) the student fits the
teacher's *policy* instead of its chosen action: a search teacher (``az``) gives its
improved policy over the legal actions (``AZBot.policy_view``), and the loss is the cross
entropy to that distribution. This is expert iteration's policy target (the search
improves on the network, the network learns the improvement); a search's chosen action
varies from one search of a position to the next, its policy much less. The student reads what the PPO network reads (``PolicyInputs``:
its encoder's observation, then its feature function's inputs). The value head is fitted
at the same time on the final return of the recorded seat (``games.shaped_returns``: rank
return plus ``margin_coef`` times the score margin, as in self-play), so that PPO starts
with a critic that already knows who is winning.

Used by ``choco_envs.train.ppo`` (``imitate: greedy`` in a config; ``total_timesteps: 0``
for imitation alone) through :func:`warm_start`.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from choco_envs.bots.base import AgentView
from choco_envs.core.errors import ConfigError
from choco_envs.policy.features import PolicyInputs
from choco_envs.policy.net import ActorCritic
from choco_envs.train.curves import elo
from choco_envs.train.games import shaped_returns


@dataclass
class Demos:
    """Recorded decisions: policy input, mask, the teacher's action, the seat's return,
    and (soft imitation only) the teacher's policy over every action (rows sum to 1).

    ``obs`` is kept as float16 (:data:`DEMO_DTYPE`; ``fit`` reads each minibatch back as
    float32): the aggregate of many DAgger rounds is the run's largest array (Chocolatiers:
    about 400,000 decisions of 3,000-4,000 inputs), and half its bytes let two such runs
    share this machine. The inputs are small counts, fractions and 0/1 marks; float16 keeps
    each to 3 significant digits (``collect`` refuses an input beyond its range)."""

    obs: np.ndarray
    mask: np.ndarray
    action: np.ndarray
    ret: np.ndarray
    target: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.action)

    @staticmethod
    def concat(parts: Sequence[Demos]) -> Demos:
        soft = {p.target is not None for p in parts}
        if len(soft) > 1:
            raise ValueError("cannot concatenate soft (policy) and hard (action) demonstrations")
        return Demos(
            np.concatenate([p.obs for p in parts]),
            np.concatenate([p.mask for p in parts]),
            np.concatenate([p.action for p in parts]),
            np.concatenate([p.ret for p in parts]),
            np.concatenate([p.target for p in parts]) if soft == {True} else None,  # type: ignore[misc]
        )


DEMO_DTYPE = np.float16
DEMO_MAX = float(np.finfo(DEMO_DTYPE).max)


def check_soft_teacher(teacher: Any, spec: str) -> None:
    """ConfigError unless the bot ``teacher`` (made from ``spec``) gives a policy."""
    if not callable(getattr(teacher, "policy_view", None)):
        raise ConfigError(
            f"imitate_soft needs a teacher that gives a policy over the actions (a search: "
            f"az, az:simulations=N, ...; Le Chocolat's alphabeta); imitate={spec!r} gives "
            "only its action"
        )


def collect(
    env_id: str,
    options: dict[str, Any],
    encoder: str,
    teacher: str,
    games: int,
    seed: int,
    student: ActorCritic | None = None,
    opponents: dict[str, float] | None = None,
    margin_coef: float = 0.0,
    progress: Callable[[int], None] | None = None,
    feature: str = "",
    max_players: int = 0,
    mode_marks: dict[str, list[Any]] | None = None,
    soft: bool = False,
) -> Demos:
    """Play ``games`` games and record the teacher's label at every decision of the
    recorded seats.

    In every game one seat (rotating) is the *student seat*: the student network plays it
    (argmax) when ``student`` is given, else the teacher does. Every other seat is an
    opponent drawn from ``opponents`` (bot spec -> weight; default the teacher itself).
    Recorded: every decision of the student seat, and every decision of an opponent seat
    played by the teacher (the teacher's own play is a demonstration too). With
    ``max_players`` the records are seat-padded inputs (a network of many tables). With
    ``soft`` each record also keeps the teacher's policy (``Demos.target``)."""
    from choco_envs.bots import make
    from choco_envs.registry import make_game

    game = make_game(env_id, **options)
    inputs = PolicyInputs(game, encoder, feature, max_players, mode_marks)
    opponents = opponents or {teacher: 1.0}
    specs = [k for k, w in opponents.items() if w > 0]
    weights = [opponents[k] for k in specs]
    teacher_bot = make(teacher, env_id=env_id, seed=seed)
    if soft:
        check_soft_teacher(teacher_bot, teacher)
    opp_bots = {k: make(k, env_id=env_id, seed=seed + 7919 * (i + 1)) for i, k in enumerate(specs)}
    rng = random.Random(seed)
    role_rng = random.Random(seed + 1)
    obs: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    acts: list[int] = []
    rets: list[float] = []
    targets: list[np.ndarray] = []
    n = game.num_players
    for g in range(games):
        s = game.new_state(rng)
        me = g % n
        roles = ["" if p == me else role_rng.choices(specs, weights)[0] for p in range(n)]
        start = len(acts)
        seats: list[int] = []
        while not game.is_over(s):
            p = game.current_player(s)
            m = game.legal_mask(s)
            # bots see the env's default observation; the record is the policy input
            view = AgentView(game, s, p, game.observe(s, p), m)
            if roles[p] and roles[p] != teacher:
                a = opp_bots[roles[p]].act_view(view)
            else:
                x = inputs.encode(s, p)
                if soft:
                    label, policy = teacher_bot.policy_view(view)  # type: ignore[attr-defined]
                    targets.append(policy)
                else:
                    label = teacher_bot.act_view(view)
                if np.abs(x).max(initial=0.0) > DEMO_MAX:
                    raise ValueError(
                        f"policy input of {env_id} reaches {np.abs(x).max()}, beyond what "
                        f"demonstrations store ({DEMO_DTYPE.__name__}: |x| <= {DEMO_MAX:g})"
                    )
                obs.append(x.astype(DEMO_DTYPE))
                masks.append(m)
                acts.append(label)
                seats.append(p)
                a = label
                if student is not None and p == me:
                    with torch.no_grad():
                        logits, _ = student(torch.from_numpy(x[None]), torch.from_numpy(m[None]))
                    a = int(logits.argmax(-1).item())
            game.apply(s, a, rng)
        final = shaped_returns(game, s, margin_coef)
        rets.extend(final[p] for p in seats)
        assert len(rets) == len(acts) == start + len(seats)
        if progress is not None:
            progress(g + 1)
    policies = None
    if soft:
        policies = np.asarray(targets, dtype=np.float32).reshape(len(acts), game.num_actions)
    return Demos(
        np.asarray(obs, dtype=DEMO_DTYPE).reshape(len(acts), inputs.size),
        np.asarray(masks, dtype=bool).reshape(len(acts), game.num_actions),
        np.asarray(acts, dtype=np.int64),
        np.asarray(rets, dtype=np.float32),
        policies,
    )


def fit(
    model: ActorCritic,
    demos: Demos,
    epochs: int,
    seed: int,
    learning_rate: float = 1e-3,
    batch_size: int = 512,
    vf_coef: float = 0.5,
    holdout: float = 0.05,
    progress: Callable[[int], None] | None = None,
) -> dict[str, float]:
    """Cross-entropy on the teacher's actions (masked logits), or on its policies where
    ``demos.target`` holds them (soft imitation), plus ``vf_coef`` times the squared
    error of the value on the seat's return. Returns the losses and the held-out
    accuracy (argmax == teacher's action) after the last epoch, and for soft targets the
    held-out cross entropy to them. ``progress`` is called with the number of epochs done
    after each one."""
    gen = torch.Generator().manual_seed(seed)
    n = len(demos)
    perm = torch.randperm(n, generator=gen)
    n_val = max(1, int(n * holdout)) if n > 20 else 0
    val, tr = perm[:n_val], perm[n_val:]
    obs, mask = torch.from_numpy(demos.obs), torch.from_numpy(demos.mask)
    act, ret = torch.from_numpy(demos.action), torch.from_numpy(demos.ret)
    target = None if demos.target is None else torch.from_numpy(demos.target)
    optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)
    ce = nn.CrossEntropyLoss()
    model.train()
    stats: dict[str, float] = {}
    for epoch in range(epochs):
        order = tr[torch.randperm(len(tr), generator=gen)]
        lr = learning_rate * (1.0 - epoch / max(1, epochs))
        optimizer.param_groups[0]["lr"] = lr
        total_pi = total_v = 0.0
        for start in range(0, len(order), batch_size):
            mb = order[start : start + batch_size]
            logits, value = model(obs[mb].float(), mask[mb])
            pi_loss = ce(logits, act[mb]) if target is None else soft_ce(logits, target[mb])
            v_loss = ((value - ret[mb]) ** 2).mean()
            loss = pi_loss + vf_coef * v_loss
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            total_pi += pi_loss.item() * len(mb)
            total_v += v_loss.item() * len(mb)
        stats = {
            "imitation/policy_loss": total_pi / max(1, len(order)),
            "imitation/value_loss": total_v / max(1, len(order)),
        }
        if progress is not None:
            progress(epoch + 1)
    model.eval()
    if n_val:
        with torch.no_grad():
            logits, _ = model(obs[val].float(), mask[val])
            stats["imitation/holdout_accuracy"] = float(
                (logits.argmax(-1) == act[val]).float().mean()
            )
            if target is not None:
                stats["imitation/holdout_soft_ce"] = float(soft_ce(logits, target[val]))
    return stats


def soft_ce(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Mean cross entropy of masked ``logits`` to the distributions ``target`` (0 on
    every illegal action, whose logit may be -inf: those terms count 0)."""
    logp = torch.log_softmax(logits, dim=-1)
    return -torch.where(target > 0, target * logp, torch.zeros_like(logp)).sum(-1).mean()


def ticker(bar: Any) -> Callable[[int], None] | None:
    """A progress callback that moves ``bar`` (None: no bar) to the count it is given."""
    if bar is None:
        return None

    def tick(done: int) -> None:
        bar.update(done - bar.n)

    return tick


def _offset(tick: Callable[[int], None] | None, done: int) -> Callable[[int], None] | None:
    """``tick`` counting on from ``done`` games (a round's later tables)."""
    if tick is None:
        return None
    return lambda g: tick(done + g)


def round_jobs(
    args: Any, tables: list[dict[str, Any]], r: int, student: ActorCritic | None
) -> list[dict[str, Any]]:
    """The keyword arguments of :func:`collect` for each table of round ``r``: the round's
    games split over the tables, the first ones a game more, each table's games seeded by
    the round and the table (so the data does not depend on how they are run)."""
    jobs = []
    for t, table in enumerate(tables):
        games = args.imitate_games // len(tables) + (t < args.imitate_games % len(tables))
        if games:
            jobs.append(
                {
                    "env_id": args.env_id,
                    "options": table,
                    "encoder": args.encoder,
                    "teacher": args.imitate,
                    "games": games,
                    "seed": args.seed + 50_000 + 1_000 * r + 100_003 * t,
                    "student": student,
                    "opponents": args.imitate_opponents,
                    "margin_coef": args.margin_coef,
                    "feature": args.feature,
                    "max_players": args.max_players,
                    "mode_marks": args.mode_marks,
                    "soft": args.imitate_soft,
                }
            )
    return jobs


def _collect_job(job: tuple[int, dict[str, Any]]) -> tuple[int, Demos]:
    torch.set_num_threads(1)
    return job[0], collect(**job[1])


def collect_jobs(
    jobs: list[dict[str, Any]], workers: int, tick: Callable[[int], None] | None = None
) -> list[Demos]:
    """``collect(**job)`` for every job, in order: in this process (``workers`` 0 or 1,
    ``tick`` told every game), or over ``workers`` forked processes, each job a table's
    games (``tick`` told as each table's games are done). The demonstrations are the same
    either way: every job carries its own seed, and the student's weights are those of
    this process when the round starts. Expensive teachers (a search, alpha-beta) are where this
    pays: with 2 workers a round takes about half the time."""
    if workers <= 1 or len(jobs) <= 1:
        out, done = [], 0
        for job in jobs:
            out.append(collect(**job, progress=_offset(tick, done)))
            done += job["games"]
        return out
    import multiprocessing as mp

    ctx: Any = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
    results: dict[int, Demos] = {}
    done = 0
    with ctx.Pool(min(workers, len(jobs))) as pool:
        for i, demos in pool.imap_unordered(_collect_job, enumerate(jobs)):
            results[i] = demos
            done += jobs[i]["games"]
            if tick is not None:
                tick(done)
    return [results[i] for i in range(len(jobs))]


def warm_start(
    model: ActorCritic,
    args: Any,
    log: Callable[[int, dict[str, float]], None],
    bar: Callable[[int, str, str], Any],
    evaluate_now: Callable[[int, int], dict[str, Any]],
) -> dict[str, Any]:
    """Fit ``model`` to the teacher ``args.imitate``: round 0 behaviour cloning, then
    DAgger rounds, ``args.imitate_*`` sized (the fields of ``choco_envs.train.ppo.Args``).
    After every round: ``log(round, stats)``, and ``evaluate_now(games, seed)`` (the
    arena figures per opponent). ``bar(total, desc, unit)`` makes a progress bar (or
    None). Returns the summary stored in the checkpoint (``training.imitation``)."""
    if args.imitate_rounds < 1:
        raise ConfigError(f"imitate_rounds={args.imitate_rounds} is not allowed; allowed: >= 1")
    parts: list[Demos] = []
    stats: dict[str, float] = {}
    arena: dict[str, Any] = {}
    tables = args.tables()  # one table, or each player count and mode of a padded net
    for r in range(args.imitate_rounds):
        t0 = time.time()
        games_bar = bar(args.imitate_games, f"imitation round {r}: games", "game")
        jobs = round_jobs(args, tables, r, student=model if r else None)
        parts.extend(collect_jobs(jobs, args.num_workers, ticker(games_bar)))
        if games_bar is not None:
            games_bar.close()
        demos = Demos.concat(parts)
        t1 = time.time()
        fit_bar = bar(args.imitate_epochs, f"imitation round {r}: fitting", "epoch")
        stats = fit(
            model,
            demos,
            args.imitate_epochs,
            args.seed + r,
            args.imitate_lr,
            progress=ticker(fit_bar),
        )
        if fit_bar is not None:
            fit_bar.close()
        arena = evaluate_now(args.eval_games, args.seed + 20_000 + r)
        for opp, res in arena.items():
            stats[f"imitation/win_rate_vs_{opp}"] = res["win_rate"]
            stats[f"imitation/elo_vs_{opp}"] = elo(res["win_rate"], res.get("games"))
        stats["imitation/decisions"] = float(len(demos))
        log(r, stats)
        rates = ", ".join(f"vs {opp} {res['win_rate']:.3f}" for opp, res in arena.items())
        print(
            f"imitation round {r}: {len(demos)} decisions ({t1 - t0:.0f} s playing, "
            f"{time.time() - t1:.0f} s fitting), held-out accuracy "
            f"{stats.get('imitation/holdout_accuracy', float('nan')):.3f}, win rate {rates}",
            flush=True,
        )
    model.train()
    return {
        "teacher": args.imitate,
        "soft": args.imitate_soft,
        "rounds": args.imitate_rounds,
        "decisions": sum(len(p) for p in parts),
        "holdout_accuracy": stats.get("imitation/holdout_accuracy"),
        "arena": arena,
    }
