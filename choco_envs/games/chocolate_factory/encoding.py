"""Action codec and the ``flat`` observation encoder of Chocolate Factory.

Action table (one flat space of 235 ids; dice of equal faces are interchangeable, so a
pick names faces, never a particular die):

| ids | meaning |
|---|---|
| 0..143 | pair: ``(station * 6 + ingredient) * 6 + quantity face`` (faces 1..5, 5 = star joker) |
| 144..167 | machine die: ``144 + station * 6 + machine`` |
| 168..191 | special die: ``168 + station * 6 + special`` |
| 192..215 | hire the master as the machine: ``192 + station * 6 + ingredient`` |
| 216 | pass (+1 application, up to the cap) |
| 217 | reroll all dice (roller, before anyone picked; costs 1 application) |
| 218..225 | pack the finished bar into package slot 0..7 |
| 226..234 | new variety for the freed station (rulebook order, see components) |

Observation: relative to the observer (own player block first, then the others in seat
order after it); see :func:`flat_encoder` and the docs for the layout table.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from choco_envs.core.encoding import Encoder, Layout
from choco_envs.games.chocolate_factory import components as cp
from choco_envs.games.chocolate_factory.rules import (
    CHOOSE,
    CLOSED,
    MACHINE,
    MASTER,
    NUM_ACTIONS,
    PACK,
    PASS,
    REROLL,
    SPECIAL,
    FactoryState,
)

if TYPE_CHECKING:
    from choco_envs.games.chocolate_factory.rules import ChocolateFactoryRules

__all__ = ["NUM_ACTIONS", "action_ranges", "build_encoders", "flat_encoder"]

SCORE_SCALE = 200.0
FINISHED_SCALE = 40.0
STORAGE_SCALE = 40.0
DICE = 24
STATION_SIZE = len(cp.VARIETY_NAMES) + 6 + 6 + 1 + 6

_BITS = [tuple(float(mask >> i & 1) for i in range(6)) for mask in range(64)]
#: one-hot rows by variety; index -1 or 9 is the all-zeros row (free station, empty slot)
_VARIETY = [tuple(float(v == w) for w in range(9)) for v in range(9)] + [(0.0,) * 9]


def action_ranges() -> list[tuple[int, int, str]]:
    """(first id, last id, meaning) for the docs' action table."""
    return [
        (0, MACHINE - 1, "pair: (station*6 + ingredient)*6 + quantity face (5 = joker)"),
        (MACHINE, SPECIAL - 1, "machine die: station*6 + machine"),
        (SPECIAL, MASTER - 1, "special die: station*6 + special"),
        (MASTER, PASS - 1, "hire the master: station*6 + ingredient"),
        (PASS, PASS, "pass"),
        (REROLL, REROLL, "reroll"),
        (PACK, CHOOSE - 1, "pack into package slot"),
        (CHOOSE, NUM_ACTIONS - 1, "new variety for the freed station"),
    ]


def _layout(game: ChocolateFactoryRules) -> Layout:
    n = game.num_players
    lay = Layout()
    lay.add("dice_quantity", 6, "quantity dice left per face 1..5, joker (/ players)")
    lay.add("dice_ingredient", 6, "ingredient dice left per ingredient (/ players)")
    lay.add("dice_machine", 6, "machine dice left per machine (/ machine dice)")
    lay.add("dice_special", 6, "special dice left per special (/ special dice)")
    for r in range(n):
        who = "own" if r == 0 else f"the player {r} seat(s) after the observer"
        lay.add(
            f"p{r}_stations",
            4 * STATION_SIZE,
            f"{who}: per station, variety one-hot (9; all 0 while free), machines needed "
            "(6), machines placed (6), special placed (1), missing per ingredient (/6)",
        )
    lay.add(
        "packages",
        game.slots * (9 + 2 + n),
        "per package slot: variety one-hot (9), fill (/4), still open, bars by owner "
        "relative to the observer (/4)",
        shape=(game.slots, 9 + 2 + n),
    )
    for r in range(n):
        who = "own" if r == 0 else f"the player {r} seat(s) after the observer"
        lay.add(
            f"p{r}_status",
            5,
            f"{who}: applications (/cap), master available, score (/{SCORE_SCALE:g}, "
            f"clipped), finished varieties (/{FINISHED_SCALE:g}), bars in storage "
            f"(/{STORAGE_SCALE:g})",
        )
    lay.add("supply", 1, "packages left in the supply (/ the game's packages)")
    lay.add("shift_time", 1, "rolls left after the current one (/ the game's rolls)")
    lay.add("to_act", n, "whose pick it is, relative seat one-hot (0 when over)", shape=(n,))
    lay.add("roller", n, "who rolled, relative seat one-hot", shape=(n,))
    lay.add("phase", 3, "pick, pack, choose variety (0 when over)")
    lay.add("reroll_open", 1, "nobody has picked from this roll yet")
    lay.add("pending_bar", 9, "variety of the bar being packed / station being refilled")
    lay.add("pending_station", 4, "the to-act player's freed station")
    lay.add(
        "resume_pick",
        1,
        "at the pack and choose steps: 1 when the same player picks again afterwards (the "
        "master finished the variety), 0 when the next seat picks",
    )
    return lay


def _board_ints(s: FactoryState) -> array[int]:
    """The state's ints that the board part of ``flat`` reads, one signed byte each (all
    lie in -2..63), in the order :func:`_board` names them: variety, package variety
    (the signed ones), then placed, special, missing, package fill, package owners, dice."""
    ints = array("b", s.variety + s.pkg_variety)
    ints.frombytes(bytes([*s.placed, *s.special, *s.missing, *s.pkg_fill, *s.pkg_owners, *s.dice]))
    return ints


def _board(game: ChocolateFactoryRules) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The board part of ``flat`` (dice, stations, packages: every entry before the
    status) as one gather: entry ``j`` for the observer ``p`` is ``values[base[j] +
    x[source[p, j]]]``, x being :func:`_board_ints`. Every entry reads one state int (of
    the observer's seat order, through ``source``), so each column is a small table of
    that int's values, written once here. Returns (values, base, source)."""
    n, slots = game.num_players, game.slots
    # where each list of the state lies in x (see _board_ints)
    x_variety, x_pkg_variety = 0, 4 * n
    x_placed = x_pkg_variety + slots
    x_special = x_placed + 4 * n
    x_missing = x_special + 4 * n
    x_fill = x_missing + 24 * n
    x_owners = x_fill + slots
    x_dice = x_owners + slots * n
    values: list[float] = []
    offsets: dict[str, int] = {}
    base: list[int] = []
    source: list[list[int]] = []

    def column(name: str, lowest: int, table: Sequence[float], where: list[int]) -> None:
        """The next entry: ``table[i - lowest]`` where the state int ``x[where[p]]`` is i."""
        if name not in offsets:
            offsets[name] = len(values) - lowest
            values.extend(table)
        base.append(offsets[name])
        source.append(where)

    seats = [[(p + r) % n for p in range(n)] for r in range(n)]  # seats[r][observer]
    dice_scale = np.array([1.0 / n] * 12 + [1.0 / game.special_dice] * 12, dtype=np.float32)
    for f in range(DICE):  # counts per face, 0..n
        scale = float(dice_scale[f])
        column(f"dice{f}", 0, [c * scale for c in range(n + 1)], [x_dice + f] * n)
    varieties = range(-1, len(cp.VARIETY_NAMES))  # -1: a free station
    for r in range(n):
        for st in range(4):
            k = [seat * 4 + st for seat in seats[r]]
            for c in range(9):
                column(f"variety{c}", -1, [_VARIETY[v][c] for v in varieties],
                       [x_variety + kk for kk in k])  # fmt: skip
            for m in range(6):
                needed = [_BITS[game.machine_mask[v] if v >= 0 else 0][m] for v in varieties]
                column(f"needed{m}", -1, needed, [x_variety + kk for kk in k])
            for m in range(6):
                column(f"placed{m}", 0, [_BITS[pl][m] for pl in range(64)],
                       [x_placed + kk for kk in k])  # fmt: skip
            column("special", 0, [0.0, 1.0], [x_special + kk for kk in k])
            for i in range(6):
                column("missing", 0, [m * (1.0 / 6) for m in range(7)],
                       [x_missing + kk * 6 + i for kk in k])  # fmt: skip
    slot_varieties = range(CLOSED, len(cp.VARIETY_NAMES))  # CLOSED, EMPTY, varieties
    for slot in range(slots):
        for c in range(9):
            column(f"slot_variety{c}", CLOSED, [_VARIETY[v][c] for v in slot_varieties],
                   [x_pkg_variety + slot] * n)  # fmt: skip
        fills = [f / 4.0 for f in range(cp.PACKAGE_SIZE + 1)]
        column("fill", 0, fills, [x_fill + slot] * n)
        column("open", CLOSED, [float(v != CLOSED) for v in slot_varieties],
               [x_pkg_variety + slot] * n)  # fmt: skip
        for r in range(n):
            bars = [b * 0.25 for b in range(cp.PACKAGE_SIZE + 1)]
            column("owned_bars", 0, bars, [x_owners + slot * n + seat for seat in seats[r]])
    return (
        np.array(values, dtype=np.float32),
        np.array(base, dtype=np.intp),
        np.array(source, dtype=np.intp).T.copy(),
    )


def flat_encoder(game: ChocolateFactoryRules) -> Encoder[FactoryState]:
    """The ``flat`` encoder: one float32 vector, every value in [0, 1]. The board (dice,
    stations, packages) is one gather from tables (:func:`_board`), the status a short
    list (the hot path)."""
    n = game.num_players
    lay = _layout(game)
    status_start = lay["p0_status"].start
    board_values, board_base, board_source = _board(game)
    assert len(board_base) == status_start, "the board gather covers every entry before p0_status"
    max_apps, pkg_total, total_rolls = game.max_apps, game.package_total, game.total_rolls
    onehot_n = [tuple(float(i == j) for j in range(n)) for i in range(n)] + [(0.0,) * n]
    phase_rows = [(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0), (0.0, 0.0, 0.0)]
    station_rows = [tuple(float(i == j) for j in range(4)) for i in range(4)] + [(0.0,) * 4]
    seat_order = [[(p + r) % n for r in range(n)] for p in range(n)]
    #: by applications: (applications / cap, at the cap: the master available)
    apps_rows = [(a / max_apps, float(a == max_apps)) for a in range(max_apps + 1)]

    def fill(s: FactoryState, player: int, out: np.ndarray) -> None:
        x = np.frombuffer(_board_ints(s), dtype=np.int8)
        out[:status_start] = board_values.take(board_base + x.take(board_source[player]))
        out[status_start:] = np.frombuffer(array("f", _rest(s, player)), dtype=np.float32)

    def _rest(s: FactoryState, player: int) -> list[float]:
        """Status of every player, the clock and the turn, as a list."""
        scores = game.scores(s)
        apps, finished, storage = s.apps, s.finished, s.storage
        v: list[float] = []
        for p in seat_order[player]:
            v += apps_rows[apps[p]]
            v += (
                min(scores[p] / SCORE_SCALE, 1.0),
                min(finished[p] / FINISHED_SCALE, 1.0),
                min(storage[p] / STORAGE_SCALE, 1.0),
            )
        over = s.phase == 3
        v += (s.supply_left / pkg_total, s.time_left / total_rolls)
        v += onehot_n[n if over else (s.roller + s.pick_index - player) % n]
        v += onehot_n[(s.roller - player) % n]
        v += phase_rows[s.phase]
        v.append(float(s.pick_index == 0 and not over))
        v += _VARIETY[s.pending_variety]
        v += station_rows[s.pending_station]
        v.append(float(s.resume_pick and s.phase in (1, 2)))
        return v

    # ---- the same numbers for many states at once (``fill_batch``): the board by the
    # same gather for all states together; the status from one row of ints per state
    w_points, w_finished, w_storage = n, 4 * n, 5 * n  # after apps; points: three lists
    w_misc = 6 * n  # supply_left, time_left, roller, pick_index, phase, resume_pick,
    # pending_variety, pending_station
    seats_all = np.array(seat_order)
    onehot_n_all = np.array(onehot_n, dtype=np.float64)
    phase_all = np.array(phase_rows, dtype=np.float64)
    variety_all = np.array(_VARIETY, dtype=np.float64)
    station_all = np.array(station_rows, dtype=np.float64)
    status_size = lay.size - status_start

    def fill_batch(states: Sequence[FactoryState], players: Sequence[int], out: np.ndarray) -> None:
        count = len(states)
        x = np.frombuffer(b"".join([_board_ints(s) for s in states]), dtype=np.int8)
        who = np.asarray(players, dtype=np.intp)
        index = board_source[who]  # positions in each state's ints, then in all of x
        index += np.arange(0, x.size, x.size // count)[:, None]
        np.add(board_base, x.take(index), out=index)
        out[:, :status_start] = board_values.take(index)
        wide = b"".join(
            [
                array(
                    "q",
                    [*s.apps, *s.variety_points, *s.refine_points, *s.bonus_points,
                     *s.finished, *s.storage, s.supply_left, s.time_left, s.roller,
                     s.pick_index, s.phase, s.resume_pick, s.pending_variety,
                     s.pending_station],
                )
                for s in states
            ]
        )  # fmt: skip
        wid = np.frombuffer(wide, dtype=np.int64).reshape(count, -1)
        # status: per seat relative to the observer, then the clock and the turn
        seats = seats_all[who]
        apps = np.take_along_axis(wid[:, :n], seats, axis=1)
        points = wid[:, w_points : w_points + n]
        points = points + wid[:, w_points + n : w_points + 2 * n]
        points = points + wid[:, w_points + 2 * n : w_finished]
        status = np.empty((count, n, 5), dtype=np.float64)
        status[:, :, 0] = apps / max_apps
        status[:, :, 1] = apps == max_apps
        status[:, :, 2] = np.minimum(np.take_along_axis(points, seats, axis=1) / SCORE_SCALE, 1.0)
        finished = np.take_along_axis(wid[:, w_finished:w_storage], seats, axis=1)
        status[:, :, 3] = np.minimum(finished / FINISHED_SCALE, 1.0)
        storage = np.take_along_axis(wid[:, w_storage:w_misc], seats, axis=1)
        status[:, :, 4] = np.minimum(storage / STORAGE_SCALE, 1.0)
        supply, time_left, roller, pick_index, phase, resume, pending_variety, pending_station = (
            wid[:, w_misc + i] for i in range(8)
        )
        over = phase == 3
        rest = np.empty((count, status_size), dtype=np.float64)
        rest[:, : 5 * n] = status.reshape(count, 5 * n)
        at = 5 * n
        rest[:, at] = supply / pkg_total
        rest[:, at + 1] = time_left / total_rolls
        at += 2
        rest[:, at : at + n] = onehot_n_all[np.where(over, n, (roller + pick_index - who) % n)]
        rest[:, at + n : at + 2 * n] = onehot_n_all[(roller - who) % n]
        at += 2 * n
        rest[:, at : at + 3] = phase_all[phase]
        rest[:, at + 3] = (pick_index == 0) & ~over
        rest[:, at + 4 : at + 13] = variety_all[pending_variety]
        rest[:, at + 13 : at + 17] = station_all[pending_station]
        rest[:, at + 17] = (resume != 0) & ((phase == 1) | (phase == 2))
        out[:, status_start:] = rest

    return Encoder(
        "flat",
        (lay.size,),
        lay,
        fill,
        "flat vector, relative to the observer",
        fill_batch=fill_batch,
    )


def build_encoders(game: ChocolateFactoryRules) -> dict[str, Encoder[FactoryState]]:
    """The encoders of ``game`` (the Factory has one: ``flat``)."""
    return {"flat": flat_encoder(game)}
