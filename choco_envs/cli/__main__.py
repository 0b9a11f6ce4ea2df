"""``python -m choco_envs.cli``: the `choco` command."""

from choco_envs.cli import main

raise SystemExit(main())
