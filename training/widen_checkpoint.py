"""Widen a flat MLP checkpoint to a longer observation that starts with its own.

    python training/widen_checkpoint.py checkpoints/chocolatiers_v1/ppo_classic.safetensors \
        --encoder derived --out /tmp/classic_derived.safetensors

The new input columns start at zero, so the widened policy plays exactly as before; train
it further with ``choco train ... --encoder derived --resume <out>``.
"""

from __future__ import annotations

import argparse

from choco_envs.policy.widen import widen_checkpoint


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("source", help="checkpoint trained on the shorter observation")
    parser.add_argument("--encoder", required=True, help="the longer observation (e.g. derived)")
    parser.add_argument("--out", required=True, help="where to write the widened checkpoint")
    parser.add_argument(
        "--action-features",
        action="store_true",
        help="also add the encoder's per-action fields straight to their actions' logits "
        "(one weight per field, 0 at first)",
    )
    parser.add_argument(
        "--feature-weight",
        type=float,
        default=0.0,
        help="with --action-features: the fields' weight at first (default 0: the policy "
        "is unchanged; a large one makes it follow a field that marks one action)",
    )
    args = parser.parse_args(argv)
    path = widen_checkpoint(
        args.source, args.encoder, args.out, args.action_features, args.feature_weight
    )
    print(f"wrote {path} (observation {args.encoder!r})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
