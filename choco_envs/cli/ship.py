"""Put a trained file into the shipped checkpoints, only when it is measurably better.

    choco ship runs/chocolates_v0__ppo/final.safetensors
    choco ship runs/chocolates_v0__ppo/final.safetensors --force    # replace the shipped one
    choco ship runs/chocolates_v0__ppo/final.safetensors --force --head-to-head 400
    choco ship runs/chocolate_factory_v2__ppo_tables/final.safetensors --force --every-table 400
    choco ship runs/x/final.safetensors --force --head-to-head 400 --search   # two az files
    choco ship --table                                              # regenerate the table
    choco ship --curves docs/img/curves                             # every file's curve PNG
    choco ship --record az_vs_tuned.json     # store a search bot's 400-game result in its file
    choco ship --retire chocolates_v0/ppo.safetensors --head-to-head 400   # one file per env

A run's file is ``runs/<run_name>/final.safetensors``: ``choco train --config
configs/chocolates_v0/ppo.yaml`` writes ``runs/chocolates_v0__ppo/final.safetensors``
(the config's ``run_name``). ``--table`` only regenerates the table, and takes no
RUN_FILE, ``--force``, ``--name``, ``--head-to-head`` or ``--every-table``; neither does
``--curves DIR``, which draws the learning curve each shipped file stores (win rate and
Elo against the fixed bots over training minutes) as ``DIR/<env_id>__<name>.png`` and
names the files that store none (trained before curves were kept).

Training never writes into checkpoints/; this is the one step that does. It refuses:

- a file that does not load for the installed env (version, sizes, feature function);
- a file trained by a command that names a path outside the project (absolute, ``~`` or
  ``..``): its card gives that command for anyone to rerun from a checkout;
- a file over the 5,120 KB budget of a shipped file (the wheel carries every one;
  ``--float16`` ships the file's float16 copy instead, half the bytes, its evaluation
  played again with the rounded weights: ``choco_envs.train.compact``);
- a file whose stored evaluation (its metadata's ``arena``, written by ``choco train``'s
  final evaluation) has fewer than 400 games against random or against greedy;
- replacing the file that serves the same env options (or any file at the destination)
  without ``--force``;
- with ``--force``, a file that is not measurably better than the one it replaces. The
  rule: against greedy, the new file's 95% interval lies wholly above the old one's (the
  stored evaluations, >= 400 games each), or, with ``--head-to-head N`` (N >= 400), the
  new file's win rate against the old one over N games on duplicate deals, seats
  rotated, has a 95% interval wholly above an even share (1/players), or, with
  ``--every-table N`` (N >= 400; a file for many tables replacing one for the same
  tables), both files play every table (player count x modes) against greedy in every
  other seat, N games each on the same deals: the new file's pooled win rate has a 95%
  interval wholly above the old one's and no table's interval lies wholly below the old
  file's there; and in every case its interval against random is not wholly below the
  old one's; ``--head-to-head N --search`` (two az files) plays that match by the
  files' searches, ``az:checkpoint=NEW`` against ``az:checkpoint=OLD`` at each file's
  default search (a value fitted anew under a kept policy shows only in the search).
  An old file that no
  longer loads (its env changed) is replaced without a comparison.

``--retire FILE --head-to-head N`` (N >= 400) removes a shipped file for one table in
favour of the shipped file for many tables that covers it (one file then serves the
env and edition at every player count), only when the two, N games at the retired
file's table, show the covering file not measurably weaker (its 95% interval not wholly
below an even share) and its stored interval against random not wholly below the
retired file's; the covering file's card records the match.

It copies the file to ``<checkpoints>/<env_id>/<name>.safetensors`` (``--to`` or the
folder ``bots.make("ppo")`` reads, see ``choco_envs.policy.checkpoint_dir``), writes the
file's model card into ``<checkpoints>/README.md`` (what it reads, how it was trained,
the figures, the exact training and ship commands, the comparison) and regenerates that
README's table of stored evaluations (``choco ship --table`` does only that). In a
source checkout (a folder ``docs/img/curves`` beside the checkpoints folder) it also
draws the file's stored learning curve there and links it from the card.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from choco_envs.core.errors import ChocoError, ConfigError
from choco_envs.train.ship import (
    MIN_GAMES,
    curve_name,
    curves_folder,
    destination,
    record,
    retire,
    ship,
    write_curves,
    write_readme,
)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_file", nargs="?", help="the .safetensors file of a run to ship")
    parser.add_argument("--name", help="file name in <checkpoints>/<env_id>/ (default: ppo, or "
                        "the name of the shipped file it replaces)")  # fmt: skip
    parser.add_argument("--to", metavar="DIR", help="the checkpoints folder (default: "
                        "$CHOCO_CHECKPOINTS, else the source checkout's checkpoints/)")  # fmt: skip
    parser.add_argument("--force", action="store_true", help="replace the shipped file "
                        "(only if measurably better)")  # fmt: skip
    parser.add_argument("--head-to-head", type=int, default=0, metavar="N",
                        help=f"decide by N >= {MIN_GAMES} games against the file it replaces "
                        "instead of the stored evaluations against greedy")  # fmt: skip
    parser.add_argument("--every-table", type=int, default=0, metavar="N",
                        help=f"decide by N >= {MIN_GAMES} games at every table against greedy "
                        "(files for many tables)")  # fmt: skip
    parser.add_argument("--search", action="store_true", help="with --head-to-head: the two "
                        "az files' searches play it (az:checkpoint=NEW against "
                        "az:checkpoint=OLD, each its file's default search), for a file "
                        "whose policy is unchanged (a value fitted anew)")  # fmt: skip
    parser.add_argument("--seed", type=int, default=7, help="seed of the head-to-head or "
                        "every-table deals")  # fmt: skip
    parser.add_argument("--float16", action="store_true", help="ship the file's float16 copy "
                        "(half the bytes; written beside it, its stored evaluation played "
                        "again with the rounded weights)")  # fmt: skip
    parser.add_argument("--retire", metavar="FILE", help="remove this shipped file for one "
                        "table (ENV/NAME.safetensors) in favour of the shipped file for many "
                        "tables that covers it; needs --head-to-head N")  # fmt: skip
    parser.add_argument("--table", action="store_true", help="only regenerate the table of "
                        "stored evaluations in <checkpoints>/README.md")  # fmt: skip
    parser.add_argument("--curves", metavar="DIR", help="only draw each shipped file's "
                        "stored learning curve as DIR/<env_id>__<name>.png (e.g. "
                        "docs/img/curves)")  # fmt: skip
    parser.add_argument("--record", metavar="REPORT", help="store a search bot's result in "
                        "the shipped file it played: the --json report of `choco eval --bots "
                        f"az... OPPONENT --games {MIN_GAMES}` at 2 players (the file found by "
                        "the digest of its tensors the report names)")  # fmt: skip
    parser.add_argument("--default-search", action="store_true", help="with --record: the "
                        "recorded bot's c_scale, and its simulations when it played a number, "
                        "become the file's default for `az` (refused unless every search "
                        "result the file stores was played at them)")  # fmt: skip
    parser.add_argument("--progress", choices=("true", "false"), default="true",
                        help="show the head-to-head's progress")  # fmt: skip


def run(args: argparse.Namespace) -> int:
    try:
        if args.default_search and not args.record:
            raise ConfigError("--default-search sets a file's default search from a result "
                              "it stores; it needs --record REPORT")  # fmt: skip
        if args.table:
            check_table_only(args)
        if args.curves:
            check_curves_only(args)
        if args.record:
            check_record_only(args)
        root = destination(args.to)
        if args.record:
            target, line = record(Path(args.record), root, args.default_search)
            print(f"recorded in {target}: {line}")
            return 0
        if args.curves:
            for line in write_curves(root, Path(args.curves)):
                print(line)
            return 0
        if args.retire:
            check_retire(args)
            covering = retire(Path(args.retire), root, args.head_to_head, args.seed,
                              command_line(args), progress=args.progress == "true")  # fmt: skip
            print(f"retired {args.retire}: {covering} serves its table")
            return 0
        if args.table:
            print(write_readme(root, None, None))
            return 0
        if not args.run_file:
            raise ConfigError("give a RUN_FILE to ship (or --table)")
        shipped = ship(
            Path(args.run_file),
            root,
            name=args.name,
            force=args.force,
            head_to_head=args.head_to_head,
            every_table=args.every_table,
            seed=args.seed,
            float16=args.float16,
            search=args.search,
            command=command_line(args),
            progress=args.progress == "true",
        )
    except ChocoError as err:
        print(f"choco ship: error: {err}", file=sys.stderr)
        return 2
    print(f"shipped {shipped}")
    folder = curves_folder(root)
    if folder is not None and (folder / curve_name(shipped)).is_file():
        print(f"its learning curve: {folder / curve_name(shipped)}")
    return 0


def given_flags(args: argparse.Namespace, *skip: str) -> list[str]:
    """The arguments given that ship something (or retire), less those in ``skip``."""
    given = {
        "run_file": f"RUN_FILE {args.run_file!r}" if args.run_file else "",
        "force": "--force" if args.force else "",
        "name": f"--name {args.name!r}" if args.name else "",
        "head_to_head": f"--head-to-head {args.head_to_head}" if args.head_to_head else "",
        "every_table": f"--every-table {args.every_table}" if args.every_table else "",
        "float16": "--float16" if args.float16 else "",
        "search": "--search" if args.search else "",
        "table": "--table" if args.table else "",
        "retire": f"--retire {args.retire!r}" if args.retire else "",
        "curves": f"--curves {args.curves!r}" if args.curves else "",
        "record": f"--record {args.record!r}" if args.record else "",
        "default_search": "--default-search" if args.default_search else "",
    }
    return [text for key, text in given.items() if text and key not in skip]


def check_retire(args: argparse.Namespace) -> None:
    """``--retire`` removes a file and ships nothing: refuse what would ship."""
    given = given_flags(args, "retire", "head_to_head")
    if given:
        raise ConfigError(
            f"--retire removes a shipped file and ships nothing; drop {', '.join(given)}"
        )


def check_only(args: argparse.Namespace, flag: str, does: str, hint: str = "") -> None:
    """``--<flag>`` ``does`` and ships nothing: refuse the arguments that would ship."""
    given = given_flags(args, flag)
    if given:
        raise ConfigError(
            f"--{flag} only {does} and ships nothing; drop {', '.join(given)}"
            + (f" ({hint})" if hint else "")
        )


def check_table_only(args: argparse.Namespace) -> None:
    check_only(args, "table", "regenerates the table", "to ship a file: `choco ship RUN_FILE "
               "[--force]`, which regenerates the table too")  # fmt: skip


def check_curves_only(args: argparse.Namespace) -> None:
    check_only(args, "curves", "draws the shipped files' learning curves", "`choco ship "
               "RUN_FILE` draws the curve of the file it ships in a source checkout")  # fmt: skip


def check_record_only(args: argparse.Namespace) -> None:
    given = given_flags(args, "record", "default_search")
    if given:
        raise ConfigError(f"--record only stores an arena result in the shipped file it "
                          f"played and ships nothing; drop {', '.join(given)}")  # fmt: skip


def command_line(args: argparse.Namespace) -> str:
    if args.retire:
        words = ["--retire", args.retire, "--head-to-head", str(args.head_to_head),
                 "--seed", str(args.seed)]  # fmt: skip
        return "choco ship " + shlex.join(words + (["--to", args.to] if args.to else []))
    words = [args.run_file]
    words += ["--name", args.name] if args.name else []
    words += ["--to", args.to] if args.to else []
    words += ["--force"] if args.force else []
    words += ["--head-to-head", str(args.head_to_head)] if args.head_to_head else []
    words += ["--every-table", str(args.every_table)] if args.every_table else []
    words += ["--float16"] if args.float16 else []
    words += ["--search"] if args.search else []
    words += ["--seed", str(args.seed)] if args.head_to_head or args.every_table else []
    return "choco ship " + shlex.join(words)
