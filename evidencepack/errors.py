"""The one error tree: every failure a user can see is an EvidencePackError with its exit code.

Exit codes: 0 ok, 1 checks or verification failed, 2 usage, 3 could not run.
Third-party errors are caught in the one module that calls that library and re-raised
``from`` the original as one of these types.
"""

from __future__ import annotations

# Not ``from typing import TYPE_CHECKING``: ``--help`` imports this module (tests/test_startup.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from .core.problems import Problem

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_COULD_NOT_RUN = 3

EXIT_CODES_HELP = """exit codes:
  0  ok
  1  checks or verification failed (invalid spec, rejected input, failed check)
  2  usage error (bad command-line arguments)
  3  could not run (I/O error, missing system library, signing service unreachable)"""


_OPEN, _CLOSE = "\x1e", "\x1f"  # ASCII record and unit separators: no path or value holds them


def option(name: str) -> str:
    """An option named inside an error's message: ``force``, ``cert_identity``.

    The library never writes a command-line flag; the message marks the option, and whoever
    shows it words it: the API as the keyword (``force``, the error's ``message``), the command
    line as its flag (``--force``, ``EvidencePackError.worded``)."""
    return f"{_OPEN}{name}{_CLOSE}"


def marked(text: str) -> bool:
    """Whether ``text`` names an option ``option()`` marked (still to be worded)."""
    return _OPEN in text


def word_options(text: str, word: Callable[[str], str]) -> str:
    """``text`` with every option ``option()`` marked worded by ``word``."""
    head, *marked = text.split(_OPEN)
    out = [head]
    for part in marked:
        name, _, rest = part.partition(_CLOSE)
        out += [word(name), rest]
    return "".join(out)


class EvidencePackError(Exception):
    """Base of every error evidencepack reports to a user."""

    exit_code: int = EXIT_COULD_NOT_RUN

    def __init__(self, message: str) -> None:
        worded = word_options(message, str)
        super().__init__(worded)
        self.message = worded
        """The message, each option it names (``option``) worded as the API's keyword."""
        self.marked = message
        """The message with its options marked, for ``worded``."""

    def __str__(self) -> str:
        return self.message

    def worded(self, word: Callable[[str], str]) -> str:
        """The message with each option it names worded by ``word`` (the CLI: its flag)."""
        return word_options(self.marked, word)

    def transform_text(self, change: Callable[[str], str]) -> None:
        """Pass the message's own text (not the options it names) through ``change``: a
        command that shows hidden characters as escapes keeps its options' marks."""
        head, *marked = self.marked.split(_OPEN)
        parts = [change(head)]
        for part in marked:
            name, _, rest = part.partition(_CLOSE)
            parts.append(f"{_OPEN}{name}{_CLOSE}{change(rest)}")
        self.marked = "".join(parts)
        self.message = word_options(self.marked, str)


class UsageError(EvidencePackError):
    """The command line itself is wrong: raised by the command line (``_cli/``) only; the library
    raises ``InvalidRequest``, which exits with the same code."""

    exit_code = EXIT_USAGE


class InvalidRequest(EvidencePackError):
    """A library call asked for what cannot be done: options that contradict each other or are
    missing, a value out of range, an output that exists and may not be replaced. Exit 2, as a
    usage error: the command line turns the options the message names into its flags."""

    exit_code = EXIT_USAGE


class InputError(EvidencePackError):
    """An input file is malformed, missing or not what it claims to be.

    ``found`` holds every finding as a ``Problem`` (file, line, column, field, code, message,
    hint), so that every problem is reported at once, not only the first; ``problems`` is each
    one's line of text, what the text edges print. A reader names the file and the place
    (``file``, ``where`` or ``line``); the spec validator hands over its ``Problem``s.
    """

    exit_code = EXIT_FAILED

    def __init__(
        self,
        message: str,
        problems: Sequence[str | Problem] = (),
        *,
        file: str | None = None,
        where: str | None = None,
        line: int | None = None,
    ) -> None:
        self.file = file
        """The file the error is about, by the name the reader was handed (None: not located)."""
        self.line = line
        """The 1-based line in ``file`` the error is on, when the reader knows it."""
        self.where = f"line {line}" if where is None and line is not None else where
        """Where in ``file`` (``line 7``, ``$.benchmarks[2].ttft``); None for the whole file."""
        self.detail = message
        """What is wrong; with ``file`` set, the message is ``file: where: detail``."""
        composed = located(file, self.where, message)
        super().__init__(composed)
        self._given = tuple(problems)
        self.problems: tuple[str, ...] = tuple(
            p if isinstance(p, str) else p.text for p in self._given
        ) or (composed,)

    @property
    def found(self) -> tuple[Problem, ...]:
        """Every finding as a ``Problem``: those handed over as objects as they are, a line a
        reader stated as text as its whole message, and an error with no list its own file,
        line and message."""
        from .core.problems import Problem, unlocated  # pydantic: loaded when a problem is wanted

        if not self._given:
            plain = self.line is not None or self.where is None
            message = self.detail if plain else f"{self.where}: {self.detail}"
            return (
                Problem(
                    file=self.file, line=self.line, code="input", message=message, text=self.message
                ),
            )
        return tuple(unlocated(p) if isinstance(p, str) else p for p in self._given)

    def named(self, file: str) -> InputError:
        """The same error about ``file`` (re-labelled by value, never by editing its text);
        an error that names no file comes back unchanged."""
        if self.file is None or len(self.problems) != 1:
            return self
        return InputError(self.detail, file=file, where=self.where, line=self.line)


def located(file: str | None, where: str | None, detail: str) -> str:
    """The one shape of a located message: ``file: where: detail`` (parts that are None left
    out)."""
    return ": ".join(part for part in (file, where, detail) if part is not None)


class SpecError(InputError):
    """The pack spec (pack.yaml) is invalid."""


class CheckFailed(EvidencePackError):
    """A hard check or a verification failed."""

    exit_code = EXIT_FAILED


class VerificationError(CheckFailed):
    """A signature, identity or file digest did not verify.

    ``problems`` holds every finding (one line each) when there is more than one.
    """

    def __init__(self, message: str, problems: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.problems: tuple[str, ...] = tuple(problems) or (self.message,)


class SchemaDriftError(CheckFailed):
    """The JSON Schemas in schemas/ differ from what the models generate."""


class CouldNotRun(EvidencePackError):
    """The environment prevented the run: I/O, a missing system library, an unreachable service."""

    exit_code = EXIT_COULD_NOT_RUN


class StoreError(CouldNotRun):
    """The DuckDB evidence store failed."""


class RenderError(CouldNotRun):
    """The report could not be rendered (template or WeasyPrint failure, missing libraries)."""


class SigningError(CouldNotRun):
    """Signing could not complete (no credentials, service unreachable, bad key)."""
