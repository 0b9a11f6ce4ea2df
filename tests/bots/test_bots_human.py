"""The human bot: shows its seat's view only, numbers the legal moves, re-asks on bad input."""

from __future__ import annotations

import io

import pytest

from choco_envs import bots
from choco_envs.bots.human import HumanBot
from choco_envs.registry import list_envs
from tests.bots.choco_toy import ToyRaceGame
from tests.bots.helpers import new_env


def scripted(text: str) -> tuple[HumanBot, io.StringIO]:
    out = io.StringIO()
    return HumanBot(input_stream=io.StringIO(text), output_stream=out), out


def test_bad_input_is_asked_again_until_a_move_number():
    env = new_env(ToyRaceGame, seed=1)
    bot, out = scripted("hello\n0\n5\n\n3\n")
    assert bot.act(env) == 2  # the third legal move: +3
    shown = out.getvalue()
    assert shown.count("your move") == 5
    assert "'hello' is not a move: type a number from 1 to 4" in shown
    assert "'5' is not a move" in shown


def test_shows_own_view_and_numbered_moves_with_names():
    env = new_env(ToyRaceGame, seed=1)
    bonus = env.state_.bonus
    bot, out = scripted("1\n")
    assert bot.act(env) == 0
    shown = out.getvalue()
    assert f"player_0: total 0, bonus {bonus[0]}" in shown
    assert "player_1: total 0, bonus ?" in shown
    assert "  1) +1\n  2) +2\n  3) +3\n  4) gamble (0..4)" in shown


@pytest.mark.parametrize("text", ["", "q\n", "quit\n"])
def test_end_of_input_or_quit_stops_cleanly(text):
    env = new_env(ToyRaceGame, seed=1)
    bot, _ = scripted(text)
    with pytest.raises(KeyboardInterrupt):
        bot.act(env)


def test_registry_makes_a_human_on_the_terminal():
    assert isinstance(bots.make("human"), HumanBot)


@pytest.mark.parametrize("typed", ["1_0", "١", "3.0", "0x3", "+ 3"])
def test_only_plain_digits_are_move_numbers(typed: str) -> None:
    """`1_0` is not move 10 (Python's int() would read it so), nor are other spellings."""
    env = new_env(ToyRaceGame, seed=1)
    bot, out = scripted(f"{typed}\n4\n")
    assert bot.act(env) == 3
    assert (
        f"{typed.strip()!r} is not a move" in out.getvalue()
        or f"{typed!r} is not a move" in out.getvalue()
    )


def test_a_move_may_be_typed_by_its_listed_name() -> None:
    env = new_env(ToyRaceGame, seed=1)
    bot, _ = scripted("  GAMBLE   (0..4) \n")
    assert bot.act(env) == 3
    bot, _ = scripted("+2\n")
    assert bot.act(env) == 1


def test_question_mark_shows_the_games_legend() -> None:
    env = new_env(ToyRaceGame, seed=1)
    bot, out = scripted("?\n1\n")
    assert bot.act(env) == 0
    assert env.game.legend() in out.getvalue() or "needs no legend" in out.getvalue()


@pytest.mark.parametrize("env_id", list_envs())
def test_every_game_has_a_legend_for_its_board_codes(env_id: str) -> None:
    """`?` at the prompt explains the board's codes (issue 18: `Bro`, `Pk^`, `Au#`, ...)."""
    import choco_envs

    game = choco_envs.make(env_id).unwrapped.game
    assert "codes" in game.legend() and len(game.legend().splitlines()) >= 4
