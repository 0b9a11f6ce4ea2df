"""Unit tests of the core pieces that every game relies on."""

from __future__ import annotations

import numpy as np
import pytest

from choco_envs.cli.options import parse_options
from choco_envs.core.encoding import Encoder, Layout
from choco_envs.core.errors import ConfigError
from choco_envs.core.outcomes import rank_returns
from choco_envs.core.spec import GameSpec, Option


def test_rank_returns_two_players_win_loss_draw() -> None:
    """Two players: +1 win, -1 loss, 0 draw (the rewards docs/games describe)."""
    assert rank_returns([(10.0,), (3.0,)]) == [1.0, -1.0]
    assert rank_returns([(3.0,), (10.0,)]) == [-1.0, 1.0]
    assert rank_returns([(5.0,), (5.0,)]) == [0.0, 0.0]


def test_rank_returns_many_players_linear_in_place_ties_share() -> None:
    """N players: place k is worth 1 - 2k/(N-1); tied players share the mean of their places."""
    assert rank_returns([(1.0,), (4.0,), (3.0,), (2.0,)]) == pytest.approx(
        [-1.0, 1.0, 1 / 3, -1 / 3]
    )
    # two tied for first of three: places 0 and 1 averaged -> 0.5 each, last -1
    assert rank_returns([(9.0,), (9.0,), (1.0,)]) == pytest.approx([0.5, 0.5, -1.0])
    # a tie-break in the key separates equal scores
    assert rank_returns([(9.0, 2.0), (9.0, 1.0)]) == [1.0, -1.0]


def test_rank_returns_sum_to_zero() -> None:
    keys = [(3.0,), (3.0,), (1.0,), (7.0,), (0.0,)]
    assert sum(rank_returns(keys)) == pytest.approx(0.0)


SPEC = GameSpec(
    env_id="toy_v0",
    name="Toy",
    version=0,
    min_players=2,
    max_players=4,
    hidden_information=False,
    seed_file="-",
    options=(
        Option("mode", "a", "a mode", allowed=("a", "b")),
        Option(
            "path",
            None,
            "a file",
            check=lambda v: None if v is None or isinstance(v, str) else "must be a path",
            rule=False,
        ),
    ),
)


def test_spec_fills_defaults_and_refuses_bad_values_naming_allowed_ones() -> None:
    assert SPEC.validate({}) == {"num_players": 2, "mode": "a", "path": None}
    with pytest.raises(ConfigError, match="num_players=7.*allowed values: 2, 3, 4"):
        SPEC.validate({"num_players": 7})
    with pytest.raises(ConfigError, match="mode='c'.*allowed values: 'a', 'b'"):
        SPEC.validate({"mode": "c"})
    with pytest.raises(ConfigError, match="'colour'.*known options: num_players, mode, path"):
        SPEC.validate({"colour": 1})
    with pytest.raises(ConfigError, match="must be a path"):
        SPEC.validate({"path": 3})
    with pytest.raises(ConfigError):
        SPEC.validate({"num_players": True})


def test_spec_configurations_vary_players_and_rule_options_only() -> None:
    configs = list(SPEC.configurations())
    assert len(configs) == 3 * 2
    assert {"num_players": 4, "mode": "b"} in configs
    assert all("path" not in c for c in configs)


def test_layout_names_slices_and_bounds() -> None:
    lay = Layout()
    a = lay.add("hand", 3, "cards", high=6)
    b = lay.add("score", 1, "points", low=-10, high=10)
    assert (a, b, lay.size) == (slice(0, 3), slice(3, 4), 4)
    low, high = lay.bounds()
    assert low.tolist() == [0, 0, 0, -10] and high.tolist() == [6, 6, 6, 10]
    with pytest.raises(ValueError, match="declared twice"):
        lay.add("hand", 1, "again")
    assert "| `score` | 3 | 1 | -10..10 | points |" in lay.to_markdown()


def test_encoder_planes_broadcast_channel_bounds() -> None:
    lay = Layout()
    lay.add("grid", 2, "two planes", high=5)
    enc = Encoder("planes", (2, 3, 3), lay, lambda s, p, out: out.fill(1))
    assert enc.high.shape == (2, 3, 3) and float(enc.high.max()) == 5.0
    assert np.array_equal(enc.encode(None, 0), np.ones((2, 3, 3), np.float32))
    with pytest.raises(ValueError, match="layout covers"):
        Encoder("bad", (3,), lay, lambda s, p, out: None)


def test_cli_option_parsing() -> None:
    assert parse_options(["edition=classic", "num_players=3", "packages=false"]) == {
        "edition": "classic",
        "num_players": 3,
        "packages": False,
    }
    with pytest.raises(ConfigError, match="KEY=VALUE"):
        parse_options(["edition"])


def test_layout_fingerprint_changes_when_fields_move_or_change_bounds() -> None:
    """Checkpoints store the fingerprint: the same size in another order must differ."""

    def layout(*fields: tuple[str, int, float]) -> Layout:
        lay = Layout()
        for name, size, high in fields:
            lay.add(name, size, name, high=high)
        return lay

    base = layout(("a", 2, 1.0), ("b", 3, 1.0))
    assert base.fingerprint() == layout(("a", 2, 1.0), ("b", 3, 1.0)).fingerprint()
    assert base.fingerprint() != layout(("b", 3, 1.0), ("a", 2, 1.0)).fingerprint()
    assert base.fingerprint() != layout(("a", 2, 1.0), ("b", 3, 2.0)).fingerprint()
