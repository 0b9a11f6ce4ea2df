"""Le Chocolat's feature function (extra policy inputs read from a seat's own ``flat`` or
``planes`` observation; see :mod:`choco_envs.core.features`).

``le_chocolat_pieces`` gives, for every action, the facts of the chunks it hands out: a
split's two pieces, a claim's chunk. Per piece: its size, whether it can be claimed
(3 or fewer tiles), how many of its tiles show a blank face whose back the seat has not
seen, and what claiming it would change in the claimer's lead (own card score minus the
opponent's, by the rules' scoring, :func:`~choco_envs.games.le_chocolat.rules.score_hands`)
for the seat and for the opponent: once counting only the tiles the seat knows, once
with every unseen back at the average of the tiles the seat has not seen (the exact
chance given what it has seen). These are consequences of the action that the seat can
work out from its own observation and the printed card; no bot's choice or weighting
enters, and which piece the opponent would take next is left to the network.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from choco_envs.core.encoding import Layout
from choco_envs.core.errors import ConfigError
from choco_envs.core.features import FeatureFunction, Features, layout_slices
from choco_envs.core.game import Game
from choco_envs.games.le_chocolat import grid
from choco_envs.games.le_chocolat.encoding import card_vectors, grid_channels
from choco_envs.games.le_chocolat.rules import (
    CLAIM_LIMIT,
    NUM_ACTIONS,
    NUM_SPLIT_ACTIONS,
    LeChocolatRules,
    score_hands,
)

N = grid.CELLS
NR = len(grid.RECTS)
#: facts of one piece, and the layout of one action's block
PIECE_FACTS = (
    "size / 35",
    "claimable (3 or fewer tiles)",
    "unknown backs / 3",
    "own lead gain by known tiles / 10",
    "opponent's lead gain by known tiles / 10",
    "own lead gain with unseen backs at their average / 10",
    "opponent's lead gain with unseen backs at their average / 10",
)
BLOCK = 2 + 2 * len(PIECE_FACTS)  # is split, is claim, then the first and second piece

#: rectangle x cell incidence
_INCIDENCE = np.zeros((NR, N), dtype=np.float64)
for _r, _cells in enumerate(grid.RECT_CELLS):
    _INCIDENCE[_r, list(_cells)] = 1.0
_SIZE = np.array(grid.SIZE)
#: per (top-left cell, size): the rectangles starting there of that size
_CANDIDATES: dict[tuple[int, int], list[int]] = {}
for _r, (_tl, _sz) in enumerate(zip(grid.TOP_LEFT, grid.SIZE, strict=True)):
    _CANDIDATES.setdefault((_tl, _sz), []).append(_r)
#: CUT as arrays: the two parts of rectangle r cut along line l (-1 where it does not cut)
_PARTS = np.full((NR + 1, grid.LINES, 2), -1, dtype=np.int64)
for _r in range(NR):
    for _line in range(grid.LINES):
        _cut = grid.CUT[_r][_line]
        if _cut is not None:
            _PARTS[_r, _line] = _cut
_SPLIT_CELL = np.arange(NUM_SPLIT_ACTIONS) // grid.LINES
_SPLIT_LINE = np.arange(NUM_SPLIT_ACTIONS) % grid.LINES


#: chunks_seen's answers by the planes they were read from (the table's cut is public and
#: a search meets the same cuts again and again); cleared when full
_SEEN: dict[bytes, np.ndarray] = {}
_SEEN_LIMIT = 1 << 14


def chunks_seen(size: np.ndarray, top_left: np.ndarray) -> np.ndarray:
    """The chunk (rectangle id) whose top-left tile is each cell, else -1, read from the
    observation's ``chunk_size`` (tiles, 0 off the table) and ``chunk_top_left`` planes.
    Each top-left cell's chunk is one of the rectangles starting there with the chunk's
    size whose cells all lie in chunks of that size and hold no other top-left cell; where
    that leaves a choice (a 2x6 or a 3x4 chunk of 12), the chunks must tile the table
    exactly, which leaves one. ConfigError if the planes fit no tiling or several (not
    a Le Chocolat observation). The answer is read-only (it is shared by every call with
    the same planes)."""
    key = np.asarray(size, dtype=np.float64).tobytes() + np.asarray(top_left, dtype=bool).tobytes()
    seen = _SEEN.get(key)
    if seen is None:
        seen = _tiling(size, top_left)
        seen.flags.writeable = False
        if len(_SEEN) >= _SEEN_LIMIT:
            _SEEN.clear()
        _SEEN[key] = seen
    return seen


def _tiling(size: np.ndarray, top_left: np.ndarray) -> np.ndarray:
    tops = [int(c) for c in np.flatnonzero(top_left)]
    options: list[list[int]] = []
    for c in tops:
        s = int(size[c])
        options.append(
            [
                r
                for r in _CANDIDATES.get((c, s), ())
                if (size[list(grid.RECT_CELLS[r])] == s).all()
                and top_left[list(grid.RECT_CELLS[r])].sum() == 1
            ]
        )
    table = frozenset(int(c) for c in np.flatnonzero(size > 0))
    found: list[list[int]] = []

    def place(i: int, covered: frozenset[int], chosen: list[int]) -> None:
        if len(found) > 1:
            return
        if i == len(tops):
            if covered == table:
                found.append(chosen[:])
            return
        for r in options[i]:
            cells = frozenset(grid.RECT_CELLS[r])
            if not cells & covered:
                chosen.append(r)
                place(i + 1, covered | cells, chosen)
                chosen.pop()

    place(0, frozenset(), [])
    if len(found) != 1:
        raise ConfigError(
            f"le_chocolat_pieces: the chunk planes fit {len(found)} tilings of the table "
            "(expected exactly one: not a Le Chocolat observation)"
        )
    out = np.full(N, -1, dtype=np.int64)
    out[tops] = found[0]
    return out


def _pieces(game: Game[Any], encoder: str) -> Features:
    where = "le_chocolat_pieces"
    if game.spec.env_id != "le_chocolat_v0" or encoder not in ("flat", "planes"):
        raise ConfigError(
            f"{where} reads le_chocolat_v0's 'flat' or 'planes' observation "
            f"(not {game.spec.env_id}'s {encoder!r})"
        )
    assert isinstance(game, LeChocolatRules)
    flavors = len(game.components.flavors)
    totals = np.array(game.components.flavor_counts, dtype=np.float64)
    lay = game.encoder("flat").layout
    at = layout_slices(
        lay,
        where,
        chunk_size=N,
        chunk_top_left=N,
        blank_unknown=N,
        own_flavors=flavors,
        opp_flavors=flavors,
        opp_unknown=1,
        unseen_flavors=flavors,
        unseen_blank_blank=1,
    )
    known = [layout_slices(lay, where, **{f"flavor_{f}": N}) for f in game.components.flavors]
    flavor_at = [k[f"flavor_{f}"] for k, f in zip(known, game.components.flavors, strict=True)]
    card_at = layout_slices(
        lay,
        where,
        card_each=flavors,
        card_set_vp=flavors,
        card_set_id=flavors * max(1, flavors // 2),
        card_majority=flavors,
    )
    card_start = card_at["card_each"].start
    card_stop = card_at["card_majority"].stop
    cards = np.stack(card_vectors(game))
    grid_planes = len(grid_channels(game.components.flavors))  # then one entry per scalar
    flat_size = lay.size
    blank_total = max(1, game.components.blank_blank)

    def to_flat(obs: np.ndarray) -> np.ndarray:
        b = obs.shape[0]
        if encoder == "flat":
            return obs.reshape(b, flat_size)
        planes = obs.reshape(b, -1, N)  # grid planes, then one constant plane per scalar
        return np.concatenate(
            [planes[:, :grid_planes].reshape(b, -1), planes[:, grid_planes:, 0]], axis=1
        )

    def one(flat: np.ndarray, out: np.ndarray) -> None:
        match = np.flatnonzero(np.abs(cards - flat[card_start:card_stop]).max(axis=1) < 1e-5)
        if len(match) == 0:
            raise ConfigError(f"{where}: the observation's card fields match no scoring card")
        card = game.components.cards[int(match[0])]
        size = np.rint(flat[at["chunk_size"]] * N)
        top = flat[at["chunk_top_left"]] > 0.5
        chunk = chunks_seen(size, top)
        cell_known = np.stack([flat[s] for s in flavor_at], axis=1).astype(np.float64)  # (N, F)
        unknown = flat[at["blank_unknown"]].astype(np.float64)
        mine = np.rint(flat[at["own_flavors"]] * totals)
        theirs = np.rint(flat[at["opp_flavors"]] * totals)
        opp_unknown = np.rint(float(flat[at["opp_unknown"]][0]) * N)
        unseen = np.rint(flat[at["unseen_flavors"]] * totals)
        unseen_bb = np.rint(float(flat[at["unseen_blank_blank"]][0]) * blank_total)
        average = unseen / max(1.0, unseen.sum() + unseen_bb)
        # splits: the chunk at the action's cell cut along its line; claims: the chunk
        # at the action's cell when it is claimable
        rect_at = np.where(chunk[_SPLIT_CELL] >= 0, chunk[_SPLIT_CELL], NR)
        parts = _PARTS[rect_at, _SPLIT_LINE]  # (350, 2), -1 where nothing is cut
        parts = np.where(parts >= 0, parts, NR)
        claim = np.where((chunk >= 0) & (_SIZE[chunk] <= CLAIM_LIMIT), chunk, NR)
        # the facts of every piece some action hands out (the last row: no piece)
        used = np.zeros(NR + 1, dtype=bool)
        used[parts] = True
        used[claim] = True
        rects = np.flatnonzero(used[:NR])
        inc = _INCIDENCE[rects]
        piece_known = inc @ cell_known  # (R, F)
        piece_unknown = inc @ unknown  # (R,)
        piece_expected = piece_known + piece_unknown[:, None] * average
        theirs_expected = theirs + opp_unknown * average
        gains = _lead_gains(
            card,
            [
                (mine, theirs, piece_known),
                (theirs, mine, piece_known),
                (mine, theirs_expected, piece_expected),
                (theirs_expected, mine, piece_expected),
            ],
        )
        facts = np.zeros((NR + 1, len(PIECE_FACTS)))
        facts[rects, 0] = _SIZE[rects] / N
        facts[rects, 1] = _SIZE[rects] <= CLAIM_LIMIT
        facts[rects, 2] = piece_unknown / 3
        facts[rects, 3:] = gains.T / 10
        block = out.reshape(NUM_ACTIONS, BLOCK)
        cut = parts[:, 0] < NR
        block[:NUM_SPLIT_ACTIONS, 0] = cut
        k = len(PIECE_FACTS)
        block[:NUM_SPLIT_ACTIONS, 2 : 2 + k] = facts[parts[:, 0]]
        block[:NUM_SPLIT_ACTIONS, 2 + k :] = facts[parts[:, 1]]
        block[NUM_SPLIT_ACTIONS:, 1] = claim < NR
        block[NUM_SPLIT_ACTIONS:, 2 : 2 + k] = facts[claim]

    def compute(obs: np.ndarray) -> np.ndarray:
        flat = to_flat(np.asarray(obs))
        out = np.zeros((flat.shape[0], NUM_ACTIONS * BLOCK), dtype=np.float32)
        for i in range(flat.shape[0]):
            one(flat[i], out[i])
        return out

    names = Layout()
    names.add(
        "actions",
        NUM_ACTIONS * BLOCK,
        "per action: is a split, is a claim, then for its first piece (a claim's chunk) "
        "and its second: " + ", ".join(PIECE_FACTS),
        shape=(NUM_ACTIONS, BLOCK),
    )
    return Features(
        NUM_ACTIONS * BLOCK, compute, names, action_facts=((0, NUM_ACTIONS, "actions"),)
    )


def _lead_gains(card: Any, cases: list[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> np.ndarray:
    """For each case (claimer's counts, opponent's counts, pieces (R, F)), per piece the
    claimer's lead after adding it less before (a lead: own score minus the opponent's,
    each by the rules' ``score_hands``); (cases, R). Scored in two calls for all cases."""
    own = np.stack([m for m, _, _ in cases])[:, None, :]  # (cases, 1, F)
    after = own + np.stack([p for _, _, p in cases])  # (cases, R, F)
    me = np.concatenate([own, after], axis=1)  # before, then after
    them = np.broadcast_to(np.stack([t for _, t, _ in cases])[:, None, :], me.shape)
    flavors = me.shape[-1]
    mine, theirs = me.reshape(-1, flavors), them.reshape(-1, flavors)
    lead = score_hands(card, mine, theirs) - score_hands(card, theirs, mine)
    lead = lead.reshape(len(cases), -1)
    return lead[:, 1:] - lead[:, :1]


PIECES = FeatureFunction(
    "le_chocolat_pieces",
    1,
    "for every action, the chunks it hands out (a split's two pieces, a claim's chunk): "
    "size, claimable, unknown backs, and what claiming each would change in the seat's "
    "and in the opponent's lead by the rules' scoring, counting known tiles only and "
    "with unseen backs at their average",
    _pieces,
)
