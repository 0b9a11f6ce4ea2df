"""One module per env id, each exposing PettingZoo's ``env`` and ``raw_env``, made from the
registry: ``from choco_envs import chocolates_v0`` or ``import choco_envs.envs.chocolates_v0``
gives ``chocolates_v0.env(num_players=3)``. No file per env: the registry's line is the
env's declaration (adding a game adds its env module)."""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

PREFIX = f"{__name__}."


def env_module(env_id: str) -> ModuleType:
    """The module ``choco_envs.envs.<env_id>`` (made once, kept in ``sys.modules``)."""
    return importlib.import_module(PREFIX + env_id)


class _EnvModuleLoader(importlib.abc.Loader):
    def __init__(self, env_id: str) -> None:
        self.env_id = env_id

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return None  # the default module

    def exec_module(self, module: ModuleType) -> None:
        from choco_envs.core.env import make_env_functions
        from choco_envs.registry import manifest

        found = manifest(self.env_id)
        module.env, module.raw_env = make_env_functions(found.game)  # type: ignore[attr-defined]
        module.__doc__ = f"``{self.env_id}``: see {found.page}."
        module.__all__ = ["env", "raw_env"]  # type: ignore[attr-defined]


class _EnvModuleFinder(importlib.abc.MetaPathFinder):
    """Finds ``choco_envs.envs.<env_id>`` for every registered env id."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: Any = None
    ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith(PREFIX):
            return None
        from choco_envs.registry import REGISTRY

        env_id = fullname[len(PREFIX) :]
        if env_id not in REGISTRY:
            return None
        return importlib.machinery.ModuleSpec(fullname, _EnvModuleLoader(env_id))


if not any(isinstance(f, _EnvModuleFinder) for f in sys.meta_path):
    sys.meta_path.append(_EnvModuleFinder())
