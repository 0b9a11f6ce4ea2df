"""A trainer's ``Args`` dataclass from a YAML config and command-line flags.

A config holds only overrides of the ``Args`` defaults; flags override the config. Every
field is a ``--kebab-case`` flag whose help is the docstring written under the field
(CleanRL style). Values follow the field's type: ``true``/``false`` for bools,
``--hidden 128 128`` (or ``128,128``) for tuples of ints, ``--options num_players=3``
(repeatable; the value read as YAML, a flow mapping too: ``--table-weights
'num_players={3: 2, 4: 2}'``; ``num_players={}`` clears the config's entry) for dicts,
merged into the config's key by key.

Everything wrong is a one-line :class:`ConfigError` naming the file or flag, the field
and what is allowed: a missing or unreadable file, broken YAML, a key that is not a field,
a value of the wrong type, an old name of a setting (``RENAMED``: ``lr`` is
``learning_rate`` now; the error names the new one). The dataclass's own ``check()``
(when it has one) then refuses values out of range.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import math
import textwrap
import types
import typing
from pathlib import Path
from typing import Any, TypeVar

from choco_envs.core.errors import ConfigError

T = TypeVar("T")
#: where an old-name flag lands in the namespace (``build`` refuses it)
RENAMED_DEST = "renamed__"


def field_docs(cls: type) -> dict[str, str]:
    """The docstring written under each field of a dataclass (read from its source), its
    base classes' fields included (``RunSpec``'s shared settings)."""
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if dataclasses.is_dataclass(klass):
            docs.update(_own_field_docs(klass))
    return docs


def _own_field_docs(cls: type) -> dict[str, str]:
    try:
        source = textwrap.dedent(inspect.getsource(cls))
    except (OSError, TypeError):
        return {}
    body = ast.parse(source).body[0]
    items = getattr(body, "body", [])
    docs: dict[str, str] = {}
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


def renamed(cls: type) -> dict[str, str]:
    """Old setting names of ``cls`` (its ``RENAMED``) -> their new names, for the names
    that are not fields of ``cls`` themselves and whose new name is."""
    names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    table: dict[str, str] = getattr(cls, "RENAMED", {})
    return {old: new for old, new in table.items() if old not in names and new in names}


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _types(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _default(f: dataclasses.Field) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    return f.default_factory()  # type: ignore[misc,operator]


def add_flags(parser: argparse.ArgumentParser | argparse._ArgumentGroup, cls: type) -> None:
    """One flag per field of ``cls``; an unset flag is absent from the namespace. A
    shared setting the engine does not read (``cls.NOT_READ``) says so in its help; an
    old name (``cls.RENAMED``) is a hidden flag that ``build`` refuses."""
    docs, kinds = field_docs(cls), _types(cls)
    not_read: dict[str, str] = getattr(cls, "NOT_READ", {})
    engine = getattr(cls, "ENGINE", "") or "this"
    for f in dataclasses.fields(cls):
        flag = _flag(f.name)
        note = (
            f" [not read by the {engine} engine: {not_read[f.name]}]" if f.name in not_read else ""
        )
        help_text = f"{docs.get(f.name, '')} (default: {_default(f)!r}){note}".replace("%", "%%")
        origin = typing.get_origin(kinds[f.name])
        common: dict[str, Any] = {"default": argparse.SUPPRESS, "help": help_text}
        if origin is dict:
            parser.add_argument(flag, action="extend", nargs="+", metavar="KEY=VALUE", **common)
        elif origin is tuple:
            parser.add_argument(flag, nargs="*", metavar="N", **common)
        else:
            parser.add_argument(flag, metavar=f.name.upper(), **common)
    for old in renamed(cls):
        parser.add_argument(
            _flag(old), dest=RENAMED_DEST + old, nargs="*", default=argparse.SUPPRESS,
            help=argparse.SUPPRESS,
        )  # fmt: skip


def load_yaml(path: str | Path) -> dict[str, Any]:
    """The mapping in the YAML file at ``path``; ConfigError when it is missing,
    unreadable, not YAML or not a mapping."""
    import yaml

    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file {str(path)!r} does not exist or is not a file")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"config file {str(path)!r} cannot be read: {err}") from None
    except yaml.YAMLError as err:
        where = getattr(err, "problem_mark", None)
        at = f" at line {where.line + 1}" if where is not None else ""
        problem = getattr(err, "problem", None) or type(err).__name__
        raise ConfigError(f"config file {str(path)!r} is not valid YAML{at}: {problem}") from None
    if data is None:
        return {}
    if not isinstance(data, dict) or not all(isinstance(k, str) for k in data):
        raise ConfigError(f"config file {str(path)!r} must hold a mapping of field: value")
    return data


def build(
    cls: type[T],
    config: dict[str, Any] | None = None,
    flags: argparse.Namespace | None = None,
    source: str = "config",
) -> T:
    """``cls`` from its defaults, then ``config`` (named ``source`` in errors), then the
    flags set in ``flags``; then ``check()`` when ``cls`` has one."""
    config = dict(config or {})
    fields = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    kinds = _types(cls)
    for old, new in renamed(cls).items():
        if old in config:
            raise ConfigError(f"{source}: key {old} was renamed; use {new}")
        if flags is not None and hasattr(flags, RENAMED_DEST + old):
            raise ConfigError(f"{_flag(old)} was renamed; use {_flag(new)}")
    unknown = sorted(set(config) - set(fields))
    if unknown:
        raise ConfigError(
            f"{source}: unknown key(s) {', '.join(unknown)}; allowed keys: {', '.join(fields)}"
        )
    values = {k: convert(kinds[k], v, f"{source}: {k}") for k, v in config.items()}
    for name in fields:
        if flags is None or not hasattr(flags, name):
            continue
        given, label = getattr(flags, name), "--" + name.replace("_", "-")
        kind = kinds[name]
        if typing.get_origin(kind) is dict:
            merged = dict(values.get(name, _default(fields[name])))
            merged.update(convert(kind, _pairs(given, label), label))
            values[name] = merged
        elif typing.get_origin(kind) is tuple:
            items = [part for item in given for part in item.split(",") if part.strip()]
            values[name] = convert(kind, [_scalar(x) for x in items], label)
        else:
            values[name] = convert(kind, _scalar(given), label)
    args = cls(**values)
    check = getattr(args, "check", None)
    if callable(check):
        check()
    return args


def _scalar(text: str) -> Any:
    """A flag's text as a YAML scalar (``3`` an int, ``true`` a bool, ``none`` None)."""
    import yaml

    if not text.strip():
        return text
    if text.strip().lower() == "none":
        return None
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError:
        return text
    return value if isinstance(value, (bool, int, float, str)) or value is None else text


def _pairs(items: list[str], label: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"{label} expects KEY=VALUE, got {item!r}")
        out[key.strip()] = _item_value(raw, f"{label} {key.strip()}")
    return out


def _item_value(text: str, where: str) -> Any:
    """A dict flag's ``KEY=VALUE`` value: a YAML flow mapping or list as such (``{3: 2}``,
    ``[a, b]``), else as :func:`_scalar` reads it."""
    import yaml

    stripped = text.strip()
    if stripped[:1] in ("{", "["):
        try:
            value = yaml.safe_load(stripped)
        except yaml.YAMLError as err:
            raise ConfigError(
                f"{where}: {text!r} is not a YAML mapping or list ({str(err).splitlines()[0]})"
            ) from None
        if isinstance(value, (dict, list)):
            return value
    return _scalar(text)


def _number(text: str) -> Any:
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def convert(kind: Any, value: Any, where: str) -> Any:
    """``value`` as a value of type ``kind``, or ConfigError naming ``where``."""
    origin, params = typing.get_origin(kind), typing.get_args(kind)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in params:
            return None
        (inner,) = [p for p in params if p is not type(None)]
        return convert(inner, value, where)
    if kind is Any:
        return value
    if kind is bool:
        if isinstance(value, bool):
            return value
        raise ConfigError(f"{where}: {value!r} is not allowed; allowed: true or false")
    if kind in (int, float) and isinstance(value, str):
        value = _number(value)  # YAML reads 1e-3 (no dot) as text
    if kind is int:
        if isinstance(value, float) and value.is_integer() and math.isfinite(value):
            value = int(value)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise ConfigError(f"{where}: {value!r} is not allowed; allowed: an integer")
    if kind is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if math.isfinite(value):
                return float(value)
        raise ConfigError(f"{where}: {value!r} is not allowed; allowed: a finite number")
    if kind is str:
        if isinstance(value, str):
            return value
        raise ConfigError(f"{where}: {value!r} is not allowed; allowed: a string")
    if origin is tuple:
        if not isinstance(value, (list, tuple)):
            raise ConfigError(f"{where}: {value!r} is not allowed; allowed: a list")
        return tuple(convert(params[0], v, where) for v in value)
    if origin is dict:
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: {value!r} is not allowed; allowed: a mapping")
        return {
            convert(params[0], k, where): convert(params[1], v, f"{where}.{k}")
            for k, v in value.items()
        }
    raise TypeError(f"field type {kind!r} is not supported")  # a trainer's bug, not input


def add_config_and_flags(parser: argparse.ArgumentParser, cls: type) -> None:
    """``--config FILE`` and one flag per field of ``cls`` (a trainer's Args)."""
    parser.add_argument(
        "--config", metavar="FILE", help="YAML file of Args overrides (configs/<env_id>/...)"
    )
    add_flags(parser.add_argument_group("Args (each also a config key, in snake_case)"), cls)


def args_from_namespace(cls: type[T], ns: argparse.Namespace) -> T:
    """``cls`` from its defaults, then ``--config``, then the flags given (ConfigError)."""
    config = load_yaml(ns.config) if getattr(ns, "config", None) else {}
    return build(cls, config, ns, source=f"config {ns.config!r}" if ns.config else "config")
