"""The ``az`` bot: a policy-value checkpoint guiding Gumbel IS-MCTS
(``choco_envs.policy.search``) from the seat's own view.

    bots.make("az", env_id="chocolates_v0")                  # the shipped az file, its search
    bots.make("az:simulations=64", env_id="chocolates_v0")
    bots.make("az:time=0.5", env_id="chocolates_v0")         # about 0.5 s a move
    bots.make("az:checkpoint=runs/x/final.safetensors")

The network reads only the seat's policy input (``PolicyInputs``, as the policy bot); the
search reads only determinizations of the seat's view (``AgentView.determinize``). A
checkpoint that is not a policy-value file (one value per seat) of the env, version and
layout of the game it meets is refused with a one-line CheckpointError.

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


class NetEvaluator:
    """``evaluate(states, players)`` for :class:`GumbelSearch`: the network's logits over
    every action (unmasked: a node's priors serve every determinization) and its value of
    every seat (tanh of the value head, own seat first)."""

    def __init__(self, model: Any, inputs: PolicyInputs, num_players: int) -> None:
        import torch

        self.torch = torch
        self.model, self.inputs, self.num_players = model, inputs, num_players
        outputs = model.config.value_outputs
        if outputs != num_players:
            raise CheckpointError(
                f"the network has {outputs} value output(s); the search needs one per seat "
                f"({num_players}): use a file trained by `choco train --engine az`"
            )
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
        torch = self.torch
        with torch.no_grad():
            logits, values = self.model(torch.from_numpy(x), self._all.expand(x.shape[0], -1))
        self.calls += 1
        return logits.numpy(), torch.tanh(values).reshape(x.shape[0], -1).numpy()

    def __call__(
        self, states: Sequence[Any], players: Sequence[int]
    ) -> tuple[np.ndarray, np.ndarray]:
        return self.forward(self.observations(states, players))


class AZBot(Bot):
    """Plays a policy-value checkpoint with search. ``simulations`` (None: the file's
    stored search, else :data:`DEFAULT_SIMULATIONS`) or ``seconds`` a move (then the
    budget follows the measured time per simulation); ``gumbel_scale`` 0 plays the
    search's best action without exploration noise."""

    name = "az"

    def __init__(
        self,
        path: str | Path,
        env_id: str | None = None,
        simulations: int | None = None,
        seconds: float | None = None,
        gumbel_scale: float = 0.0,
        seed: int | None = None,
    ) -> None:
        import torch

        super().__init__(seed)
        self.path = Path(path)
        self.model, self.meta = load_policy(self.path, env_id)
        players = int(self.meta["options"].get("num_players", 2))
        if self.model.config.value_outputs != players:
            raise CheckpointError(
                f"checkpoint {str(self.path)!r} has {self.model.config.value_outputs} value "
                f"output(s), not one per seat ({players}): it is not a search-and-learn "
                "(az) file; play it with policy:PATH"
            )
        torch.set_num_threads(1)
        stored = self.meta.get("search") or {}
        self.simulations = simulations or int(stored.get("simulations", DEFAULT_SIMULATIONS))
        self.seconds = seconds
        self.config = SearchConfig(
            simulations=self.simulations,
            max_considered=int(stored.get("max_considered", 16)),
            gumbel_scale=gumbel_scale,
            c_visit=float(stored.get("c_visit", 50.0)),
            c_scale=float(stored.get("c_scale", 1.0)),
        )
        self.name = f"az:{self.path.name}"
        self._game: object = None
        self._evaluator: NetEvaluator | None = None
        self._per_simulation: float | None = None
        #: the last search's result (the analysis panel shows its visits and q)
        self.last_result: SearchResult | None = None

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
