"""Chocolatiers' feature functions (extra policy inputs read from a seat's own ``flat``
observation; see :mod:`choco_envs.core.features`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from choco_envs.core.encoding import Layout
from choco_envs.core.features import FeatureFunction, Features, layout_slices, require_encoder
from choco_envs.core.game import Game
from choco_envs.games.chocolatiers.encoding import (
    COST_SCALE,
    NT,
    PHASES,
    SAMPLER_PLANES,
    TILE_COST,
    TILE_FEATURES,
    TILE_POINTS,
    TILE_PRESENT,
    TILE_SPACES,
    tile_rows,
)
from choco_envs.games.chocolatiers.rules import (
    GIVE,
    LINE_SIZE,
    PHASE_NAMES,
    PLACE,
    PLACE_WILD,
    TAKE,
    WILDS_EACH,
    ChocolatiersRules,
    single_best_batch,
)
from choco_envs.games.chocolatiers.sampler import (
    EMPTY,
    LEGAL_POSITIONS,
    NO_TILE,
    POSITIONS,
    WILD,
    cheapest_payment_batch,
    groups_with_a_wild,
    largest_groups,
    occupancy,
    placed_cells,
    rotate,
)


class _OwnHand:
    """What both Chocolatiers feature functions read of a batch of ``flat`` observations:
    the seat's own hand (counts by type), each tile row's cost, and which rows hold a
    tile; built once per env configuration (the layout's slices checked by name)."""

    def __init__(self, game: Game[Any], encoder: str, where: str) -> None:
        require_encoder(game, encoder, where, "chocolatiers_v1", "flat")
        assert isinstance(game, ChocolatiersRules)
        self.rows = tile_rows(game)
        lay = game.encoder("flat").layout
        self.at = layout_slices(lay, where, cards_0=NT, tiles=self.rows * TILE_FEATURES, tray=NT)
        self.per_type = float(max(game.components.card_counts))
        self.onto_tray = game.gives_onto_tray

    def read(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(hand (B, NT), tile rows (B, rows, TILE_FEATURES), cost (B, rows, NT), present
        (B, rows)) of (B, ...) observations."""
        b = obs.shape[0]
        flat = obs.reshape(b, -1)
        tiles = flat[:, self.at["tiles"]].reshape(b, self.rows, TILE_FEATURES)
        hand = np.rint(flat[:, self.at["cards_0"]].astype(np.float64) * self.per_type)
        cost = np.rint(tiles[:, :, TILE_COST : TILE_COST + NT].astype(np.float64) * COST_SCALE)
        present = tiles[:, :, TILE_PRESENT] >= 0.5
        return hand.astype(np.int64), tiles, cost.astype(np.int64), present

    def tray(self, obs: np.ndarray) -> np.ndarray:
        """The face-up tray by type (B, NT) of (B, ...) observations."""
        flat = obs.reshape(obs.shape[0], -1)
        return np.rint(flat[:, self.at["tray"]].astype(np.float64) * self.per_type).astype(np.int64)

    def give_facts(
        self, hand: np.ndarray, tiles: np.ndarray, cost: np.ndarray, present: np.ndarray
    ) -> np.ndarray:
        """``card_facts`` of each card type given (step -1), 0s for a type the seat holds no
        card of (it cannot be given)."""
        gives, _ = self.card_facts(hand, tiles, cost, present, step=-1)
        gives[hand == 0] = 0.0
        return gives

    def payment_facts(
        self, hand: np.ndarray, cost: np.ndarray, present: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """(facts (..., rows, 3): payable, missing / 4, used / 8, 0s where the row is
        empty; missing (..., rows)) of the rules' cheapest payment of each row's cost from
        ``hand`` (its vectorised form, ``cheapest_payment_batch``; shapes broadcast)."""
        used, missing = cheapest_payment_batch(hand, cost)
        out = np.zeros((*missing.shape, 3), dtype=np.float32)
        out[..., 0] = missing == 0
        out[..., 1] = missing / 4
        out[..., 2] = used / 8
        out[~np.broadcast_to(present, missing.shape)] = 0.0
        return out, missing

    def card_facts(
        self, hand: np.ndarray, tiles: np.ndarray, cost: np.ndarray, present: np.ndarray,
        step: int,
    ) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
        """(facts (B, NT, rows, TAKE_FACTS), this hand's own (B, rows, 3)): for each card
        type, every tile row's payment facts once one card of that type is added to the
        hand (``step`` 1, a take) or leaves it (-1, a card given), the chocolates that card
        then pays (or paid), the tile's points, a tile is there; 0s where the row is empty."""
        b = hand.shape[0]
        now, missing = self.payment_facts(hand[:, None, :], cost, present)
        change = step * np.eye(NT, dtype=np.int64)  # (type, type)
        hands = np.maximum(hand[:, None, None, :] + change[None, :, None, :], 0)
        after, missing_t = self.payment_facts(hands, cost[:, None], present[:, None])
        facts = np.zeros((b, NT, self.rows, TAKE_FACTS), dtype=np.float32)
        facts[..., :3] = after
        facts[..., 3] = step * (missing[:, None, :] - missing_t)
        facts[..., 4] = tiles[:, None, :, TILE_POINTS]
        facts[..., 5] = 1.0
        facts[~np.broadcast_to(present[:, None, :], (b, NT, self.rows))] = 0.0
        return facts, now


#: the two cards an exchange takes, as counts by type: every pair of types (a <= b)
_PAIRS = np.array(
    [np.eye(NT, dtype=np.int64)[a] + np.eye(NT, dtype=np.int64)[b]
     for a in range(NT) for b in range(a, NT)]
)  # fmt: skip
#: facts of each (card type given, tile row) after the exchange's two takes: payable then,
#: chocolates still missing / 4, cards the cheapest payment then uses / 8, chocolates the
#: exchange pays that were missing / 4
SWAP_FACTS = 4


def exchange_takes(
    hand: np.ndarray, cost: np.ndarray, present: np.ndarray, tray: np.ndarray, onto_tray: bool
) -> np.ndarray:
    """(B, NT, rows, SWAP_FACTS): for each card type given in an exchange (a card of that
    type leaves the hand, onto the tray where the rules lay it there), and each tile row,
    the payment facts of the hand after the two takes from the tray that leave that tile
    the fewest chocolates missing (then the fewest cards used): what the exchange can do
    for each tile by the rules' cheapest payment, the tray's cards as they lie. 0s where
    the seat holds no card of that type, no two cards of the tray can then be taken, or
    the row is empty."""
    b, rows = hand.shape[0], cost.shape[1]
    eye = np.eye(NT, dtype=np.int64)
    given = np.maximum(hand[:, None, :] - eye[None], 0)  # (B, give, NT)
    trays = tray[:, None, :] + (eye[None] if onto_tray else 0)  # (B, give, NT)
    hands = given[:, :, None, :] + _PAIRS[None, None]  # (B, give, pair, NT)
    fits: np.ndarray = np.all(
        _PAIRS[None, None] <= trays[:, :, None, :], axis=-1
    )  # (B, give, pair)
    used, missing = cheapest_payment_batch(hands[:, :, :, None, :], cost[:, None, None])
    key = np.where(fits[..., None], missing * 64 + used, np.iinfo(np.int64).max)
    best = key.argmin(axis=2)[:, :, None, :]  # (B, give, 1, rows)
    used = np.take_along_axis(used, best, axis=2)[:, :, 0]
    missing = np.take_along_axis(missing, best, axis=2)[:, :, 0]
    _, now = cheapest_payment_batch(hand[:, None, :], cost)  # (B, rows)
    out = np.zeros((b, NT, rows, SWAP_FACTS), dtype=np.float32)
    out[..., 0] = missing == 0
    out[..., 1] = missing / 4
    out[..., 2] = used / 8
    out[..., 3] = (now[:, None, :] - missing) / 4
    can = (hand > 0) & fits.any(-1)  # (B, give): a card to give, two cards to take
    out[~(can[:, :, None] & present[:, None, :])] = 0.0
    return out


def _with_exchange_head(placements: Features, names: Layout, compute: Any, field: str) -> Features:
    """A function whose output is ``placements``' then one field of per-exchange facts
    (``field``, (NT, rows, ...)), its heads placements' and one for the exchange actions."""
    return Features(
        names.size, compute, names, action_facts=(*placements.action_facts, (GIVE, NT, field))
    )


def _starting_with(base: Features) -> Layout:
    """A new layout whose first fields are ``base``'s, as they are (a wider function's
    output starts with the narrower one's)."""
    assert base.layout is not None
    names = Layout()
    for f in base.layout.fields:
        names.add(f.name, f.size, f.meaning, f.low, f.high, shape=f.shape)
    return names


def _affordable(game: Game[Any], encoder: str) -> Features:
    """For each tile row of the ``flat`` observation (the line or stack tops, the tile
    being boxed, each seat's reserved tile), what the seat's own hand can do about it by
    the rules' cheapest payment (its vectorised form, ``cheapest_payment_batch``): payable
    now, the chocolates it cannot pay (/ 4) and the cards the cheapest payment uses (/ 8);
    0s where the row is empty."""
    own = _OwnHand(game, encoder, "chocolatiers_affordable")
    rows = own.rows

    def compute(obs: np.ndarray) -> np.ndarray:
        hand, _, cost, present = own.read(obs)
        facts, _ = own.payment_facts(hand[:, None, :], cost, present)
        return facts.reshape(obs.shape[0], 3 * rows)

    names = Layout()
    names.add("rows", 3 * rows, "per tile row: payable, missing / 4, used / 8", shape=(rows, 3))
    return Features(names.size, compute, names)


AFFORDABLE = FeatureFunction(
    "chocolatiers_affordable",
    1,
    "Chocolatiers (flat): for each tile on offer, being boxed or reserved, whether the "
    "seat's own hand pays it now, the chocolates it cannot pay and the cards the cheapest "
    "payment uses (the rules' cheapest_payment)",
    _affordable,
)


#: facts of each (card type to take, tile row): payable then, chocolates still missing / 4,
#: cards the cheapest payment then uses / 8, chocolates the card pays that were missing,
#: the tile's points / 8, the row holds a tile
TAKE_FACTS = 6


def _takes(game: Game[Any], encoder: str) -> Features:
    """The rows of ``chocolatiers_affordable``, then for each card type the seat could take,
    the same facts of every tile row once one card of that type is added to its hand (the
    rules' cheapest payment on that hand), beside the tile's points: what each take does
    for each tile on offer. Facts of the rules, no weights and no choice; the network scores
    them (a head shared by the take actions, ``NetConfig.action_facts``)."""
    own = _OwnHand(game, encoder, "chocolatiers_takes")
    rows = own.rows

    def compute(obs: np.ndarray) -> np.ndarray:
        b = obs.shape[0]
        takes, now = own.card_facts(*own.read(obs), step=1)
        return np.concatenate([now.reshape(b, -1), takes.reshape(b, -1)], axis=1)

    names = Layout()
    names.add("rows", 3 * rows, "per tile row: payable, missing / 4, used / 8", shape=(rows, 3))
    names.add(
        "takes",
        NT * rows * TAKE_FACTS,
        "per card type taken, per tile row: payable, missing / 4, used / 8, chocolates the "
        "card pays, points / 8, a tile is there",
        shape=(NT, rows, TAKE_FACTS),
    )
    return Features(names.size, compute, names, action_facts=((TAKE, NT, "takes"),))


TAKES = FeatureFunction(
    "chocolatiers_takes",
    1,
    "Chocolatiers (flat): chocolatiers_affordable's facts of every tile on offer, being "
    "boxed or reserved, and the same facts for each card type the seat could take (its "
    "hand with one card of that type added; the rules' cheapest_payment), with the tile's "
    "points: read by a head shared by the take actions",
    _takes,
)


#: facts of each tile placement (position, rotation) and of each wild space: the action
#: is open (a tile is being placed there / a wild may go there), then per type the seat's
#: largest group after it (placements: / 12) or how much it grows (wilds: / 4), then per
#: type who would take that type's Score tile after it (1: this seat alone has the
#: largest group, -1: another seat alone, 0: a tie)
SAMPLER_FACTS = 1 + 2 * NT
GROUP_SCALE, GROWTH_SCALE = 12.0, 4.0
#: rows of Sampler facts a feature function keeps (a memo; a row is about 2 KB)
MEMO_ROWS = 4096


def _own_cells(planes: np.ndarray) -> list[int]:
    """The 36 cells (the rules' values: NO_TILE, EMPTY, a type, WILD) of a seat's Sampler
    planes (SAMPLER_PLANES, 36) in the observation."""
    occupied = planes[7] >= 0.5
    typed = planes[:NT].max(axis=0) >= 0.5
    kind = np.where(typed, planes[:NT].argmax(axis=0), EMPTY)
    cells = np.where(planes[6] >= 0.5, WILD, kind)
    return [int(v) for v in np.where(occupied, cells, NO_TILE)]


def _standing(own: np.ndarray, others: np.ndarray) -> np.ndarray:
    """Per row of ``own`` (P, NT: the seat's largest groups after each action) and type,
    who takes that type's Score tile (the rules' ``single_best``, batched) if the others'
    largest groups are ``others`` (seats, NT): 1 this seat, -1 another, 0 nobody."""
    values = np.concatenate(
        [own[:, :, None], np.broadcast_to(others.T[None], (own.shape[0], NT, len(others)))],
        axis=2,
    )
    winner = single_best_batch(values)
    return np.where(winner == 0, 1.0, np.where(winner > 0, -1.0, 0.0))


def _placements(game: Game[Any], encoder: str) -> Features:
    """``chocolatiers_takes``'s fields, then what each tile placement and each wild does to
    the seat's Sampler by the rules (``placed_cells``, ``largest_groups``,
    ``groups_with_a_wild``, the Score tiles' ``single_best``): per placement of the tile
    being boxed (16 positions x 4 rotations) the seat's largest group of each type after
    it and who would then take each type's Score tile; per Sampler space the same for a
    wild put there (its growth of each group). Read from the seat's own observation: its
    Sampler, the tile being boxed, the largest groups every seat shows. Facts, no weights."""
    assert isinstance(game, ChocolatiersRules)
    takes = _takes(game, encoder)
    n = game.num_players
    rows = tile_rows(game)
    lay = game.encoder("flat").layout
    at = layout_slices(
        lay,
        "chocolatiers_placements",
        tiles=rows * TILE_FEATURES,
        samplers=n * SAMPLER_PLANES * 36,
        phase=PHASES,
        wilds_0=1,
        **{f"groups_{k}": NT for k in range(n)},
    )
    placing = PHASE_NAMES.index("place")
    places = POSITIONS * 4

    read = (
        at["phase"], at["wilds_0"], *(at[f"groups_{k}"] for k in range(n)),
        slice(at["samplers"].start, at["samplers"].start + SAMPLER_PLANES * 36),
        slice(at["tiles"].start + LINE_SIZE * TILE_FEATURES,
              at["tiles"].start + (LINE_SIZE + 1) * TILE_FEATURES),
    )  # fmt: skip
    #: a row's facts by the bytes of every slice they are computed from (a search meets
    #: the same Sampler again and again); cleared when it grows past ``MEMO_ROWS``
    memo: dict[bytes, np.ndarray | None] = {}

    def row_facts(flat: np.ndarray) -> np.ndarray | None:
        """One observation's (places + 36, SAMPLER_FACTS) facts; None when all are 0s."""
        phase = flat[at["phase"]]
        wilds = int(round(float(flat[at["wilds_0"]][0]) * WILDS_EACH))
        if phase[placing] < 0.5 and wilds == 0:
            return None
        out = np.zeros((places + 36, SAMPLER_FACTS), dtype=np.float32)
        groups = np.rint(
            np.stack([flat[at[f"groups_{k}"]] for k in range(n)]).astype(np.float64) * 36
        ).astype(np.int64)
        cells = _own_cells(flat[at["samplers"]][: SAMPLER_PLANES * 36].reshape(-1, 36))
        if phase[placing] >= 0.5:
            tile = flat[at["tiles"]].reshape(rows, TILE_FEATURES)[LINE_SIZE]
            spaces = tuple(
                int(v) if v < NT else EMPTY
                for v in tile[TILE_SPACES:].reshape(4, NT + 1).argmax(axis=1)
            )
            occ = occupancy(cells)
            at_rows, sizes = [], []
            for position in LEGAL_POSITIONS[occ]:
                for rot in range(4):
                    after, _ = placed_cells(cells, occ, rotate(spaces, rot), position)
                    at_rows.append(4 * position + rot)
                    sizes.append(largest_groups(after))
            if at_rows:
                own = np.asarray(sizes, dtype=np.int64)
                out[at_rows, 0] = 1.0
                out[at_rows, 1 : 1 + NT] = own / GROUP_SCALE
                out[at_rows, 1 + NT :] = _standing(own, groups[1:])
        if wilds:
            grown = groups_with_a_wild(cells)
            if grown:
                own = np.asarray(list(grown.values()), dtype=np.int64)
                spaces_at = [places + space for space in grown]
                out[spaces_at, 0] = 1.0
                out[spaces_at, 1 : 1 + NT] = (own - groups[0]) / GROWTH_SCALE
                out[spaces_at, 1 + NT :] = _standing(own, groups[1:])
        return out

    def sampler_facts(obs: np.ndarray) -> np.ndarray:
        b = obs.shape[0]
        out = np.zeros((b, places + 36, SAMPLER_FACTS), dtype=np.float32)
        for i in range(b):
            flat = obs[i].reshape(-1)
            key = b"".join(flat[part].tobytes() for part in read)
            if key not in memo:
                if len(memo) >= MEMO_ROWS:
                    memo.clear()
                memo[key] = row_facts(flat)
            facts = memo[key]
            if facts is not None:
                out[i] = facts
        return out.reshape(b, -1)

    def compute(obs: np.ndarray) -> np.ndarray:
        return np.concatenate([takes.compute(obs), sampler_facts(obs)], axis=1)

    names = _starting_with(takes)
    names.add(
        "places",
        places * SAMPLER_FACTS,
        "per tile placement (4 x position + rotation): open, the seat's largest group of "
        "each type after it / 12, who would take each type's Score tile (1 the seat, -1 "
        "another, 0 a tie)",
        low=-1.0,
        high=2.0,
        shape=(places, SAMPLER_FACTS),
    )
    names.add(
        "wilds",
        36 * SAMPLER_FACTS,
        "per Sampler space: a wild may go there, how much it grows the seat's largest group "
        "of each type / 4, who would then take each type's Score tile",
        low=-1.0,
        high=6.0,
        shape=(36, SAMPLER_FACTS),
    )
    return Features(
        names.size,
        compute,
        names,
        action_facts=((TAKE, NT, "takes"), (PLACE_WILD, 36, "wilds"), (PLACE, places, "places")),
    )


PLACEMENTS = FeatureFunction(
    "chocolatiers_placements",
    1,
    "Chocolatiers (flat): chocolatiers_takes's facts, then for every placement of the tile "
    "being boxed and every space a wild may go, the seat's largest groups after it and "
    "who would then take each type's Score tile (the rules' placed_cells, largest_groups, "
    "groups_with_a_wild, single_best): each group read by a head shared by its actions",
    _placements,
)


def _exchanges(game: Game[Any], encoder: str) -> Features:
    """``chocolatiers_placements``'s fields, then for each card type the seat could give in
    an exchange (give a card, take two), the facts of every tile row once one card of that
    type leaves its hand (the rules' cheapest payment on that hand), beside the tile's
    points: what each card given costs each tile on offer. With the takes' facts, what an
    exchange does; facts of the rules, no weights and no choice (which two cards follow is
    the network's to weigh), read by a head shared by the exchange actions."""
    placements = _placements(game, encoder)
    own = _OwnHand(game, encoder, "chocolatiers_exchanges")
    rows = own.rows

    def compute(obs: np.ndarray) -> np.ndarray:
        b = obs.shape[0]
        hand, tiles, cost, present = own.read(obs)
        gives = own.give_facts(hand, tiles, cost, present)
        return np.concatenate([placements.compute(obs), gives.reshape(b, -1)], axis=1)

    names = _starting_with(placements)
    names.add(
        "gives",
        NT * rows * TAKE_FACTS,
        "per card type given (an exchange), per tile row: payable, missing / 4, used / 8, "
        "chocolates the card paid, points / 8, a tile is there (0s: no card of that type)",
        shape=(NT, rows, TAKE_FACTS),
    )
    return _with_exchange_head(placements, names, compute, "gives")


EXCHANGES = FeatureFunction(
    "chocolatiers_exchanges",
    1,
    "Chocolatiers (flat): chocolatiers_placements's facts, then for each card type the "
    "seat could give in an exchange the facts of every tile on offer, being boxed or "
    "reserved, once that card leaves its hand (the rules' cheapest_payment), with the "
    "tile's points: read by a head shared by the exchange actions",
    _exchanges,
)


def _trades(game: Game[Any], encoder: str) -> Features:
    """``chocolatiers_placements``'s fields, then for each card type the seat could give in
    an exchange (give a card, take two): every tile row's facts once that card leaves its
    hand (as ``chocolatiers_exchanges`` gives them), and once the exchange's two takes from
    the tray are made, the two that leave that tile the fewest chocolates missing
    (:func:`exchange_takes`): what each exchange can do for each tile on offer. Facts of
    the rules (the cheapest payment, where the given card goes), no weights and no choice
    between tiles; read by a head shared by the exchange actions."""
    placements = _placements(game, encoder)
    own = _OwnHand(game, encoder, "chocolatiers_trades")
    rows = own.rows
    width = TAKE_FACTS + SWAP_FACTS

    def compute(obs: np.ndarray) -> np.ndarray:
        b = obs.shape[0]
        hand, tiles, cost, present = own.read(obs)
        gives = own.give_facts(hand, tiles, cost, present)
        swaps = exchange_takes(hand, cost, present, own.tray(obs), own.onto_tray)
        trades = np.concatenate([gives, swaps], axis=-1)
        return np.concatenate([placements.compute(obs), trades.reshape(b, -1)], axis=1)

    names = _starting_with(placements)
    names.add(
        "exchanges",
        NT * rows * width,
        "per card type given (an exchange), per tile row: payable, missing / 4, used / 8, "
        "chocolates the card paid, points / 8, a tile is there (0s: no card of that type); "
        "then after the two takes leaving that tile fewest missing: payable, missing / 4, "
        "used / 8, chocolates the exchange pays that were missing / 4 (0s: no exchange)",
        shape=(NT, rows, width),
    )
    return _with_exchange_head(placements, names, compute, "exchanges")


TRADES = FeatureFunction(
    "chocolatiers_trades",
    1,
    "Chocolatiers (flat): chocolatiers_placements's facts, then for each card type the "
    "seat could give in an exchange the facts of every tile on offer, being boxed or "
    "reserved, once that card leaves its hand and once the two takes from the tray that "
    "leave that tile fewest chocolates missing are made (the rules' cheapest_payment): "
    "read by a head shared by the exchange actions",
    _trades,
)
