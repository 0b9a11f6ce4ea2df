"""A sensible beginner for Chocolates: the ``greedy`` bot.

``greedy_action(game, state, rng)`` plays the seat to act in ``state`` (already a
determinization from that seat's view; it re-determinizes from it, so it never relies on
the sampled face-down chocolates):

* **Take**: estimate, over a few determinizations, the chance ``p`` that each display
  card is true; the expected value of the true side is ``T (2p - 1)``, of the false side
  ``F (1 - 2p)``. Add the nougats on the card. Take the best card and side whose side is
  right in at least ``MIN_CONFIDENCE`` of the samples and whose value is positive, unless
  it would fill the last card place (triggering the end) while not ahead; otherwise take
  nothing (taking is optional). Waiting for near-certain cards keeps the variance low,
  which is what beats a random player.
* **Reveal**: the chocolates are fixed from the start, so a reveal changes no prediction;
  it only informs everyone and brings the end nearer. When ahead in expectation (nougats
  plus the expected points of the cards held) it reveals a random grid chocolate,
  hastening the end that the 16th grid reveal triggers at once; when not ahead it reveals
  one beside the grid while any is left, to play on.
"""

from __future__ import annotations

from choco_envs.bots.base import BotOption
from choco_envs.bots.chocolates.beliefs import side_value
from choco_envs.core.game import Rng
from choco_envs.games.chocolates.components import GRID_CELLS, NUM_CARDS, NUM_CHOCOLATES
from choco_envs.games.chocolates.rules import (
    REVEAL_BASE,
    ChocolatesRules,
    ChocolatesState,
    card_truths,
)

SAMPLES = 24
#: the least expected gain (points) worth one of the few card places
TAKE_THRESHOLD = 0.0
#: the least estimated chance that the chosen side is right
MIN_CONFIDENCE = 0.85


def greedy_action(
    game: ChocolatesRules,
    state: ChocolatesState,
    rng: Rng,
    min_confidence: float = MIN_CONFIDENCE,
    ahead_confidence: float | None = None,
    ahead_margin: float = 0.0,
    near_end_confidence: float | None = None,
    final_confidence: float | None = None,
) -> int:
    """The action of a beginner for the seat to act in ``state``.

    The settings (``OPTIONS``; ``greedy:key=value`` in a bot spec) say how sure a take
    must be: ``min_confidence`` is the least estimated chance that a taken card's chosen
    side is right. The others are off (None) in the baseline bot: ``ahead_confidence``
    replaces it while the seat's expected score leads every other by more than
    ``ahead_margin`` (careful when ahead, bolder when not); ``near_end_confidence``
    lowers it while another seat is one card from the limit (the end may come on its next
    turn); ``final_confidence`` replaces it on the seat's last turn once the end is
    triggered, when a take can no longer trigger the end, so it is not held back for
    leaving the seat behind."""
    for name, value in (
        ("min_confidence", min_confidence),
        ("ahead_confidence", ahead_confidence),
        ("near_end_confidence", near_end_confidence),
        ("final_confidence", final_confidence),
    ):
        if value is not None and not 0.0 <= value <= 1.0:
            raise ValueError(f"{name}={value!r} is not allowed; allowed: 0..1")
    seat = game.current_player(state)
    if seat < 0:
        raise ValueError("greedy_action: the game is over, nobody is to act")
    truth = truth_rates(game, state, seat, rng)
    if game.can_take(state):
        final = final_confidence is not None and state.final_turns >= 0
        needed = min_confidence
        if final_confidence is not None and state.final_turns >= 0:
            needed = final_confidence
        else:
            if ahead_confidence is not None and lead(game, state, seat, truth) > ahead_margin:
                needed = ahead_confidence
            near = [p for p in range(game.num_players) if p != seat]
            if near_end_confidence is not None and any(
                len(state.cards[p]) + 1 >= game.card_limit for p in near
            ):
                needed = min(needed, near_end_confidence)
        take = best_take(state, truth, needed)
        if take is not None and (final or not ends_behind(game, state, seat, truth, take)):
            return take
    return choose_reveal(game, state, seat, truth, rng)


def _confidence(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise ValueError("allowed: a number in [0, 1]")
    return value


def _points(text: str) -> float:
    value = float(text)
    if value != value or abs(value) == float("inf"):
        raise ValueError("allowed: a finite number of points")
    return value


#: the settings of ``greedy_action`` a bot spec may give: ``greedy:min_confidence=0.8``
OPTIONS = {
    o.name: o
    for o in (
        BotOption(
            "min_confidence", _confidence, "least chance that a taken side is right, in [0, 1]"
        ),
        BotOption("ahead_confidence", _confidence, "the chance needed while ahead, in [0, 1]"),
        BotOption("ahead_margin", _points, "expected points of lead that count as ahead"),
        BotOption("near_end_confidence", _confidence, "the chance needed near the end, in [0, 1]"),
        BotOption("final_confidence", _confidence, "the chance needed on a final turn, in [0, 1]"),
    )
}


def lead(game: ChocolatesRules, state: ChocolatesState, seat: int, truth: list[float]) -> float:
    """The seat's expected score minus the best other seat's."""
    others = [expected_score(state, p, truth) for p in range(game.num_players) if p != seat]
    return expected_score(state, seat, truth) - max(others)


def truth_rates(game: ChocolatesRules, state: ChocolatesState, seat: int, rng: Rng) -> list[float]:
    """The share of ``SAMPLES`` determinizations on which each card is true."""
    counts = [0] * NUM_CARDS
    for _ in range(SAMPLES):
        sample = game.determinize(state, seat, rng)
        for card, true in enumerate(card_truths(sample.layout)):
            counts[card] += true
    return [c / SAMPLES for c in counts]


def expected_score(state: ChocolatesState, seat: int, truth: list[float]) -> float:
    """Nougats plus the expected points of the cards ``seat`` holds."""
    held = sum(side_value(code // 2, code % 2, truth[code // 2]) for code in state.cards[seat])
    return state.nougats[seat] + held


def best_take(
    state: ChocolatesState, truth: list[float], min_confidence: float = MIN_CONFIDENCE
) -> int | None:
    """The take action with the best positive expectation (card side + nougats) among the
    sides right in at least ``min_confidence`` of the samples, if any."""
    best, best_value = None, TAKE_THRESHOLD
    for slot, card in enumerate(state.display):
        if card < 0:
            continue
        for side in (0, 1):
            confidence = 1 - truth[card] if side else truth[card]
            value = side_value(card, side, truth[card]) + state.display_nougats[slot]
            if confidence >= min_confidence and value > best_value:
                best, best_value = 2 * slot + side, value
    return best


def ends_behind(
    game: ChocolatesRules, state: ChocolatesState, seat: int, truth: list[float], take: int
) -> bool:
    """Whether ``take`` fills the seat's last card place (triggering the end) while the
    seat would still not be ahead in expectation."""
    if len(state.cards[seat]) + 1 < game.card_limit:
        return False
    slot, side = divmod(take, 2)
    card = state.display[slot]
    gain = side_value(card, side, truth[card]) + state.display_nougats[slot]
    others = [expected_score(state, p, truth) for p in range(game.num_players) if p != seat]
    return expected_score(state, seat, truth) + gain <= max(others)


def choose_reveal(
    game: ChocolatesRules, state: ChocolatesState, seat: int, truth: list[float], rng: Rng
) -> int:
    """Reveal in the grid when ahead (to end sooner), beside it when behind."""
    ahead = lead(game, state, seat, truth) > 0  # mine > max(others), exactly
    hidden = [pos for pos in range(NUM_CHOCOLATES) if not state.revealed[pos]]
    grid = [pos for pos in hidden if pos < GRID_CELLS]
    beside = [pos for pos in hidden if pos >= GRID_CELLS]
    preferred = grid if ahead else (beside or grid)
    return REVEAL_BASE + rng.choice(preferred)
