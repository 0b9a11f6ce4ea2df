"""One network for every player count: the seat-padded policy input
(``choco_envs.policy.seats``), training on mixed tables, and files that play them.

The issue's tests: a network trained a few steps on mixed counts loads and plays a 2-,
3- and 4-player game of each env; a seat's padded input is unchanged when what it cannot
see is resampled; the bots refuse a count or edition they were not trained for in one
line.
"""

from __future__ import annotations

import inspect
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from choco_envs.core.errors import CheckpointError, ConfigError
from choco_envs.policy.features import PolicyInputs
from choco_envs.policy.seats import SeatPadding, largest_table, player_counts
from choco_envs.registry import make_game

#: (env, options, feature, largest table) of every game with more than one count
TABLES = [
    ("chocolates_v0", {}, "chocolates_truth", 4),
    ("chocolatiers_v1", {"edition": "standard"}, "chocolatiers_affordable", 5),
    ("chocolatiers_v1", {"edition": "classic"}, "chocolatiers_affordable", 4),
    ("chocolatiers_v1", {"edition": "standard"}, "chocolatiers_takes", 5),
    ("chocolatiers_v1", {"edition": "classic"}, "chocolatiers_takes", 4),
    ("chocolate_factory_v2", {}, "", 6),
]


def _state(game: Any, seed: int, moves: int) -> Any:
    rng = random.Random(seed)
    s = game.new_state(rng)
    for _ in range(moves):
        if game.is_over(s):
            break
        game.apply(s, rng.choice(game.legal_actions(s)), rng)
    return s


def test_player_counts_follow_the_rules() -> None:
    assert player_counts("chocolates_v0") == [2, 3, 4]
    assert player_counts("chocolatiers_v1", {"edition": "classic"}) == [2, 3, 4]
    assert largest_table("chocolatiers_v1", {"edition": "standard"}) == 5
    assert largest_table("chocolate_factory_v2") == 6
    assert player_counts("le_chocolat_v0") == [2]


@pytest.mark.parametrize(("env_id", "options", "feature", "most"), TABLES)
def test_every_count_reads_one_input_size(
    env_id: str, options: dict, feature: str, most: int
) -> None:
    sizes = set()
    for n in player_counts(env_id, options):
        game = make_game(env_id, num_players=n, **options)
        inputs = PolicyInputs(game, "flat", feature, most)
        x = inputs.encode(_state(game, n, 7), 0)
        sizes.add(x.shape)
        marks = x[-most:]
        # "absent seats marked": 1 for the seats at the table, 0 for the others
        assert marks.tolist() == [1.0] * n + [0.0] * (most - n)
    assert len(sizes) == 1


@pytest.mark.parametrize(("env_id", "options", "feature", "most"), TABLES)
def test_each_seat_block_lands_in_its_own_place(
    env_id: str, options: dict, feature: str, most: int
) -> None:
    """Every entry of the small table's observation is found at its padded position, and
    the positions of the large table's seats that are not at the small table are zero."""
    small = make_game(env_id, num_players=2, **options)
    inputs = PolicyInputs(small, "flat", feature, most)
    assert inputs.padding is not None
    s = _state(small, 3, 9)
    raw = small.encoder("flat").encode(s, 1)
    x = inputs.encode(s, 1)
    np.testing.assert_array_equal(x[inputs.padding.obs_index], raw)
    large = inputs.padding.large_game.encoder("flat").layout
    untouched = np.ones(inputs.padding.obs_size, dtype=bool)
    untouched[inputs.padding.obs_index] = False
    assert not x[: inputs.padding.obs_size][untouched].any()
    # a per-seat field: the small table's second seat is the large table's second seat
    for f in large.fields:
        if f.shape and f.shape[0] == most:
            per_seat = f.size // most
            small_field = next(g for g in small.encoder("flat").layout.fields if g.name == f.name)
            np.testing.assert_array_equal(
                x[f.start + per_seat : f.start + 2 * per_seat],
                raw[small_field.start + per_seat : small_field.start + 2 * per_seat],
            )
            assert not x[f.start + 2 * per_seat : f.stop].any()


@pytest.mark.parametrize(("env_id", "options", "feature", "most"), TABLES)
def test_padded_input_hides_what_the_seat_cannot_see(
    env_id: str, options: dict, feature: str, most: int
) -> None:
    """The seat-padded input is a function of the seat's observation: resampling every
    hidden part consistently with the seat's view (``determinize``) changes nothing."""
    for n in player_counts(env_id, options)[:3]:
        game = make_game(env_id, num_players=n, **options)
        inputs = PolicyInputs(game, "flat", feature, most)
        s = _state(game, 11 + n, 12)
        for seat in range(n):
            x = inputs.encode(s, seat)
            for k in range(3):
                other = game.determinize(s, seat, random.Random(k))
                np.testing.assert_array_equal(inputs.encode(other, seat), x)


def test_a_field_that_grows_without_declared_axes_is_refused_by_name() -> None:
    # Chocolates' planes keep scalar channels whose count grows with the table
    game = make_game("chocolates_v0", num_players=2)
    with pytest.raises(ConfigError, match="field 'features'.*declares no axes"):
        PolicyInputs(game, "planes", "", 4)
    with pytest.raises(ConfigError, match="more than the 3"):
        SeatPadding(make_game("chocolates_v0", num_players=4), "flat", None, 3)


def test_widened_network_plays_as_the_file_it_starts_from() -> None:
    import torch

    from choco_envs.policy.net import ActorCritic, NetConfig
    from choco_envs.policy.seats import widen_first_layer

    game = make_game("chocolates_v0", num_players=2)
    small = PolicyInputs(game, "flat", "chocolates_truth")
    padded = PolicyInputs(game, "flat", "chocolates_truth", 4)
    torch.manual_seed(0)
    old = ActorCritic(NetConfig(small.obs_shape, game.num_actions, (32,), extra_inputs=small.extra))
    new = ActorCritic(
        NetConfig(padded.obs_shape, game.num_actions, (32,), extra_inputs=padded.extra)
    )
    assert padded.padding is not None
    widen_first_layer(new, old, padded.padding)
    s = _state(game, 5, 6)
    mask = torch.ones((1, game.num_actions), dtype=torch.bool)
    with torch.no_grad():
        a = old(torch.from_numpy(small.encode(s, 0)[None]), mask)
        b = new(torch.from_numpy(padded.encode(s, 0)[None]), mask)
    torch.testing.assert_close(a[0], b[0])
    torch.testing.assert_close(a[1], b[1])


# ---------------------------------------------------------------- trained on mixed tables
def _train(tmp_path: Path, env_id: str, options: dict, counts: tuple, feature: str = "") -> Path:
    from choco_envs.train.ppo import Args, train

    args = Args(
        env_id=env_id, options={"num_players": 2, **options}, player_counts=counts,
        feature=feature, total_timesteps=200, num_envs=max(1, len(counts)), num_steps=4,
        hidden=(16,), eval_every=0, final_eval_games=0, track=False, progress=False,
        runs_dir=str(tmp_path), league_self_play=1.0, league_past=0.0, league_bots={},
    )  # fmt: skip
    return train(args)


def _play(env_id: str, path: Path, **options: Any) -> int:
    import choco_envs
    from choco_envs import bots

    bot = bots.make(f"policy:{path}", env_id=env_id, seed=1)
    env = choco_envs.make(env_id, **options)
    env.reset(seed=3)
    moves = 0
    for _agent in env.agent_iter():
        _obs, _r, term, trunc, _info = env.last()
        if term or trunc:
            env.step(None)
            continue
        env.step(bot.act(env))
        moves += 1
    return moves


@pytest.mark.parametrize(
    ("env_id", "options", "feature"),
    [
        ("chocolates_v0", {}, "chocolates_truth"),
        ("chocolatiers_v1", {"edition": "standard"}, ""),
        ("chocolate_factory_v2", {}, ""),
    ],
)
def test_a_network_trained_on_mixed_counts_plays_two_three_and_four(
    tmp_path: Path, env_id: str, options: dict, feature: str
) -> None:
    from choco_envs.policy.checkpoint import read_metadata

    path = _train(tmp_path, env_id, options, (2, 3, 4), feature)
    meta = read_metadata(path)
    assert meta["seats"] == {"max_players": 4, "player_counts": [2, 3, 4], "modes": {}}
    for n in (2, 3, 4):
        assert _play(env_id, path, num_players=n, **options) > 0


def test_le_chocolat_plays_its_one_count(tmp_path: Path) -> None:
    # Le Chocolat seats exactly two ("allowed values: 2"): its file covers that table
    path = _train(tmp_path, "le_chocolat_v0", {}, (2,))
    assert _play("le_chocolat_v0", path) > 0


def test_the_file_refuses_a_count_or_edition_it_was_not_trained_for(tmp_path: Path) -> None:
    from choco_envs import bots

    path = _train(tmp_path, "chocolatiers_v1", {"edition": "classic"}, (2, 3))
    bot = bots.make(f"policy:{path}", env_id="chocolatiers_v1", seed=1)
    import choco_envs
    from choco_envs.core.agent import view_of

    for options, reason in (
        ({"num_players": 4, "edition": "classic"}, r"at \[2, 3\] players, not 4$"),
        (
            {"num_players": 2, "edition": "standard"},
            r"edition=\['classic'\], not edition='standard'$",
        ),
    ):
        env = choco_envs.make("chocolatiers_v1", **options)
        env.reset(seed=1)
        with pytest.raises(CheckpointError, match=reason) as err:
            bot.act_view(view_of(env))
        assert "\n" not in str(err.value)


def test_modes_are_tables_of_their_own(tmp_path: Path) -> None:
    from choco_envs.policy.checkpoint import read_metadata
    from choco_envs.train.ppo import Args, train

    args = Args(
        env_id="chocolate_factory_v2", options={"num_players": 2}, player_counts=(2, 3),
        modes={"length": ("short", "long")}, total_timesteps=100, num_envs=4, num_steps=2,
        hidden=(16,), eval_every=0, final_eval_games=0, track=False, progress=False,
        runs_dir=str(tmp_path), league_self_play=1.0, league_past=0.0, league_bots={},
    )  # fmt: skip
    assert [(t["num_players"], t["length"]) for t in args.tables()] == [
        (2, "short"), (2, "long"), (3, "short"), (3, "long"),
    ]  # fmt: skip
    path = train(args)
    assert read_metadata(path)["seats"]["modes"] == {"length": ["short", "long"]}
    assert read_metadata(path)["seats"]["mode_marks"] is True
    assert _play("chocolate_factory_v2", path, num_players=3, length="long") > 0
    with pytest.raises(ConfigError, match="num_envs=3 is not allowed"):
        from choco_envs.train.ppo import prepare

        prepare(Args(**{**args.__dict__, "num_envs": 3}))


def test_table_weights_give_a_table_its_share_of_the_games() -> None:
    from choco_envs.train.ppo import Args, prepare

    args = Args(
        env_id="chocolate_factory_v2", options={"num_players": 2}, player_counts=(2, 3),
        modes={"length": ("short", "long")}, table_weights={"length": {"long": 3},
        "num_players": {3: 2}}, num_envs=12, track=False, progress=False,
    )  # fmt: skip
    args.check()
    shares = [(t["num_players"], t["length"]) for t in args.env_tables()]
    # a table's share is the product of its values' weights: 2 short 1, 2 long 3,
    # 3 short 2, 3 long 6
    assert {k: shares.count(k) for k in set(shares)} == {
        (2, "short"): 1, (2, "long"): 3, (3, "short"): 2, (3, "long"): 6,
    }  # fmt: skip
    assert len(args.tables()) == 4  # the file still plays (and is evaluated at) 4 tables
    for bad in ({"length": {"lnog": 3}}, {"edition": {"classic": 2}}, {"length": {"long": 0}}):
        with pytest.raises(ConfigError, match=r"table_weights=.* is not allowed; allowed: keys"):
            Args(**{**args.__dict__, "table_weights": bad}).check()
    with pytest.raises(ConfigError, match=r"num_envs=11 is not allowed.*12 tables"):
        prepare(Args(**{**args.__dict__, "num_envs": 11}))


def test_imitation_warm_starts_a_network_of_many_tables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from choco_envs.policy.checkpoint import read_metadata
    from choco_envs.train import imitation
    from choco_envs.train.ppo import Args, train

    played: list[tuple[int, int, int]] = []
    collect = imitation.collect

    def recording(*a: Any, **k: Any) -> Any:
        demos = collect(*a, **k)
        call = inspect.signature(collect).bind(*a, **k).arguments
        played.append((call["options"]["num_players"], call["games"], demos.obs.shape[1]))
        return demos

    monkeypatch.setattr(imitation, "collect", recording)

    args = Args(
        env_id="chocolates_v0", options={"num_players": 2}, player_counts=(2, 3, 4),
        feature="chocolates_truth", total_timesteps=0, num_envs=3, hidden=(16,),
        imitate="greedy", imitate_rounds=2, imitate_games=6, imitate_epochs=1,
        eval_every=0, eval_games=2, final_eval_games=0, track=False, progress=False,
        runs_dir=str(tmp_path),
    )  # fmt: skip
    path = train(args)
    meta = read_metadata(path)
    # every round's 6 games are split over the three tables (2 each), every record the
    # seat-padded input of the largest table
    size = PolicyInputs(make_game("chocolates_v0", num_players=2), "flat", "chocolates_truth", 4)
    assert played == [(n, 2, size.size) for n in (2, 3, 4)] * 2
    assert meta["training"]["imitation"]["decisions"] > 0
    assert meta["seats"]["player_counts"] == [2, 3, 4]
    for n in (2, 3, 4):
        assert _play("chocolates_v0", path, num_players=n) > 0


def test_shipped_lookup_finds_the_file_for_any_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    from choco_envs.policy.checkpoint import shipped_checkpoint

    path = _train(tmp_path / "run", "chocolates_v0", {}, (2, 3, 4))
    folder = tmp_path / "shipped" / "chocolates_v0"
    folder.mkdir(parents=True)
    shutil.copy(path, folder / "ppo.safetensors")
    monkeypatch.setenv("CHOCO_CHECKPOINTS", str(tmp_path / "shipped"))
    for n in (2, 3, 4):
        assert shipped_checkpoint("chocolates_v0", {"num_players": n}).name == "ppo.safetensors"


def _with_arena(path: Path, games: int = 400) -> Path:
    """A copy of a tiny file whose stored evaluation says ``games`` games (choco ship
    needs >= 400), the weights untouched."""
    import json

    from safetensors.torch import load_file, save_file

    from choco_envs.policy.checkpoint import METADATA_KEY, read_metadata

    meta = read_metadata(path)
    result = {"win_rate": 0.5, "win_rate_ci95": [0.45, 0.55], "games": games}
    meta["arena"] = {"random": result, "greedy": result}
    meta["arena_tables"] = {"3": {"greedy": {**result, "win_rate": 0.4}}}
    out = path.with_name("arena_" + path.name)
    save_file(load_file(str(path)), str(out), metadata={METADATA_KEY: json.dumps(meta)})
    return out


def test_a_file_for_many_tables_ships_beside_the_one_table_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lookup serves a table from the file made for exactly it first, else from a
    file that covers it; shipping the wider file without a name would replace the
    one-table file and so needs --force and a measurable gain; with --name it ships
    beside it, and the table lists its figures at the other counts."""
    import shutil

    from choco_envs.policy.checkpoint import shipped_checkpoint
    from choco_envs.train.ppo import Args, train
    from choco_envs.train.ship import ship, table

    one = train(
        Args(
            env_id="chocolates_v0",
            total_timesteps=100,
            num_envs=2,
            num_steps=2,
            hidden=(16,),
            eval_every=0,
            final_eval_games=0,
            track=False,
            progress=False,
            runs_dir=str(tmp_path / "one"),
        )  # fmt: skip
    )
    wide = _with_arena(_train(tmp_path / "wide", "chocolates_v0", {}, (2, 3, 4)))
    root = tmp_path / "shipped"
    (root / "chocolates_v0").mkdir(parents=True)
    shutil.copy(_with_arena(one), root / "chocolates_v0" / "ppo.safetensors")
    with pytest.raises(ConfigError, match="pass --force"):
        ship(wide, root)
    shipped = ship(wide, root, name="ppo_tables")
    assert shipped.name == "ppo_tables.safetensors"
    monkeypatch.setenv("CHOCO_CHECKPOINTS", str(root))
    assert shipped_checkpoint("chocolates_v0", {"num_players": 2}).name == "ppo.safetensors"
    for n in (3, 4):
        found = shipped_checkpoint("chocolates_v0", {"num_players": n})
        assert found.name == "ppo_tables.safetensors"
    assert "3 p 40.0%" in table(root)


def test_retiring_a_one_table_file_hands_its_table_to_the_file_for_many_tables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`choco ship --retire FILE --head-to-head N`: the one-table file leaves the folder
    only after N >= 400 games at its table against the shipped many-table file that
    covers it, the covering file not measurably weaker (interval not wholly below an
    even share) and its stored figure against random not wholly below; every refusal
    changes nothing; the covering file's card records the match."""
    import shutil

    from choco_envs.cli import main
    from choco_envs.policy.checkpoint import shipped_checkpoint
    from choco_envs.train import evaluate as evaluate_module
    from choco_envs.train.ppo import Args, train
    from choco_envs.train.ship import retire, ship

    one = _with_arena(_train(tmp_path / "one", "chocolates_v0", {}, ()))
    # the file for many tables has imitated greedy a little: it beats the untrained file
    wide = _with_arena(train(Args(
        env_id="chocolates_v0", options={"num_players": 2}, player_counts=(2, 3, 4),
        total_timesteps=0, num_envs=3, hidden=(32,), imitate="greedy", imitate_rounds=1,
        imitate_games=60, imitate_epochs=8, eval_every=0, eval_games=2, final_eval_games=0,
        track=False, progress=False, runs_dir=str(tmp_path / "wide"),
    )))  # fmt: skip
    root = tmp_path / "shipped"
    (root / "chocolates_v0").mkdir(parents=True)
    old = root / "chocolates_v0" / "ppo.safetensors"
    shutil.copy(one, old)
    ship(wide, root, name="ppo_tables")
    before = (old.read_bytes(), (root / "README.md").read_text())

    def unchanged() -> bool:
        return old.is_file() and (old.read_bytes(), (root / "README.md").read_text()) == before

    with pytest.raises(ConfigError, match=r"--head-to-head N with N >= 400 \(got 399\)"):
        retire(old, root, head_to_head=399)
    with pytest.raises(ConfigError, match="takes a file for one table"):
        retire(root / "chocolates_v0" / "ppo_tables.safetensors", root, head_to_head=400)
    with pytest.raises(ConfigError, match="is not a shipped file.*shipped: chocolates_v0/ppo"):
        retire(Path("chocolates_v0/nope.safetensors"), root, head_to_head=400)
    assert unchanged()
    # a match the covering file loses: refused, nothing changed
    real = evaluate_module.evaluate
    lost = {"win_rate": 0.3, "games": 400, "win_rate_ci95": [0.256, 0.348]}
    monkeypatch.setattr(evaluate_module, "evaluate", lambda *a, **k: lost)
    with pytest.raises(ConfigError, match="not retired: ppo_tables.safetensors is measurably "
                       "weaker than ppo.safetensors.*new won 30.0%"):  # fmt: skip
        retire(Path("chocolates_v0/ppo.safetensors"), root, head_to_head=400)
    assert unchanged()
    monkeypatch.setattr(evaluate_module, "evaluate", real)
    # the retire flag ships nothing: a run file beside it is refused in one line
    assert main(["ship", str(wide), "--retire", "chocolates_v0/ppo.safetensors",
                 "--head-to-head", "400", "--to", str(root)]) == 2  # fmt: skip
    assert unchanged()
    # the covering file wins the match: not measurably weaker, so the file is retired
    assert main(["ship", "--retire", "chocolates_v0/ppo.safetensors", "--head-to-head", "400",
                 "--seed", "3", "--to", str(root), "--progress", "false"]) == 0  # fmt: skip
    assert not old.exists()
    readme = (root / "README.md").read_text()
    assert "### chocolates_v0/ppo.safetensors" not in readme
    assert "`chocolates_v0/ppo.safetensors`" not in readme.split("## Model cards")[0]
    card = readme.split("<!-- card: chocolates_v0/ppo_tables.safetensors -->")[1]
    took = next(line for line in card.splitlines() if line.startswith("| took over |"))
    assert "`chocolates_v0/ppo.safetensors` (num_players=2)" in took
    assert "--retire chocolates_v0/ppo.safetensors --head-to-head 400 --seed 3" in took
    assert "of 400 games" in took and float(took.split("new won ")[1].split("%")[0]) > 50
    monkeypatch.setenv("CHOCO_CHECKPOINTS", str(root))
    assert shipped_checkpoint("chocolates_v0", {"num_players": 2}).name == "ppo_tables.safetensors"


def test_evaluate_tables_plays_every_count_against_that_many_bots(tmp_path: Path) -> None:
    from choco_envs.train.evaluate import evaluate_tables, main

    path = _train(tmp_path, "chocolate_factory_v2", {}, (2, 3))
    rows = evaluate_tables(str(path), 6, 1, ("random",))
    assert [(r["table"]["num_players"], r["games"], round(r["par"], 3)) for r in rows] == [
        (2, 6, 0.5), (3, 6, 0.333),
    ]  # fmt: skip
    one = _train(tmp_path / "x", "le_chocolat_v0", {}, ())
    assert main([str(one), "--games", "2"]) == 2  # a file of one table: refused


def test_the_lobby_seats_the_shipped_factory_bot_at_every_table_size() -> None:
    """The web lobby offers `ppo` wherever a shipped file covers the table: the Factory's
    many-table file seats it at 3-6 players, long shift and no packages included."""
    from choco_envs.web.catalog import full_config, seat_choices

    for n in (2, 3, 4, 5, 6):
        for options in ({}, {"length": "long", "packages": False}):
            config = full_config("chocolate_factory_v2", options, n)
            assert "ppo" in seat_choices("chocolate_factory_v2", config, []), (n, options)
    for env_id, options, counts in (
        ("chocolates_v0", {}, (2, 3, 4)),
        ("chocolatiers_v1", {"edition": "classic"}, (2, 3, 4)),
        ("chocolatiers_v1", {"edition": "standard"}, (2, 3, 4, 5)),
        ("le_chocolat_v0", {"scoring_card": 4}, (2,)),
    ):
        for n in counts:  # offered exactly where a shipped file covers the table
            config = full_config(env_id, options, n)
            offered = "ppo" in seat_choices(env_id, config, [])
            assert offered == _shipped_covers(env_id, {**options, "num_players": n}), (env_id, n)
    # what is shipped today: every Chocolates and classic table, Le Chocolat with a card
    assert all(_shipped_covers("chocolates_v0", {"num_players": n}) for n in (2, 3, 4))
    assert _shipped_covers("chocolatiers_v1", {"edition": "classic", "num_players": 4})
    assert _shipped_covers("le_chocolat_v0", {"scoring_card": 4})


def _shipped_covers(env_id: str, options: dict[str, Any]) -> bool:
    from choco_envs.policy.checkpoint import shipped_checkpoint

    try:
        shipped_checkpoint(env_id, options)
    except CheckpointError:
        return False
    return True


def test_the_input_marks_the_tables_rules_where_asked() -> None:
    """The Factory's observation states the shift only relatively (rolls left / the
    shift's rolls, supply / the game's packages): a short and a long shift start nearly
    alike; with ``mode_marks`` the input says which shift it is (the rules are public)."""
    marks = {"length": ["short", "long"], "packages": [True, False]}
    x = {}
    for length in ("short", "long"):
        game = make_game("chocolate_factory_v2", num_players=3, length=length, packages=False)
        s = game.new_state(random.Random(2))
        plain = PolicyInputs(game, "flat", "", 6)
        marked = PolicyInputs(game, "flat", "", 6, marks)
        assert marked.size == plain.size + 4
        x[length] = (plain.encode(s, 0), marked.encode(s, 0))
        expected = [length == "short", length == "long", False, True]
        assert x[length][1][-4:].tolist() == [float(v) for v in expected]
    differ = np.flatnonzero(x["short"][0] != x["long"][0])
    assert len(differ) <= 2 and np.abs(x["short"][0] - x["long"][0]).max() < 0.25
    with pytest.raises(ConfigError, match="length='long' is not one of"):
        game = make_game("chocolate_factory_v2", length="long")
        PolicyInputs(game, "flat", "", 6, {"length": ["short"]})


def test_a_mode_marked_file_plays_each_mode(tmp_path: Path) -> None:
    from choco_envs.policy.checkpoint import read_metadata
    from choco_envs.train.ppo import Args, train

    args = Args(
        env_id="chocolate_factory_v2", options={"num_players": 2}, player_counts=(2,),
        modes={"length": ("short", "long")}, total_timesteps=100, num_envs=2, num_steps=2,
        hidden=(16,), eval_every=0, final_eval_games=0, track=False, progress=False,
        runs_dir=str(tmp_path), league_self_play=1.0, league_past=0.0, league_bots={},
    )  # fmt: skip
    path = train(args)
    seats = read_metadata(path)["seats"]
    assert seats["mode_marks"] is True
    assert read_metadata(path)["network"]["extra_inputs"] == 2 + 2
    for length in ("short", "long"):
        assert _play("chocolate_factory_v2", path, num_players=2, length=length) > 0


def test_an_unmarked_file_starts_a_marked_network_that_plays_as_it_did(tmp_path: Path) -> None:
    """init_from a seat-padded file without mode marks: the marks' first-layer columns
    start at zero, so the marked network gives the file's logits and values."""
    import torch

    from choco_envs.policy.checkpoint import load_policy
    from choco_envs.policy.net import ActorCritic
    from choco_envs.policy.seats import add_mode_marks
    from choco_envs.train.ppo import Args, prepare, train
    from choco_envs.train.start import start_from

    modes = {"length": ("short", "long")}
    base = dict(
        env_id="chocolate_factory_v2", options={"num_players": 2}, player_counts=(2, 3),
        modes=modes, total_timesteps=100, num_envs=4, num_steps=2, hidden=(16,),
        eval_every=0, final_eval_games=0, track=False, progress=False,
        runs_dir=str(tmp_path), league_self_play=1.0, league_past=0.0, league_bots={},
    )  # fmt: skip
    plain = train(Args(**base, mark_modes=False, run_name="plain"))
    args = Args(**base, init_from=str(plain), run_name="marked")
    ready = prepare(args)
    model = ActorCritic(ready.net)
    start_from(model, args)
    old, _ = load_policy(plain, "chocolate_factory_v2")
    game = make_game("chocolate_factory_v2", num_players=3, length="long")
    s = _state(game, 4, 5)
    x_old = PolicyInputs(game, "flat", "", 3).encode(s, 0)
    x_new = PolicyInputs(game, "flat", "", 3, {"length": ["short", "long"]}).encode(s, 0)
    assert x_new.size == x_old.size + 2 and x_new[-2:].tolist() == [0.0, 1.0]
    mask = torch.ones((1, game.num_actions), dtype=torch.bool)
    with torch.no_grad():
        a = old(torch.from_numpy(x_old[None]), mask)
        b = model(torch.from_numpy(x_new[None]), mask)
    torch.testing.assert_close(a[0], b[0])
    torch.testing.assert_close(a[1], b[1])
    with pytest.raises(ConfigError, match="mode marks"):
        add_mode_marks(model, old, 3)


def test_a_file_trained_on_drawn_scoring_cards_serves_a_fixed_card(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Le Chocolat: "scoring_card: None draws one at random at setup" (the option's doc),
    so a file trained with None met every card and serves a game that fixes one; a file
    trained on one fixed card serves that card only."""
    import json
    import shutil

    from safetensors.torch import load_file, save_file

    from choco_envs.policy.checkpoint import METADATA_KEY, read_metadata, shipped_checkpoint

    drawn = Path(__file__).resolve().parents[2] / "checkpoints/le_chocolat_v0/ppo.safetensors"
    assert read_metadata(drawn)["options"].get("scoring_card") is None
    folder = tmp_path / "shipped" / "le_chocolat_v0"
    folder.mkdir(parents=True)
    shutil.copy(drawn, folder / "ppo.safetensors")
    monkeypatch.setenv("CHOCO_CHECKPOINTS", str(tmp_path / "shipped"))
    for card in (0, 3, 9):
        found = shipped_checkpoint("le_chocolat_v0", {"scoring_card": card})
        assert found.name == "ppo.safetensors"
    meta = read_metadata(drawn)
    meta["options"] = {**meta["options"], "scoring_card": 2}
    save_file(
        load_file(str(drawn)), str(folder / "ppo.safetensors"),
        metadata={METADATA_KEY: json.dumps(meta)},
    )  # fmt: skip
    assert shipped_checkpoint("le_chocolat_v0", {"scoring_card": 2}).name == "ppo.safetensors"
    with pytest.raises(CheckpointError, match="no checkpoint is shipped for le_chocolat_v0"):
        shipped_checkpoint("le_chocolat_v0", {"scoring_card": 3})


def test_every_table_rule_replaces_a_many_table_file_only_when_better_overall(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`choco ship --every-table N`: both files play every table against greedy on the
    same deals (at once where there are two cores, else in turn: the same result); the
    new one must be above the old one pooled, and wholly below it at no table. The shipped Chocolates many-table file passes against a network trained a few
    steps; the reverse is refused; files for other tables are not compared."""
    from choco_envs.policy.checkpoint import read_metadata
    from choco_envs.train.ship import compare_every_table

    strong = (
        Path(__file__).resolve().parents[2] / "checkpoints/chocolates_v0/ppo_tables.safetensors"
    )
    weak = _with_arena(_train(tmp_path / "w", "chocolates_v0", {}, (2, 3, 4), "chocolates_truth"))
    passed, text, res = compare_every_table(
        strong, read_metadata(strong), weak, read_metadata(weak), 30, 3, False
    )
    assert passed, text
    assert "tables wholly below: none" in text and len(res["tables"]) == 3
    assert {t["table"]["num_players"] for t in res["tables"]} == {2, 3, 4}
    passed, text, _ = compare_every_table(
        weak, read_metadata(weak), strong, read_metadata(strong), 30, 3, False
    )
    assert not passed and "(not above)" in text
    # one core: the two files one after the other, the same games and the same result
    monkeypatch.setattr("os.cpu_count", lambda: 1)
    alone = compare_every_table(
        weak, read_metadata(weak), strong, read_metadata(strong), 30, 3, False
    )
    assert alone[1] == text
    other = _with_arena(_train(tmp_path / "o", "chocolates_v0", {}, (2, 3), "chocolates_truth"))
    with pytest.raises(ConfigError, match="compares files for the same tables"):
        compare_every_table(other, read_metadata(other), weak, read_metadata(weak), 30, 3, False)


def test_a_file_on_one_feature_starts_a_network_on_a_wider_one_that_plays_as_it_did(
    tmp_path: Path,
) -> None:
    """init_from a seat-padded file on chocolatiers_affordable into a run on
    chocolatiers_takes with a take head: the old inputs' columns move to their fields'
    places by name, the new ones and the head start at zero, so the new network gives the
    file's logits and values at every table; its own file loads, and a file whose head
    reads other inputs than the feature gives is refused."""
    import json

    import torch
    from safetensors.torch import load_file, save_file

    from choco_envs.core.errors import CheckpointError
    from choco_envs.policy.checkpoint import METADATA_KEY, load_policy, read_metadata
    from choco_envs.train.ppo import Args, train

    base = dict(
        env_id="chocolatiers_v1", options={"num_players": 2, "edition": "standard"},
        player_counts=(2, 3), total_timesteps=100, num_envs=2, num_steps=2, hidden=(16,),
        eval_every=0, final_eval_games=0, track=False, progress=False,
        runs_dir=str(tmp_path), league_self_play=1.0, league_past=0.0, league_bots={},
    )  # fmt: skip
    plain = train(Args(**base, feature="chocolatiers_affordable", run_name="plain"))
    args = Args(
        **{**base, "total_timesteps": 1, "learning_rate": 1e-9},
        feature="chocolatiers_takes",
        action_head=8,
        init_from=str(plain),
        run_name="takes",
    )
    wide = train(args)
    old, old_meta = load_policy(plain, "chocolatiers_v1")
    new, new_meta = load_policy(wide, "chocolatiers_v1")
    assert new.config.action_facts[:2] == (0, 6) and new.config.action_facts[-1] == 8
    for n in (2, 3):
        game = make_game("chocolatiers_v1", num_players=n)
        s = _state(game, 5 + n, 12)
        x_old = PolicyInputs.of_checkpoint(game, old_meta).encode(s, s.player)
        x_new = PolicyInputs.of_checkpoint(game, new_meta).encode(s, s.player)
        mask = torch.from_numpy(game.legal_mask(s)[None].astype(bool))
        with torch.no_grad():
            a, b = (
                old(torch.from_numpy(x_old[None]), mask),
                new(torch.from_numpy(x_new[None]), mask),
            )
        torch.testing.assert_close(a[0], b[0], atol=1e-4, rtol=0)
        torch.testing.assert_close(a[1], b[1], atol=1e-4, rtol=0)
    # a head declared at other inputs than the feature's facts is refused by the loader
    meta = read_metadata(wide)
    meta["network"]["action_facts"][2] -= 1
    bad = tmp_path / "bad.safetensors"
    save_file(load_file(str(wide)), str(bad), metadata={METADATA_KEY: json.dumps(meta)})
    with pytest.raises(CheckpointError, match="action head reads"):
        load_policy(bad, "chocolatiers_v1")


@pytest.mark.parametrize("new_map", ["action_head_context", "action_head_pool"])
def test_a_file_with_a_fact_head_starts_a_network_whose_head_reads_the_position(
    tmp_path: Path, new_map: str
) -> None:
    """init_from a file with a take head into the same network whose head also reads the
    torso (``action_head_context``) or what the legal takes offer together
    (``action_head_pool``): every weight loads, the new maps start at 0, so the new
    network gives the file's logits and values; a file of another torso is refused."""
    import torch

    from choco_envs.core.errors import ConfigError
    from choco_envs.policy.checkpoint import load_policy
    from choco_envs.train.ppo import Args, train

    base = dict(
        env_id="chocolatiers_v1", options={"num_players": 2, "edition": "standard"},
        total_timesteps=100, num_envs=2, num_steps=2, hidden=(16,), eval_every=0,
        final_eval_games=0, track=False, progress=False, runs_dir=str(tmp_path),
        league_self_play=1.0, league_past=0.0, league_bots={},
        feature="chocolatiers_takes", action_head=8,
    )  # fmt: skip
    headed = train(Args(**base, run_name="headed"))
    context = train(
        Args(**{**base, "total_timesteps": 1, "learning_rate": 1e-9, new_map: True},
             init_from=str(headed), run_name="context")
    )  # fmt: skip
    old, meta = load_policy(headed, "chocolatiers_v1")
    new, _ = load_policy(context, "chocolatiers_v1")
    if new_map == "action_head_context":
        assert new.config.facts_context and not old.config.facts_context
        assert new.fact_context is not None and not new.fact_context.weight.any()
    else:
        assert new.config.facts_pool and not old.config.facts_pool
        assert len(new.fact_pools) == 1 and not new.fact_pools[0].weight.any()
        assert not new.fact_pool_values[0].weight.any()
    game = make_game("chocolatiers_v1", num_players=2)
    s = _state(game, 9, 12)
    x = torch.from_numpy(PolicyInputs.of_checkpoint(game, meta).encode(s, s.player)[None])
    mask = torch.from_numpy(game.legal_mask(s)[None].astype(bool))
    with torch.no_grad():
        a, b = old(x, mask), new(x, mask)
    torch.testing.assert_close(a[0], b[0], atol=1e-5, rtol=0)
    torch.testing.assert_close(a[1], b[1], atol=1e-5, rtol=0)
    with pytest.raises(ConfigError, match="holds another network"):
        train(Args(**{**base, "hidden": (8,), new_map: True}, init_from=str(headed),
                   run_name="other"))  # fmt: skip


def test_a_file_with_one_fact_head_starts_a_network_with_more_that_plays_as_it_did(
    tmp_path: Path,
) -> None:
    """init_from a seat-padded file on chocolatiers_takes (a take head) into a run on
    chocolatiers_placements (heads for takes, wilds and tile placements): the take head and
    every old input keep their weights, the new inputs and heads start at zero, so the new
    network gives the file's logits and values at every table, tile placements included."""
    import torch

    from choco_envs.games.chocolatiers.rules import PLACE
    from choco_envs.policy.checkpoint import load_policy
    from choco_envs.train.ppo import Args, train

    base = dict(
        env_id="chocolatiers_v1", options={"num_players": 2, "edition": "standard"},
        player_counts=(2, 3), total_timesteps=100, num_envs=2, num_steps=2, hidden=(16,),
        eval_every=0, final_eval_games=0, track=False, progress=False, action_head=8,
        runs_dir=str(tmp_path), league_self_play=1.0, league_past=0.0, league_bots={},
    )  # fmt: skip
    takes = train(Args(**base, feature="chocolatiers_takes", run_name="takes"))
    args = Args(
        **{**base, "total_timesteps": 1, "learning_rate": 1e-9},
        feature="chocolatiers_placements",
        init_from=str(takes),
        run_name="placements",
    )
    wide = train(args)
    old, old_meta = load_policy(takes, "chocolatiers_v1")
    new, new_meta = load_policy(wide, "chocolatiers_v1")
    assert len(new.config.action_facts) == 15 and len(new.fact_heads) == 2
    rng = random.Random(3)
    placed = 0
    for n in (2, 3):
        game = make_game("chocolatiers_v1", num_players=n)
        s = game.new_state(rng)
        for _ in range(400):
            if game.is_over(s):
                break
            x_old = PolicyInputs.of_checkpoint(game, old_meta).encode(s, s.player)
            x_new = PolicyInputs.of_checkpoint(game, new_meta).encode(s, s.player)
            mask = torch.from_numpy(game.legal_mask(s)[None].astype(bool))
            with torch.no_grad():
                a = old(torch.from_numpy(x_old[None]), mask)
                b = new(torch.from_numpy(x_new[None]), mask)
            torch.testing.assert_close(a[0], b[0], atol=1e-4, rtol=0)
            torch.testing.assert_close(a[1], b[1], atol=1e-4, rtol=0)
            legal = game.legal_actions(s)
            placed += any(PLACE <= x < PLACE + 64 for x in legal)
            game.apply(s, rng.choice(legal), rng)
    assert placed >= 5
