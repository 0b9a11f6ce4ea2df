"""Reading a JSON file that a person names (a saved game, a components file): a regular
file, read only up to a size cap, so a device (``/dev/zero``), a pipe or a huge file is
refused at once instead of being read until memory runs out."""

from __future__ import annotations

import json
import os
import stat
from typing import Any

#: the largest components file read (the authored sets are a few KB)
MAX_COMPONENTS_BYTES = 2**20


def read_json_file(
    path: str | os.PathLike[str], what: str, limit: int, error: type[Exception]
) -> Any:
    """The JSON value in the file at ``path``; ``error`` (one line, naming the file and
    what is allowed) for a missing file, a folder, anything but a regular file (a
    device, a pipe: opened without blocking and never read), a file over ``limit``
    bytes (also one that grows past it while read), a file that is not UTF-8, not JSON
    or nested too deeply. ``what`` names the kind of file: "saved game", "components file"."""
    shown = repr(str(path))[:200]
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise error(f"{what} {shown} cannot be read: no such file") from None
    except IsADirectoryError:
        raise error(f"{what} {shown}: a folder, not a JSON file") from None
    except OSError as err:
        raise error(f"{what} {shown}: cannot be read ({err.strerror or err})") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise error(f"{what} {shown}: a folder, not a JSON file")
        if not stat.S_ISREG(info.st_mode):
            raise error(
                f"{what} {shown}: not a regular file (a device, pipe or socket); allowed: "
                f"a JSON file of at most {limit:,} bytes"
            )
        if info.st_size > limit:
            raise error(
                f"{what} {shown}: {info.st_size:,} bytes; allowed: a JSON file of at most "
                f"{limit:,} bytes"
            )
        with os.fdopen(os.dup(fd), "rb") as f:
            data = f.read(limit + 1)
    except OSError as err:
        raise error(f"{what} {shown}: cannot be read ({err.strerror or err})") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise error(f"{what} {shown}: larger than {limit:,} bytes (it grew while read)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise error(f"{what} {shown}: not a text file (UTF-8 JSON is allowed)") from None
    return parse_json_text(text, f"{what} {shown}", error)


def parse_json_text(text: str, where: str, error: type[Exception]) -> Any:
    """The JSON value of ``text``; ``error`` if it is not JSON or nests too deeply."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise error(f"{where}: not valid JSON ({err})") from None
    except RecursionError:
        raise error(f"{where}: JSON nested too deeply") from None


def names_a_file(value: Any) -> bool:
    """Whether an option value is a file path (a string or a path object)."""
    return isinstance(value, (str, os.PathLike))
