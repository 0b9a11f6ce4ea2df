"""Command lines and config files for ``Args`` dataclasses (CleanRL style, without tyro).

Every field of the dataclass becomes a ``--kebab-case`` flag whose help is the field's
docstring. A YAML config holds only overrides of the defaults; flags given on the
command line override the config. Unknown keys are refused, naming the allowed ones.

Values on the command line: ``true``/``false`` for bools, ``256,256`` for tuples of
ints, ``a b`` or ``a,b`` for lists of strings, ``key=value`` (repeatable) for dicts (the value is read as YAML).
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import textwrap
from pathlib import Path
from typing import Any, TypeVar

from choco_envs.core.errors import ConfigError

T = TypeVar("T")


def field_docs(cls: type) -> dict[str, str]:
    """The docstring written under each field of a dataclass (read from its source)."""
    try:
        source = textwrap.dedent(inspect.getsource(cls))
    except (OSError, TypeError):
        return {}
    body = ast.parse(source).body[0]
    docs: dict[str, str] = {}
    items = getattr(body, "body", [])
    for node, after in zip(items, items[1:], strict=False):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            docs[node.target.id] = " ".join(after.value.value.split())
    return docs


def _kind(cls: type, name: str) -> str:
    hints = {f.name: str(f.type) for f in dataclasses.fields(cls)}
    return hints[name].replace(" ", "")


def _convert(kind: str, name: str, value: Any) -> Any:
    """A config or command-line value for a field of type ``kind``."""
    try:
        if kind.startswith("bool"):
            if isinstance(value, bool):
                return value
            if str(value).lower() in ("true", "1", "yes"):
                return True
            if str(value).lower() in ("false", "0", "no"):
                return False
            raise ValueError("expected true or false")
        if kind.startswith("tuple"):
            if isinstance(value, str):
                value = [v for v in value.split(",") if v.strip()]
            return tuple(int(v) for v in value)
        if kind.startswith("list"):
            if isinstance(value, str):
                value = [v.strip() for v in value.split(",") if v.strip()]
            return [str(v) for v in value]
        if kind.startswith("dict"):
            if not isinstance(value, dict):
                raise ValueError("expected a mapping")
            return dict(value)
        if value is None or (isinstance(value, str) and value.lower() == "none"):
            if "None" in kind:
                return None
            raise ValueError("None is not allowed")
        if kind.startswith("int"):
            if isinstance(value, float) and not value.is_integer():
                raise ValueError("expected an integer")
            return int(float(value)) if isinstance(value, str) and "e" in value else int(value)
        if kind.startswith("float"):
            return float(value)
        return str(value)
    except (TypeError, ValueError) as err:
        raise ConfigError(f"bad value {value!r} for {name} (type {kind}): {err}") from err


def add_arguments(parser: argparse.ArgumentParser | argparse._ArgumentGroup, cls: type) -> None:
    """One flag per field (defaults None: unset flags do not override the config)."""
    docs = field_docs(cls)
    for f in dataclasses.fields(cls):
        flag = "--" + f.name.replace("_", "-")
        help_text = f"{docs.get(f.name, '')} (default: {_default(cls, f.name)!r})"
        if _kind(cls, f.name).startswith("dict"):
            parser.add_argument(flag, action="append", metavar="KEY=VALUE", help=help_text)
        elif _kind(cls, f.name).startswith("list"):
            parser.add_argument(flag, nargs="+", default=None, help=help_text)
        else:
            parser.add_argument(flag, default=None, help=help_text)


def _default(cls: type, name: str) -> Any:
    f = {f.name: f for f in dataclasses.fields(cls)}[name]
    if f.default is not dataclasses.MISSING:
        return f.default
    return f.default_factory()  # type: ignore[misc,operator]


def load_config(path: str | Path) -> dict[str, Any]:
    import yaml

    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file {str(path)!r} does not exist")
    data = yaml.safe_load(path.read_text()) or {}
    if not isinstance(data, dict):
        raise ConfigError(f"config file {str(path)!r} must hold a mapping of Args fields")
    return data


def build(cls: type[T], config: dict[str, Any], ns: argparse.Namespace | None = None) -> T:
    """``cls`` from defaults, then ``config``, then the flags set in ``ns``."""
    import yaml

    names = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
    unknown = sorted(set(config) - set(names))
    if unknown:
        raise ConfigError(f"unknown config key(s) {unknown}; allowed keys: {', '.join(names)}")
    values = {k: _convert(_kind(cls, k), k, v) for k, v in config.items()}
    for name in names:
        given = getattr(ns, name, None) if ns is not None else None
        if given is None:
            continue
        kind = _kind(cls, name)
        if kind.startswith("dict"):
            merged = dict(values.get(name, _default(cls, name)))
            for item in given:
                key, sep, raw = item.partition("=")
                if not sep:
                    raise ConfigError(f"--{name.replace('_', '-')} expects KEY=VALUE, got {item!r}")
                merged[key] = yaml.safe_load(raw)
            values[name] = merged
        else:
            values[name] = _convert(kind, name, given)
    return cls(**values)
