"""Safe YAML loading that remembers where every value came from and rejects duplicate keys.

PyYAML's ``SafeLoader`` builds plain Python objects; on the way we record the line and column
of each mapping key and value so validation errors can say ``pack.yaml:12:5: field.path: ...``.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..core._text import is_misleading, misleading_characters
from ..core.limits import MAX_SPEC_BYTES, MAX_YAML_DEPTH, MAX_YAML_NODES, read_limited
from ..core.problems import Problem, located
from ..errors import InputError

Loc = tuple[str | int, ...]

MAX_SHOWN_PROBLEMS = 20
"""Hidden characters named one by one; past this many the file is refused without the rest."""


@dataclass(frozen=True)
class Position:
    """A 1-based line and column in a YAML file."""

    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.line}:{self.column}"


@dataclass
class LocatedDocument:
    """A YAML document as Python data plus the source position of each node, keyed by path."""

    data: Any
    value_positions: dict[Loc, Position] = field(default_factory=dict)
    key_positions: dict[Loc, Position] = field(default_factory=dict)

    def position(self, loc: Loc, *, prefer_key: bool = False) -> tuple[Position, Loc]:
        """The position of the deepest known node along ``loc`` and the part of ``loc`` it matched.

        Elements of ``loc`` that name no node (pydantic adds union member names such as
        ``"str"``) are skipped, so the matched path is what a user sees in the file.
        """
        matched: Loc = ()
        for element in loc:
            trial = (*matched, element)
            if trial in self.value_positions:
                matched = trial
        if prefer_key and matched in self.key_positions:
            return self.key_positions[matched], matched
        return self.value_positions.get(matched, Position(1, 1)), matched


_PLAIN_TAGS = frozenset(
    f"tag:yaml.org,2002:{name}"
    for name in ("map", "seq", "str", "int", "float", "bool", "null", "timestamp")
)


def _mark(node: yaml.Node) -> Position:
    return Position(node.start_mark.line + 1, node.start_mark.column + 1)


def load_located(path: Path, *, read_from: Path | None = None) -> LocatedDocument:
    """Parse one YAML document from ``path`` with the safe loader, keeping node positions.

    ``read_from`` (default ``path``) is the file whose bytes are read, such as a build's private
    snapshot of ``path``; messages still name ``path``.

    Raises InputError listing every syntax problem or duplicate key with ``file:line:col``.
    The file must be a regular file of at most ``MAX_SPEC_BYTES``; nesting deeper than
    ``MAX_YAML_DEPTH`` and more than ``MAX_YAML_NODES`` nodes (aliases expanded) are refused.
    """
    raw = read_limited(read_from or path, MAX_SPEC_BYTES, what="YAML file", label=str(path))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text (byte {exc.start}: {exc.reason})") from exc
    hidden = hidden_characters(text, path)
    if hidden:
        raise InputError(f"{path}: {len(hidden)} hidden character(s) in the spec", hidden)
    try:
        root, loader = _compose(text, path, _FAST_LOADER)
    except yaml.YAMLError:  # said as PyYAML's own parser says it, whichever found it
        root, loader = _compose(text, path, yaml.SafeLoader)
    doc = LocatedDocument(data=None)
    problems: list[Problem] = []
    if root is None:
        raise _error(path, Position(1, 1), "the file is empty")
    doc.data = _build(root, (), doc, problems, path, loader, [0])
    if problems:
        raise InputError(f"{path}: {len(problems)} YAML problem(s)", problems)
    return doc


_FAST_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's parser, with PyYAML's safe constructor and resolver: the same nodes, marks and
values as ``SafeLoader`` at a tenth of the time. A document it refuses is parsed again by
``SafeLoader``, whose messages the errors quote."""


def _compose(
    text: str, path: Path, loader_class: type[yaml.SafeLoader]
) -> tuple[yaml.Node | None, yaml.SafeLoader]:
    """The document's root node (nesting checked first) and the loader that composed it, whose
    constructor makes its values. A syntax error of ``SafeLoader`` is an InputError naming
    where; any other loader's error is raised as it is."""
    fast = loader_class is not yaml.SafeLoader
    try:
        _check_shape(text, path, loader_class)
        loader = loader_class(text)
        try:
            return loader.get_single_node(), loader
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        if fast:
            raise
        if isinstance(exc, yaml.MarkedYAMLError):
            raise _syntax_error(path, exc) from exc
        raise InputError(f"{path}: YAML error: {_one_line(exc)}") from exc


_LINE_BREAKS = frozenset("\u0085\u2028\u2029")
"""Line breaks for YAML (1.1: a comment ends there) that editors, ``cat`` and diffs do not show."""


def is_hidden(char: str) -> bool:
    """A character a spec may not hold: a control other than tab and newlines, a format
    character (bidi, zero-width), or a line break only YAML sees (NEL, U+2028, U+2029)."""
    return char in _LINE_BREAKS or is_misleading(char)


def hidden_characters(text: str, path: Path) -> list[Problem]:
    """One located problem per character of ``text`` that makes the file read differently from
    what the parser sees: NEL, LINE and PARAGRAPH SEPARATOR (they end a YAML comment, so
    ``# ok\u2028waivers: [...]`` is one comment line on screen and a waiver to the parser),
    controls other than tab and newlines, and format characters (bidi overrides, zero-width
    characters), in comments as in values. A byte order mark opening the file is allowed."""
    problems: list[Problem] = []
    if not any(is_hidden(char) for char in set(text)):  # each distinct character looked at once
        return problems
    line, start = 1, 0
    for index, char in enumerate(text):
        if char == "\n":
            line, start = line + 1, index + 1
            continue
        if is_hidden(char) and not (index == 0 and char == "\ufeff"):
            name = unicodedata.name(char, "CONTROL CHARACTER")
            problems.append(
                located(
                    str(path),
                    line,
                    index - start + 1,
                    None,
                    "input",
                    f"hidden character U+{ord(char):04X} {name}: the file would read differently "
                    "from what it holds (remove it, or write it as an escape such as "
                    '"\\u2028" in a quoted value)',
                )
            )
            if len(problems) >= MAX_SHOWN_PROBLEMS:
                break
    return problems


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


def _syntax_error(path: Path, exc: yaml.MarkedYAMLError) -> InputError:
    mark = exc.problem_mark or exc.context_mark
    where = Position(mark.line + 1, mark.column + 1) if mark else Position(1, 1)
    message = f"YAML syntax error: {exc.problem or _one_line(exc)}"
    return _error(path, where, message, "yaml_syntax")


def _at(
    path: Path, where: Position, field: str | None, message: str, code: str = "input"
) -> Problem:
    """The problem at ``where`` in the YAML file ``path``."""
    return located(str(path), where.line, where.column, field, code, message)


def _error(path: Path, where: Position, message: str, code: str = "input") -> InputError:
    """The error of one problem at ``where``, its text the message."""
    problem = _at(path, where, None, message, code)
    return InputError(problem.text, [problem])


def _check_shape(text: str, path: Path, loader_class: type[yaml.SafeLoader]) -> None:
    """Refuse deep nesting from the event stream, before the recursive composer sees it."""
    depth = 0
    for event in yaml.parse(text, Loader=loader_class):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_YAML_DEPTH:
                mark = event.start_mark
                where = Position(mark.line + 1, mark.column + 1) if mark else Position(1, 1)
                raise _error(path, where, f"nesting deeper than {MAX_YAML_DEPTH} levels")
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def _build(
    node: yaml.Node,
    loc: Loc,
    doc: LocatedDocument,
    problems: list[Problem],
    path: Path,
    loader: yaml.SafeLoader,
    count: list[int],
) -> Any:
    count[0] += 1
    if count[0] > MAX_YAML_NODES:
        raise _error(
            path,
            _mark(node),
            f"more than {MAX_YAML_NODES} YAML nodes once aliases are expanded (an alias bomb?)",
        )
    doc.value_positions[loc] = _mark(node)
    if node.tag not in _PLAIN_TAGS:
        problems.append(
            _at(path, _mark(node), _dotted(loc), f"the YAML tag {node.tag!r} is not allowed")
        )
        return None
    if isinstance(node, yaml.MappingNode):
        result: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                problems.append(
                    _at(path, _mark(key_node), None, "YAML merge keys (<<) are not supported")
                )
                continue
            if not isinstance(key_node, yaml.ScalarNode):
                problems.append(
                    _at(path, _mark(key_node), None, "mapping keys must be plain scalars")
                )
                continue
            before = len(problems)
            key = _scalar(key_node, loc, problems, path, loader)
            if len(problems) > before:
                continue
            if not isinstance(key, str | int):
                key = str(key)
            child = (*loc, key)
            if key in result:
                first = doc.key_positions[child]
                problems.append(
                    _at(
                        path,
                        _mark(key_node),
                        _dotted(child),
                        f"duplicate key (first defined at line {first.line})",
                    )
                )
                continue
            doc.key_positions[child] = _mark(key_node)
            result[key] = _build(value_node, child, doc, problems, path, loader, count)
        return result
    if isinstance(node, yaml.SequenceNode):
        return [
            _build(item, (*loc, index), doc, problems, path, loader, count)
            for index, item in enumerate(node.value)
        ]
    return _scalar(node, loc, problems, path, loader)


def _scalar(
    node: yaml.Node, loc: Loc, problems: list[Problem], path: Path, loader: yaml.SafeLoader
) -> Any:
    """One scalar's value, or None with a problem (a date such as 2026-02-30, a control)."""
    try:
        value = loader.construct_object(node)
    except yaml.constructor.ConstructorError as exc:
        problems.append(_at(path, _mark(node), _dotted(loc), str(exc.problem)))
        return None
    except (ValueError, OverflowError) as exc:
        problems.append(_at(path, _mark(node), _dotted(loc), f"{node.value!r}: {exc}"))
        return None
    if isinstance(value, str):
        bad = misleading_characters(value)
        if bad:
            problems.append(
                _at(
                    path,
                    _mark(node),
                    _dotted(loc),
                    f"control or bidi character(s) {', '.join(bad)} (text would read "
                    "differently from what it holds)",
                )
            )
            return None
    return value


def _dotted(loc: Loc) -> str:
    out = ""
    for element in loc:
        if isinstance(element, int):
            out += f"[{element}]"
        else:
            out += f".{element}" if out else str(element)
    return out or "(document)"


dotted = _dotted
