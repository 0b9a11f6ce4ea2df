"""The league, through RLlib's policy mapping: who plays each seat of each game.

In every episode one seat, drawn at random, is the learning module ``main``; each other
seat is ``main`` too with probability ``self_play`` (self-play: that seat trains as
well), a frozen snapshot ``main_vK`` with probability ``past``, else a baseline bot
``bot_<spec>`` drawn by weight from ``bots``. Until the first snapshot exists, ``past``
counts as self-play. The mapping is a function of the episode id, so every seat of one
game is drawn consistently, in whichever process asks.

Bots are not RLModules (greedy reads the rules): the callback's ``on_episode_created``
(RLlib calls it before the episode's ``reset``) hands the seats mapped to ``bot_*`` to
the env, which plays them itself; RLlib never sees those seats.

Snapshots are taken by win rate, as RLlib's self-play examples do
(``ray.rllib.examples.multi_agent.utils.SelfPlayCallback``): each game ``main`` plays
against anything but itself logs a win (1) or not (0) over a window of 100 games; after
an iteration whose windowed win rate exceeds ``win_rate_threshold`` (and at least
``snapshot_gap`` iterations after the previous snapshot), a frozen copy of ``main``
joins the league, at most ``pool_size`` of them (the oldest slot is then overwritten).
"""

from __future__ import annotations

import functools
import random
import zlib
from dataclasses import dataclass, field, replace
from typing import Any

from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS

from choco_envs.core.errors import ConfigError

MAIN = "main"
BOT_PREFIX = "bot_"
#: a seat "won" when its reward is the top one (+1: first place alone)
WIN_REWARD = 1.0 - 1e-9


@dataclass(frozen=True)
class League:
    """The policy mapping: a picklable ``(agent_id, episode) -> module id``."""

    num_players: int
    self_play: float = 0.5
    past: float = 0.3
    bots: dict[str, float] = field(default_factory=lambda: {"random": 0.5, "greedy": 0.5})
    snapshots: tuple[str, ...] = ()
    seed: int = 0

    def __post_init__(self) -> None:
        for name, p in (("self_play", self.self_play), ("past", self.past)):
            if not 0.0 <= p <= 1.0:
                raise ConfigError(f"league {name}={p!r} is not allowed; allowed: 0 <= p <= 1")
        if self.self_play + self.past > 1.0 + 1e-9:
            raise ConfigError(f"league self_play + past = {self.self_play + self.past} exceeds 1")
        weights = [w for w in self.bots.values()]
        if any(not isinstance(w, (int, float)) or w < 0 for w in weights):
            raise ConfigError(f"league bots {self.bots!r}: weights must be numbers >= 0")
        if self.self_play + self.past < 1.0 - 1e-9 and not any(w > 0 for w in weights):
            raise ConfigError("league: self_play + past < 1 needs at least one bot with weight")

    def with_snapshots(self, snapshots: tuple[str, ...]) -> League:
        return replace(self, snapshots=tuple(snapshots))

    def seats(self, episode_id: str) -> list[str]:
        """The module id of every seat of the episode with this id."""
        rng = random.Random(zlib.crc32(f"{self.seed}:{episode_id}".encode()))
        learner = rng.randrange(self.num_players)
        bots = [(b, w) for b, w in self.bots.items() if w > 0]
        out = []
        for seat in range(self.num_players):
            u = rng.random()
            if (
                seat == learner
                or u < self.self_play
                or (u < self.self_play + self.past and not self.snapshots)
            ):
                out.append(MAIN)
            elif u < self.self_play + self.past:
                out.append(rng.choice(self.snapshots))
            else:
                spec = rng.choices([b for b, _ in bots], weights=[w for _, w in bots])[0]
                out.append(BOT_PREFIX + spec)
        return out

    def __call__(self, agent_id: Any, episode: Any, **kwargs: Any) -> str:
        seat = int(str(agent_id).rpartition("_")[2])
        return self.seats(str(episode.id_))[seat]


def bot_spec(module_id: str) -> str | None:
    """The bot spec of a ``bot_<spec>`` module id (None for a network module)."""
    return module_id[len(BOT_PREFIX) :] if module_id.startswith(BOT_PREFIX) else None


def _set_module_weights(module_id: str, weights: dict[str, Any], env_runner: Any) -> None:
    """Load ``weights`` into ``module_id`` of an EnvRunner (the keys its module has:
    EnvRunners hold inference-only modules)."""
    module = env_runner.module[module_id]
    own = module.state_dict()
    module.set_state({k: weights[k] for k in own if k in weights})


def _sub_env(env: Any, env_index: int) -> Any:
    """The ChocoMultiAgentEnv at ``env_index`` of an EnvRunner's vector env."""
    envs = getattr(env, "envs", None)
    return (envs[env_index] if envs is not None else env).unwrapped


class LeagueCallback(RLlibCallback):
    """Seats the bots, logs win rates and the per-seat reward check, takes snapshots."""

    def __init__(
        self,
        league: League,
        win_rate_threshold: float = 0.6,
        pool_size: int = 5,
        snapshot_gap: int = 5,
        hidden: tuple[int, ...] = (256, 256),
    ) -> None:
        super().__init__()
        self.league = league
        self.win_rate_threshold = win_rate_threshold
        self.pool_size = pool_size
        self.snapshot_gap = snapshot_gap
        self.hidden = hidden
        self.snapshots_taken = 0
        self.last_snapshot_iteration = -(10**9)
        #: (iteration, module id, win rate) of every snapshot taken
        self.history: list[tuple[int, str, float]] = []

    # ------------------------------------------------------------- env runners
    def on_episode_created(  # type: ignore[override]
        self, *, episode: Any, env: Any, env_index: int, **kwargs: Any
    ) -> None:
        sub = _sub_env(env, env_index)
        bots = {}
        for agent in sub.possible_agents:
            spec = bot_spec(episode.module_for(agent))
            if spec is not None:
                bots[agent] = spec
        sub.set_bots(bots)

    def on_episode_end(  # type: ignore[override]
        self, *, episode: Any, env: Any, env_index: int, metrics_logger: Any, **kwargs: Any
    ) -> None:
        sub = _sub_env(env, env_index)
        rewards = sub.last_rewards
        modules = {a: episode.module_for(a) for a in sub.possible_agents}
        metrics_logger.log_value("game_steps", sub.last_game_steps, reduce="sum")
        # PettingZoo issue 1147: each agent's return in RLlib's episode must be its own
        # seat's reward, never another seat's.
        mismatches = 0
        for agent, sa_episode in episode.agent_episodes.items():
            if abs(sa_episode.get_return() - rewards[agent]) > 1e-6:
                mismatches += 1
        metrics_logger.log_value("reward_mismatches", mismatches, reduce="sum")
        mains = [a for a, m in modules.items() if m == MAIN]
        others = {m for m in modules.values() if m != MAIN}
        if not others:
            return
        won = sum(rewards[a] >= WIN_REWARD for a in mains) / len(mains)
        metrics_logger.log_value("win_rate", won, window=100)
        if len(others) == 1:
            (other,) = others
            name = bot_spec(other) or "past"
            metrics_logger.log_value(f"win_rate_vs_{name}", won, window=100)

    # ------------------------------------------------------------- algorithm
    def on_train_result(  # type: ignore[override]
        self, *, algorithm: Any, result: dict[str, Any], **kwargs: Any
    ) -> None:
        runners = result.get(ENV_RUNNER_RESULTS, {})
        win_rate = runners.get("win_rate")
        iteration = int(algorithm.iteration)
        if (
            win_rate is not None
            and win_rate > self.win_rate_threshold
            and iteration - self.last_snapshot_iteration >= self.snapshot_gap
        ):
            self.take_snapshot(algorithm, iteration, float(win_rate))
        result["league_size"] = 1 + len(self.league.snapshots)
        result["snapshots_taken"] = self.snapshots_taken

    def take_snapshot(self, algorithm: Any, iteration: int, win_rate: float) -> str:
        """Freeze a copy of ``main`` into the league (a new slot, or the oldest one)."""
        slot = f"{MAIN}_v{self.snapshots_taken % self.pool_size + 1}"
        self.snapshots_taken += 1
        self.last_snapshot_iteration = iteration
        weights = algorithm.learner_group.get_weights(module_ids=[MAIN])[MAIN]
        if slot not in self.league.snapshots:
            self.league = self.league.with_snapshots((*self.league.snapshots, slot))
            main = algorithm.get_module(MAIN)
            algorithm.add_module(
                module_id=slot,
                module_spec=RLModuleSpec.from_module(main),
                new_agent_to_module_mapping_fn=self.league,
                new_should_module_be_updated=[MAIN],
            )
        algorithm.learner_group.set_weights({slot: weights})
        # Copied straight into every EnvRunner's module and waited for: RLlib's
        # sync_weights skips a state whose weights_seq_no the runner already has (this
        # iteration's), which would leave a fresh slot with its random weights.
        algorithm.env_runner_group.foreach_env_runner(
            functools.partial(_set_module_weights, slot, weights), local_env_runner=True
        )
        self.history.append((iteration, slot, win_rate))
        print(
            f"iteration {iteration}: win rate {win_rate:.3f} > {self.win_rate_threshold}: "
            f"snapshot {self.snapshots_taken} of main frozen as {slot} "
            f"(league: main, {', '.join(self.league.snapshots)}, "
            f"bots {', '.join(self.league.bots)})",
            flush=True,
        )
        return slot
