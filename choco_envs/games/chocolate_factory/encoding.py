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
_MISSING = [m / 6.0 for m in range(7)]


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


def _station_table(game: ChocolateFactoryRules) -> np.ndarray:
    """Rows by ``(variety + 1) * 128 + placed * 2 + special``: variety one-hot (9),
    machines needed (6), machines placed (6), special placed (1)."""
    table = np.zeros((10 * 128, 22), dtype=np.float32)
    for var in range(-1, 9):
        needed = game.machine_mask[var] if var >= 0 else 0
        for placed in range(64):
            for special in range(2):
                row = table[(var + 1) * 128 + placed * 2 + special]
                row[0:9] = _VARIETY[var]
                row[9:15] = _BITS[needed]
                row[15:21] = _BITS[placed]
                row[21] = special
    return table


def _package_table() -> np.ndarray:
    """Rows by ``(slot variety + 2) * 5 + fill``: variety one-hot (9), fill (/4), open."""
    table = np.zeros((11 * 5, 11), dtype=np.float32)
    for pv in range(CLOSED, 9):
        for fill in range(5):
            row = table[(pv + 2) * 5 + fill]
            row[0:9] = _VARIETY[pv if pv >= 0 else 9]
            row[9] = fill / 4.0
            row[10] = float(pv != CLOSED)
    return table


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


def flat_encoder(game: ChocolateFactoryRules) -> Encoder[FactoryState]:
    """The ``flat`` encoder: one float32 vector, every value in [0, 1]. Stations and
    packages are filled from lookup tables in a few numpy operations (the hot path)."""
    n, slots = game.num_players, game.slots
    lay = _layout(game)
    stations = slice(lay["p0_stations"].start, lay[f"p{n - 1}_stations"].stop)
    packages = lay["packages"]
    status_start = lay["p0_status"].start
    dice_scale = np.array([1.0 / n] * 12 + [1.0 / game.special_dice] * 12, dtype=np.float32)
    max_apps, pkg_total, total_rolls = game.max_apps, game.package_total, game.total_rolls
    onehot_n = [tuple(float(i == j) for j in range(n)) for i in range(n)] + [(0.0,) * n]
    phase_rows = [(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0), (0.0, 0.0, 0.0)]
    station_rows = [tuple(float(i == j) for j in range(4)) for i in range(4)] + [(0.0,) * 4]
    station_table, package_table = _station_table(game), _package_table()
    # offsets into one int array made from the state's lists (see ``fill``)
    o_var, o_placed, o_special, o_missing = 0, 4 * n, 8 * n, 12 * n
    o_pv, o_fill, o_owners = 36 * n, 36 * n + slots, 36 * n + 2 * slots
    o_dice = o_owners + slots * n
    station_rows_by_player = [
        np.array([((p + r) % n) * 4 + st for r in range(n) for st in range(4)]) for p in range(n)
    ]
    owner_columns = [np.array([(p + r) % n for r in range(n)]) for p in range(n)]

    def fill(s: FactoryState, player: int, out: np.ndarray) -> None:
        ints = np.frombuffer(
            array("q", s.variety + s.placed + s.special + s.missing + s.pkg_variety
                  + s.pkg_fill + s.pkg_owners + s.dice),
            dtype=np.int64,
        )  # fmt: skip
        rows = station_rows_by_player[player]
        code = (ints[o_var:o_placed] + 1) * 128 + ints[o_placed:o_special] * 2
        code += ints[o_special:o_missing]
        view = out[stations].reshape(4 * n, STATION_SIZE)
        view[:, :22] = station_table.take(code.take(rows), axis=0)
        view[:, 22:] = ints[o_missing:o_pv].reshape(4 * n, 6).take(rows, axis=0) * (1.0 / 6)
        pkg = out[packages].reshape(slots, 11 + n)
        pkg_code = (ints[o_pv:o_fill] + 2) * 5 + ints[o_fill:o_owners]
        pkg[:, :11] = package_table.take(pkg_code, axis=0)
        owners = ints[o_owners:o_dice].reshape(slots, n)
        pkg[:, 11:] = owners.take(owner_columns[player], axis=1) * 0.25
        out[:24] = ints[o_dice:] * dice_scale
        out[status_start:] = np.frombuffer(array("f", _rest(s, player)), dtype=np.float32)

    def _rest(s: FactoryState, player: int) -> list[float]:
        """Status of every player, the clock and the turn, as a list."""
        scores = game.scores(s)
        v: list[float] = []
        for r in range(n):
            p = (player + r) % n
            apps = s.apps[p]
            v += (
                apps / max_apps,
                float(apps == max_apps),
                min(scores[p] / SCORE_SCALE, 1.0),
                min(s.finished[p] / FINISHED_SCALE, 1.0),
                min(s.storage[p] / STORAGE_SCALE, 1.0),
            )
        over = s.phase == 3
        v.append(s.supply_left / pkg_total)
        v.append(s.time_left / total_rolls)
        v += onehot_n[n if over else (s.roller + s.pick_index - player) % n]
        v += onehot_n[(s.roller - player) % n]
        v += phase_rows[s.phase]
        v.append(float(s.pick_index == 0 and not over))
        v += _VARIETY[s.pending_variety]
        v += station_rows[s.pending_station]
        v.append(float(s.resume_pick and s.phase in (1, 2)))
        return v

    # ---- the same numbers for many states at once (``fill_batch``): each state's ints in
    # three rows (small signed, small non-negative, wide), converted as bytes, then the
    # tables and rotations above applied to all states together
    signed_n = 4 * n + slots + 2  # variety, pkg_variety, pending variety and station
    u_placed, u_special, u_missing = 0, 4 * n, 8 * n
    u_fill, u_owners = 32 * n, 32 * n + slots
    u_dice = u_owners + slots * n
    u_apps = u_dice + 24
    u_misc = u_apps + n  # roller, pick_index, phase, resume_pick
    w_finished, w_storage, w_misc = 3 * n, 4 * n, 5 * n  # after the three point lists
    station_rows_all = np.stack(station_rows_by_player)
    owner_columns_all = np.stack(owner_columns)
    seats_all = np.array([[(p + r) % n for r in range(n)] for p in range(n)])
    onehot_n_all = np.array(onehot_n, dtype=np.float64)
    phase_all = np.array(phase_rows, dtype=np.float64)
    variety_all = np.array(_VARIETY, dtype=np.float64)
    station_all = np.array(station_rows, dtype=np.float64)
    status_size = lay.size - status_start
    dice_scale64 = dice_scale.astype(np.float64)

    def fill_batch(states: Sequence[FactoryState], players: Sequence[int], out: np.ndarray) -> None:
        count = len(states)
        signed, small, wide = [], [], []
        for s in states:
            signed.append(
                array("b", [*s.variety, *s.pkg_variety, s.pending_variety, s.pending_station])
            )
            small.append(
                bytearray(
                    [
                        *s.placed,
                        *s.special,
                        *s.missing,
                        *s.pkg_fill,
                        *s.pkg_owners,
                        *s.dice,
                        *s.apps,
                        s.roller,
                        s.pick_index,
                        s.phase,
                        s.resume_pick,
                    ]
                )
            )
            wide.append(
                array(
                    "q",
                    [
                        *s.variety_points,
                        *s.refine_points,
                        *s.bonus_points,
                        *s.finished,
                        *s.storage,
                        s.supply_left,
                        s.time_left,
                    ],
                )
            )
        # fmt: skip
        sig = np.frombuffer(b"".join(signed), dtype=np.int8).reshape(count, signed_n)
        sig = sig.astype(np.int64)
        ints = np.frombuffer(b"".join(small), dtype=np.uint8).reshape(count, -1)
        ints = ints.astype(np.int64)
        wid = np.frombuffer(b"".join(wide), dtype=np.int64).reshape(count, -1)
        who = np.asarray(players, dtype=np.intp)
        rows = station_rows_all[who]
        code = (sig[:, : 4 * n] + 1) * 128 + ints[:, u_placed:u_special] * 2
        code += ints[:, u_special:u_missing]
        view = out[:, stations].reshape(count, 4 * n, STATION_SIZE)
        view[:, :, :22] = station_table[np.take_along_axis(code, rows, axis=1)]
        missing = ints[:, u_missing:u_fill].reshape(count, 4 * n, 6)
        view[:, :, 22:] = np.take_along_axis(missing, rows[:, :, None], axis=1) * (1.0 / 6)
        pkg = out[:, packages].reshape(count, slots, 11 + n)
        pkg[:, :, :11] = package_table[
            (sig[:, 4 * n : 4 * n + slots] + 2) * 5 + ints[:, u_fill:u_owners]
        ]
        owners = ints[:, u_owners:u_dice].reshape(count, slots, n)
        columns = owner_columns_all[who][:, None, :]
        pkg[:, :, 11:] = np.take_along_axis(owners, columns, axis=2) * 0.25
        out[:, :24] = ints[:, u_dice:u_apps] * dice_scale64
        # status: per seat relative to the observer, then the clock and the turn
        seats = seats_all[who]
        apps = np.take_along_axis(ints[:, u_apps:u_misc], seats, axis=1)
        points = wid[:, :n] + wid[:, n : 2 * n] + wid[:, 2 * n : 3 * n]
        status = np.empty((count, n, 5), dtype=np.float64)
        status[:, :, 0] = apps / max_apps
        status[:, :, 1] = apps == max_apps
        status[:, :, 2] = np.minimum(np.take_along_axis(points, seats, axis=1) / SCORE_SCALE, 1.0)
        finished = np.take_along_axis(wid[:, w_finished:w_storage], seats, axis=1)
        status[:, :, 3] = np.minimum(finished / FINISHED_SCALE, 1.0)
        storage = np.take_along_axis(wid[:, w_storage:w_misc], seats, axis=1)
        status[:, :, 4] = np.minimum(storage / STORAGE_SCALE, 1.0)
        roller, pick_index, phase, resume = (ints[:, u_misc + i] for i in range(4))
        pending_variety, pending_station = sig[:, -2], sig[:, -1]
        over = phase == 3
        rest = np.empty((count, status_size), dtype=np.float64)
        rest[:, : 5 * n] = status.reshape(count, 5 * n)
        at = 5 * n
        rest[:, at] = wid[:, w_misc] / pkg_total
        rest[:, at + 1] = wid[:, w_misc + 1] / total_rolls
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
