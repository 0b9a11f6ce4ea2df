"""A toy game for the training tests (see rules.py), registered on the fly."""

from tests.training.toy_nim.rules import ENV_ID, REGISTRY_ENTRY, ToyNim

__all__ = ["ENV_ID", "REGISTRY_ENTRY", "ToyNim"]
