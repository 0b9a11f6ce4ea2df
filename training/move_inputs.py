"""Make a policy read one observation field where it read another.

    python training/move_inputs.py runs/le_chocolat_v0_search.safetensors \
        --move cut_right_value=cut_right_search --move cut_below_value=cut_below_search \
        --move claim_value=claim_search --out runs/le_chocolat_v0_search_moved.safetensors

The first layer's weights of each SRC field move to DST (which must have zero weights,
e.g. a field the policy was just widened to) and SRC's become 0, so the policy now reads
DST exactly as it read SRC (choco_envs.policy.widen.move_inputs). Train on with
``choco train ... --resume <out>``.
"""

from __future__ import annotations

import argparse

from choco_envs.policy.widen import move_inputs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("source", help="checkpoint to change")
    parser.add_argument(
        "--move",
        action="append",
        required=True,
        metavar="SRC=DST",
        help="observation field whose weights move, = the field that gets them (repeatable)",
    )
    parser.add_argument("--out", required=True, help="where to write the new checkpoint")
    args = parser.parse_args(argv)
    moves = []
    for text in args.move:
        src, sep, dst = text.partition("=")
        if not sep or not src or not dst:
            parser.error(f"--move {text!r}: allowed: SRC=DST, two observation field names")
        moves.append((src, dst))
    path = move_inputs(args.source, moves, args.out)
    print(f"wrote {path} ({len(moves)} field(s) moved)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
