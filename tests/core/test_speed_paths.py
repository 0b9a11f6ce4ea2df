"""The fast paths search uses give exactly what the plain forms give: ``encode_batch`` row
for row what ``encode`` gives (every registered env, every encoder, states met in random
play, seen by every seat), the inlined shuffle ``random.Random.shuffle``'s permutation,
``permute`` (determinize's) every order equally often, the written-out copies every
field, and the vectorised Chocolatiers totals ``totals``."""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest

from choco_envs.registry import list_envs, make_game
from tests.uniformity import assert_uniform


def _configs() -> list[tuple[str, dict[str, object]]]:
    out: list[tuple[str, dict[str, object]]] = []
    for env_id in list_envs():
        game = make_game(env_id)
        counts = sorted({game.spec.min_players, game.spec.max_players})
        for n in counts:
            out.append((env_id, {"num_players": n}))
    out.append(("chocolatiers_v1", {"num_players": 4, "edition": "classic"}))
    return out


def _states(game: object, count: int, seed: int) -> list[tuple[object, int]]:
    """States from random games, the seat to act and every other seat, game ends included."""
    rng = random.Random(seed)
    pairs: list[tuple[object, int]] = []
    while len(pairs) < count:
        s = game.new_state(rng)  # type: ignore[attr-defined]
        while True:
            if rng.random() < 0.05 or game.is_over(s):  # type: ignore[attr-defined]
                for p in range(game.num_players):  # type: ignore[attr-defined]
                    pairs.append((game.copy(s), p))  # type: ignore[attr-defined]
            if game.is_over(s):  # type: ignore[attr-defined]
                break
            game.apply(s, rng.choice(game.legal_actions(s)), rng)  # type: ignore[attr-defined]
    return pairs[:count]


@pytest.mark.parametrize(("env_id", "options"), _configs(), ids=lambda v: str(v))
def test_encode_batch_equals_encode_state_by_state(env_id: str, options: dict[str, object]) -> None:
    game = make_game(env_id, **options)
    pairs = _states(game, 120, seed=len(env_id))
    states, players = [s for s, _ in pairs], [p for _, p in pairs]
    for name, encoder in game.encoders.items():
        batch = encoder.encode_batch(states, players)
        assert batch.shape == (len(states), *encoder.shape) and batch.dtype == np.float32
        for i, (s, p) in enumerate(pairs):
            np.testing.assert_array_equal(batch[i], encoder.encode(s, p), err_msg=f"{name} row {i}")
        # into a preallocated array holding garbage: overwritten, same numbers
        out = np.full_like(batch, 7.0)
        assert encoder.encode_batch(states, players, out) is out
        np.testing.assert_array_equal(out, batch)


def test_encode_batch_refuses_mismatched_input() -> None:
    game = make_game("chocolates_v0", num_players=2)
    encoder = game.encoders["flat"]
    s = game.new_state(random.Random(0))
    with pytest.raises(ValueError, match="2 states but 1 players"):
        encoder.encode_batch([s, s], [0])
    with pytest.raises(ValueError, match="out has shape"):
        encoder.encode_batch([s], [0], np.zeros((2, *encoder.shape), dtype=np.float32))
    assert encoder.encode_batch([], []).shape == (0, *encoder.shape)


def test_shuffle_is_random_shuffle_draw_for_draw() -> None:
    """The inlined shuffle of the rules gives ``random.Random.shuffle``'s permutation and
    leaves the stream where it leaves it, for every length of its step table and past it
    (rejection draws included); another kind of rng is left to its own ``shuffle``."""
    from choco_envs.core.game import SHUFFLE_STEPS, shuffle

    for seed in range(30):
        for length in (*range(len(SHUFFLE_STEPS) + 2), 69):
            a, b = random.Random(seed), random.Random(seed)
            xs, ys = list(range(length)), list(range(length))
            a.shuffle(xs)
            shuffle(b, ys)
            assert xs == ys and a.getstate() == b.getstate(), (seed, length)

    class Counting(random.Random):
        calls = 0

        def shuffle(self, x: list) -> None:  # type: ignore[override]
            Counting.calls += 1
            super().shuffle(x)

    items = list(range(10))
    shuffle(Counting(3), items)
    assert Counting.calls == 1 and sorted(items) == list(range(10))


class Scripted(random.Random):
    """A stream that gives the draws it is told (each must fit the bits asked for)."""

    def __init__(self, draws: list[int]) -> None:
        super().__init__(0)
        self.draws = iter(draws)

    def getrandbits(self, k: int) -> int:
        value = next(self.draws)
        assert 0 <= value < 1 << k, (value, k)
        return value


def permute_ranges(n: int) -> list[int]:
    """How many values each draw of ``permute`` of ``n`` items accepts: the Fisher-Yates
    steps down to the first ``ORDERS_UPTO`` items (below i + 1 at step i), then one of all
    the orders of those."""
    from choco_envs.core.game import ORDERS_UPTO

    k = min(n, ORDERS_UPTO)
    return [i + 1 for i in range(n - 1, k - 1, -1)] + ([math.factorial(k)] if k >= 2 else [])


@pytest.mark.parametrize("n", range(9))
def test_permute_gives_every_order_once_over_its_draws(n: int) -> None:
    """``permute`` is uniform: each draw is a ``getrandbits`` redrawn while out of range,
    so every sequence of in-range draws is equally likely, and over all of them each of
    the n! orders comes out exactly once (Fisher-Yates steps and the table of orders
    both, up to 8 items); an out-of-range draw is redrawn and changes nothing."""
    from choco_envs.core.game import permute

    ranges = permute_ranges(n)
    assert math.prod(ranges) == math.factorial(n)
    seen = set()
    for draws in itertools.product(*map(range, ranges)):
        items = list("abcdefgh"[:n])
        rng = Scripted(list(draws))
        permute(rng, items)
        assert next(rng.draws, None) is None  # every draw read, no more
        seen.add("".join(items))
    assert len(seen) == math.factorial(n)
    if ranges:  # a first draw out of range is drawn again: the same order
        bits = (ranges[0] - 1).bit_length() if ranges[0] > 1 else 0
        out_of_range = (1 << bits) - 1
        if out_of_range >= ranges[0]:
            a, b = list(range(n)), list(range(n))
            last = [r - 1 for r in ranges]
            permute(Scripted(last), a)
            permute(Scripted([out_of_range, *last]), b)
            assert a == b


def test_permute_is_uniform_from_a_seeded_stream() -> None:
    """From ``random.Random``: the 120 orders of 5 items and, for 9 items (steps above
    the table), the 72 (first, last) pairs, each about as often as any other."""
    from choco_envs.core.game import permute

    rng = random.Random(5)
    orders = []
    for _ in range(12_000):
        items = list(range(5))
        permute(rng, items)
        orders.append(tuple(items))
    assert_uniform(orders, set(itertools.permutations(range(5))))
    ends = []
    for _ in range(14_400):
        items = list(range(9))
        permute(rng, items)
        ends.append((items[0], items[-1]))
    assert_uniform(ends, set(itertools.permutations(range(9), 2)))
    for n in (0, 1, 40, 70):  # any length: the same items back
        items = list(range(n))
        permute(rng, items)
        assert sorted(items) == list(range(n))


def test_draw_of_an_unordered_pile_gives_every_order_once_over_its_draws() -> None:
    """``draw`` from an unordered pile (what ``determinize`` leaves: sorted, its order
    hidden from every seat) takes a uniformly random card: drawing a pile of 5 out card
    by card, over every sequence of in-range draws, gives each of the 120 orders exactly
    once, the same as the top cards of a uniformly permuted pile; an out-of-range draw
    is drawn again; an ordered pile gives its top card and draws nothing."""
    from choco_envs.core.game import draw

    ranges = [5, 4, 3, 2]  # a draw from k cards picks one of k; the last card is the last
    seen = set()
    for draws in itertools.product(*map(range, ranges)):
        pile = list("abcde")
        rng = Scripted(list(draws))
        seen.add("".join(draw(rng, pile, True) for _ in range(5)))
        assert next(rng.draws, None) is None and pile == []
    assert len(seen) == 120
    a, b = list("abcde"), list("abcde")
    assert draw(Scripted([7, 2]), a, True) == draw(Scripted([2]), b, True) == "c"
    ordered = list("abcde")
    rng = Scripted([])
    assert [draw(rng, ordered, False) for _ in range(5)] == list("edcba")
    seeded = random.Random(3)
    firsts = [draw(seeded, list(range(6)), True) for _ in range(6000)]
    assert_uniform(firsts, set(range(6)))


@pytest.mark.parametrize(("env_id", "options"), _configs(), ids=lambda v: str(v))
def test_copy_covers_every_field_and_shares_no_list(
    env_id: str, options: dict[str, object]
) -> None:
    """The written-out ``copy`` of every state: every slot equal, no list shared."""
    game = make_game(env_id, **options)
    for s, _ in _states(game, 40, seed=3):
        c = game.copy(s)  # type: ignore[attr-defined]
        for name in type(s).__slots__:
            a, b = getattr(s, name), getattr(c, name)
            assert a == b, name
            if isinstance(a, list):
                assert a is not b, name
                assert all(x is not y for x, y in zip(a, b, strict=True) if isinstance(x, list))


@pytest.mark.parametrize(("env_id", "options"), _configs(), ids=lambda v: str(v))
def test_determinize_shares_no_list_with_the_state_it_samples(
    env_id: str, options: dict[str, object]
) -> None:
    """``determinize`` may share what cannot change (ints, tuples: Chocolatiers' Sampler)
    and may leave ``copy``'s lists to be replaced (``copy(hidden=False)``), but the sample
    it returns holds no list of the state it came from: playing on it changes nothing."""
    game = make_game(env_id, **options)
    rng = random.Random(5)
    for s, p in _states(game, 40, seed=4):
        d = game.determinize(s, p, rng)  # type: ignore[attr-defined]
        for name in type(s).__slots__:
            a, b = getattr(s, name), getattr(d, name)
            assert not isinstance(a, list) or a is not b, name
            if isinstance(a, list) and isinstance(b, list):
                inner = {id(x) for x in a if isinstance(x, list)}
                assert not any(id(y) in inner for y in b if isinstance(y, list)), name
            assert not isinstance(a, (dict, set, bytearray)) or a is not b, name


@pytest.mark.parametrize("edition", ["standard", "classic"])
def test_chocolatiers_totals_batch_is_totals(edition: str) -> None:
    """The vectorised totals (Score tiles by ``single_best``, First, wilds, tile points)
    equal ``totals`` state by state, ties for the largest group included."""
    from choco_envs.games.chocolatiers.rules import single_best, single_best_batch

    for n in (2, 3, 4):
        game = make_game("chocolatiers_v1", num_players=n, edition=edition)
        states = [s for s, p in _states(game, 300, seed=n) if p == 0]
        fields = [
            np.array([getattr(s, k) for s in states]) for k in ("groups", "points", "wilds", "n34")
        ]
        first = np.array([s.first for s in states])
        got = game.totals_batch(*fields, first)  # type: ignore[attr-defined]
        assert got.tolist() == [game.totals(s) for s in states]  # type: ignore[attr-defined]
    rng = np.random.default_rng(0)
    values = rng.integers(0, 3, size=(500, 4))
    assert single_best_batch(values).tolist() == [single_best(list(v)) for v in values]
