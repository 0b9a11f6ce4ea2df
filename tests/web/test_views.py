"""The views the server sends: built only from what the seat may see. For every env and
configuration, at every step of random games, a seat's view is the same for every
``determinize`` of that seat (nothing it cannot see leaks through the page), and the
spectator's view is the same for every determinization of any seat. Views are plain JSON;
every legal move of a drawn board has a place on it."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from choco_envs.core.errors import ConfigError
from choco_envs.registry import game_class, list_envs, make
from choco_envs.web.views import final_scores, target, text, view, view_module
from choco_envs.web.views.text import blocks

#: random games per configuration, positions checked per game (spread over it, the end
#: always), determinizations per seat and position
GAMES = 2
POSITIONS = 12
SAMPLES = 2


def configurations() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for env_id in list_envs():
        cls = game_class(env_id)
        for config in cls.spec.configurations():
            try:
                cls(**config)
            except ConfigError:
                continue
            out.append((env_id, config))
    return out


CONFIGS = configurations()
IDS = ["-".join([e, *(f"{k}={v}" for k, v in c.items())]) for e, c in CONFIGS]


def dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, allow_nan=False)


def positions(env_id: str, options: dict[str, Any], seed: int) -> Any:
    """(env, step) at every position of one random game, the end included."""
    env = make(env_id, illegal_action="raise", **options)
    env.reset(seed=seed)
    rng = random.Random(seed)
    step = 0
    while True:
        yield env, step
        if env.game_over():
            return
        env.step(rng.choice(env.legal_actions()))
        step += 1


def final_env(env_id: str, seed: int) -> Any:
    """The env at the end of one random game."""
    last = None
    for env, _ in positions(env_id, {}, seed):
        last = env
    return last


@pytest.mark.parametrize(("env_id", "options"), CONFIGS, ids=IDS)
def test_views_are_invariant_under_determinize(env_id: str, options: dict[str, Any]) -> None:
    """A seat's view is identical across that seat's determinizations; the spectator's
    across every seat's (some positions of each game)."""
    check_invariance(env_id, options, GAMES, POSITIONS)


@pytest.mark.slow
@pytest.mark.parametrize(("env_id", "options"), CONFIGS, ids=IDS)
def test_views_are_invariant_at_every_step(env_id: str, options: dict[str, Any]) -> None:
    """The same at every position of ten games per configuration."""
    check_invariance(env_id, options, 10, None)


def check_invariance(env_id: str, options: dict[str, Any], games: int, spread: int | None) -> None:
    for seed in range(games):
        length = sum(1 for _ in positions(env_id, options, seed))
        every = 1 if spread is None else max(1, length // spread)
        for env, step in positions(env_id, options, seed):
            if step % every and not env.game_over():
                continue
            game, s = env.game, env.state_
            n = game.num_players
            for seat in [None, *range(n)]:
                shown = dumps(view(game, s, seat))
                samplers = range(n) if seat is None else [seat]
                for p in samplers:
                    for k in range(SAMPLES):
                        other = game.determinize(s, p, random.Random(1000 * step + k))
                        assert dumps(view(game, other, seat)) == shown, (
                            f"{env_id} step {step}: the view of "
                            f"{'the spectator' if seat is None else f'player_{seat}'} changes "
                            f"under a determinization of player_{p}"
                        )


@pytest.mark.parametrize("env_id", list_envs())
def test_every_legal_move_of_a_drawn_board_has_a_place(env_id: str) -> None:
    for env, _ in positions(env_id, {}, 7):
        game, s = env.game, env.state_
        for a in env.legal_actions():
            where = target(game, s, a)
            if view_module(game) is not text:
                assert where is not None and where["kind"], (env_id, a)
            else:
                assert where is None
            dumps(where)


def test_chocolates_view_hides_face_down_chocolates_and_shows_all_at_the_end() -> None:
    env = make("chocolates_v0")
    env.reset(seed=3)
    env.step(6 + 5)  # reveal grid r2c2
    v = view(env.game, env.state_, None)
    up = [c for c in v["grid"] + v["beside"] if c["face_up"]]
    assert [c["pos"] for c in up] == [5]
    assert all("type" not in c for c in v["grid"] + v["beside"] if not c["face_up"])
    assert v["pile"] == len(env.state_.pile) and "layout" not in dumps(v)
    env = final_env("chocolates_v0", 3)
    end = view(env.game, env.state_, 0)
    assert end["over"] and all(c["face_up"] for c in end["grid"] + end["beside"])
    for p in end["players"]:
        assert sum(c["value"] for c in p["cards"]) + p["nougats"] == env.scores()[p["seat"]]


def test_le_chocolat_view_shows_a_back_only_to_the_tile_owner() -> None:
    """A claimed tile's back is in its owner's view only, until the end ("You may
    secretly look at the hidden side of your tiles")."""
    for env, _ in positions("le_chocolat_v0", {}, 5):
        s = env.state_
        if s.phase == 2:
            break
        secret = [c for c in range(35) if s.owner[c] >= 0 and not s.up[c]]
        if not secret:
            continue
        c = secret[0]
        owner = s.owner[c]
        assert "back" in view(env.game, s, owner)["tiles"][c]
        assert "back" not in view(env.game, s, 1 - owner)["tiles"][c]
        assert "back" not in view(env.game, s, None)["tiles"][c]
    end = view(env.game, env.state_, None)
    assert all("back" in t for t in end["tiles"]) and "back" in end["box"]


def test_final_scores_add_the_ranking() -> None:
    env = final_env("le_chocolat_v0", 1)
    final = final_scores(env.game, env.state_)
    assert final is not None and final["scores"] == env.scores()
    assert sorted(final["places"])[0] == 1


def test_text_blocks_keep_labels_players_and_drawings() -> None:
    title, parts = blocks(
        "Game, player_1 to act\nTray: T0 N1\nplayer_0: hand 3\n  | a |\n  |  b|\n"
    )
    assert title == "Game, player_1 to act"
    assert parts[0] == {"label": "Tray", "text": "T0 N1", "lines": []}
    assert parts[1]["seat"] == 0 and parts[1]["lines"] == ["| a |", "|  b|"]


def test_chocolatiers_view_shows_a_hand_only_to_its_seat() -> None:
    """A seat sees its own hand; of the others only the cards everyone saw them take and
    how many dealt cards nobody else has seen; the deck and the hidden stack as counts."""
    env = make("chocolatiers_v1", num_players=3)
    env.reset(seed=2)
    env.step(env.legal_actions()[0])  # player_0 takes a card from the tray: now known
    s = env.state_
    mine = view(env.game, s, 0)["players"]
    assert mine[0]["hand"] == dict(zip(mine[0]["hand"], s.hand[0:6], strict=True))
    theirs = view(env.game, s, 1)["players"][0]
    assert "hand" not in theirs and theirs["unseen"] == 3 and sum(theirs["known"].values()) == 1
    spectator = view(env.game, s, None)
    assert all("hand" not in p for p in spectator["players"])
    assert spectator["deck"] == len(s.deck) and spectator["stack"] == len(s.stacks[0])


def test_chocolatiers_place_targets_are_the_rules_positions_and_rotations() -> None:
    """While a tile is placed, each legal move is a (position, rotation) of the rules'
    placement table, and the view holds the pending tile in its four rotations."""
    from choco_envs.games.chocolatiers.rules import PLACE, PLACE_TILE, position_row_col

    for env, _ in positions("chocolatiers_v1", {}, 3):
        if env.game_over() or env.state_.phase != PLACE_TILE:
            continue
        game, s = env.game, env.state_
        v = view(game, s, s.player)
        assert len(v["boxing"]["rotations"]) == 4
        for a in env.legal_actions():
            where = target(game, s, a)
            position, rotation = divmod(a - PLACE, 4)
            assert where is not None and (where["row"], where["col"]) == position_row_col(position)
            assert where["rotation"] == rotation and where["kind"] == "place"
        return
    raise AssertionError("no tile was placed in that game")
