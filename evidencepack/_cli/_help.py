"""``evidencepack --help`` (and ``evidencepack`` alone) written without importing argparse.

The top-level help is argparse's, character for character at every terminal width
(tests/test_startup.py compares the two from 1 to 300 columns): the same usage wrapping, the
same help column, help texts wrapped by ``textwrap`` as argparse wraps them. It exists because
importing argparse (and the ``shutil`` and ``gettext`` its help formatting needs) costs more than
the whole start-up budget of ``--help`` (issue 29: <= 2x ``python -c pass``); a command's own
``--help`` and every other command line still go through argparse.
"""

from __future__ import annotations

import os
import sys

USAGE_PREFIX = "usage: "
# argparse's own help of the -h and --version options (untranslated: CPython ships no catalog)
HELP_HELP = "show this help message and exit"
VERSION_HELP = "show program's version number and exit"

INDENT = 2
MAX_HELP_POSITION = 24


def _terminal_columns() -> int:
    """The columns ``shutil.get_terminal_size()`` reports (``COLUMNS``, else the terminal of
    ``sys.__stdout__``, else 80): what argparse's formatter starts from."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            stdout = sys.__stdout__  # None (no stdout): AttributeError, as in shutil
            columns = os.get_terminal_size(stdout.fileno()).columns or 80  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 80
    return columns


def _usage(prog: str, opt_parts: list[str], pos_parts: list[str], width: int) -> str:
    """argparse's ``_format_usage`` for these parts, wrapped at ``width`` as argparse wraps."""
    usage = " ".join([prog, *opt_parts, *pos_parts])
    if len(USAGE_PREFIX) + len(usage) <= width:
        return USAGE_PREFIX + usage

    def get_lines(parts: list[str], indent: str, prefix: str | None = None) -> list[str]:
        lines: list[str] = []
        line: list[str] = []
        line_len = len(prefix if prefix is not None else indent) - 1
        for part in parts:
            if line_len + 1 + len(part) > width and line:
                lines.append(indent + " ".join(line))
                line = []
                line_len = len(indent) - 1
            line.append(part)
            line_len += len(part) + 1
        if line:
            lines.append(indent + " ".join(line))
        if prefix is not None:
            lines[0] = lines[0][len(indent) :]
        return lines

    if len(USAGE_PREFIX) + len(prog) <= 0.75 * width:
        indent = " " * (len(USAGE_PREFIX) + len(prog) + 1)
        lines = get_lines([prog, *opt_parts], indent, USAGE_PREFIX)
        lines.extend(get_lines(pos_parts, indent))
    else:
        indent = " " * len(USAGE_PREFIX)
        lines = get_lines(opt_parts + pos_parts, indent)
        if len(lines) > 1:
            lines = get_lines(opt_parts, indent) + get_lines(pos_parts, indent)
        lines = [prog, *lines]
    return USAGE_PREFIX + "\n".join(lines)


def wrap(text: str, width: int) -> list[str]:
    """argparse's ``_split_lines``: whitespace collapsed, then ``textwrap.wrap(text, width)``.

    Printable ASCII whose lines break only before words without a hyphen is wrapped here,
    greedily, as textwrap does it (its chunks are then the words and the single spaces between
    them); anything else (a hyphen where a line breaks, a word longer than ``width``, other
    characters) goes to textwrap itself, which with ``re`` costs ``--help`` a third of its time.
    """
    words = text.split()
    if all(" " <= c <= "~" or c in "\t\n\r\x0b\x0c" for c in text):  # split() is then \s+
        lines: list[str] = []
        line = ""
        for word in words:
            if len(word) > width:
                break
            if not line:
                line = word
            elif len(line) + 1 + len(word) <= width:
                line += " " + word
            elif "-" in word:
                break
            else:
                lines.append(line)
                line = word
        else:
            return [*lines, line] if line else lines
    import re
    import textwrap

    return textwrap.wrap(re.sub(r"\s+", " ", text, flags=re.ASCII).strip(), width)


def _action(header: str, help_text: str | None, indent: int, help_position: int, width: int) -> str:
    """argparse's ``_format_action`` of one argument (or one command of the subcommands)."""
    if not help_text:
        return f"{'':{indent}}{header}\n"
    action_width = help_position - indent - 2
    if len(header) <= action_width:
        parts = [f"{'':{indent}}{header:<{action_width}}  "]
        indent_first = 0
    else:
        parts = [f"{'':{indent}}{header}\n"]
        indent_first = help_position
    lines = wrap(help_text, max(width - help_position, 11))
    parts.append(f"{'':{indent_first}}{lines[0]}\n")
    parts.extend(f"{'':{help_position}}{line}\n" for line in lines[1:])
    return "".join(parts)


def format_top_help(
    prog: str,
    description: str,
    epilog: str,
    options: list[tuple[str, str, str]],
    metavar: str,
    commands: list[tuple[str, str]],
) -> str:
    """The help argparse prints for a parser of ``options`` (usage part, invocation, help; ``-h``
    and ``--version`` included) and one subcommand positional ``metavar`` listing ``commands``
    (name, one-line help); ``description`` and ``epilog`` printed raw."""
    width = _terminal_columns() - 2
    max_help_position = min(MAX_HELP_POSITION, max(width - 20, INDENT * 2))
    longest = max(
        max(len(name) for name, _ in commands) + INDENT,
        len(metavar) + INDENT,
        *(len(invocation) + INDENT for _, invocation, _ in options),
    )
    help_position = min(longest + 2, max_help_position)
    positional = _action(metavar, None, INDENT, help_position, width) + "".join(
        _action(name, text, 2 * INDENT, help_position, width) for name, text in commands
    )
    optional = "".join(
        _action(invocation, text, INDENT, help_position, width) for _, invocation, text in options
    )
    usage = _usage(prog, [part for part, _, _ in options], [metavar, "..."], width)
    text = (
        f"{usage}\n\n{description}\n\n\npositional arguments:\n{positional}\n"
        f"\noptions:\n{optional}\n{epilog}\n\n"
    )
    while "\n\n\n" in text:  # argparse's _long_break_matcher
        text = text.replace("\n\n\n", "\n\n")
    return text.strip("\n") + "\n"
