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
    from choco_envs.games.chocolate_factory.rules import ChocolateFactoryGame

__all__ = ["NUM_ACTIONS", "action_ranges", "flat_encoder"]

SCORE_SCALE = 200.0
FINISHED_SCALE = 40.0
STORAGE_SCALE = 40.0
DICE = 24
STATION_SIZE = len(cp.VARIETY_NAMES) + 6 + 6 + 6 + 1

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


def flat_encoder(game: ChocolateFactoryGame) -> Encoder[FactoryState]:
    """The ``flat`` encoder: one float32 vector, every value in [0, 1]."""
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
            f"{who}: per station, variety one-hot (9; all 0 while free), missing per "
            "ingredient (/6), machines needed (6), machines placed (6), special placed",
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
    slots = game.slots
    lay.add(
        "packages",
        slots * (9 + 2 + n),
        "per package slot: variety one-hot (9), fill (/4), still open, bars by owner "
        "relative to the observer (/4)",
    )
    lay.add("supply", 1, "packages left in the supply (/ the game's packages)")
    lay.add("shift_time", 1, "rolls left after the current one (/ the game's rolls)")
    lay.add("to_act", n, "whose pick it is, relative seat one-hot")
    lay.add("roller", n, "who rolled, relative seat one-hot")
    lay.add("phase", 3, "pick, pack, choose variety")
    lay.add("reroll_open", 1, "nobody has picked from this roll yet")
    lay.add("pending_bar", 9, "variety of the bar being packed / station being refilled")
    lay.add("pending_station", 4, "the to-act player's freed station")
    size = lay.size
    special_dice = game.special_dice
    dice_scale = np.array([1.0 / n] * 12 + [1.0 / special_dice] * 12, dtype=np.float32)
    machine_mask, max_apps = game.machine_mask, game.max_apps
    pkg_total, total_rolls = game.package_total, game.total_rolls
    onehot_n = [tuple(float(i == j) for j in range(n)) for i in range(n)]
    phase_rows = [(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0), (0.0, 0.0, 0.0)]
    station_rows = [tuple(float(i == j) for j in range(4)) for i in range(4)] + [(0.0,) * 4]

    stations_end = lay["p0_status"].start
    # station rows in observer order: rotation[player][row] = player' * 4 + station
    rotation = [
        np.array([((player + r) % n) * 4 + st for r in range(n) for st in range(4)])
        for player in range(n)
    ]
    variety_rows = np.array([*_VARIETY[:9], _VARIETY[9]], dtype=np.float32)  # -1 -> zeros
    bit_rows = np.array(_BITS, dtype=np.float32)
    needed_by_variety = np.array([*machine_mask, 0])  # index -1 -> no machines

    def fill(s: FactoryState, player: int, out: np.ndarray) -> None:
        rows = rotation[player]
        var = np.array(s.variety)[rows]
        station_view = out[DICE:stations_end].reshape(4 * n, STATION_SIZE)
        station_view[:, 0:9] = variety_rows[var]
        station_view[:, 9:15] = np.array(s.missing).reshape(4 * n, 6)[rows] * (1.0 / 6.0)
        station_view[:, 15:21] = bit_rows[needed_by_variety[var]]
        station_view[:, 21:27] = bit_rows[np.array(s.placed)[rows]]
        station_view[:, 27] = np.array(s.special)[rows]
        out[:DICE] = np.frombuffer(array("f", s.dice), dtype=np.float32) * dice_scale
        out[stations_end:] = np.frombuffer(array("f", _tail(s, player)), dtype=np.float32)

    def _tail(s: FactoryState, player: int) -> list[float]:
        """Everything after the stations: status, packages, clock, turn."""
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
        for k in range(slots):
            pv = s.pkg_variety[k]
            v += _VARIETY[pv if pv >= 0 else 9]
            v += (s.pkg_fill[k] / 4.0, float(pv != CLOSED))
            owners = s.pkg_owners[k * n : k * n + n]
            v += [owners[(player + r) % n] / 4.0 for r in range(n)]
        v.append(s.supply_left / pkg_total)
        v.append(s.time_left / total_rolls)
        over = s.phase == 3
        v += onehot_n[(s.roller + s.pick_index - player) % n] if not over else (0.0,) * n
        v += onehot_n[(s.roller - player) % n]
        v += phase_rows[s.phase]
        v.append(float(s.pick_index == 0 and not over))
        v += _VARIETY[s.pending_variety if s.pending_variety >= 0 else 9]
        v += station_rows[s.pending_station if s.pending_station >= 0 else 4]
        return v

    return Encoder("flat", (size,), lay, fill, "flat vector, relative to the observer")
