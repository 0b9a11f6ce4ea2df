"""One module per env id, each exposing PettingZoo's ``env`` and ``raw_env``."""
