"""Run by test_wheel.py with the python of a fresh virtual environment that has the built
wheel installed (never imported from the repository): which choco_envs it imports, where
the shipped checkpoints are found, and that every one makes its bot. Prints one JSON
object on its last line.

    VENV/bin/python installed_checks.py REPO_ROOT
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path


def main(repo: Path) -> dict[str, object]:
    import choco_envs
    from choco_envs import bots
    from choco_envs.policy.checkpoint import checkpoint_dir, read_metadata, shipped_checkpoint
    from choco_envs.registry import list_envs

    package = Path(choco_envs.__file__).resolve().parent
    assert package.is_relative_to(Path(sys.prefix).resolve()), (package, sys.prefix)
    assert not package.is_relative_to(repo.resolve()), package
    folder = checkpoint_dir()
    assert folder is not None and folder.resolve() == package / "checkpoints", folder
    files = {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }
    seats = []
    for rel in files:
        if not rel.endswith(".safetensors"):
            continue
        path = folder / rel
        meta = read_metadata(path)
        kind = path.stem.split("_")[0]  # ppo, ppo_classic -> ppo; az... -> az
        options = dict(meta["options"])
        assert shipped_checkpoint(meta["env_id"], options, **_prefix(kind)) == path
        bot = bots.make(kind, env_id=meta["env_id"], seed=0, env_options=options)
        loaded = getattr(bot, "path", None)  # a policy bot's file (another kind may not say)
        assert loaded is None or Path(loaded).resolve() == path.resolve(), (loaded, path)
        seats.append({"file": rel, "kind": kind, "env_id": meta["env_id"], "options": options})
    return {
        "package": str(package),
        "static": str(package / "web" / "static"),
        "checkpoints": files,
        "seats": seats,
        "envs": list_envs(),
    }


def _prefix(kind: str) -> dict[str, str]:
    """shipped_checkpoint's prefix argument where this version has one (az files)."""
    import inspect

    from choco_envs.policy.checkpoint import shipped_checkpoint

    return {"prefix": kind} if "prefix" in inspect.signature(shipped_checkpoint).parameters else {}


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]))))
