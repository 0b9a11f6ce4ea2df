"""The ``az`` bot: a policy-value checkpoint guiding Gumbel IS-MCTS
(``choco_envs.policy.search``) from the seat's own view.

    bots.make("az", env_id="chocolates_v0")                  # the shipped az file, its search
    bots.make("az:simulations=64", env_id="chocolates_v0")
    bots.make("az:time=0.5", env_id="chocolates_v0")         # about 0.5 s a move
    bots.make("az:checkpoint=runs/x/final.safetensors")

The network reads only the seat's policy input (``PolicyInputs``, as the policy bot); the
search reads only determinizations of the seat's view (``AgentView.determinize``). A
search-and-learn file of one table values every seat at once (one value output per seat);
a file of one value output (a PPO network, or a search-and-learn file of many tables: the
value of the seat that reads the input) values
each seat of a leaf from that seat's own input of the leaf's determinized state, all in one
forward pass, so every shipped PPO network can guide the search. A checkpoint of another
env, version or layout, or of another number of value outputs, is refused with a one-line
CheckpointError.

:class:`NetEvaluator` is the leaf evaluator both the bot and the trainer use: it encodes a
batch of (state, seat) pairs and runs the network once.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from choco_envs.core.agent import AgentView, Bot
from choco_envs.core.errors import CheckpointError
from choco_envs.policy.checkpoint import check_compatible, load_policy
from choco_envs.policy.features import PolicyInputs
from choco_envs.policy.search import GumbelSearch, Root, SearchConfig, SearchResult

#: the search of a file that stores none
DEFAULT_SIMULATIONS = 64
#: bounds of a time-budgeted search
MIN_SIMULATIONS, MAX_SIMULATIONS = 2, 4096


def check_value_outputs(outputs: int, num_players: int, where: str) -> None:
    """A network guides the search with one value per seat, or with one value (the seat
    that reads the input, asked once per seat); CheckpointError otherwise."""
    if outputs not in (1, num_players):
        raise CheckpointError(
            f"{where} has {outputs} value output(s), neither one per seat ({num_players}) "
            "nor one (the reading seat's): the search cannot value a leaf with it"
        )


class NetEvaluator:
    """``evaluate(states, players)`` for :class:`GumbelSearch`: the network's logits over
    every action (unmasked: a node's priors serve every determinization) and its value of
    every seat, own seat first, in [-1, 1]: the tanh of a per-seat value head, or, for a
    network of one value output (``by_seat``), each seat's value read from that seat's
    own input of the state (the acting seat's logits), clipped to [-1, 1] (a PPO value
    estimates the seat's return, which lies there up to the small margin term)."""

    def __init__(self, model: Any, inputs: PolicyInputs, num_players: int) -> None:
        import torch

        self.torch = torch
        self.model, self.inputs, self.num_players = model, inputs, num_players
        outputs = model.config.value_outputs
        check_value_outputs(outputs, num_players, "the network")
        self.by_seat = outputs == 1 and num_players > 1
        self._all = torch.ones((1, model.config.num_actions), dtype=torch.bool)
        self.calls = 0

    def observations(self, states: Sequence[Any], players: Sequence[int]) -> np.ndarray:
        encoder = self.inputs.encoder
        batch = getattr(encoder, "encode_batch", None)
        if batch is not None:
            obs = batch(list(states), list(players))
        else:
            obs = np.stack([encoder.encode(s, p) for s, p in zip(states, players, strict=True)])
        return self.inputs.from_observations(obs)

    def forward(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(logits, values) of a batch of inputs: a per-seat head's tanh, or the one
        value output clipped to [-1, 1] (``by_seat``)."""
        torch = self.torch
        with torch.no_grad():
            logits, values = self.model(torch.from_numpy(x), self._all.expand(x.shape[0], -1))
        self.calls += 1
        squash = torch.clamp(values, -1.0, 1.0) if self.by_seat else torch.tanh(values)
        return logits.numpy(), squash.reshape(x.shape[0], -1).numpy()

    def __call__(
        self, states: Sequence[Any], players: Sequence[int]
    ) -> tuple[np.ndarray, np.ndarray]:
        if not self.by_seat:
            return self.forward(self.observations(states, players))
        # every seat's own input of every state (seat k after the acting one: rows k*B..)
        n, b = self.num_players, len(states)
        seats = [(p + k) % n for k in range(n) for p in players]
        logits, values = self.forward(self.observations(list(states) * n, seats))
        return logits[:b], values.reshape(n, b).T.copy()


class AZBot(Bot):
    """Plays a policy-value checkpoint with search. ``simulations`` (None: the file's
    stored search, else the game's ``search_simulations`` for a PPO network, else
    :data:`DEFAULT_SIMULATIONS`) or ``seconds`` a move (then the
    budget follows the measured time per simulation); ``gumbel_scale`` 0 plays the
    search's best action without exploration noise; ``max_considered`` (None: the file's
    stored search, else 16) bounds the root actions Gumbel selection considers;
    ``leaf_batch`` (None: the file's stored search, else 1) walks of one root action run
    together, steered apart by virtual visits (``SearchConfig.leaf_batch``)."""

    name = "az"

    def __init__(
        self,
        path: str | Path,
        env_id: str | None = None,
        simulations: int | None = None,
        seconds: float | None = None,
        gumbel_scale: float = 0.0,
        seed: int | None = None,
        c_scale: float | None = None,
        max_considered: int | None = None,
        leaf_batch: int | None = None,
    ) -> None:
        import torch

        super().__init__(seed)
        self.path = Path(path)
        self.model, self.meta = load_policy(self.path, env_id)
        players = int(self.meta["options"].get("num_players", 2))
        check_value_outputs(
            self.model.config.value_outputs, players, f"checkpoint {str(self.path)!r}"
        )
        #: a PPO network (one value output, the reading seat's), not a search-and-learn file
        self.one_value = self.model.config.value_outputs == 1
        torch.set_num_threads(1)
        stored = self.meta.get("search") or {}
        self.simulations = simulations or self._simulations(stored)
        self.seconds = seconds
        self.config = SearchConfig(
            simulations=self.simulations,
            max_considered=max_considered or int(stored.get("max_considered", 16)),
            gumbel_scale=gumbel_scale,
            c_visit=float(stored.get("c_visit", 50.0)),
            c_scale=c_scale if c_scale is not None else self._c_scale(stored),
            leaf_batch=leaf_batch or int(stored.get("leaf_batch", 1)),
            # a finished game read as the file's value was trained (absent: rank returns)
            margin_weight=float(stored.get("margin_weight", 0.0)),
            margin_scale=float(stored.get("margin_scale", 5.0)),
        )
        self.name = f"az:{self.path.name}"
        self._game: object = None
        self._evaluator: NetEvaluator | None = None
        self._per_simulation: float | None = None
        #: the last search's result (the analysis panel shows its visits and q)
        self.last_result: SearchResult | None = None

    def _simulations(self, stored: dict[str, Any]) -> int:
        """The file's stored budget; else, for a PPO network, the game's
        ``search_simulations`` (its manifest); else :data:`DEFAULT_SIMULATIONS`."""
        if "simulations" in stored:
            return int(stored["simulations"])
        if not self.one_value:
            return DEFAULT_SIMULATIONS
        from choco_envs.registry import manifest

        return int(manifest(str(self.meta["env_id"])).search_simulations)

    def _c_scale(self, stored: dict[str, Any]) -> float:
        """The file's stored ``c_scale``; else 1 for a search-and-learn file, and for a PPO
        network the game's ``search_c_scale`` (its manifest): a PPO value estimates the
        return against the league it met, and rescaled to [0, 1] at every node its noise
        would outweigh the priors at 1 (docs/results.md, "Search on the PPO networks")."""
        if "c_scale" in stored:
            return float(stored["c_scale"])
        if not self.one_value:
            return 1.0
        from choco_envs.registry import manifest

        return float(manifest(str(self.meta["env_id"])).search_c_scale)

    def _evaluator_for(self, view: AgentView) -> NetEvaluator:
        game = view.game
        if self._game is not game:
            check_compatible(self.meta, self.path, game.spec.env_id, dict(game.config))
            inputs = PolicyInputs.of_checkpoint(game, self.meta)
            self._game, self._evaluator = game, NetEvaluator(self.model, inputs, game.num_players)
        assert self._evaluator is not None
        return self._evaluator

    def _budget(self) -> int:
        if self.seconds is None:
            return self.simulations
        if self._per_simulation is None:
            return MIN_SIMULATIONS * 4
        wanted = int(self.seconds / self._per_simulation)
        return max(MIN_SIMULATIONS, min(MAX_SIMULATIONS, wanted))

    def search(self, view: AgentView) -> SearchResult:
        """The search's result at ``view`` (every legal action's visits, q and improved
        policy), from the seat's own information."""
        evaluator = self._evaluator_for(view)
        sims = self._budget()
        config = SearchConfig(**{**self.config.__dict__, "simulations": sims})
        search = GumbelSearch(view.game, evaluator, config, seed=self.rng.randrange(2**31))
        start = time.perf_counter()
        result = search.run([Root(view.determinize, view.seat, view.legal_actions)])[0]
        took = (time.perf_counter() - start) / max(1, sims)
        avg = self._per_simulation
        self._per_simulation = took if avg is None else 0.7 * avg + 0.3 * took
        self.last_result = result
        return result

    def act_view(self, view: AgentView) -> int:
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        return self.search(view).action

    def policy_view(self, view: AgentView) -> tuple[int, np.ndarray]:
        """(the action played, the search's improved policy over every action of the
        game: ``SearchResult.policy`` at the legal actions, 0 elsewhere); a forced move is
        played without a search, its policy all on it. What imitation fits with
        ``imitate_soft`` (expert iteration: the network learns the search's policy)."""
        legal = view.legal_actions
        policy = np.zeros(len(view.mask), dtype=np.float32)
        if len(legal) == 1:
            policy[legal[0]] = 1.0
            return legal[0], policy
        result = self.search(view)
        policy[result.legal] = result.policy
        return result.action, policy
