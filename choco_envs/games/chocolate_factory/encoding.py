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
    lay.add("to_act", n, "whose pick it is, relative seat one-hot (0 when over)")
    lay.add("roller", n, "who rolled, relative seat one-hot")
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

    return Encoder("flat", (lay.size,), lay, fill, "flat vector, relative to the observer")


def build_encoders(game: ChocolateFactoryRules) -> dict[str, Encoder[FactoryState]]:
    """The encoders of ``game`` (the Factory has one: ``flat``)."""
    return {"flat": flat_encoder(game)}
