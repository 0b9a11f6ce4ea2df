"""No bot sees hidden information it must not: a bot run on two states that differ only
in what its seat cannot see (the real state and a determinization of it for that seat),
with the same seed, chooses the same action.

This needs ``determinize`` to depend only on what the seat sees (and the rng): a game that
shuffles the hidden items in their true order would give the same distribution but not
the same sample, and fails here.
"""

from __future__ import annotations

import random

import pytest

from choco_envs import bots
from choco_envs.bots.base import AgentView, Bot
from choco_envs.bots.game_kinds import game_bots
from tests.bots.choco_toy import ToyRaceGame
from tests.bots.helpers import GAMES, game_id, random_positions, restored

COMMON_SPECS = ("random", "mcts:simulations=24")


def bot_cases() -> list[tuple[object, str]]:
    """Every game with the common bots and every kind of bot its game lists."""
    return [
        (game_cls, spec)
        for game_cls in GAMES
        for spec in (*COMMON_SPECS, *game_bots(game_cls.spec.env_id))
    ]


#: positions checked per game and bot, spread over two random games
MAX_POSITIONS = 16


def first_disagreement(spec_or_bot, game_cls, every: int = 4):
    """A position where the bot chooses differently on the real state and on a
    determinization of it for the seat to act; None if there is none."""
    rng = random.Random(7)
    positions = random_positions(game_cls, seed=11, every=every)
    for env in positions[:: max(1, len(positions) // MAX_POSITIONS)]:
        seat = env.agent_name_mapping[env.agent_selection]
        lookalike = restored(env, env.game.determinize(env.state_, seat, rng))
        for seed in range(2):
            make = (
                spec_or_bot
                if callable(spec_or_bot)
                else lambda s: bots.make(spec_or_bot, env_id=game_cls.spec.env_id, seed=s)
            )
            on_real, on_lookalike = make(seed).act(env), make(seed).act(lookalike)
            if on_real != on_lookalike:
                return env.game.state_to_string(env.state_, seat), on_real, on_lookalike
    return None


@pytest.mark.parametrize(
    ("game_cls", "spec"), bot_cases(), ids=[f"{game_id(g)}-{s}" for g, s in bot_cases()]
)
def test_bot_chooses_the_same_on_states_its_seat_cannot_tell_apart(game_cls, spec):
    """Every bot kind of every game, not only the baselines."""
    assert first_disagreement(spec, game_cls) is None


class PeekingBot(Bot):
    """Cheats: plays +3 when the next seat's hidden bonus is 2, else +1."""

    def act_view(self, view: AgentView) -> int:
        state = view._state  # what no honest bot may read
        return 2 if state.bonus[(view.seat + 1) % len(state.bonus)] == 2 else 0


def test_the_check_catches_a_bot_that_reads_hidden_information():
    """The test above can fail: a bot reading the opponent's hidden card is caught."""
    assert first_disagreement(lambda seed: PeekingBot(seed), ToyRaceGame, every=1) is not None
