"""The search-and-learn engine (``choco_envs.train.az``), its search
(``choco_envs.policy.search``) and the ``az`` bot (``choco_envs.policy.az_bot``)."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from choco_envs import bots
from choco_envs.bots.base import AgentView
from choco_envs.core.errors import CheckpointError, ConfigError
from choco_envs.policy.features import PolicyInputs
from choco_envs.policy.search import GumbelSearch, Root, SearchConfig, completed_q
from choco_envs.registry import make_game
from choco_envs.train.az_speed import settings
from tests.training.conftest import toy_meta, toy_model
from tests.training.toy_nim import ENV_ID

REPO = Path(__file__).resolve().parents[2]


def nim_value(stones: int) -> float:
    """Perfect play of Nim taking 1-3, last stone wins: the player to move loses exactly
    when the stones left are a multiple of 4."""
    return -1.0 if stones % 4 == 0 else 1.0


def exact_nim_evaluator(game: Any) -> Any:
    """Uniform priors and the exact value of every seat (own seat first)."""

    def evaluate(states: list[Any], players: list[int]) -> tuple[np.ndarray, np.ndarray]:
        n = game.num_players
        logits = np.zeros((len(states), game.num_actions))
        values = np.zeros((len(states), n))
        for i, s in enumerate(states):
            v = nim_value(s.stones)
            values[i] = [v] + [-v] * (n - 1)
        return logits, values

    return evaluate


def nim_root(game: Any, stones: int) -> Root:
    s = game.new_state(random.Random(0))
    s.stones = stones
    return Root(lambda rng, s=s: game.copy(s), 0, game.legal_actions(s))


@pytest.mark.parametrize("stones", [5, 6, 7, 9, 10, 13])
def test_gumbel_with_every_root_action_searched_and_exact_values_picks_the_best(stones):
    """Danihelka et al.: with every action considered and exact values, the improved
    policy and the chosen action are the best action (leave a multiple of 4)."""
    game = make_game(ENV_ID, stones=13)
    config = SearchConfig(simulations=24, max_considered=3, gumbel_scale=1.0)
    for seed in range(5):
        search = GumbelSearch(game, exact_nim_evaluator(game), config, seed=seed)
        result = search.run([nim_root(game, stones)])[0]
        best = stones % 4 - 1
        assert result.action == best, (stones, seed, result)
        assert int(np.argmax(result.policy)) == result.legal.index(best)
        assert all(v > 0 for v in result.visits)  # every root action was searched


def test_the_search_batches_roots_and_evaluates_leaves_together():
    """Many roots advance in lockstep, and each root by the simulations of its current
    phase that start with distinct actions: 8 simulations over 3 considered actions are
    the roots' evaluation, then 3 at once (phase 1: one each), 2 and 2 (phase 2: the best
    two twice), 1 (the survivor): 5 evaluator calls, not 9."""
    game = make_game(ENV_ID, stones=13)
    calls = []
    exact = exact_nim_evaluator(game)

    def counting(states, players):
        calls.append(len(states))
        return exact(states, players)

    search = GumbelSearch(game, counting, SearchConfig(simulations=8, max_considered=3), seed=1)
    results = search.run([nim_root(game, s) for s in (5, 6, 7, 9)])
    assert [r.action for r in results] == [0, 1, 2, 0]
    # at most those counts: a simulation that ends the game has no leaf to evaluate
    assert len(calls) == 5 and calls[:3] == [4, 12, 8]
    assert all(c <= most for c, most in zip(calls, [4, 12, 8, 8, 4], strict=True))
    assert search.last_simulations == 4 * 8
    calls.clear()
    search.run([nim_root(game, 9)])
    assert calls == [1, 3, 2, 2, 1]


@pytest.mark.parametrize("stones", [5, 6, 7, 9, 10, 13])
def test_walks_of_one_root_action_batched_by_virtual_visits_still_pick_the_best(stones):
    """``leaf_batch``: up to k walks of one root action run together, each steered by the
    others' virtual visits; with exact values the search still picks the best action,
    every simulation is counted once, every node is evaluated at most once and no
    virtual visit is left behind."""
    game = make_game(ENV_ID, stones=13)
    exact = exact_nim_evaluator(game)
    for seed in range(5):
        evaluated = []

        def counting(states, players, evaluated=evaluated):
            evaluated.append(len(states))
            return exact(states, players)

        config = SearchConfig(simulations=24, max_considered=3, gumbel_scale=1.0, leaf_batch=4)
        search = GumbelSearch(game, counting, config, seed=seed)
        root = nim_root(game, stones)
        result = search.run([root])[0]
        assert result.action == stones % 4 - 1, (stones, seed, result)
        assert sum(result.visits) == 24 and search.last_simulations == 24
        assert search.last_evaluations == sum(evaluated) <= 25


def test_leaf_batch_runs_fewer_forward_passes_and_leaves_no_virtual_visit():
    """Walks of one action together: fewer evaluator calls than one walk an action at a
    time, each leaf node evaluated once even when two walks reach it, and every node's
    pending count back to 0 after the search (the tree's statistics are real visits)."""
    from choco_envs.policy import search as search_module

    game = make_game(ENV_ID, stones=13)
    exact = exact_nim_evaluator(game)
    counts = {}
    seen_nodes: list[Any] = []
    original = search_module.GumbelSearch._evaluate

    def spying(self, states, players, nodes):
        assert len({id(n) for n in nodes}) == len(nodes)  # one row per distinct leaf
        assert all(n.value is None for n in nodes)  # never evaluated twice
        seen_nodes.extend(nodes)
        return original(self, states, players, nodes)

    for batch in (1, 8):
        calls = []

        def counting(states, players, calls=calls):
            calls.append(len(states))
            return exact(states, players)

        config = SearchConfig(simulations=64, max_considered=3, leaf_batch=batch)
        search = GumbelSearch(game, counting, config, seed=2)
        search._evaluate = spying.__get__(search)  # type: ignore[method-assign]
        search.run([nim_root(game, 13)])
        counts[batch] = len(calls)
    assert counts[8] < 0.6 * counts[1]  # 11 against 19 here
    assert seen_nodes and all(n.pending == 0 for n in seen_nodes)
    # one root action: its walks spread over the child's 3 moves, not one path 8 times
    calls = []

    def one_action(states, players):
        calls.append(len(states))
        return exact(states, players)

    config = SearchConfig(simulations=9, max_considered=1, leaf_batch=8)
    search = GumbelSearch(game, one_action, config, seed=2)
    result = search.run([nim_root(game, 13)])[0]
    # the root, its child (the other 7 walks reach the same leaf: given back, not run),
    # then 3 grandchildren at once
    assert calls[:3] == [1, 1, 3] and sum(result.visits) == 9 == search.last_simulations
    with pytest.raises(ValueError, match="leaf_batch=0; allowed: an int >= 1"):
        SearchConfig(leaf_batch=0).check()


@pytest.mark.parametrize("env_id", ["chocolates_v0", "chocolatiers_v1", "chocolate_factory_v2"])
def test_simulations_run_together_choose_as_one_at_a_time(env_id):
    """Running a phase's simulations together (one forward pass for their leaves) changes
    nothing: their subtrees are disjoint, so visits, q values, the improved policy and the
    action equal those of one simulation at a time, on determinized positions with
    hidden information and chance. The evaluator is row-wise (each state's output its
    own, in float64), so only the search's order could make a difference."""
    game = make_game(env_id, num_players=2)
    encoder = game.encoder("flat")
    gen = np.random.default_rng(0)
    weights = gen.normal(size=(int(np.prod(encoder.shape)), game.num_actions + 2))

    def rowwise(states, players):
        pairs = zip(states, players, strict=True)
        out = np.array([encoder.encode(s, p).astype(np.float64) @ weights for s, p in pairs])
        return out[:, : game.num_actions], np.tanh(out[:, game.num_actions :] / 50.0)

    states, players = random_positions(game, seed=5, count=40)
    pairs = zip(states, players, strict=True)
    picked = [(s, p) for s, p in pairs if len(game.legal_actions(s)) > 2][:4]
    assert len(picked) == 4

    def results(together: bool) -> list[Any]:
        config = SearchConfig(simulations=48, max_considered=8, c_scale=0.3, together=together)
        roots = [
            Root(lambda rng, s=s, p=p: game.determinize(s, p, rng), p, game.legal_actions(s))
            for s, p in picked
        ]
        calls.clear()
        out = [GumbelSearch(game, counted, config, seed=3).run([r])[0] for r in roots]
        counts.append(len(calls))
        return out

    calls: list[int] = []
    counts: list[int] = []

    def counted(states, players):
        calls.append(len(states))
        return rowwise(states, players)

    together, alone = results(True), results(False)
    assert counts[0] < counts[1] / 2  # fewer forward passes: the point of running together
    for a, b in zip(together, alone, strict=True):
        assert a.action == b.action
        np.testing.assert_array_equal(a.visits, b.visits)
        np.testing.assert_array_equal(a.q, b.q)
        np.testing.assert_array_equal(a.policy, b.policy)


def test_az_speed_times_the_bots_moves_both_ways():
    """``python -m choco_envs.train.az_speed --bot``: the az bot's milliseconds a move with
    the shipped network, one simulation at a time and a phase's together."""
    from choco_envs.train.az_speed import bot_moves

    row = bot_moves("chocolate_factory_v2", {}, moves=2, sims=8)
    assert row["one_at_a_time_ms"] > 0 and row["together_ms"] > 0
    assert row["ratio"] == round(row["one_at_a_time_ms"] / row["together_ms"], 2)
    assert "leaf_batch_ms" not in row
    assert bot_moves("chocolate_factory_v2", {}, moves=2, sims=8, leaf_batch=4)["leaf_batch_ms"] > 0


def test_completed_q_fills_unvisited_actions_with_the_mixed_value():
    """The improved policy's completed q: visited actions keep their q; unvisited ones get
    the prior-weighted mix of the network value and the visited q's, then [0, 1]."""
    logits = np.zeros(3)
    visits = np.array([2.0, 0.0, 0.0])
    q = np.array([1.0, 0.0, 0.0])
    done = completed_q(logits, visits, q, value=0.0)
    # mixed = (0 + 2 / (1/3) * (1/3 * 1)) / 3 = 2/3 for both unvisited actions
    assert done[0] == 1.0 and done[1] == done[2] == 0.0
    done = completed_q(logits, np.array([2.0, 1.0, 0.0]), np.array([1.0, 0.0, 0.0]), 0.5)
    assert done[0] == 1.0 and done[1] == 0.0 and 0.0 < done[2] < 1.0


def random_positions(game: Any, seed: int, count: int) -> tuple[list[Any], list[int]]:
    """Up to ``count`` successive positions of one random game, with the seat to act."""
    rng = random.Random(seed)
    states, players = [], []
    s = game.new_state(rng)
    while not game.is_over(s) and len(states) < count:
        states.append(game.copy(s))
        players.append(game.current_player(s))
        game.apply(s, rng.choice(game.legal_actions(s)), rng)
    return states, players


def test_batched_and_one_at_a_time_inference_agree():
    from choco_envs.policy.az_bot import NetEvaluator
    from choco_envs.policy.features import PolicyInputs

    game = make_game("chocolates_v0", num_players=3)
    from choco_envs.policy.net import ActorCritic, NetConfig

    inputs = PolicyInputs(game, "flat", "chocolates_truth")
    model = ActorCritic(
        NetConfig(inputs.obs_shape, game.num_actions, (32,), extra_inputs=inputs.extra,
                  value_outputs=3)
    ).eval()  # fmt: skip
    evaluator = NetEvaluator(model, inputs, 3)
    states, players = random_positions(game, seed=3, count=12)
    logits, values = evaluator(states, players)
    for i, (st, p) in enumerate(zip(states, players, strict=True)):
        one_logits, one_values = evaluator([st], [p])
        np.testing.assert_allclose(one_logits[0], logits[i], rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(one_values[0], values[i], rtol=1e-5, atol=1e-5)
    assert values.shape == (12, 3) and np.all(np.abs(values) <= 1.0)


def test_a_one_value_network_values_each_seat_from_that_seats_own_input():
    """A PPO network has one value output, the value of the seat that reads the input:
    the evaluator asks it once per seat, each seat reading its own input of the leaf's
    state (own seat first), clipped to [-1, 1], and takes the acting seat's logits; in
    one forward pass, equal to asking seat by seat."""
    import torch

    from choco_envs.policy.az_bot import NetEvaluator
    from choco_envs.policy.features import PolicyInputs
    from choco_envs.policy.net import ActorCritic, NetConfig

    game = make_game("chocolates_v0", num_players=3)
    inputs = PolicyInputs(game, "flat", "chocolates_truth")
    torch.manual_seed(2)
    model = ActorCritic(
        NetConfig(inputs.obs_shape, game.num_actions, (32,), extra_inputs=inputs.extra)
    ).eval()
    with torch.no_grad():  # values spread past [-1, 1], so the clip shows
        model.critic.weight.mul_(40.0)
    evaluator = NetEvaluator(model, inputs, 3)
    assert evaluator.by_seat
    states, players = random_positions(game, seed=4, count=10)
    calls = evaluator.calls
    logits, values = evaluator(states, players)
    assert evaluator.calls == calls + 1 and values.shape == (10, 3)
    everyone = torch.ones((1, game.num_actions), dtype=torch.bool)
    raw = []
    for i, (st, p) in enumerate(zip(states, players, strict=True)):
        for k in range(3):
            x = torch.from_numpy(inputs.encode(st, (p + k) % 3)[None])
            with torch.no_grad():
                one_logits, one_value = model(x, everyone)
            raw.append(float(one_value))
            if k == 0:
                np.testing.assert_allclose(logits[i], one_logits[0].numpy(), atol=1e-5)
            np.testing.assert_allclose(values[i, k], np.clip(raw[-1], -1.0, 1.0), atol=1e-5)
    assert max(abs(v) for v in raw) > 1.0 and np.all(np.abs(values) <= 1.0)


# ---------------------------------------------------------------- the loop
@pytest.mark.parametrize("num_workers", [0, 2], ids=["one-process", "two-workers"])
def test_the_loop_learns_optimal_nim_in_seconds(tmp_path: Path, num_workers: int) -> None:
    """From a random network, search and learning reach perfect play of Nim: take
    stones % 4 wherever the player to move can win; with the games in this process or
    played by two worker processes."""
    from choco_envs.policy.checkpoint import load_policy
    from choco_envs.train.az import Args, train

    args = Args(
        env_id=ENV_ID, options={"num_players": 2, "stones": 10}, hidden=(32,),
        num_games=16, simulations=8, max_considered=3, learning_rate=3e-3, batch_size=64,
        moves_per_iteration=4, total_games=1200, max_minutes=2.0, eval_every_minutes=10.0,
        eval_games=2, final_eval_games=0, search_eval_games=0, runs_dir=str(tmp_path),
        run_name="nim", track=False, progress=False, seed=3, num_workers=num_workers,
    )  # fmt: skip
    path = train(args)
    model, meta = load_policy(path, ENV_ID)
    assert meta["training"]["engine"] == "az" and model.config.value_outputs == 2
    assert meta["steps_trained"] >= 1200  # every worker's games counted
    game = make_game(ENV_ID, stones=10)
    import torch

    from choco_envs.policy.features import PolicyInputs

    inputs = PolicyInputs(game, "flat")
    wrong = []
    for stones in range(1, 11):
        s = game.new_state(random.Random(0))
        s.stones = stones
        x = torch.from_numpy(inputs.encode(s, 0)[None])
        logits, value = model(x, torch.from_numpy(game.legal_mask(s)[None]))
        if stones % 4 and int(logits.argmax()) != stones % 4 - 1:
            wrong.append(stones)
        if stones % 4 and float(torch.tanh(value[0, 0])) < 0.0:
            wrong.append(("value", stones))
    assert not wrong, wrong


def test_choco_train_engine_az_writes_a_file_the_az_and_policy_bots_play(tmp_path: Path):
    """The CLI run in CI (a tiny budget): a loadable file with its search settings (the
    play-time ``play_c_scale`` over self-play's ``c_scale``) and stored evaluations, played by ``az:checkpoint=`` and by ``policy:``."""
    run = subprocess.run(
        [
            sys.executable, "-m", "choco_envs.cli", "train", "--engine", "az",
            "--env-id", "chocolates_v0", "--max-minutes", "0.05", "--num-games", "4",
            "--simulations", "4", "--play-simulations", "4", "--hidden", "32",
            "--eval-games", "2", "--final-eval-games", "2", "--search-eval-games", "2",
            "--runs-dir", str(tmp_path), "--run-name", "tiny", "--track", "false",
            "--progress", "false", "--c-scale", "0.2", "--play-c-scale", "0.6",
        ],
        capture_output=True, text=True, timeout=600, cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    path = tmp_path / "tiny" / "final.safetensors"
    from choco_envs.policy.checkpoint import read_metadata

    meta = read_metadata(path)
    assert meta["search"]["simulations"] == 4
    assert meta["search"]["c_scale"] == 0.6  # play_c_scale, not self-play's c_scale
    assert set(meta["arena"]) == {"random", "greedy"} and "greedy" in meta["arena_search"]
    assert (tmp_path / "tiny" / "curve.json").is_file()
    from choco_envs.arena import run_arena

    report = run_arena(
        "chocolates_v0", [f"az:checkpoint={path}", f"policy:{path}"], games=2, progress=False
    )
    assert report["games_played"] == 2


def test_the_az_engine_trains_the_networks_ppo_trains_a_head_over_action_facts_included(
    tmp_path: Path,
) -> None:
    """One run description for both engines: a PPO file with a head over per-action facts
    (``action_head``, ``action_head_context``) starts an az run with the same settings,
    whose file keeps that head and its policy (the value head is fitted afresh); a start
    file whose head differs from the run's is refused in one line naming both."""
    import torch

    from choco_envs.policy.checkpoint import load_policy
    from choco_envs.train import az, ppo

    base = dict(
        env_id="chocolatiers_v1", options={"num_players": 2, "edition": "standard"},
        hidden=(16,), feature="chocolatiers_takes", action_head=8, action_head_context=True,
        final_eval_games=0, track=False, progress=False, runs_dir=str(tmp_path),
    )  # fmt: skip
    headed = ppo.train(
        ppo.Args(
            **base, total_timesteps=100, num_envs=2, num_steps=2, eval_every=0,
            league_self_play=1.0, league_past=0.0, league_bots={}, run_name="headed",
        )
    )  # fmt: skip
    searched = az.train(
        az.Args(
            **base, init_from=str(headed), total_games=2, num_games=2, simulations=2,
            max_considered=2, play_simulations=2, learning_rate=1e-9, eval_games=2,
            eval_every_minutes=60.0, run_name="az",
        )
    )  # fmt: skip
    old, meta = load_policy(headed, "chocolatiers_v1")
    new, _ = load_policy(searched, "chocolatiers_v1")
    assert new.config.action_facts == old.config.action_facts and new.config.facts_context
    assert new.config.value_outputs == 2
    game = make_game("chocolatiers_v1", num_players=2, edition="standard")
    s = game.new_state(random.Random(3))
    x = torch.from_numpy(PolicyInputs.of_checkpoint(game, meta).encode(s, s.player)[None])
    mask = torch.from_numpy(game.legal_mask(s)[None].astype(bool))
    with torch.no_grad():
        torch.testing.assert_close(old(x, mask)[0], new(x, mask)[0], atol=1e-3, rtol=0)
    with pytest.raises(ConfigError, match="action_facts, facts_head_only, facts_context"):
        az.prepare(az.Args(**{**base, "action_head": 4}, init_from=str(headed), max_minutes=1))
    # the pooled maps (action_head_pool) may be added to a file without them, not dropped
    widened = az.prepare(az.Args(**base, action_head_pool=True, init_from=str(headed),
                                 max_minutes=1))  # fmt: skip
    assert widened.net.facts_pool
    pooled = ppo.train(
        ppo.Args(
            **base, action_head_pool=True, total_timesteps=4, num_envs=2, num_steps=2,
            eval_every=0, league_self_play=1.0, league_past=0.0, league_bots={},
            run_name="pooled",
        )
    )  # fmt: skip
    with pytest.raises(ConfigError, match=r"mode_marks, facts_pool\) .*True\); this run's"):
        az.prepare(az.Args(**base, init_from=str(pooled), max_minutes=1))


def test_worker_processes_play_the_games_this_process_would_with_their_weights() -> None:
    """``num_workers``: worker ``w`` plays games ``w, w + N, ...`` of the lockstep games,
    seeded ``seed + 1_000_003 w``, with the weights it is sent each round: its rows,
    games, decisions and simulations are those of ``SelfPlay`` over the same games in
    this process, and every row reaches the replay buffer, round by round in worker
    order. Weights changed between rounds are the ones the next round plays."""
    import torch

    from choco_envs.policy.az_bot import NetEvaluator
    from choco_envs.policy.net import ActorCritic
    from choco_envs.train.az import Args, Replay, SelfPlay, SelfPlayWorkers, prepare

    args = Args(
        env_id="chocolates_v0", hidden=(16,), num_games=5, simulations=4, max_considered=2,
        num_workers=2, max_minutes=1.0, bot_seats=0.5, league_bots={"greedy": 1.0},
    )  # fmt: skip
    setup = prepare(args)
    game, inputs = setup.tables[0]
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # the workers' one thread: the same sums, the same choices
    try:
        model = ActorCritic(setup.net).eval()
        first = {k: v.clone() for k, v in model.state_dict().items()}
        workers = SelfPlayWorkers(model, args, [0] * 5, 100, 2)
        try:
            replay = Replay(4_000, inputs.size, game.num_actions, 2)
            workers.round(replay, 12)
            with torch.no_grad():
                for p in model.parameters():
                    p.add_(0.5 * torch.randn_like(p))
            workers.round(replay, 12)
        finally:
            workers.close()
        mirror = ActorCritic(setup.net).eval()
        expected: list[list[Replay]] = [[], []]  # [round][worker]
        counts = []
        for w, share in enumerate(([0, 0, 0], [0, 0])):  # games 0, 2, 4 and 1, 3
            play = SelfPlay(
                [(game, inputs, NetEvaluator(mirror, inputs, 2))], share, args,
                100 + 1_000_003 * w, 2,
            )  # fmt: skip
            for r, weights in enumerate((first, model.state_dict())):
                mirror.load_state_dict(weights)
                local = Replay(4_000, inputs.size, game.num_actions, 2)
                play.round(local, 12)
                expected[r].append(local)
            counts.append((play.games_done, play.decisions, play.simulations))
    finally:
        torch.set_num_threads(threads)
    assert (workers.games_done, workers.decisions, workers.simulations) == tuple(
        map(sum, zip(*counts, strict=True))
    )
    assert workers.games_done > 0
    order = [local for by_worker in expected for local in by_worker]
    assert replay.added == sum(local.added for local in order) > 0
    for name in ("x", "mask", "policy", "value"):
        want = np.concatenate([getattr(local, name)[: local.added] for local in order])
        assert np.array_equal(getattr(replay, name)[: replay.added], want), name
    with pytest.raises(ConfigError, match="num_workers=6 is not allowed; allowed: an int in 0..5"):
        Args(num_games=5, num_workers=6, max_minutes=1.0).check()


def test_a_failing_self_play_worker_stops_the_round_with_its_traceback() -> None:
    """A worker that fails (here: a game slot of a table that does not exist) is not
    waited for again: the round raises with the worker's number and its traceback."""
    from choco_envs.policy.net import ActorCritic
    from choco_envs.train.az import Args, Replay, SelfPlayWorkers, prepare

    args = Args(env_id="chocolates_v0", hidden=(8,), num_games=2, simulations=2,
                max_considered=2, num_workers=2, max_minutes=1.0)  # fmt: skip
    setup = prepare(args)
    model = ActorCritic(setup.net).eval()
    workers = SelfPlayWorkers(model, args, [0, 7], 1, 2)  # worker 1 plays table 7
    replay = Replay(100, setup.inputs.size, setup.game.num_actions, 2)
    with pytest.raises(RuntimeError, match=r"(?s)self-play worker 1 failed:.*IndexError"):
        workers.round(replay, 1)
    assert workers.procs == [] and workers.conns == []  # closed


def test_the_value_target_mixes_the_deciding_seats_outcome_with_the_searched_value() -> None:
    """``value_mix``: the deciding seat's target is (1 - mix) x outcome + mix x the search's
    value, own seat first; a two-seat zero-sum game's other seat is its negation; with more
    seats the others keep their outcomes; 0 leaves the outcomes alone."""
    from choco_envs.train.az import Args, value_target

    assert value_target([1.0, -1.0], 1, 0.5, 0.0).tolist() == [-1.0, 1.0]
    assert value_target([1.0, -1.0], 1, 0.5, 0.25).tolist() == [-0.625, 0.625]
    assert value_target([1.0, -1.0], 0, -1.0, 1.0).tolist() == [-1.0, 1.0]
    three = value_target([1.0, -1.0, -1.0], 2, 0.2, 0.5)
    np.testing.assert_allclose(three, [-0.4, 1.0, -1.0])
    with pytest.raises(
        ConfigError, match=r"value_mix=1.5 is not allowed; allowed: a number in \[0, 1\]"
    ):
        Args(value_mix=1.5, max_minutes=1.0).check()


def test_value_margin_blends_the_score_margin_into_targets_searches_and_files(
    tmp_path: Path,
) -> None:
    """``value_margin`` w, ``value_margin_scale`` S: a finished game's outcome for seat p is
    (1 - w) x its rank return + w x tanh((p's score - the best other score) / S), in the
    value targets, in the search's values of finished games (``SearchConfig.margin_weight``)
    and in the file's search settings the ``az`` bot reads; w = 0 is the rank returns."""
    from choco_envs.core.outcomes import margin_values
    from choco_envs.policy.az_bot import AZBot
    from choco_envs.train import az

    game = make_game("le_chocolat_v0", num_players=2)
    rng = random.Random(5)
    s = game.new_state(rng)
    while not game.is_over(s):
        game.apply(s, rng.choice(game.legal_actions(s)), rng)
    scores, returns = game.scores(s), game.returns(s)
    assert scores[0] != scores[1]
    by_hand = [
        0.75 * returns[p] + 0.25 * float(np.tanh((scores[p] - scores[1 - p]) / 4.0)) for p in (0, 1)
    ]
    args = az.Args(max_minutes=1.0, value_margin=0.25, value_margin_scale=4.0)
    np.testing.assert_allclose(az.outcomes(game, s, args), by_hand)
    assert az.outcomes(game, s, az.Args(max_minutes=1.0)) == [float(r) for r in returns]
    assert margin_values(returns, scores, 0.0, 4.0) == [float(r) for r in returns]
    config = SearchConfig(margin_weight=0.25, margin_scale=4.0)
    np.testing.assert_allclose(GumbelSearch(game, None, config)._finished(s), by_hand)
    assert GumbelSearch(game, None, SearchConfig())._finished(s) == [float(r) for r in returns]
    # the warm-up's targets read the same outcomes
    xs: list[np.ndarray] = []
    targets: list[np.ndarray] = []
    inputs = PolicyInputs(game, "flat")
    from choco_envs.policy.net import ActorCritic, NetConfig

    model = ActorCritic(NetConfig(inputs.obs_shape, game.num_actions, (16,), value_outputs=2))
    model.eval()
    import torch

    randomness = (random.Random(3), torch.Generator().manual_seed(3))
    az._play_own_games(model, game, inputs, 3, randomness, (None, []), (xs, targets), 2, args)
    assert any(abs(abs(float(z[0])) - 1.0) > 0.01 for z in targets)  # not rank returns alone
    assert all(abs(float(z[0]) + float(z[1])) < 1e-6 for z in targets)  # zero-sum at two
    # the file's search settings carry it to the bot (absent: rank returns)
    from choco_envs.policy.checkpoint import load_policy, save_checkpoint

    path = save_az(tmp_path, "le_chocolat_v0")
    plain = AZBot(path, "le_chocolat_v0")
    assert plain.config.margin_weight == 0.0
    model, meta = load_policy(path, "le_chocolat_v0")
    meta["search"] = {**meta["search"], "margin_weight": 0.25, "margin_scale": 4.0}
    blended = AZBot(save_checkpoint(tmp_path / "m.safetensors", model, meta), "le_chocolat_v0")
    assert (blended.config.margin_weight, blended.config.margin_scale) == (0.25, 4.0)
    assert az.meta_search(args) == {
        "simulations": 64, "max_considered": 16, "c_visit": 50.0, "c_scale": 1.0,
        "margin_weight": 0.25, "margin_scale": 4.0,
    }  # fmt: skip
    assert "margin_weight" not in az.meta_search(az.Args(max_minutes=1.0))
    with pytest.raises(
        ConfigError, match=r"value_margin=1.5 is not allowed; allowed: a number in \[0, 1\]"
    ):
        az.Args(value_margin=1.5, max_minutes=1.0).check()
    with pytest.raises(ConfigError, match=r"value_margin_scale=0.0 is not allowed"):
        az.Args(value_margin_scale=0.0, max_minutes=1.0).check()
    with pytest.raises(ValueError, match=r"margin_weight=2.0; allowed: a number in \[0, 1\]"):
        SearchConfig(margin_weight=2.0).check()


def test_bad_az_args_are_one_line_errors(tmp_path: Path) -> None:
    from choco_envs.train.az import Args, prepare

    with pytest.raises(ConfigError, match="simulations=0"):
        prepare(Args(simulations=0, max_minutes=1.0, runs_dir=str(tmp_path)))
    with pytest.raises(ConfigError, match="encoder='planes' is not allowed"):
        prepare(
            Args(
                env_id="chocolate_factory_v2", encoder="planes", max_minutes=1.0,
                runs_dir=str(tmp_path),
            )
        )  # fmt: skip
    with pytest.raises(ConfigError, match="max_minutes=0.0 is not allowed"):
        prepare(Args(runs_dir=str(tmp_path)))  # no budget: max_minutes 0 is no limit


# ---------------------------------------------------------------- the bot
def save_az(tmp_path: Path, env_id: str, value_outputs: int = 0, **options: Any) -> Path:
    """A small untrained policy-value file of ``env_id`` (one value per seat, or
    ``value_outputs``)."""
    import torch

    from choco_envs.policy.checkpoint import save_checkpoint
    from choco_envs.policy.features import PolicyInputs
    from choco_envs.policy.net import ActorCritic, NetConfig

    game = make_game(env_id, **options)
    inputs = PolicyInputs(game, "flat")
    torch.manual_seed(0)
    model = ActorCritic(
        NetConfig(
            inputs.obs_shape,
            game.num_actions,
            (16,),
            value_outputs=value_outputs or game.num_players,
        )
    )
    meta = {
        "env_id": env_id,
        "version": game.spec.version,
        "options": {k: v for k, v in game.config.items() if isinstance(v, (bool, int, str))},
        "encoder": "flat",
        "observation_shape": list(inputs.obs_shape),
        "num_actions": game.num_actions,
        "steps_trained": 0,
        "arena": {},
        "search": {"simulations": 8},
        "training": {"engine": "az"},
    }
    return save_checkpoint(tmp_path / f"az_{env_id}.safetensors", model, meta)


def test_the_az_bot_refuses_mismatched_checkpoints_in_one_line(tmp_path, toy_checkpoint):
    from choco_envs.policy.checkpoint import save_checkpoint

    path = save_az(tmp_path, "chocolates_v0")
    (tmp_path / "three").mkdir()
    three_outputs = save_az(tmp_path / "three", "chocolates_v0", value_outputs=3)
    with pytest.raises(CheckpointError, match="3 value output") as err:
        bots.make(f"az:checkpoint={three_outputs}", env_id="chocolates_v0")
    assert "\n" not in str(err.value)
    with pytest.raises(CheckpointError, match="trained for 'chocolates_v0', not 'le_chocolat_v0'"):
        bots.make(f"az:checkpoint={path}", env_id="le_chocolat_v0")
    three = save_checkpoint(
        tmp_path / "nim3.safetensors", toy_model(num_players=3), toy_meta(num_players=3)
    )
    nim3 = bots.make(f"az:checkpoint={three},simulations=4", env_id=ENV_ID, seed=1)
    game = make_game(ENV_ID)  # two players: a file of another table is refused on sight
    s = game.new_state(random.Random(0))
    view = AgentView(game, s, 0, game.encoder("flat").encode(s, 0), game.legal_mask(s))
    with pytest.raises(CheckpointError) as err:
        nim3.act_view(view)
    assert "\n" not in str(err.value)
    # a one-value file (a PPO network) guides the search: it plays the game it was made for
    one_value = bots.make(f"az:checkpoint={toy_checkpoint},simulations=4", env_id=ENV_ID, seed=1)
    assert one_value.act_view(view) in game.legal_actions(s)
    with pytest.raises(ConfigError, match="simulations or time"):
        bots.make(f"az:checkpoint={path},simulations=4,time=1", env_id="chocolates_v0")
    with pytest.raises(ConfigError, match="simulations=0"):
        bots.make(f"az:checkpoint={path},simulations=0", env_id="chocolates_v0")


#: every game's configurations as its manifest lists them (2 players)
GAMES = settings()


@pytest.mark.parametrize("value_outputs", [0, 1], ids=["per-seat", "one-value"])
@pytest.mark.parametrize(("env_id", "options"), GAMES, ids=[f"{e}-{o}" for e, o in GAMES])
def test_the_az_bot_chooses_the_same_on_states_its_seat_cannot_tell_apart(
    tmp_path, env_id, options, value_outputs
):
    """The search reads determinizations of the seat's view only: on the real state and on
    another state consistent with the seat's view (its hidden parts resampled), the same
    seed gives the same choice, and the search's statistics are the same; also with a
    one-value network, which values each seat of a leaf from that seat's own input of the
    determinized leaf (``value_outputs=1``)."""
    path = save_az(tmp_path, env_id, value_outputs=value_outputs, **options)
    game = make_game(env_id, **options)
    rng = random.Random(5)
    checked = 0
    for deal in range(2):
        s = game.new_state(random.Random(deal))
        step = 0
        while not game.is_over(s):
            seat = game.current_player(s)
            legal = game.legal_actions(s)
            if len(legal) > 1 and step % 7 == 0:
                other = game.determinize(s, seat, rng)
                choices = []
                for state in (s, other):
                    bot = bots.make(f"az:checkpoint={path},simulations=8", env_id=env_id, seed=9)
                    obs = game.encoder("flat").encode(state, seat)
                    view = AgentView(game, state, seat, obs, game.legal_mask(state))
                    result = bot.search(view)
                    choices.append((result.action, result.visits.tolist()))
                assert choices[0] == choices[1], (step, choices)
                checked += 1
            game.apply(s, rng.choice(legal), rng)
            step += 1
    assert checked >= 4


def test_az_searches_with_the_shipped_az_file_else_the_shipped_ppo_network(tmp_path, monkeypatch):
    """``az`` without a checkpoint: the shipped search-and-learn file that serves the
    table, else the shipped PPO network, the many-table one first (asked once per seat for
    its values, searched with the game's ``search_c_scale``); neither: one error naming both
    searches."""
    import shutil

    from choco_envs.policy import search_checkpoint, shipped_checkpoint
    from choco_envs.registry import manifest

    root = tmp_path / "shipped" / "chocolates_v0"
    root.mkdir(parents=True)
    monkeypatch.setenv("CHOCO_CHECKPOINTS", str(tmp_path / "shipped"))
    with pytest.raises(CheckpointError, match=r"as az\*.*and .*as ppo\*"):
        search_checkpoint("chocolates_v0", {"num_players": 2})
    shutil.copy(REPO / "checkpoints" / "chocolates_v0" / "ppo_tables.safetensors", root)
    assert search_checkpoint("chocolates_v0", {"num_players": 3}).name == "ppo_tables.safetensors"
    bot = bots.make("az:simulations=4", env_id="chocolates_v0", seed=1,
                    env_options={"num_players": 3})  # fmt: skip
    assert bot.one_value and bot.config.c_scale == manifest("chocolates_v0").search_c_scale
    assert bots.make("az", env_id="chocolates_v0", env_options={"num_players": 3}).simulations == (
        manifest("chocolates_v0").search_simulations
    )
    assert manifest("chocolates_v0").search_simulations == 64
    assert bots.make(
        "az:simulations=4,c_scale=0.5", env_id="chocolates_v0", seed=1,
        env_options={"num_players": 3},
    ).config.c_scale == 0.5  # fmt: skip
    game = make_game("chocolates_v0", num_players=3)
    s = game.new_state(random.Random(2))
    seat = game.current_player(s)
    view = AgentView(game, s, seat, game.encoder("flat").encode(s, seat), game.legal_mask(s))
    assert bot.act_view(view) in game.legal_actions(s)
    # the many-table network first, before a file made for the table alone (which ppo
    # plays first): a small one-value file of 2 players stands for one
    one_table = save_az(tmp_path, "chocolates_v0", value_outputs=1, num_players=2)
    shutil.copy(one_table, root / "ppo.safetensors")
    assert search_checkpoint("chocolates_v0", {"num_players": 2}).name == "ppo_tables.safetensors"
    assert shipped_checkpoint("chocolates_v0", {"num_players": 2}).name == "ppo.safetensors"
    shutil.copy(save_az(tmp_path, "chocolates_v0", num_players=3), root / "az.safetensors")
    assert search_checkpoint("chocolates_v0", {"num_players": 3}).name == "az.safetensors"
    assert search_checkpoint("chocolates_v0", {"num_players": 2}).name == "ppo_tables.safetensors"
    # Chocolatiers searches its PPO network with its own budget (256 simulations)
    monkeypatch.delenv("CHOCO_CHECKPOINTS")
    options = {"num_players": 2, "edition": "standard"}
    wide = bots.make("az", env_id="chocolatiers_v1", seed=1, env_options=options)
    assert wide.simulations == manifest("chocolatiers_v1").search_simulations == 256
    assert (
        bots.make("az:simulations=8", env_id="chocolatiers_v1", env_options=options).simulations
        == 8
    )


def test_the_az_bot_considers_the_root_actions_its_spec_names(tmp_path):
    """``az:considered=N`` bounds the actions the Gumbel root considers (the file's stored
    ``max_considered`` without it); out of range it is refused naming what is allowed."""
    path = save_az(tmp_path, "chocolates_v0")
    assert bots.make(f"az:checkpoint={path}", env_id="chocolates_v0").config.max_considered == 16
    wide = bots.make(f"az:checkpoint={path},considered=48", env_id="chocolates_v0", seed=1)
    assert wide.config.max_considered == 48
    game = make_game("chocolates_v0", num_players=2)
    s = game.new_state(random.Random(4))
    seat = game.current_player(s)
    view = AgentView(game, s, seat, game.encoder("flat").encode(s, seat), game.legal_mask(s))
    result = wide.search(view)
    narrow = bots.make(f"az:checkpoint={path},considered=2", env_id="chocolates_v0", seed=1)
    assert (result.visits > 0).sum() > 2 >= (narrow.search(view).visits > 0).sum()
    with pytest.raises(ConfigError, match="considered.*1..4096"):
        bots.make(f"az:checkpoint={path},considered=0", env_id="chocolates_v0")


def test_the_az_bot_batches_the_walks_of_a_root_action_its_spec_names(tmp_path):
    """``az:batch=K`` runs up to K walks of one root action together (``leaf_batch``; the
    file's stored value, else 1, without it): the same simulations in fewer forward
    passes; the arena's report names it, and out of range it is refused naming what is
    allowed."""
    from choco_envs.arena.match import checkpoint_of

    path = save_az(tmp_path, "chocolates_v0")
    plain = bots.make(f"az:checkpoint={path},simulations=64", env_id="chocolates_v0", seed=1)
    wide = bots.make(f"az:checkpoint={path},simulations=64,batch=8", env_id="chocolates_v0",
                     seed=1)  # fmt: skip
    assert plain.config.leaf_batch == 1 and wide.config.leaf_batch == 8
    assert "leaf_batch" not in checkpoint_of(plain)["search"]
    assert checkpoint_of(wide)["search"]["leaf_batch"] == 8
    assert checkpoint_of(wide)["search"]["max_considered"] == 16  # the report names it
    game = make_game("chocolates_v0", num_players=2)
    s = game.new_state(random.Random(4))
    seat = game.current_player(s)
    view = AgentView(game, s, seat, game.encoder("flat").encode(s, seat), game.legal_mask(s))
    passes = []
    for bot in (plain, wide):
        bot.search(view)
        passes.append(bot._evaluator.calls)
        assert sum(bot.last_result.visits) == 64
    assert passes[1] < passes[0]
    with pytest.raises(ConfigError, match="batch.*1..64"):
        bots.make(f"az:checkpoint={path},batch=0", env_id="chocolates_v0")


def test_the_az_bot_respects_its_time_budget(tmp_path):
    """``az:time=S``: the budget follows the measured time per simulation."""
    import time

    path = save_az(tmp_path, "chocolates_v0")
    bot = bots.make(f"az:checkpoint={path},time=0.05", env_id="chocolates_v0", seed=1)
    game = make_game("chocolates_v0")
    s = game.new_state(random.Random(1))
    view = AgentView(game, s, 0, game.encoder("flat").encode(s, 0), game.legal_mask(s))
    bot.act_view(view)  # calibrates
    start = time.perf_counter()
    for _ in range(3):
        bot.act_view(view)
    assert (time.perf_counter() - start) / 3 < 0.5
    assert bot._budget() >= 2


def test_ship_puts_an_az_file_beside_the_ppo_one_and_refuses_a_ppo_name(tmp_path):
    """``choco ship`` of a search-and-learn file: named ``az`` (what ``bots.make("az")``
    finds), never replacing the PPO network of the same options; ``--name ppo`` refused;
    its card counts its training in self-play games."""
    from choco_envs.policy.checkpoint import load_policy, save_checkpoint
    from choco_envs.train.ship import ship, table

    path = save_az(tmp_path, "chocolates_v0")
    model, meta = load_policy(path)
    result = {"win_rate": 0.8, "games": 400, "seed": 1}
    meta["arena"] = {"random": result, "greedy": result}
    meta["arena_search"] = {"greedy": {**result, "win_rate": 0.9}}
    run_file = save_checkpoint(tmp_path / "run" / "final.safetensors", model, meta)
    root = tmp_path / "shipped"
    (root / "chocolates_v0").mkdir(parents=True)
    ppo = REPO / "checkpoints" / "chocolates_v0" / "ppo_tables.safetensors"
    (root / "chocolates_v0" / "ppo_tables.safetensors").write_bytes(ppo.read_bytes())
    with pytest.raises(ConfigError, match="name starting with 'az'"):
        ship(run_file, root, name="ppo")
    target = ship(run_file, root)
    assert target.name == "az.safetensors"
    assert (root / "chocolates_v0" / "ppo_tables.safetensors").exists()
    assert "az (8 sims) vs greedy: 90.0%" in table(root)
    card = (root / "README.md").read_text()
    assert "az (8 simulations) vs greedy" in card
    assert "| trained | 0 self-play games" in card  # an az file counts games, not env steps


def test_the_plain_python_non_root_rule_matches_the_numpy_formulas():
    """``select_index`` (plain Python, for speed) computes the same choice as the
    improved policy of ``completed_q`` and ``sigma`` minus the visit share."""
    from choco_envs.policy.search import Node, _softmax, select_index, sigma

    config = SearchConfig(c_visit=50.0, c_scale=0.3)
    gen = np.random.default_rng(0)
    for trial in range(200):
        k = int(gen.integers(2, 9))
        node = Node(2)
        node.player = int(gen.integers(0, 2))
        node.logits = gen.normal(size=12)
        node.value = [float(gen.uniform(-1, 1)), float(gen.uniform(-1, 1))]
        legal = sorted(gen.choice(12, size=k, replace=False).tolist())
        visits = np.zeros(k)
        q = np.zeros(k)
        for i, a in enumerate(legal):
            n = int(gen.integers(0, 4)) if trial % 5 else 0
            if n:
                child = node.child(a)
                child.visits = n
                child.value_sum = [float(gen.uniform(-n, n)) for _ in range(2)]
                visits[i] = n
                q[i] = (child.value_sum[node.player] / n + 1) * 0.5
        logits = node.logits[legal]
        done = completed_q(logits, visits, q, (node.value[node.player] + 1) * 0.5)
        policy = _softmax(logits + sigma(config, visits, done))
        expected = int(np.argmax(policy - visits / (1 + visits.sum())))
        assert select_index(node, legal, config) == expected, trial


def _ppo_file(base: dict[str, Any], timesteps: int, name: str) -> Path:
    """A few PPO steps of self-play with ``base``'s settings: a start file for az runs."""
    from choco_envs.train import ppo

    return ppo.train(
        ppo.Args(
            **base, total_timesteps=timesteps, num_envs=2, num_steps=2, eval_every=0,
            final_eval_games=0, league_self_play=1.0, league_past=0.0, league_bots={},
            run_name=name,
        )
    )  # fmt: skip


def test_an_az_run_of_many_tables_starts_from_a_seat_padded_file(tmp_path: Path) -> None:
    """``player_counts`` in the az engine: the seat-padded input of the largest table and
    one value output (the reading seat's), started from a seat-padded PPO file whose
    policy and value it keeps; every table plays in self-play and in the final
    evaluation (``arena_tables``), and the file is played by ``az`` at each count. A file
    of one table size is refused as the start of a run of many, naming both input shapes."""
    import torch

    from choco_envs.policy.checkpoint import load_policy, read_metadata
    from choco_envs.train import az

    base = dict(
        env_id="chocolates_v0", options={"num_players": 2}, player_counts=(2, 3),
        hidden=(16,), track=False, progress=False, runs_dir=str(tmp_path),
    )  # fmt: skip
    padded = _ppo_file(base, 60, "padded")
    searched = az.train(
        az.Args(
            **base, init_from=str(padded), total_games=3, num_games=4, simulations=2,
            max_considered=2, play_simulations=2, learning_rate=1e-9, eval_games=3,
            final_eval_games=3, eval_every_minutes=60.0, run_name="az",
        )
    )  # fmt: skip
    old, _ = load_policy(padded, "chocolates_v0")
    new, meta = load_policy(searched, "chocolates_v0")
    assert new.config == old.config and new.config.value_outputs == 1
    assert meta["seats"] == {"max_players": 3, "player_counts": [2, 3], "modes": {}}
    assert set(meta["arena_tables"]) == {"3"}
    assert set(meta["arena_tables"]["3"]) == {"random", "greedy"}
    assert meta["arena_tables"]["3"]["greedy"]["games"] == 3
    game = make_game("chocolates_v0", num_players=3)
    s = game.new_state(random.Random(5))
    x = PolicyInputs.of_checkpoint(game, read_metadata(padded)).encode(s, game.current_player(s))
    mask = torch.from_numpy(game.legal_mask(s)[None].astype(bool))
    with torch.no_grad():  # learning rate 1e-9: the started network, value head included
        for a, b in zip(
            old(torch.from_numpy(x[None]), mask), new(torch.from_numpy(x[None]), mask), strict=True
        ):
            torch.testing.assert_close(a, b, atol=1e-4, rtol=0)
    from choco_envs.arena import run_arena

    for n in (2, 3):
        report = run_arena(
            "chocolates_v0", [f"az:checkpoint={searched},simulations=2"] + ["random"] * (n - 1),
            games=n, progress=False, players=n,
        )  # fmt: skip
        assert report["games_played"] == n
    one_table = _ppo_file({**base, "player_counts": ()}, 20, "one")
    with pytest.raises(
        CheckpointError, match=r"expects observations of shape \[452\].*has shape \[513\]"
    ):
        az.prepare(az.Args(**base, init_from=str(one_table), max_minutes=1.0))


def test_the_az_engine_shares_its_games_among_the_tables_by_their_weights() -> None:
    """``table_slots``: game i plays table ``env_tables()[i % len]`` (``table_weights``
    as in the ppo engine); fewer games than weighted tables is refused in one line."""
    from choco_envs.train.az import Args, table_slots

    args = Args(
        player_counts=(2, 3, 4), table_weights={"num_players": {4: 2}}, num_games=8,
        max_minutes=1.0,
    )  # fmt: skip
    assert table_slots(args) == [0, 1, 2, 2, 0, 1, 2, 2]
    with pytest.raises(
        ConfigError, match="num_games=3 is not allowed; allowed: at least one game per table"
    ):
        Args(player_counts=(2, 3, 4), table_weights={"num_players": {4: 2}}, num_games=3,
             max_minutes=1.0).check()  # fmt: skip


def test_bot_seats_put_league_bots_in_self_play_and_learn_only_searched_seats() -> None:
    """``bot_seats``: a seat other than one searched seat is a bot from ``league_bots``
    with that probability; bots play their own moves (the search never decides for them)
    and only searched seats' decisions reach the replay buffer. ``league_bots`` away from
    its default without bot seats, or bot seats without a bot, are refused in one line."""
    from choco_envs.policy.az_bot import NetEvaluator
    from choco_envs.policy.net import ActorCritic, NetConfig
    from choco_envs.train.az import Args, Replay, SelfPlay
    from choco_envs.train.games import LEARNER

    game = make_game("chocolates_v0", num_players=2)
    inputs = PolicyInputs(game, "flat")
    model = ActorCritic(NetConfig(inputs.obs_shape, game.num_actions, (16,), value_outputs=2))
    model.eval()
    args = Args(
        num_games=6, simulations=2, max_considered=2, bot_seats=1.0,
        league_bots={"greedy": 1.0}, max_minutes=1.0,
    )  # fmt: skip
    args.check()
    selfplay = SelfPlay([(game, inputs, NetEvaluator(model, inputs, 2))], [0] * 6, args, 3, 2)
    # bot_seats 1: every game has one searched seat and a greedy bot in the other
    assert all(sorted(r) == [LEARNER, 0] for r in selfplay.roles)
    replay = Replay(10_000, inputs.size, game.num_actions, 2)
    while selfplay.games_done < 6:
        selfplay.step(replay)
        # every decision searched and stored so far in a game is its searched seat's
        for i, pending in enumerate(selfplay.pending):
            assert all(selfplay.roles[i][d.seat] == LEARNER for d in pending)
    decided = sum(len(p) for p in selfplay.pending) + replay.added
    assert replay.added > 0 and decided == selfplay.decisions
    with pytest.raises(ConfigError, match="league_bots=.* is not allowed; allowed: its default"):
        Args(league_bots={"greedy": 1.0}, max_minutes=1.0).check()
    with pytest.raises(ConfigError, match="league_bots=.*at least one bot with weight > 0"):
        Args(bot_seats=0.5, league_bots={"greedy": 0.0}, max_minutes=1.0).check()


def test_the_value_warm_up_seats_self_plays_bots_and_fits_only_the_networks_seats(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With ``bot_seats`` the value warm-up plays the games self-play will play: the bots
    of ``league_bots`` in the other seats, and only the network's own decisions fitted
    (their outcomes against those bots)."""
    import torch

    from choco_envs.policy.net import ActorCritic, NetConfig
    from choco_envs.train import az, games

    class Counting:  # the game, counting every move applied
        def __init__(self, game: Any) -> None:
            self.game, self.applied = game, 0

        def __getattr__(self, name: str) -> Any:
            return getattr(self.game, name)

        def apply(self, s: Any, action: int, rng: random.Random) -> None:
            self.applied += 1
            self.game.apply(s, action, rng)

    bot_moves = []
    real_play_bot = games.play_bot

    def counting_play_bot(game: Any, s: Any, seat: int, bot: Any, rng: random.Random) -> None:
        bot_moves.append(seat)
        real_play_bot(game, s, seat, bot, rng)

    monkeypatch.setattr(games, "play_bot", counting_play_bot)
    game = Counting(make_game("chocolates_v0", num_players=2))
    inputs = PolicyInputs(game.game, "flat")
    model = ActorCritic(NetConfig(inputs.obs_shape, game.num_actions, (16,), value_outputs=1))
    model.eval()
    args = az.Args(bot_seats=1.0, league_bots={"greedy": 1.0}, max_minutes=1.0)
    xs: list[np.ndarray] = []
    targets: list[np.ndarray] = []
    randomness = (random.Random(3), torch.Generator().manual_seed(3))
    az._play_own_games(
        model, game, inputs, 4, randomness, az.seat_bots(args, 3), (xs, targets), 1, args
    )
    assert bot_moves and len(xs) == len(targets) == game.applied - len(bot_moves)
    # the warm-up itself seats them (every other seat a greedy bot at bot_seats 1)
    bot_moves.clear()
    az.warm_value(model, [(game.game, inputs)], 2, args)
    assert bot_moves
    # without bot seats every seat is the network's
    bot_moves.clear()
    az.warm_value(model, [(game.game, inputs)], 2, az.Args(max_minutes=1.0))
    assert not bot_moves


def test_the_value_warm_up_keeps_k_decisions_a_game_and_its_best_held_out_weights(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``value_warmup_keep`` keeps that many decisions of each game (copied rows, not views
    of a batch); ``value_warmup_holdout`` holds games out and the fit ends on the weights
    of its lowest held-out error, which it returns."""
    import torch

    from choco_envs.policy.net import ActorCritic, NetConfig
    from choco_envs.train import az

    game = make_game("chocolates_v0", num_players=2)
    inputs = PolicyInputs(game, "flat")
    torch.manual_seed(0)
    model = ActorCritic(NetConfig(inputs.obs_shape, game.num_actions, (16,), value_outputs=1))
    model.eval()
    args = az.Args(max_minutes=1.0, value_warmup_keep=3)
    xs: list[np.ndarray] = []
    targets: list[np.ndarray] = []
    randomness = (random.Random(3), torch.Generator().manual_seed(3))
    az._play_own_games(model, game, inputs, 4, randomness, (None, []), (xs, targets), 1, args, 3)
    assert len(xs) == len(targets) == 4 * 3
    assert all(row.base is None for row in xs)  # each kept row owns its bytes
    # the fit: every held-out check recorded with the weights it saw
    seen: list[tuple[float, torch.Tensor]] = []
    real_error = az._value_error

    def recording(model: Any, x: Any, z: Any, full: Any, outputs: int) -> float:
        error = real_error(model, x, z, full, outputs)
        seen.append((error, model.critic.weight.detach().clone()))
        return error

    monkeypatch.setattr(az, "_value_error", recording)
    args = az.Args(max_minutes=1.0, value_warmup_holdout=0.5, value_warmup_lr=0.5)
    returned = az.warm_value(model, [(game, inputs)], 4, args)
    errors = [e for e, _ in seen]
    assert len(errors) == 3  # steps 0, 250 and the last (300)
    best = int(np.argmin(errors))
    assert best != len(errors) - 1  # (this learning rate overshoots: the last is not best)
    assert returned == errors[best]
    assert torch.equal(model.critic.weight, seen[best][1])
    with pytest.raises(ConfigError, match="value_warmup_holdout=0.9 is not allowed"):
        az.Args(max_minutes=1.0, value_warmup_holdout=0.9).check()


def test_the_value_warm_up_shares_its_games_among_the_tables_by_their_weights() -> None:
    """``warmup_shares``: the warm-up games go to the tables as self-play's do
    (``table_weights``), the remainder to the first tables; one table takes them all."""
    from choco_envs.train.az import Args, warmup_shares

    args = Args(
        player_counts=(2, 3, 4), table_weights={"num_players": {2: 4}}, max_minutes=1.0
    )  # fmt: skip
    assert warmup_shares(args, 60, 3) == [40, 10, 10]
    assert warmup_shares(args, 7, 3) == [5, 1, 1]
    assert warmup_shares(Args(player_counts=(2, 3), max_minutes=1.0), 5, 2) == [3, 2]
    assert warmup_shares(Args(max_minutes=1.0), 9, 1) == [9]


def test_warm_up_processes_play_seeded_chunks_of_the_networks_games(tmp_path: Path) -> None:
    """``value_warmup_workers`` 2: the games are played in chunks of WARMUP_CHUNK by two
    processes, each chunk seeded by its place (the same data run after run, chunks not
    copies of each other), ``value_warmup_keep`` decisions a game, each target an
    outcome of the game (in [-1, 1])."""
    from choco_envs.policy.net import ActorCritic
    from choco_envs.train import az

    args = az.Args(
        env_id="chocolates_v0", options={"num_players": 2}, hidden=(16,), max_minutes=1.0,
        value_warmup_keep=2, value_warmup_workers=2, runs_dir=str(tmp_path), progress=False,
    )  # fmt: skip
    setup = az.prepare(args)
    model = ActorCritic(setup.net).eval()
    games = 2 * az.WARMUP_CHUNK  # two chunks of the same size
    x, z = az._warmup_decisions(model, setup.tables, [games], args, 0)
    width = setup.net.value_outputs  # each seat's outcome, own first
    assert x.shape == (2 * games, setup.inputs.size) and z.shape == (2 * games, width)
    assert np.all(np.abs(z) <= 1) and len(np.unique(z)) > 1
    again, _ = az._warmup_decisions(model, setup.tables, [games], args, 0)
    assert np.array_equal(x, again)
    first, second = x[: 2 * az.WARMUP_CHUNK], x[2 * az.WARMUP_CHUNK :]  # the two chunks
    assert not np.array_equal(first, second)
    held, _ = az._warmup_decisions(model, setup.tables, [games], args, 1)
    assert not np.array_equal(x, held)  # the held-out games are other games


def test_a_value_warm_up_alone_writes_the_started_policy_with_its_value_fitted(
    tmp_path: Path,
) -> None:
    """``max_minutes`` and ``total_games`` both 0 with ``value_warmup_games``: no
    self-play game, the file the started policy (kept by the KL term, within a small
    distance) with a value head fitted to the warm-up's outcomes; without a warm-up such
    a run has no budget and is refused in one line."""
    import torch

    from choco_envs.policy.checkpoint import load_policy
    from choco_envs.train import az

    base = dict(
        env_id="chocolates_v0", options={"num_players": 2}, hidden=(16,), track=False,
        progress=False, runs_dir=str(tmp_path),
    )  # fmt: skip
    start = _ppo_file(base, 20, "start")
    fitted = az.train(
        az.Args(
            **base, init_from=str(start), value_warmup_games=6, value_warmup_lr=1e-2,
            max_minutes=0.0, total_games=0, final_eval_games=0, run_name="fitted",
        )
    )  # fmt: skip
    old, _ = load_policy(start, "chocolates_v0")
    new, meta = load_policy(fitted, "chocolates_v0")
    assert meta["steps_trained"] == 0
    assert not torch.equal(old.critic.weight, new.critic.weight)
    game = make_game("chocolates_v0", num_players=2)
    s = game.new_state(random.Random(1))
    x = torch.from_numpy(PolicyInputs(game, "flat").encode(s, game.current_player(s))[None])
    mask = torch.from_numpy(game.legal_mask(s)[None].astype(bool))
    with torch.no_grad():
        p_old = old(x, mask)[0].softmax(-1)
        p_new = new(x, mask)[0].softmax(-1)
    assert float((p_old - p_new).abs().max()) < 0.1
    with pytest.raises(ConfigError, match="max_minutes=0.0 is not allowed.*a value warm-up"):
        az.Args(max_minutes=0.0, total_games=0).check()
