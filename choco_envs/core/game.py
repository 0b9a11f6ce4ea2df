"""The game protocol: a spec plus pure functions of a State. The rules decide; the
adapter (``choco_envs.core.env``) only routes.

A game subclasses :class:`Game` and implements the abstract methods. Randomness is
never global: ``new_state`` and ``apply`` receive a ``random.Random`` that the caller
owns (the env seeds it from ``reset(seed=...)``; a search bot passes its own, so that it
cannot foresee the real dice or deck). Whatever is already decided but hidden (the order
of a shuffled deck, face-down tiles) lives in the State, and ``determinize`` resamples it.

Contract, checked for every game by ``tests/conformance``:

* ``apply(s, a, rng)`` raises :class:`IllegalActionError` (through ``self.illegal``)
  *before* changing anything when the rules do not allow ``a``; the rules check this
  themselves, independently of ``legal_mask``, and the suite asserts the two agree.
* ``current_player(s)`` is the seat to act, the same seat for every step of a
  multi-step turn; it is -1 once the game is over.
* ``legal_mask(s)`` is never empty while the game is not over.
* the game ends within ``max_steps`` steps.
* ``determinize(s, p, rng)`` returns a state that seat ``p`` cannot tell from ``s``:
  ``observe``, ``legal_mask`` and ``state_to_string`` for ``p`` are unchanged.
* ``from_json(to_json(s))`` is equal to ``s`` in every respect the rules read.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from itertools import permutations
from operator import itemgetter
from typing import Any, ClassVar, Generic, Protocol, TypeVar

import numpy as np

from choco_envs.core.encoding import Encoder
from choco_envs.core.errors import ConfigError, IllegalActionError, RecordError, shown
from choco_envs.core.outcomes import rank_returns
from choco_envs.core.spec import GameSpec

S = TypeVar("S")

#: The RNG type every rule function receives.
Rng = random.Random


class Game(ABC, Generic[S]):
    """Rules of one game for one configuration (player count and rule options)."""

    spec: ClassVar[GameSpec]

    #: set by subclasses in ``__init__``
    num_actions: int
    max_steps: int
    encoders: dict[str, Encoder[S]]

    def __init__(self, **options: Any) -> None:
        self.config: dict[str, Any] = self.spec.validate(options)
        self.num_players: int = self.config["num_players"]

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle and deep-copy a game as its class and configuration: the copy is built
        anew (encoders, tables and caches included), so nothing built from closures
        needs pickling."""
        return (rebuild_game, (type(self), dict(self.config)))

    # ------------------------------------------------------------------ rules
    @abstractmethod
    def new_state(self, rng: Rng) -> S:
        """A fresh game, set up with draws from ``rng``."""

    @abstractmethod
    def current_player(self, s: S) -> int:
        """Seat to act, or -1 when the game is over."""

    @abstractmethod
    def legal_mask(self, s: S) -> np.ndarray:
        """Boolean array over the whole action space (all False when over)."""

    def legal_actions(self, s: S) -> list[int]:
        """The legal actions in increasing order. Games may override for speed."""
        return np.flatnonzero(self.legal_mask(s)).tolist()

    @abstractmethod
    def apply(self, s: S, action: int, rng: Rng) -> None:
        """Play ``action`` for the current player, in place. Raise through
        ``self.illegal`` before any change if the rules refuse it."""

    @abstractmethod
    def is_over(self, s: S) -> bool: ...

    @abstractmethod
    def scores(self, s: S) -> list[float]:
        """Points of each seat (final once the game is over)."""

    @property
    def scores_public(self) -> bool:
        """Whether ``scores`` before the end reads only what every seat may see (then the
        env shows them mid-game). True for games without hidden information; a game with
        hidden information whose scores never read it may say so."""
        return not self.spec.hidden_information

    def ranking_key(self, s: S, player: int) -> tuple[float, ...]:
        """What decides the ranking: score first, then the game's tie-breaks. Equal keys
        share the place."""
        return (self.scores(s)[player],)

    def score_breakdown(self, s: S) -> dict[str, list[float]]:
        """Named parts of every seat's score; they add up to ``scores``."""
        return {"total": list(self.scores(s))}

    def ranking_keys(self, s: S) -> list[tuple[float, ...]]:
        """Every seat's :meth:`ranking_key` (``choco_envs.core.outcomes`` reads places and
        returns from them)."""
        return [self.ranking_key(s, p) for p in range(self.num_players)]

    def returns(self, s: S) -> list[float]:
        """Rank-based outcome in [-1, 1] (:func:`~choco_envs.core.outcomes.rank_returns`):
        +1 win, -1 loss, 0 draw for two players."""
        return rank_returns(self.ranking_keys(s))

    @abstractmethod
    def copy(self, s: S) -> S:
        """An independent copy, cheap enough for search."""

    @abstractmethod
    def determinize(self, s: S, player: int, rng: Rng) -> S:
        """A full state that ``player`` cannot tell from ``s``; every hidden card, tile,
        side and deck order resampled from what ``player`` cannot see."""

    # ------------------------------------------------------------------ records
    @abstractmethod
    def to_json(self, s: S) -> dict[str, Any]:
        """A complete, human-readable record of the state (JSON types only)."""

    @abstractmethod
    def from_json(self, d: Mapping[str, Any]) -> S:
        """Inverse of ``to_json``; raise RecordError naming what is malformed."""

    # ------------------------------------------------------------------ text
    @abstractmethod
    def action_to_string(self, s: S, action: int) -> str: ...

    @abstractmethod
    def state_to_string(self, s: S, player: int | None, ended: str | None = None) -> str:
        """What ``player`` may see (None: a spectator, public information only).
        ``ended``: why the game ended when the rules did not end it (an illegal move):
        said in place of who is to act."""

    def legend(self) -> str:
        """What the codes of ``state_to_string`` mean (shown by ``?`` at the terminal)."""
        return ""

    # ------------------------------------------------------------------ helpers
    def illegal(self, s: S, action: Any, reason: str) -> IllegalActionError:
        """Build the error for a refused action: the action, its meaning, why, and the
        legal ones. Use as ``raise self.illegal(s, a, "why")``. The message is written only
        when read, from a copy of the state as it was."""
        frozen = self.copy(s)
        return IllegalActionError(describe=lambda: self.describe_illegal(frozen, action, reason))

    def describe_illegal(self, s: S, action: Any, reason: str) -> str:
        meaning = ""
        if isinstance(action, (int, np.integer)) and 0 <= int(action) < self.num_actions:
            try:
                meaning = f" ({self.action_to_string(s, int(action))})"
            except Exception:  # noqa: BLE001 - a meaning is a courtesy, never a crash
                meaning = ""
        legal = self.legal_actions(s) if not self.is_over(s) else []
        shown = ", ".join(f"{a}={self.action_to_string(s, a)}" for a in legal[:12])
        more = f", ... ({len(legal)} in all)" if len(legal) > 12 else ""
        who = self.current_player(s)
        return (
            f"{self.spec.env_id}: action {action!r}{meaning} is not legal for player_{who}: "
            f"{reason}. Legal actions: [{shown}{more}]"
        )

    def check_action_range(self, s: S, action: Any) -> int:
        """Turn ``action`` into an int in range, or raise IllegalActionError."""
        if type(action) is int and 0 <= action < self.num_actions:
            return action  # the common case, first
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
                action = int(action)
            else:
                raise self.illegal(s, action, f"actions are ints in 0..{self.num_actions - 1}")
        a = int(action)
        if not 0 <= a < self.num_actions:
            raise self.illegal(s, a, f"out of range; actions are 0..{self.num_actions - 1}")
        return a

    def encoder(self, name: str) -> Encoder[S]:
        if name not in self.encoders:
            raise ConfigError(
                f"option observation={name!r} is not allowed for {self.spec.env_id}; "
                f"allowed values: {', '.join(map(repr, self.encoders))}"
            )
        return self.encoders[name]

    def observe(self, s: S, player: int, encoding: str = "flat") -> np.ndarray:
        return self.encoders[encoding].encode(s, player)


def rebuild_game(cls: type[Game[Any]], config: dict[str, Any]) -> Game[Any]:
    """``cls(**config)``: how a pickled game is rebuilt."""
    return cls(**config)


class GameView(Protocol):
    """What the web page draws of a game (a game's ``render`` module, named ``view`` in its
    manifest; a game without one is shown as its text, cut into labelled blocks).

    * ``view(game, state, seat)``: JSON-ready, built only from what ``seat`` may see (None:
      a spectator, public information only; once the game is over, everything). The
      server sends a seat this, never the state.
    * ``target(game, state, action)``: where a legal move of the seat to act is made on the
      drawn board (None: only in the move list).
    """

    def view(self, game: Any, state: Any, seat: int | None) -> dict[str, Any]: ...

    def target(self, game: Any, state: Any, action: int) -> dict[str, Any] | None: ...


def shuffle_steps(n: int) -> tuple[tuple[int, int], ...]:
    """The steps of ``random.Random.shuffle`` of ``n`` items: (index, bits of each draw)."""
    return tuple((i, (i + 1).bit_length()) for i in range(n - 1, 0, -1))


#: per list length (below 64), :func:`shuffle_steps`; a table, not a bit_length per draw,
#: since search shuffles hidden cards thousands of times a move
SHUFFLE_STEPS = tuple(shuffle_steps(n) for n in range(64))


def shuffle(rng: Rng, items: list[Any]) -> None:
    """``rng.shuffle(items)``, the same permutation from the same random stream (and the
    stream left in the same place), with the draw inlined: search shuffles hidden cards
    thousands of times a move. Any other kind of rng is left to its own ``shuffle``."""
    if type(rng) is not random.Random:
        rng.shuffle(items)
        return
    n = len(items)
    steps = SHUFFLE_STEPS[n] if n < len(SHUFFLE_STEPS) else shuffle_steps(n)
    getrandbits = rng.getrandbits
    for i, bits in steps:
        j = getrandbits(bits)
        while j > i:  # random.Random._randbelow(i + 1), as shuffle draws it
            j = getrandbits(bits)
        items[i], items[j] = items[j], items[i]


#: :func:`permute` puts the first this many items (all of a shorter list) in one of all
#: their orders with a single draw
ORDERS_UPTO = 5


def _orders(k: int) -> tuple[Callable[[list[Any]], tuple[Any, ...]], ...]:
    """Every order of ``k`` items (2 or more), each as a getter of them from a list, in
    ``itertools.permutations`` order."""
    return tuple(itemgetter(*order) for order in permutations(range(k)))


#: per length 0..ORDERS_UPTO: :func:`_orders` (none below 2) and the bits of a draw of one
ORDERS = tuple(
    (orders, (len(orders) - 1).bit_length())
    for orders in (_orders(k) if k >= 2 else () for k in range(ORDERS_UPTO + 1))
)


#: per list length (below 64), the steps of :func:`shuffle` that :func:`permute` takes
PERMUTE_STEPS = tuple(steps[: max(len(steps) + 1 - ORDERS_UPTO, 0)] for steps in SHUFFLE_STEPS)


def permute(rng: Rng, items: list[Any]) -> None:
    """Put ``items`` in a uniformly random order, in place, with fewer draws than
    :func:`shuffle`: the Fisher-Yates steps of :func:`shuffle` down to the first
    ``ORDERS_UPTO`` items, then those in one of all their orders, drawn at once (a
    ``getrandbits`` redrawn while out of range, so every order is as likely as any other;
    tests/core/test_speed_paths.py counts them).

    For search's ``determinize``, where only the distribution counts: it is not
    ``random.Random.shuffle``'s permutation of the stream, which the rules' own draws
    (``new_state``, ``apply``) keep through :func:`shuffle`."""
    n = len(items)
    k = n if n < ORDERS_UPTO else ORDERS_UPTO
    if n > k:
        getrandbits = rng.getrandbits
        for i, bits in PERMUTE_STEPS[n] if n < len(PERMUTE_STEPS) else shuffle_steps(n)[: n - k]:
            j = getrandbits(bits)
            while j > i:
                j = getrandbits(bits)
            items[i], items[j] = items[j], items[i]
    if k >= 2:
        orders, bits = ORDERS[k]
        r = rng.getrandbits(bits)
        while r >= len(orders):
            r = rng.getrandbits(bits)
        items[:k] = orders[r](items)


def draw(rng: Rng, pile: list[Any], unordered: bool) -> Any:
    """Take the top card (the end) off ``pile``; where the pile is ``unordered``, a
    uniformly random card of it instead.

    An unordered pile is one that ``determinize`` left undealt: its order is hidden from
    every seat, so a search's copy keeps the cards sorted and draws each as it is needed.
    The top card of a uniformly shuffled pile is a uniformly random card of it, and so is
    every card after it among the rest, so the draws have the distribution a permuted
    pile's would, paid for only when a card is drawn (tests/core/test_speed_paths.py
    checks it). The real game's piles are ordered: its draws, and their random stream,
    are those of the shuffled pile."""
    if unordered and len(pile) > 1:
        last = len(pile) - 1
        j = below(rng, last + 1)
        pile[j], pile[last] = pile[last], pile[j]
    return pile.pop()


def draw_into(rng: Rng, places: list[list[Any]], i: int) -> Any:
    """Take the top item (the end) off ``places[i]`` after swapping into it a uniformly
    random item of all ``places`` (all of them unordered and hidden alike, e.g. tiles under
    several stacks' tops and in the box): what :func:`draw` is to one pile, for several
    whose items could be in any of them. ``places[i]`` must not be empty."""
    j = below(rng, sum(map(len, places)))
    source = places[i]
    for place in places:
        if j < len(place):
            place[j], source[-1] = source[-1], place[j]
            break
        j -= len(place)
    return source.pop()


def below(rng: Rng, n: int) -> int:
    """A uniformly random integer in 0..n-1 (n >= 1): a ``getrandbits`` of n - 1's bits,
    drawn again while out of range, as ``random.Random._randbelow`` draws it."""
    last = n - 1
    bits = last.bit_length()
    j = rng.getrandbits(bits) if bits else 0
    while j > last:
        j = rng.getrandbits(bits)
    return j


def require(d: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    """Read ``d[key]`` checking its type; raise RecordError naming what is wrong."""
    if not isinstance(d, Mapping):
        raise RecordError(f"{where}: expected an object, got {type(d).__name__}")
    if key not in d:
        raise RecordError(f"{where}: missing field {key!r}")
    value = d[key]
    if isinstance(value, bool) and kind in (int, float):
        raise RecordError(f"{where}.{key}: expected {kind}, got a bool")
    if not isinstance(value, kind):
        raise RecordError(
            f"{where}.{key}: expected {kind}, got {type(value).__name__} {shown(value)}"
        )
    return value
