"""The `choco` command line: every subcommand explains itself, `choco play` survives bad
input and announces the opponents' moves, `choco list` and `choco bench` run."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

import choco_envs
from choco_envs.cli import COMMANDS, main
from choco_envs.cli.play import play
from choco_envs.registry import list_envs


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_subcommand_explains_itself(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main([command, "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert f"usage: choco {command}" in out and len(out.splitlines()) > 3


def test_top_level_help_lists_the_commands() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "choco_envs.cli", "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for command in ("play", "eval", "train", "bench", "list"):
        assert command in out


def test_play_reasks_bad_input_and_finishes_the_game() -> None:
    """Bad input is asked again; opponents' moves are announced; the game ends cleanly."""
    answers = "banana\n0\n999\n" + "1\n" * 60
    out = io.StringIO()
    scores = play("chocolates_v0", {"num_players": 2}, 0, ["random"], 5, io.StringIO(answers), out)
    text = out.getvalue()
    assert len(scores) == 2
    assert "'banana' is not a move" in text and "'999' is not a move" in text
    assert "player_1 (random): " in text
    assert "=== game over ===" in text


def test_play_refuses_a_bad_seat_and_an_unknown_env(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "chocolates_v0", "--seat", "5"]) == 2
    assert "--seat 5 is not allowed" in capsys.readouterr().err
    assert main(["play", "no_such_env_v0"]) == 2
    assert "unknown env 'no_such_env_v0'" in capsys.readouterr().err


def test_list_names_every_env(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", "--markdown"]) == 0
    out = capsys.readouterr().out
    assert list_envs()
    for env_id in list_envs():
        assert f"| {env_id} |" in out


def test_list_names_each_envs_bot_kinds(capsys: pytest.CaptureFixture[str]) -> None:
    """`choco list` shows the kinds a bot spec may name for each env (what `choco eval
    --help` points to)."""
    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    bots = {lines[i].split()[0]: lines[i + 3].split("bots:")[1] for i in range(0, len(lines), 4)}
    assert "plan" in bots["chocolates_v0"] and "alphabeta" not in bots["chocolates_v0"]
    assert "alphabeta" in bots["le_chocolat_v0"] and "tuned" in bots["chocolatiers_v1"]
    assert all("greedy" in b and "mcts" in b and "random" in b for b in bots.values())


def test_bench_reports_ratios_against_connect_four(tmp_path: Path) -> None:
    """A short `choco bench` run writes every column, the reference and the verdicts."""
    out = tmp_path / "bench.json"
    assert main(["bench", "--env", "chocolates_v0", "--seconds", "0.3", "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["reference_connect_four_steps_per_s"] > 0
    row = result["rows"][0]
    assert row["env"].startswith("chocolates_v0") and row["aec_ratio"] > 0 and row["raw_ratio"] > 0
    assert row["copy_us"] > 0 and row["state_bytes"] > 0
    from choco_envs.registry import make_game

    measured = {r["encoder"] for r in result["encoders"]}
    assert measured == set(make_game("chocolates_v0").encoders)  # every encoder, not only flat
    assert all(r["ratio"] > 0 and isinstance(r["ok"], bool) for r in result["encoders"])
    # each ratio is the median of its rounds' ratios, each beside the reference's round
    import statistics

    assert result["rounds"] == 5 and len(row["aec_round_ratios"]) == 5
    assert row["aec_ratio"] == pytest.approx(statistics.median(row["aec_round_ratios"]))
    assert row["raw_ratio"] == pytest.approx(statistics.median(row["raw_round_ratios"]))
    assert all(
        r["ratio"] == pytest.approx(statistics.median(r["round_ratios"]))
        for r in result["encoders"]
    )


def test_bench_refuses_rounds_below_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--env", "chocolates_v0", "--rounds", "0"]) == 2
    assert "--rounds 0 is not allowed; allowed: an integer >= 1" in capsys.readouterr().err


def test_a_ratio_is_taken_beside_its_row_so_a_load_change_moves_both_sides() -> None:
    """The machine halves its speed after the run's first reference was measured: a ratio
    against that first figure would read half the truth (1.0), while the reference
    measured in rounds interleaved with the row keeps it (2.0)."""
    from choco_envs.cli.bench import ROUNDS, beside

    speed = {"now": 1.0}
    start = 100.0 * speed["now"]  # the run's first reference, on the fast machine
    speed["now"] = 0.5  # then the load comes
    calls: list[str] = []

    def reference(seconds: float) -> float:
        calls.append("ref")
        return 100.0 * speed["now"]

    def env(seconds: float) -> float:
        calls.append("env")
        return 200.0 * speed["now"]

    paired = beside(env, reference, 3.0)
    assert (paired.best, paired.ref) == (100.0, 50.0) and paired.best / start == 1.0
    assert paired.ratio == 2.0 and paired.ratios == [2.0] * ROUNDS
    assert calls == ["ref", "env"] * ROUNDS  # interleaved round by round
    alone = beside(env, None, 3.0)  # no reference: the rate alone
    assert (alone.best, alone.ref, alone.ratio) == (100.0, None, None)


def test_a_ratio_is_the_median_of_its_rounds_so_one_load_change_does_not_move_it() -> None:
    """The load comes in round 1 between the reference's round and the env's, and stays:
    the best of each side, divided, pairs the reference's unloaded round with the env's
    loaded ones and reads 200 / 100 = 2.0 against a true 4.0; the median of the rounds'
    ratios reads 4.0 (one round of five reads 2.0)."""
    from choco_envs.cli.bench import beside

    refs = iter([100.0, 50.0, 50.0, 50.0, 50.0])  # the machine at full speed, then halved
    envs = iter([200.0, 200.0, 200.0, 200.0, 200.0])  # 400 at full speed: always halved
    paired = beside(lambda t: next(envs), lambda t: next(refs), 5.0, rounds=5)
    assert (paired.best, paired.ref) == (200.0, 100.0) and paired.best / paired.ref == 2.0
    assert paired.ratios == [2.0, 4.0, 4.0, 4.0, 4.0] and paired.ratio == 4.0


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (
            ["play", "chocolatiers_v1", "--option", "edition"],
            "--option 'edition' is not of the form KEY=VALUE",
        ),
        (
            ["play", "chocolates_v0", "--option", "x=1", "--option", "x=2"],
            "--option x is given twice",
        ),
        (
            ["play", "chocolates_v0", "--players", "2", "--option", "num_players=3"],
            "num_players is given twice",
        ),
        (
            ["eval", "--env", "chocolates_v0", "--bots", "policy:x.safetensors,foo=1"],
            "unknown option 'foo' for policy; allowed options: sample",
        ),
        (
            [
                "eval",
                "--env",
                "chocolates_v0",
                "--bots",
                "random",
                "--players",
                "2",
                "--env-option",
                "num_players=3",
            ],
            "num_players is given twice",
        ),
        (
            ["eval", "--env", "chocolates_v0", "--bots", "random", "--plot", "/nonexistent/x.png"],
            "does not exist or is not writable",
        ),
        (
            ["eval", "--env", "chocolates_v0", "--bots", "random", "--plot", "out.txt"],
            "allowed file types: .png, .svg, .pdf",
        ),
        (
            ["eval", "--env", "chocolates_v0", "--bots", "random", "--json", "/proc/x.json"],
            "is not writable",
        ),
        (["bench", "--seconds", "-1"], "--seconds -1.0 is not allowed"),
    ],
)
def test_bad_command_lines_exit_2_with_one_line(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert said in err and "Traceback" not in err


def test_options_take_the_spelling_that_choco_list_shows() -> None:
    """`choco list` shows packages=True (True|False): that spelling is accepted."""
    from choco_envs.cli.options import parse_options

    assert parse_options(["packages=False", "a=true", "b=None", "n=3", "x=0.5", "e=classic"]) == {
        "packages": False,
        "a": True,
        "b": None,
        "n": 3,
        "x": 0.5,
        "e": "classic",
    }


def test_eval_prints_the_table_before_writing_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    md = tmp_path / "t.md"
    assert (
        main(
            [
                "eval",
                "--env",
                "chocolates_v0",
                "--bots",
                "random",
                "random",
                "--games",
                "2",
                "--quiet",
                "--markdown",
                str(md),
            ]
        )
        == 0
    )
    assert "random" in capsys.readouterr().out and md.read_text()


def test_eval_with_a_human_plays_in_this_process(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--bots human random --workers 2` would leave the human's prompt in a worker that
    never sees the terminal: the games run here instead, and end of input ends cleanly."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    argv = ["eval", "--env", "chocolates_v0", "--bots", "human", "random", "--games", "2"]
    assert main([*argv, "--workers", "2", "--quiet"]) == 130
    assert "the games run in this process" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("keys", "seat", "said"),
    [
        ([(5,), (9,), (1,), (7,)], 3, "you finish 2nd place of 4"),
        ([(5,), (9,), (9,), (7,)], 1, "you finish shared 1st place of 4 (with 1 other)"),
        ([(5,), (9,), (1,), (7,)], 1, "you win: 1st place of 4"),
        ([(5,), (9,), (1,), (7,)], 2, "you finish 4th place of 4"),
        ([(5,), (5,)], 0, "a draw"),
    ],
)
def test_play_says_the_place(keys: list[tuple[int]], seat: int, said: str) -> None:
    from choco_envs.cli.play import verdict

    class Ranked:
        num_players = len(keys)

        def ranking_key(self, state: object, p: int) -> tuple[int]:
            return keys[p]

    assert verdict(Ranked(), None, seat) == said


# ---------------------------------------------------------------- issue 26, item 7
@pytest.mark.parametrize("typed", ["q\n", "quit\n", ""])
def test_play_ends_with_status_0_when_the_person_quits_or_input_ends(
    typed: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`q` and end of input are the person's own ending, not Ctrl-C's 130."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(typed))
    assert main(["play", "chocolates_v0", "--opponents", "random", "--seed", "1"]) == 0
    assert "game abandoned" in capsys.readouterr().err


def test_play_keeps_130_for_an_interruption(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    class CtrlC(io.StringIO):
        def readline(self, *args: object) -> str:
            raise KeyboardInterrupt

    monkeypatch.setattr(sys, "stdin", CtrlC())
    assert main(["play", "chocolates_v0", "--opponents", "random", "--seed", "1"]) == 130


def test_ship_table_refuses_a_run_file_and_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`choco ship --table --force RUN_FILE` ignored RUN_FILE and --force without a word."""
    run_file = str(tmp_path / "final.safetensors")
    assert main(["ship", "--table", "--force", run_file, "--to", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--table only regenerates the table" in err
    assert f"RUN_FILE {run_file!r}" in err and "--force" in err
    assert not (tmp_path / "README.md").exists()


def test_ship_help_names_the_file_choco_train_writes() -> None:
    """The example is runs/<run_name>/final.safetensors of the config it names."""
    import yaml

    from choco_envs.cli import ship
    from choco_envs.train.ppo import Args

    root = Path(__file__).resolve().parents[2]
    config = yaml.safe_load((root / "configs/chocolates_v0/ppo.yaml").read_text())
    written = Args(run_name=config["run_name"]).run_dir / "final.safetensors"
    assert f"choco ship {written.as_posix()}\n" in str(ship.__doc__)
    words = " ".join(str(ship.__doc__).split())
    assert f"``choco train --config configs/chocolates_v0/ppo.yaml`` writes ``{written}``" in words


def test_train_rllib_help_shows_the_rllib_examples(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["train", "--engine", "rllib", "--help"])
    out = capsys.readouterr().out
    assert "choco train --engine rllib --config configs/chocolates_v0/rllib.yaml" in out
    assert "configs/chocolates_v0/ppo.yaml" not in out and "Ray RLlib" in out


def test_unknown_options_and_choco_list_name_every_env_option(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The error listed only `num_players, components`; `choco list` showed no env option."""
    from choco_envs.core.env import ENV_OPTIONS

    assert main(["play", "chocolates_v0", "--option", "colour=red"]) == 2
    err = capsys.readouterr().err
    assert "unknown option(s) 'colour'" in err and "num_players, components" in err
    assert all(name in err for name in ENV_OPTIONS)
    assert main(["list"]) == 0
    blocks = capsys.readouterr().out.split("\n")
    env_lines = [line for line in blocks if "env options:" in line]
    assert len(env_lines) == len(choco_envs.list_envs())
    for line in env_lines:
        assert all(f"{name}=" in line for name in ENV_OPTIONS)
    assert "observation='flat' ('flat'|'planes')" in env_lines[0]
