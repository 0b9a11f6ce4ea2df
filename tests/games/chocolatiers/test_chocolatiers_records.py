"""Chocolatiers saved states: complete, readable, and loaded only when they are a
reachable-looking state (issue 18, item 1): every value's range, the conservation of
cards, tiles, wilds and the First tile, the consistency of the fields, a legal action for
the agent to act, and an end within the game's declared length."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

import choco_envs
from choco_envs.bots.chocolatiers.greedy import greedy_action
from choco_envs.core.errors import RecordError
from choco_envs.games.chocolatiers import ChocolatiersGame
from choco_envs.games.chocolatiers.rules import BOX, PAY, PLACE_TILE, ROUND_CAP

from .helpers import cost_text, fresh, hold


def midgame(edition: str = "standard", players: int = 2, seed: int = 1, steps: int = 60):
    """(game, state) after greedy play, at the start of a turn: tiles in the Samplers,
    wilds placed or locked (``steps=None``: once a seat holds First)."""
    game = ChocolatiersGame(edition=edition, num_players=players)
    rng = random.Random(seed)
    s = game.new_state(rng)
    done = 0
    while (s.first < 0 if steps is None else done < steps) or s.phase or s.actions_left < 2:
        game.apply(s, greedy_action(game, s, rng), rng)
        done += 1
    assert not s.over
    return game, s


def record(edition: str = "standard", **kw: Any) -> tuple[ChocolatiersGame, dict[str, Any]]:
    game, s = midgame(edition, **kw)
    return game, json.loads(json.dumps(game.to_json(s)))


def paying(edition: str = "standard") -> tuple[ChocolatiersGame, dict[str, Any]]:
    """A record of seat 0 paying the tile at line position 1 (2 chocolates still owed)."""
    game, s, rng = fresh(edition)
    if game.classic:
        game.apply(s, next(t for t in range(6) if s.tray[t]), rng)
    tile = s.display[1]
    hold(s, 0, cost_text(game, tile))
    game.apply(s, BOX + 1, rng)
    while sum(s.to_pay) > 2:
        game.apply(s, game.legal_actions(s)[0], rng)
    assert s.phase == PAY
    return game, json.loads(json.dumps(game.to_json(s)))


def refused(game: ChocolatiersGame, rec: dict[str, Any], match: str) -> None:
    with pytest.raises(RecordError, match=match):
        game.from_json(rec)


def changed(rec: dict[str, Any], **fields: Any) -> dict[str, Any]:
    out = copy.deepcopy(rec)
    out.update(fields)
    return out


@pytest.mark.parametrize("edition", ["standard", "classic"])
def test_every_state_of_played_games_loads_back_as_itself(edition: str) -> None:
    """A record is complete: every state of a played game (each step, both editions, 3
    players) loads through the strict loader to the same state and the same record."""
    game = ChocolatiersGame(edition=edition, num_players=3)
    rng = random.Random(2)
    for _ in range(2):
        s = game.new_state(rng)
        while True:
            rec = json.loads(json.dumps(game.to_json(s)))
            t = game.from_json(rec)
            assert game.to_json(t) == rec
            for name in ("cells", "groups", "points", "n34", "occ", "ntiles", "slots", "rots"):
                assert getattr(t, name) == getattr(s, name), name
            if s.over:
                break
            legal = game.legal_actions(s)
            pick = greedy_action(game, s, rng) if rng.random() < 0.6 else rng.choice(legal)
            game.apply(s, pick, rng)


def test_the_record_is_readable() -> None:
    """Cards by type name, each Sampler as its tiles with row, col and rotation."""
    game, rec = record()
    assert rec["version"] == 1 and rec["phase"] in ("choose", "take", "pay", "place", "discard")
    assert set(rec["tray"]) == {
        "truffle",
        "nut_cluster",
        "raspberry",
        "mint",
        "blueberry",
        "violet",
    }
    assert all(name in rec["tray"] for name in rec["deck"])
    tile = rec["players"][0]["sampler"][0]
    assert set(tile) == {"tile", "row", "col", "rotation"}


def test_values_out_of_range_are_refused_naming_the_field() -> None:
    """Issue 18: "a display tile 999, a deck card of type 99, actions_left=7 ... first=9,
    pending=999", negative hands, trays and wilds."""
    game, rec = record()
    line = list(rec["line"])
    line[0] = 999
    refused(game, changed(rec, line=line), r"line\[0\] = 999; allowed: an int in -1\.\.35")
    refused(game, changed(rec, deck=[99, *rec["deck"][1:]]), r"deck\[0\] = 99; allowed: truffle")
    refused(game, changed(rec, actions_left=7), r"actions_left = 7; allowed: an int in 0\.\.2")
    refused(game, changed(rec, first=9), r"first = 9; allowed: an int in -1\.\.1")
    refused(game, changed(rec, pending=999), r"pending = 999; allowed")
    refused(game, changed(rec, tray={**rec["tray"], "mint": -1}), r"tray\.mint = -1")
    bad = copy.deepcopy(rec)
    bad["players"][1]["hand"]["truffle"] = -2
    refused(game, bad, r"players\[1\]\.hand\.truffle = -2; allowed: an int in 0\.\.51")
    bad = copy.deepcopy(rec)
    bad["players"][0]["wilds"] = -1
    refused(game, bad, r"players\[0\]\.wilds = -1; allowed: an int in 0\.\.3")
    refused(game, changed(rec, phase="dance"), r"phase = 'dance'; allowed: choose, take")
    refused(game, changed(rec, over="yes"), r"over = 'yes'; allowed: true or false")
    refused(game, changed(rec, turn=True), r"turn = True")


def test_a_hand_of_a_billion_cards_is_refused() -> None:
    """Issue 18: "a hand count of 10**9 (the game never ends)"."""
    game, rec = record()
    bad = copy.deepcopy(rec)
    bad["players"][0]["hand"]["mint"] = 10**9
    refused(game, bad, r"players\[0\]\.hand\.mint = 1000000000")


def test_each_card_is_counted_exactly_once() -> None:
    """Conservation of the cards: a card added to a hand (even one the record says is
    known), or dropped from the deck, or moved from the tray, is refused."""
    game, rec = record()
    bad = copy.deepcopy(rec)
    p = bad["players"][1]
    p["hand"]["violet"] += 1
    p["known"]["violet"] += 1
    refused(game, bad, r"violet cards in hands .*allowed: exactly 8, each card once")
    refused(game, changed(rec, deck=rec["deck"][:-1]), r"cards in hands .* each card once")
    bad = copy.deepcopy(rec)
    p = bad["players"][0]
    p["unseen"] = min(3, p["unseen"] + 1)
    refused(game, bad, r"players\[0\]: the hand holds .* allowed: hand = known \+ unseen")
    bad = copy.deepcopy(rec)
    t = next(k for k, v in bad["players"][0]["hand"].items() if v)
    bad["players"][0]["known"][t] = bad["players"][0]["hand"][t] + 1
    refused(game, bad, rf"players\[0\]\.known\.{t} = ")


def test_each_tile_is_counted_exactly_once() -> None:
    """Conservation of the box tiles: "the same tile five times in the display", a tile
    both in the line and in a Sampler, and a tile lost from the stack are refused."""
    game, rec = record()
    refused(game, changed(rec, line=[rec["line"][0]] * 5), r"each box tile once")
    sampled = rec["players"][0]["sampler"][0]["tile"]
    line = list(rec["line"])
    line[0] = sampled
    refused(game, changed(rec, line=line), rf"each box tile once \(tile {sampled} is also in")
    stacks = copy.deepcopy(rec["stacks"])
    stacks[0].pop()
    refused(game, changed(rec, stacks=stacks), r"box tiles \[\d+\] are nowhere")
    classic, crec = record("classic")
    unused = crec["unused"][1:]
    refused(classic, changed(crec, unused=unused), r"are nowhere|unused")


def test_each_seat_has_exactly_three_wilds() -> None:
    """Conservation of the wilds: each seat's 3 are in its supply, on its Sampler or
    locked on its reserved tile (rulebook 000: "Give each player 3 Wild Chocolates")."""
    game, rec = record()
    bad = copy.deepcopy(rec)
    p = bad["players"][0]
    p["wilds"] = 3 - len(p["wilds_placed"]) - (p["reserved"] >= 0) + 1 if p["wilds"] < 3 else 2
    refused(game, bad, r"players\[0\]: .* wilds in supply .* allowed: exactly 3")
    bad = copy.deepcopy(rec)
    bad["players"][1]["wilds_placed"].append([5, 5])
    refused(game, bad, r"players\[1\]\.wilds_placed\[\d\] = \[5, 5\]; allowed: a space of a tile")


def test_the_first_tile_goes_only_to_a_seat_with_6_tiles_and_to_one() -> None:
    """Conservation of the Score tiles kept in a record (the others follow from the
    Samplers): First is held by a seat with 6 tiles; once a seat has 6, First is held."""
    game, rec = record()
    refused(game, changed(rec, first=0), r"first = 0; allowed: a seat with 6 tiles")
    game6, s = midgame(steps=None)
    rec6 = json.loads(json.dumps(game6.to_json(s)))
    assert rec6["first"] >= 0
    refused(game6, changed(rec6, first=-1), r"first = -1; allowed: one of")


def test_the_phase_agrees_with_what_is_pending() -> None:
    """Issue 18: "a pay phase with nothing owed". A tile is being boxed exactly in the
    pay and place phases, something is owed exactly in the pay phase, cards are still to
    take exactly in the take phase, the discard phase needs a hand over 6."""
    game, rec = record()
    stacks = copy.deepcopy(rec["stacks"])
    tile = stacks[0].pop()
    refused(game, changed(rec, pending=tile, stacks=stacks), r"phase 'choose' with pending")
    game, rec = paying()
    refused(game, changed(rec, to_pay={t: 0 for t in rec["to_pay"]}), r"to_pay = .* phase 'pay'")
    refused(game, changed(rec, phase="choose"), r"phase 'choose' with pending")
    refused(game, changed(rec, takes_left=1), r"takes_left = 1; allowed: 1\.\.2 in phase 'take'")
    owed = next(t for t, v in rec["to_pay"].items() if v)
    refused(game, changed(rec, to_pay={**rec["to_pay"], owed: 4}), rf"to_pay\.{owed} = 4")
    bad = copy.deepcopy(rec)
    bad["players"][0]["hand"] = {t: 0 for t in bad["players"][0]["hand"]}
    bad["players"][0]["known"] = dict(bad["players"][0]["hand"])
    bad["discard"] = {t: bad["discard"][t] + rec["players"][0]["hand"][t] for t in bad["discard"]}
    refused(game, bad, r"players\[0\]\.hand = .*allowed: a hand that can pay")
    refused(game, changed(rec, box_from=-1), r"box_from = -1")
    line = list(rec["line"])
    refused(
        game, changed(rec, line=[*line[:1], -1, *line[2:]], box_from=3), r"line\[1\] = -1|line\[3\]"
    )
    game, rec = record()
    refused(
        game,
        changed(rec, phase="discard", actions_left=0),
        r"phase = 'discard'; allowed: 'discard' only",
    )
    refused(
        game, changed(rec, takes_left=2), r"takes_left = 2; allowed: 1\.\.2 in phase 'take', else 0"
    )


def test_the_turn_and_the_end_flags_agree() -> None:
    """The seat to act is the turn count's (seat 0 first, in order); a game not over is
    before the end of round 40 (so it ends within max_steps); a game marked over is over:
    after the turn of the seat before the First holder, or at round 40."""
    game, rec = record()
    refused(game, changed(rec, player=1 - rec["player"]), r"player = \d; allowed: \d \(turn")
    refused(game, changed(rec, turn=ROUND_CAP * 2, player=0), r"turn = 80; allowed: 0\.\.79")
    refused(game, changed(rec, turn=10**6), r"turn = 1000000; allowed: an int in 0\.\.80")
    refused(game, changed(rec, over=True), r"a game over is in no step|over = True")
    over = changed(
        rec, over=True, phase="choose", actions_left=0, takes_left=0, pending=-1, box_from=-1
    )
    over["to_pay"] = {t: 0 for t in rec["to_pay"]}
    refused(game, over, r"over = True; allowed: true only after")
    over.update(turn=ROUND_CAP * 2, player=1)
    assert game.from_json(over).over  # the end of round 40 is an end


def test_a_sampler_is_joined_within_3x2_and_anchored() -> None:
    """Rulebook 000: tiles are "placed adjacent ... so that the full edges line up" and
    "arranged as 3 tiles x 2 tiles"; a record's Sampler is anchored at its top-left."""
    game, rec = record()
    p = rec["players"][0]
    assert len(p["sampler"]) >= 2
    bad = copy.deepcopy(rec)
    bad["players"][0]["sampler"][-1].update(row=2, col=2)
    bad["players"][0]["wilds_placed"] = []
    bad["players"][0]["wilds"] = 3 - (p["reserved"] >= 0)
    refused(game, bad, r"players\[0\]\.sampler: tiles at .* allowed: tiles joined on full edges")
    bad = copy.deepcopy(rec)
    bad["players"][0]["sampler"][-1].update(row=p["sampler"][0]["row"], col=p["sampler"][0]["col"])
    refused(game, bad, r"players\[0\]\.sampler\[\d\] = .*allowed: a slot no other tile")
    bad = copy.deepcopy(rec)
    bad["players"][0]["sampler"][0]["rotation"] = 4
    refused(game, bad, r"sampler\[0\]\.rotation = 4; allowed: an int in 0\.\.3")


def test_the_line_tray_and_hands_agree_with_the_deck_and_stacks() -> None:
    """The standard line is refilled to 5 while the stack lasts, the tray to 6 while the
    deck lasts; a seat not to act holds at most 6 cards (the hand limit at the end of its
    turn); the classic edition has no reserve and its box holds the unused tiles."""
    game, rec = record()
    line = list(rec["line"])
    stacks = copy.deepcopy(rec["stacks"])
    stacks[0].append(line[2])
    line[2] = -1
    refused(game, changed(rec, line=line, stacks=stacks), r"line\[2\] = -1; allowed: a tile")
    deck = list(rec["deck"])
    t = next(k for k, v in rec["tray"].items() if v)
    deck.append(t)
    refused(
        game,
        changed(rec, deck=deck, tray={**rec["tray"], t: rec["tray"][t] - 1}),
        r"tray holds 5 cards; allowed: exactly 6",
    )
    bad = copy.deepcopy(rec)
    other = 1 - rec["player"]
    assert len(bad["deck"]) >= 7
    for name in bad["deck"][:7]:  # 7 cards move from the deck to its hand
        bad["players"][other]["hand"][name] += 1
        bad["players"][other]["known"][name] += 1
    bad["deck"] = bad["deck"][7:]
    refused(game, bad, rf"players\[{other}\]\.hand holds \d+ cards; allowed: at most 6")
    classic, crec = record("classic")
    bad = copy.deepcopy(crec)
    bad["players"][0]["reserved"] = crec["unused"][0]
    bad["unused"] = crec["unused"][1:]
    refused(classic, bad, r"players\[0\]\.reserved = \d+; allowed: -1 \(the classic edition")


def test_a_refused_record_changes_nothing_in_the_env() -> None:
    """Issue 18, item 2: a refused ``reset(options={"state": ...})`` leaves the env as it
    was (the game goes on from where it stood)."""
    env = choco_envs.make("chocolatiers_v1", illegal_action="raise")
    env.reset(seed=3)
    env.step(env.unwrapped.legal_actions()[0])
    before = env.unwrapped.save()
    bad = copy.deepcopy(before)
    bad["state"]["first"] = 9
    with pytest.raises(RecordError, match="first = 9"):
        env.reset(options={"state": bad})
    assert env.unwrapped.save() == before


def test_a_place_phase_record_loads_and_plays_on() -> None:
    """A state saved between paying and placing (the replacement not yet revealed)
    loads and offers the placements."""
    game, rec = paying()
    s = game.from_json(rec)
    rng = random.Random(0)
    while s.phase == PAY:
        game.apply(s, game.legal_actions(s)[0], rng)
    assert s.phase == PLACE_TILE and s.display[1] == -1
    t = game.from_json(json.loads(json.dumps(game.to_json(s))))
    assert game.legal_actions(t) == game.legal_actions(s)
