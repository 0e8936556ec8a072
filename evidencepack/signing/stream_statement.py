"""A signed statement read as a stream: its header whole, its subjects one at a time.

For a pack too big to hold its statement (``stream_bundle``): the decoded payload is parsed
incrementally (``ijson``: the standard library has no streaming JSON parser), the statement's
other fields built as usual and validated by the ``Statement`` model with the first subject,
and every subject checked by the rules ``read_signed_statement`` applies (a pack path, a
lowercase hex sha256, nothing else, no signature bundle) plus one: subjects come in the pack's
walk order (``pack.layout.walk_order``), as evidencepack writes them, which also makes their
names unique without a set of them.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import Any, BinaryIO

import ijson  # type: ignore[import-untyped]

from ..errors import VerificationError
from ..pack.layout import SIGNATURE_NAMES, pack_path_problem, walk_order
from .statement import _SHA256_HEX, SignedStatement, parse_statement


def _subject_problem(item: Any) -> str | None:
    if not isinstance(item, dict) or set(item) != {"name", "digest"}:
        return "not an object of exactly name and digest"
    name, digest = item["name"], item["digest"]
    if not isinstance(name, str):
        return "name is not a string"
    if not isinstance(digest, dict) or set(digest) != {"sha256"}:
        return "digest is not an object of exactly sha256"
    sha = digest["sha256"]
    if not isinstance(sha, str) or not _SHA256_HEX.fullmatch(sha):
        return "digest.sha256 is not a lowercase hex sha256"
    problem = pack_path_problem(name)
    if problem is not None:
        return f"name: {problem}"
    if name in SIGNATURE_NAMES:
        return f"the bundle {name} cannot be a subject of itself"
    return None


class StreamedStatement:
    """A statement parsed while read: ``head`` holds every field but ``subject`` once the
    subjects begin; ``subjects()`` yields each (name, sha256) in order, once."""

    def __init__(self, payload: BinaryIO | io.RawIOBase, max_subjects: int) -> None:
        """Parse ``payload`` (a binary file), refusing more than ``max_subjects`` subjects."""
        self._events = ijson.parse(payload, use_float=True)
        self._max = max_subjects
        self.head: dict[str, Any] = {}
        self.count = 0
        self._started = False

    def _value(self, event: str, value: Any) -> Any:
        builder = ijson.ObjectBuilder()
        builder.event(event, value)
        if event in ("start_map", "start_array"):
            depth = 1
            for _, inner, inner_value in self._events:
                builder.event(inner, inner_value)
                depth += inner in ("start_map", "start_array")
                depth -= inner in ("end_map", "end_array")
                if depth == 0:
                    break
        return builder.value

    def read_head(self) -> SignedStatement:
        """Read up to the first subject; the header validated as ``parse_statement`` does.

        The subjects must come last (evidencepack writes sorted keys: ``subject`` is the last).
        """
        events = self._events
        try:
            prefix, event, value = next(events)
            if event != "start_map":
                raise VerificationError("the signed statement is not a JSON object")
            for prefix, event, value in events:
                if event == "end_map" and prefix == "":
                    raise VerificationError("the signed statement has no subject")
                if event != "map_key":
                    continue
                key = value
                prefix, event, value = next(events)
                if key == "subject":
                    if event != "start_array":
                        raise VerificationError("statement: subject: not a list")
                    break
                self.head[key] = self._value(event, value)
            first = self._next_subject()
        except ijson.JSONError as exc:
            raise VerificationError(f"the signed statement is not JSON: {exc}") from exc
        if first is None:
            raise VerificationError("statement: subject: the list is empty")
        self._first = first
        head = parse_statement(json.dumps({**self.head, "subject": [first]}).encode())
        return SignedStatement(head.predicate_type, head.predicate, {})

    def _next_subject(self) -> Any:
        prefix, event, value = next(self._events)
        if event == "end_array" and prefix == "subject":
            return None
        return self._value(event, value)

    def subjects(self) -> Iterator[tuple[str, str]]:
        """Each subject's name and sha256, in order; VerificationError for a bad one, naming
        its index. The statement's fields after the subjects (if any) are then read too."""
        item: Any = self._first
        last = ""
        try:
            while item is not None:
                index = self.count
                problem = _subject_problem(item)
                if problem is not None:
                    raise VerificationError(f"statement: subject.{index}: {problem}")
                name = item["name"]
                key = walk_order(name)
                if index and key <= last:
                    raise VerificationError(
                        f"statement: subject.{index}: {name} is "
                        + ("a duplicate name" if key == last else "out of the pack's order")
                        + " (a statement streamed lists each file once, in the pack's order)"
                    )
                last = key
                self.count += 1
                if self.count > self._max:
                    raise VerificationError(
                        f"statement: over {self._max:,} subjects, the most verify reads"
                    )
                yield name, item["digest"]["sha256"]
                item = self._next_subject()
            for _prefix, event, value in self._events:
                if event == "map_key":
                    raise VerificationError(
                        f"statement: {value}: after the subjects "
                        "(a statement streamed lists its subjects last)"
                    )
        except ijson.JSONError as exc:
            raise VerificationError(f"the signed statement is not JSON: {exc}") from exc
