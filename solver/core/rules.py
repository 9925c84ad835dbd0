"""Rule sets as data: named presets shipped with the package, or a user's TOML/JSON file.

Every game keeps its rule options in a frozen dataclass built from a plain dict by
``from_data``; this module finds and reads the dict and offers :class:`Reader`, a
small validator whose errors name the file and the field.

Presets are ``<name>.toml`` files in a game's own ``presets/`` folder; the game passes
that folder in, so this module knows no game.

>>> import tempfile
>>> folder = Path(tempfile.mkdtemp())
>>> _ = (folder / "house.toml").write_text('game = "demo"\\nstakes = 2\\n')
>>> preset_names(folder)
['house']
>>> load_rule_data("demo", "house", folder)
('house', {'game': 'demo', 'stakes': 2})
>>> load_rule_data("demo", {"base": "house", "stakes": 3}, folder)
('custom', {'game': 'demo', 'stakes': 3, 'name': 'custom'})
"""

from __future__ import annotations

import copy
import json
import math
import os
import re
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, Protocol

from solver.core.errors import RulesError
from solver.core.files import read_text
from solver.core.inputs import check_rules_spec

__all__ = [
    "Reader",
    "RuleSet",
    "RuleSpec",
    "load_rule_data",
    "merge_rules",
    "preset_names",
    "read_rule_file",
    "to_toml",
]

MAX_RULE_FILE = 1 << 20
"""The largest rule file read (bytes); a rule set is a few hundred."""

RuleSpec = str | os.PathLike[str] | Mapping[str, Any] | None
"""How a caller names a rule set: a preset name, a rule file's path, a dict, or ``None``
(the game's default preset)."""


class RuleSet(Protocol):
    """What every game's rule set offers (each game has its own frozen dataclass)."""

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    def to_data(self) -> dict[str, Any]:
        """The full rule set as plain data (what a rule file with every field says)."""
        ...


_NAMES: dict[str, list[str]] = {}


def preset_names(folder: Traversable) -> list[str]:
    """Names of the presets in a game's ``presets/`` folder (``<name>.toml`` files),
    listed once per process."""
    key = str(folder)
    if key not in _NAMES:
        _NAMES[key] = sorted(
            p.name[: -len(".toml")] for p in folder.iterdir() if p.name.endswith(".toml")
        )
    return list(_NAMES[key])


_PRESETS: dict[tuple[str, str], dict[str, Any]] = {}


def _preset(presets: Traversable, name: str) -> dict[str, Any]:
    """A shipped preset's data, read once per process (callers get a copy)."""
    key = (str(presets), name)
    if key not in _PRESETS:
        res = presets / f"{name}.toml"
        _PRESETS[key] = _parse_text(res.read_text(encoding="utf-8"), f"preset {name}", False)
    return _PRESETS[key]


def _parse_text(text: str, source: str, as_json: bool) -> dict[str, Any]:
    try:
        data = json.loads(text) if as_json else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        kind = "JSON" if as_json else "TOML"
        raise RulesError(f"rule file {source}: not valid {kind}: {exc}") from None
    except RecursionError:
        raise RulesError(f"rule file {source}: nested too deeply to be a rule set") from None
    if not isinstance(data, dict):
        raise RulesError(f"rule file {source}: the top level must be a table/object")
    return data


def load_rule_data(
    game: str,
    spec: str | os.PathLike[str] | Mapping[str, Any] | None,
    presets: Traversable,
    default: str | None = None,
) -> tuple[str, dict[str, Any]]:
    """Find the rule set ``spec`` for ``game``: a preset name (a file in ``presets``), a
    file path, or a dict.

    Returns ``(name, data)``. A file must say ``game = "<game>"``; its ``name`` defaults
    to the file's stem. ``None`` means ``default`` (the game's default preset). A file
    (or dict) with ``base = "<preset>"`` starts from that preset and changes only the
    fields it states (tables merge key by key, see :func:`merge_rules`).
    """
    check_rules_spec(spec, game)
    if spec is None:
        if default is None:
            raise RulesError(f"no rule set given for {game}")
        spec = default
    if isinstance(spec, Mapping):
        data = dict(spec)
        source = "<dict>"
        name = str(data.get("name", "custom"))
    else:
        text_spec = os.fspath(spec)
        names = preset_names(presets)
        if text_spec in names:
            data = copy.deepcopy(_preset(presets, text_spec))
            if "base" not in data:
                return text_spec, data
            return _based(game, data, text_spec, text_spec, presets)
        path = Path(text_spec)
        looks_like_file = path.suffix.lower() in (".toml", ".json") or os.sep in text_spec
        if not looks_like_file:
            raise RulesError(
                f"unknown rule set {text_spec!r} for {game} "
                f"(presets: {', '.join(names)}; or give a .toml/.json file)"
            )
        data = read_rule_file(text_spec)
        if not data:
            raise RulesError(
                f"rule file {text_spec} is empty; a rule file names its game, e.g. "
                f'game = "{game}" and base = "<preset>", then what differs'
            )
        source = text_spec
        name = str(data.get("name", path.stem))
    file_game = data.get("game", game)
    if file_game != game:
        raise RulesError(f"rule file {source}: it is for game {file_game!r}, not {game!r}")
    if "base" in data:
        return _based(game, data, name, source, presets)
    return name, data


def _based(
    game: str, data: dict[str, Any], name: str, source: str, presets: Traversable
) -> tuple[str, dict[str, Any]]:
    """``data`` (which says ``base = "<preset>"``) laid on that preset. A preset may be
    written this way too (``shoe6`` is ``classic`` with six decks)."""
    base = data.pop("base")
    names = preset_names(presets)
    if not isinstance(base, str) or base not in names or (base == name and source == name):
        raise RulesError(
            f"rule file {source}: field 'base' is {base!r}; expected a preset of "
            f"{game}: {', '.join(n for n in names if n != name or source != name)}"
        )
    _, preset = load_rule_data(game, base, presets)
    preset.pop("description", None)
    merged = merge_rules(preset, data)
    merged["name"] = name
    return name, merged


def read_rule_file(path: str) -> dict[str, Any]:
    """The data of a rule file (TOML, or JSON by its ``.json`` suffix): read bounded,
    decoded, parsed, its top level a table — or a one-line :class:`RulesError`."""
    text = read_text(path, "rule file", MAX_RULE_FILE, error=RulesError)
    return _parse_text(text, path, Path(path).suffix.lower() == ".json")


def merge_rules(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """``over`` laid on ``base``: tables merge key by key, anything else replaces.

    >>> merge_rules({"a": 1, "t": {"x": 1, "y": 2}}, {"t": {"y": 3}, "b": [1]})
    {'a': 1, 't': {'x': 1, 'y': 3}, 'b': [1]}
    """
    out = dict(base)
    for k, v in over.items():
        if isinstance(v, Mapping) and isinstance(out.get(k), Mapping):
            out[k] = merge_rules(out[k], v)
        else:
            out[k] = v
    return out


class Reader:
    """Validating accessor over a rule dict; errors name the source and the field.

    >>> r = Reader({"commission": 0.05, "game": "niuniu"}, "demo")
    >>> r.number("commission", minimum=0, maximum=1)
    0.05
    >>> r.string("tie_break", choices=("a", "b"))
    Traceback (most recent call last):
    ...
    solver.core.errors.RulesError: rule set demo: missing field 'tie_break'
    """

    _ABSENT = object()

    def __init__(self, data: Mapping[str, Any], source: str, path: str = "") -> None:
        self.data = dict(data)
        self.source = source
        self.path = path
        self.used: set[str] = set()

    def _where(self, key: str) -> str:
        return f"{self.path}{key}"

    def fail(self, key: str, message: str) -> RulesError:
        return RulesError(f"rule set {self.source}: field {self._where(key)!r} {message}")

    def _get(self, key: str, default: Any) -> Any:
        self.used.add(key)
        if key in self.data:
            return self.data[key]
        if default is Reader._ABSENT:
            raise RulesError(f"rule set {self.source}: missing field {self._where(key)!r}")
        return default

    def has(self, key: str) -> bool:
        return key in self.data

    def string(self, key: str, choices: Iterable[str] | None = None, default: Any = _ABSENT) -> str:
        value = self._get(key, default)
        if not isinstance(value, str):
            raise self.fail(key, f"must be a string, got {value!r}")
        if choices is not None:
            options = tuple(choices)
            if value not in options:
                raise self.fail(key, f"is {value!r}; expected one of: {', '.join(options)}")
        return value

    def boolean(self, key: str, default: Any = _ABSENT) -> bool:
        value = self._get(key, default)
        if not isinstance(value, bool):
            raise self.fail(key, f"must be true or false, got {value!r}")
        return value

    def integer(
        self,
        key: str,
        minimum: int | None = None,
        maximum: int | None = None,
        default: Any = _ABSENT,
    ) -> int:
        value = self._get(key, default)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(key, f"must be an integer, got {value!r}")
        self._bounds(key, value, minimum, maximum)
        return value

    def number(
        self,
        key: str,
        minimum: float | None = None,
        maximum: float | None = None,
        default: Any = _ABSENT,
    ) -> float:
        value = self._get(key, default)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.fail(key, f"must be a number, got {value!r}")
        if isinstance(value, float) and not math.isfinite(value):
            raise self.fail(key, f"must be a finite number, got {value!r}")
        self._bounds(key, value, minimum, maximum)
        return float(value) if isinstance(value, float) else value

    def _bounds(self, key: str, value: float, minimum: float | None, maximum: float | None) -> None:
        if minimum is not None and value < minimum:
            raise self.fail(key, f"is {value!r}; must be at least {minimum}")
        if maximum is not None and value > maximum:
            raise self.fail(key, f"is {value!r}; must be at most {maximum}")

    def string_list(
        self,
        key: str,
        choices: Iterable[str] | None = None,
        unique: bool = True,
        default: Any = _ABSENT,
    ) -> list[str]:
        value = self._get(key, default)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(key, f"must be a list of strings, got {value!r}")
        if choices is not None:
            options = tuple(choices)
            for v in value:
                if v not in options:
                    raise self.fail(key, f"has unknown entry {v!r}; expected: {', '.join(options)}")
        if unique and len(set(value)) != len(value):
            dup = next(v for v in value if value.count(v) > 1)
            raise self.fail(key, f"lists {dup!r} twice")
        return list(value)

    def table(self, key: str, default: Any = _ABSENT) -> Reader:
        value = self._get(key, default)
        if not isinstance(value, Mapping):
            raise self.fail(key, f"must be a table/object, got {value!r}")
        return Reader(value, self.source, f"{self._where(key)}.")

    def keys(self) -> list[str]:
        return list(self.data)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self.data))

    def done(self, ignore: Iterable[str] = ("game", "name", "description")) -> None:
        """Reject fields nobody asked for (typos must not pass silently)."""
        extra = set(self.data) - self.used - set(ignore)
        if extra:
            key = sorted(extra)[0]
            raise RulesError(f"rule set {self.source}: unknown field {self._where(key)!r}")


_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _toml_key(key: str) -> str:
    return key if _BARE_KEY.match(key) else json.dumps(key, ensure_ascii=False)


def _toml_value(value: Any, where: str) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise RulesError(f"rule set field {where!r}: {value!r} has no TOML spelling")
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a TOML basic string
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v, where) for v in value) + "]"
    if isinstance(value, Mapping):  # an inline table
        inner = ", ".join(f"{_toml_key(k)} = {_toml_value(v, where)}" for k, v in value.items())
        return "{" + inner + "}"
    raise RulesError(f"rule set field {where!r}: {value!r} has no TOML spelling")


def to_toml(data: Mapping[str, Any], comment: str = "") -> str:
    """A rule set as a TOML rule file (``tomllib`` reads it back to the same dict).

    Scalars and lists first, then each table (``[a]``, ``[a.b]``) in order; a list of
    tables is an array of tables (``[[a]]``), its tables' own tables written inline.

    >>> text = to_toml({"game": "x", "n": 2, "d": {"k": [1, 2], "sub": {"on": True}}})
    >>> print(text)
    game = "x"
    n = 2
    <BLANKLINE>
    [d]
    k = [1, 2]
    <BLANKLINE>
    [d.sub]
    on = true
    <BLANKLINE>
    >>> tomllib.loads(text) == {"game": "x", "n": 2, "d": {"k": [1, 2], "sub": {"on": True}}}
    True
    >>> print(to_toml({"c": [{"name": "a", "m": {"x": 1}}]}))
    [[c]]
    name = "a"
    m = {x = 1}
    <BLANKLINE>
    """
    out: list[str] = [f"# {line}".rstrip() for line in comment.splitlines()]

    def rows(v: Any) -> bool:
        return isinstance(v, list) and bool(v) and all(isinstance(x, Mapping) for x in v)

    def table(prefix: list[str], body: Mapping[str, Any]) -> None:
        plain = [(k, v) for k, v in body.items() if not isinstance(v, Mapping) and not rows(v)]
        nested = [(k, v) for k, v in body.items() if isinstance(v, Mapping)]
        arrays = [(k, v) for k, v in body.items() if rows(v)]
        if prefix and (plain or not nested):
            if out:
                out.append("")
            out.append("[" + ".".join(_toml_key(p) for p in prefix) + "]")
        for k, v in plain:
            out.append(f"{_toml_key(k)} = {_toml_value(v, '.'.join([*prefix, k]))}")
        for k, v in nested:
            table([*prefix, k], v)
        for k, v in arrays:
            name = ".".join(_toml_key(p) for p in [*prefix, k])
            for item in v:
                if out:
                    out.append("")
                out.append(f"[[{name}]]")
                for ik, iv in item.items():
                    out.append(f"{_toml_key(ik)} = {_toml_value(iv, name + '.' + ik)}")

    table([], data)
    return "\n".join(out) + "\n"
