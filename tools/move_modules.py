"""Move evidencepack's loose top-level modules into subpackages and rewrite every import.

    python tools/move_modules.py            # git mv, then rewrite evidencepack/, tests/,
                                            # benchmarks/, docs/ and the repository's .md files

Safe to run again (after merging branches written against the old layout): a module already
moved is not moved twice, and only imports that still name an old place are rewritten.

- relative imports inside ``evidencepack/`` are resolved (against the file's place; for a moved
  file whose import no longer resolves there, against its old place), mapped through ``MOVES``
  and written relative to the file's place again; ``from .. import progress`` follows the module;
- ``evidencepack.OLD`` (dotted, in code, strings and text) becomes ``evidencepack.NEW``, and the
  path ``evidencepack/OLD.py`` becomes ``evidencepack/NEW.py``;
- a moved module that finds files beside itself (``resources.py``: ``Path(__file__)``) is fixed;
- ruff then sorts the touched imports and formats the touched files.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "evidencepack"

CORE = ("_atomic", "_display", "_models", "_numbers", "_text", "limits", "pack_paths")
CORE += ("problems", "progress", "provenance", "resources")
COMMANDS = ("check_outputs", "command_reports", "init_spec")
MOVES: dict[str, str] = {
    **{f"evidencepack.{name}": f"evidencepack.core.{name}" for name in CORE},
    **{f"evidencepack.{name}": f"evidencepack.commands.{name}" for name in COMMANDS},
}
"""old module -> new module. Kept at the top: __init__, __main__, errors, pipeline, plugins,
schemas (and the packages, api/ among them)."""

PACKAGE_DOCS = {
    "evidencepack.core": (
        '"""The shared leaves every stage may import: errors\' neighbours that import only each\n'
        "other (all-or-nothing writes, hidden characters, strict models, numbers, size limits,\n"
        "pack paths, problems, progress, file digests, bundled data). Imports nothing itself.\n"
        '"""\n'
    ),
    "evidencepack.commands": (
        '"""What some commands make besides the pipeline\'s pack: ``init``\'s first spec, the\n'
        "decision as JUnit XML and Markdown, the ``build``/``init``/``schemas`` JSON documents.\n"
        'Imports nothing itself."""\n'
    ),
}

FIXUPS: dict[str, list[tuple[str, str]]] = {
    "evidencepack.core.resources": [
        (
            "_PACKAGE_DIR = Path(__file__).resolve().parent\n",
            "_PACKAGE_DIR = Path(__file__).resolve().parent.parent  # evidencepack/, above core/\n",
        )
    ],
}
"""Text a moved module needs changed beyond its imports: (old, new), applied once."""

TEXT_ROOTS = ("evidencepack", "tests", "benchmarks", "docs", "tools", ".ci", ".github")
TEXT_FILES = ("ARCHITECTURE.md", "pyproject.toml", "action.yml")
TEXT_SUFFIXES = {".py", ".md", ".toml", ".yml", ".yaml", ".txt", ".cfg", ".ini", ""}


def module_path(module: str) -> Path:
    """Where ``module`` lives (a ``.py`` file), relative to the repository."""
    return ROOT / (module.replace(".", "/") + ".py")


def module_of(path: Path) -> str:
    """The module name of a file under evidencepack/."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def exists(module: str) -> bool:
    """A module or package of the repository's evidencepack."""
    base = ROOT / module.replace(".", "/")
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def moved(module: str) -> str:
    """``module``'s place now (itself when it did not move)."""
    return MOVES.get(module, module)


def move_files() -> list[str]:
    """``git mv`` each module not moved yet; make the new packages. The moves made."""
    done = []
    for package, doc in PACKAGE_DOCS.items():
        init = module_path(package).with_suffix("") / "__init__.py"
        if not init.exists():
            init.parent.mkdir(parents=True, exist_ok=True)
            init.write_text(doc, encoding="utf-8")
            subprocess.run(["git", "add", str(init)], cwd=ROOT, check=True)
    for old, new in MOVES.items():
        source, target = module_path(old), module_path(new)
        if source.exists() and not target.exists():
            subprocess.run(["git", "mv", str(source), str(target)], cwd=ROOT, check=True)
            done.append(f"{old} -> {new}")
            for before, after in FIXUPS.get(new, []):
                text = target.read_text(encoding="utf-8")
                if before in text:
                    target.write_text(text.replace(before, after, 1), encoding="utf-8")
        elif source.exists():
            sys.exit(f"both {source} and {target} exist: merge them by hand first")
    return done


def _absolute(package: str, level: int, module: str | None) -> str:
    parts = package.split(".")
    base = parts[: len(parts) - level + 1]
    return ".".join(base + ([module] if module else []))


def _relative(package: str, target: str) -> str:
    here, there = package.split("."), target.split(".")
    common = 0
    while common < min(len(here), len(there)) and here[common] == there[common]:
        common += 1
    return "." * (len(here) - common + 1) + ".".join(there[common:])


_OLD_PLACE = {new: old for old, new in MOVES.items()}


def _rewrite_imports(path: Path, *, relative: bool = True) -> bool:
    """Rewrite ``path``'s relative imports (``relative``: a module of evidencepack/) and its
    ``from evidencepack import OLD`` to the new places; True if the file changed."""
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text)
    name = module_of(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    old_name = _OLD_PLACE.get(name)
    old_package = old_name.rpartition(".")[0] if old_name else None
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    edits: list[tuple[int, int, str]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level == 0 and node.module != "evidencepack":
            continue  # absolute: the dotted-name pass rewrites it
        if node.level and not relative:
            continue  # a test's or benchmark's own modules
        if node.level:
            base = _absolute(package, node.level, node.module)
            if not exists(base) and old_package is not None:
                base = _absolute(old_package, node.level, node.module)
        else:
            base = "evidencepack"
        groups: dict[str, list[ast.alias]] = {}
        for alias in node.names:
            sub = f"{base}.{alias.name}"
            target = moved(sub).rpartition(".")[0] if sub in MOVES else moved(base)
            groups.setdefault(target, []).append(alias)
        spelled = {t: (_relative(package, t) if node.level else t) for t in groups}
        start = offsets[node.lineno - 1] + node.col_offset
        end = offsets[node.end_lineno - 1] + node.end_col_offset  # type: ignore[operator]
        source = text[start:end]
        if len(groups) == 1:
            (target,) = groups
            head = re.match(r"from\s+([.\w]+)\s+import", source)
            assert head is not None, source
            if head.group(1) != spelled[target]:
                new = source[: head.start(1)] + spelled[target] + source[head.end(1) :]
                edits.append((start, end, new))
            continue
        indent = " " * node.col_offset
        statements = []
        for target, aliases in groups.items():
            names = ", ".join(a.name + (f" as {a.asname}" if a.asname else "") for a in aliases)
            statements.append(f"from {spelled[target]} import {names}")
        edits.append((start, end, ("\n" + indent).join(statements)))
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    if edits:
        path.write_text(text, encoding="utf-8")
    return bool(edits)


def _text_files() -> list[Path]:
    found = [ROOT / name for name in TEXT_FILES if (ROOT / name).is_file()]
    for root in TEXT_ROOTS:
        found += [
            path
            for path in sorted((ROOT / root).rglob("*"))
            if path.is_file() and path.suffix in TEXT_SUFFIXES and "__pycache__" not in path.parts
        ]
    return found


def _rewrite_names(path: Path) -> bool:
    """``evidencepack.OLD`` -> ``evidencepack.NEW`` and ``evidencepack/OLD.py`` ->
    ``evidencepack/NEW.py`` in ``path``; True if it changed."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return False
    new = text
    for old, target in MOVES.items():
        leaf = old.removeprefix("evidencepack.")
        new = re.sub(rf"\bevidencepack\.{re.escape(leaf)}\b(?!\.py)", target, new)
        new = re.sub(
            rf"\bevidencepack/{re.escape(leaf)}\.py\b",
            target.replace(".", "/") + ".py",
            new,
        )
    if new != text:
        path.write_text(new, encoding="utf-8")
    return new != text


def main() -> None:
    """Move, rewrite, then let ruff sort and format what changed."""
    done = move_files()
    changed: set[Path] = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        if _rewrite_imports(path):
            changed.add(path)
    for root in ("tests", "benchmarks", "docs", "tools"):
        for path in sorted((ROOT / root).rglob("*.py")):
            if path.resolve() != Path(__file__).resolve() and _rewrite_imports(
                path, relative=False
            ):
                changed.add(path)
    for path in _text_files():
        if path.resolve() == Path(__file__).resolve():
            continue
        if _rewrite_names(path):
            changed.add(path)
    python = sorted(str(p) for p in changed if p.suffix == ".py")
    if python:
        subprocess.run(["ruff", "check", "--select", "I", "--fix", "-q", *python], cwd=ROOT)
        subprocess.run(["ruff", "format", "-q", *python], cwd=ROOT)
    for line in done:
        print(f"moved {line}")
    print(f"rewrote {len(changed)} file(s)")


if __name__ == "__main__":
    main()
