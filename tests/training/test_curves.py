"""Learning curves: the Elo a win rate implies, old curves without Elo, the two-panel
plot, the curve a run stores in its files (both engines) and its TensorBoard scalars."""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path
from typing import Any

import pytest

from choco_envs.policy.checkpoint import read_metadata
from choco_envs.train.curves import Curve, elo, plot_curve, stored_curve
from tests.training.toy_nim import ENV_ID

PNG = b"\x89PNG\r\n\x1a\n"


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == PNG
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_elo_is_the_logistic_difference_a_win_rate_implies() -> None:
    assert elo(0.5) == 0.0 and elo(0.5, 400) == 0.0
    assert elo(0.75) == pytest.approx(190.85, abs=0.01)
    assert elo(0.25, 100) == pytest.approx(-190.85, abs=0.01)
    # 0% and 100% stay finite: clamped to half a game of the games played
    edge = 400 * math.log10((0.5 / 400) / (1 - 0.5 / 400))
    assert elo(0.0, 400) == pytest.approx(edge) and elo(1.0, 400) == pytest.approx(-edge)
    assert elo(1.0, 4) == pytest.approx(400 * math.log10(0.875 / 0.125))
    assert elo(1.0, 4) < elo(1.0, 400)  # fewer games, a smaller claim
    # the games count unknown: clamped to [0.01, 0.99]
    assert elo(0.0) == pytest.approx(400 * math.log10(0.01 / 0.99))
    assert elo(1.0) == pytest.approx(-elo(0.0))


def test_points_carry_elo_and_old_curves_without_it_get_it(tmp_path: Path) -> None:
    curve = Curve(tmp_path / "a", "steps")
    (tmp_path / "a").mkdir()
    curve.add(1.234, 100, {"random": 1.0, "greedy": 0.75}, "ppo", games={"random": 4, "greedy": 8})
    point = json.loads((tmp_path / "a" / "curve.json").read_text())[0]
    assert point["elo"] == {"random": round(elo(1.0, 4), 1), "greedy": round(elo(0.75, 8), 1)}
    assert point["minutes"] == 1.23 and point["steps"] == 100
    assert curve.stored() == {"unit": "steps", "points": [point]}
    # a curve.json of a run from before Elo was kept: resumed, its points get their Elo
    old = tmp_path / "old"
    old.mkdir()
    rows = [{"minutes": 1.0, "steps": 10, "win_rate": {"random": 0.75, "greedy": 0.0},
             "phase": "ppo"}]  # fmt: skip
    (old / "curve.json").write_text(json.dumps(rows))
    resumed = Curve(tmp_path / "b", "steps", old / "final.safetensors")
    assert resumed.points[0]["elo"] == {"random": round(elo(0.75), 1), "greedy": round(elo(0.0), 1)}
    assert resumed.points[0]["win_rate"] == rows[0]["win_rate"]
    # ... and so do the points of a file's stored curve
    stored = stored_curve({"training": {"curve": {"unit": "steps", "points": rows}}})
    assert stored is not None and stored["points"][0]["elo"]["random"] == round(elo(0.75), 1)
    assert stored_curve({"training": {"command": "x"}}) is None
    assert stored_curve({"training": {"curve": {"unit": "steps", "points": []}}}) is None
    (old / "curve.json").write_text(json.dumps({"not": "points"}))
    with pytest.raises(ValueError, match="not a list of curve points; delete it"):
        Curve(tmp_path / "c", "steps", old / "final.safetensors")


def test_the_plot_has_a_win_rate_and_an_elo_panel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from matplotlib.figure import Figure

    drawn: list[Any] = []
    save = Figure.savefig

    def keep(fig: Figure, *args: Any, **kwargs: Any) -> None:
        drawn.append(fig)
        save(fig, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", keep)
    points = [
        {"minutes": 0.5, "games": 40, "win_rate": {"random": 0.5, "greedy": 0.0}, "phase": "az"},
        {"minutes": 2.0, "games": 90, "win_rate": {"random": 0.9, "greedy": 0.25}, "phase": "az"},
    ]  # no "elo": computed from the win rates
    out = tmp_path / "curve.png"
    plot_curve(points, out, "toy", "games")
    assert png_size(out) == (800, 350)
    (fig,) = drawn
    rate_ax, elo_ax = fig.axes[:2]
    assert "win rate" in rate_ax.get_ylabel() and "Elo" in elo_ax.get_ylabel()
    assert "minutes" in rate_ax.get_xlabel() and "90 self-play games" in elo_ax.get_xlabel()
    lines = {line.get_label(): list(line.get_ydata()) for line in elo_ax.get_lines()}
    assert lines["vs greedy"] == [round(elo(0.0), 1), round(elo(0.25), 1)]
    assert sorted(line.get_label() for line in rate_ax.get_lines()) == ["vs greedy", "vs random"]


def _scalars(run_dir: Path) -> set[str]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    (events,) = run_dir.glob("events.out.tfevents.*")
    acc = EventAccumulator(str(events))
    acc.Reload()
    return set(acc.Tags()["scalars"])


def test_a_ppo_run_stores_its_curve_in_its_files_and_writes_elo_scalars(tmp_path: Path) -> None:
    from choco_envs.train.ppo import Args, train

    args = Args(
        env_id=ENV_ID, options={"stones": 13}, total_timesteps=256, num_envs=4, num_steps=8,
        hidden=(16,), eval_every=4, eval_games=4, final_eval_games=6, track=True,
        progress=False, runs_dir=str(tmp_path), run_name="nim",
    )  # fmt: skip
    path = train(args)
    meta = read_metadata(path)
    curve = meta["training"]["curve"]
    assert curve["unit"] == "steps" and len(curve["points"]) >= 2
    assert [p["phase"] for p in curve["points"]][:-1] == ["ppo"] * (len(curve["points"]) - 1)
    last = curve["points"][-1]
    assert last["phase"] == "final" and last["steps"] == meta["steps_trained"]
    for opp, res in meta["arena"].items():
        assert res["games"] == 6
        assert last["win_rate"][opp] == res["win_rate"]
        assert last["elo"][opp] == round(elo(res["win_rate"], 6), 1)
    assert curve["points"] == json.loads((tmp_path / "nim" / "curve.json").read_text())
    # a periodic file carries the curve as it stood: its last point is its evaluation
    latest = read_metadata(tmp_path / "nim" / "latest.safetensors")["training"]["curve"]
    assert latest["points"] == curve["points"][: len(latest["points"])]
    assert latest["points"][-1]["phase"] == "ppo"
    assert {"eval/elo_vs_random", "eval/elo_vs_greedy", "eval/win_rate_vs_random"} <= _scalars(
        tmp_path / "nim"
    )
    assert png_size(tmp_path / "nim" / "curve.png") == (800, 350)


def test_an_az_run_stores_its_curve_with_the_final_evaluation_last(tmp_path: Path) -> None:
    from choco_envs.train.az import Args, train

    args = Args(
        env_id=ENV_ID, options={"num_players": 2, "stones": 5}, hidden=(8,), num_games=4,
        simulations=2, max_considered=2, play_simulations=2, batch_size=8,
        moves_per_iteration=2, total_games=8, eval_every_minutes=10.0, final_eval_games=4,
        search_eval_games=0, runs_dir=str(tmp_path), run_name="az", track=True,
        progress=False, seed=1,
    )  # fmt: skip
    meta = read_metadata(train(args))
    curve = meta["training"]["curve"]
    assert curve["unit"] == "games"
    last = curve["points"][-1]
    assert last["games"] == meta["steps_trained"] and last["phase"] == "az"
    for opp, res in meta["arena"].items():
        assert last["win_rate"][opp] == res["win_rate"]
        assert last["elo"][opp] == round(elo(res["win_rate"], res["games"]), 1)
    assert {"eval/elo_vs_random", "eval/elo_vs_greedy"} <= _scalars(tmp_path / "az")


def test_evaluation_scalars_hold_the_elo_beside_the_win_rate() -> None:
    from choco_envs.train.evaluation import PeriodicEvaluation
    from choco_envs.train.ppo import Args

    arena = {"random": {"win_rate": 1.0, "games": 4, "mean_return": 1.0}}
    evaluation = PeriodicEvaluation(Args(env_id="chocolates_v0"))
    stats = evaluation.scalars(arena)
    assert stats["eval/win_rate_vs_random"] == 1.0
    assert stats["eval/elo_vs_random"] == pytest.approx(elo(1.0, 4))
    # keep_best_tables: each other count's win rates beside them
    evaluation.tables = {"3": {"greedy": {"win_rate": 0.4, "games": 6, "mean_return": 0.0}}}
    assert evaluation.scalars(arena)["eval/3p/win_rate_vs_greedy"] == 0.4


def test_a_file_without_a_curve_still_reads(toy_checkpoint: Path) -> None:
    meta = read_metadata(toy_checkpoint)
    assert "curve" not in meta["training"] and stored_curve(meta) is None
