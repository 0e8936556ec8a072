"""The package's shape (ARCHITECTURE.md): no import cycle, small modules, a DuckDB-free spec."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import evidencepack
from evidencepack.pack.layout import (
    DECISION_NAME,
    MANIFEST_NAME,
    PREDICATE_NAME,
    SIGNATURE_NAMES,
    SPEC_PATH,
)

PACKAGE = Path(evidencepack.__file__).parent
MAX_LINES = 500


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _is_type_checking(node: ast.stmt) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """Every evidencepack module ``name`` imports, at the top or inside a function (a deferred
    import still runs), with the packages it runs on the way (a package's ``__init__`` that imports
    a module of another package is an edge to it); TYPE_CHECKING blocks are skipped."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    parts = name.split(".")
    # A module's own packages are imported before it runs: they are no edge of its own.
    ancestors = {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
    found: set[str] = set()

    def add(target: str) -> None:
        steps = target.split(".")
        for i in range(1, len(steps) + 1):
            prefix = ".".join(steps[:i])
            if prefix in known and prefix not in ancestors:
                found.add(prefix)

    def visit(nodes: list[ast.stmt]) -> None:
        for node in nodes:
            if isinstance(node, ast.If) and _is_type_checking(node):
                visit(node.orelse)
                continue
            if isinstance(node, ast.Import):
                for alias in node.names:
                    add(alias.name)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")
                    base = base[: len(base) - node.level + 1]
                    module = ".".join(base + ([node.module] if node.module else []))
                else:
                    module = node.module or ""
                add(module)
                for alias in node.names:
                    add(f"{module}.{alias.name}")
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.stmt):
                    visit([child])

    visit(ast.parse(path.read_text(encoding="utf-8")).body)
    return found


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


def test_the_import_graph_has_no_cycle() -> None:
    modules = _modules()
    known = set(modules)
    graph = {name: _imports(name, path, known) for name, path in modules.items()}
    assert len(graph) > 50, "the walk found too few modules"
    assert "evidencepack.spec" in graph["evidencepack.pipeline"]
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_module_is_over_500_lines() -> None:
    long = {
        name: lines
        for name, path in _modules().items()
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}, f"split these into a subpackage (STYLE.md: past ~500 lines): {long}"


def test_importing_the_spec_loads_no_duckdb() -> None:
    code = (
        "import sys, evidencepack.spec\n"
        "heavy = sorted(m for m in ('duckdb', 'evidencepack.store', 'weasyprint', 'sigstore')"
        " if m in sys.modules)\n"
        "print(','.join(heavy))\n"
    )
    ran = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert ran.stdout.strip() == ""


def _named_files(text: str) -> set[str]:
    """The file names a document writes in backticks (``inputs/collect.py``, ``pyproject.toml``)."""
    pattern = r"`([A-Za-z0-9_./-]+\.(?:py|md|toml|j2|json|txt|yaml|sh))`"
    return set(re.findall(pattern, text))


def _exists(name: str) -> bool:
    """A repository file, a module under evidencepack/ (a shorthand like ``capacity.py`` beside
    its stage's modules counts when one module ends so), or a file a pack holds."""
    repo = PACKAGE.parent
    if any((base / name).exists() for base in (repo, PACKAGE, repo / "tests")):
        return True
    if any(str(p.relative_to(PACKAGE)).endswith(name) for p in PACKAGE.rglob("*.py")):
        return True
    pack_files = {DECISION_NAME, MANIFEST_NAME, PREDICATE_NAME, *SIGNATURE_NAMES, SPEC_PATH}
    return name in pack_files or name == Path(SPEC_PATH).name


def test_architecture_md_names_only_files_that_exist() -> None:
    """The map a newcomer reads first does not drift from the code: every file it names is there."""
    text = (PACKAGE.parent / "ARCHITECTURE.md").read_text(encoding="utf-8")
    named = _named_files(text)
    assert len(named) > 50  # the map names the modules; a broken pattern would find none
    assert sorted(n for n in named if not _exists(n)) == []
    assert not _exists("inputs/gone.py")  # a module that is not there is caught


def test_readme_names_only_repository_files_that_exist() -> None:
    """Every repository path the README gives (modules, schemas, samples, .ci) is there."""
    text = (PACKAGE.parent / "README.md").read_text(encoding="utf-8")
    roots = "evidencepack|tests|benchmarks|schemas|report_templates|samples|\\.ci"
    named = set(re.findall(rf"`((?:{roots})/[A-Za-z0-9_./-]+)`", text))
    others = {
        "benchmarks/benchmark_serving.py",  # vLLM's own script, named as vLLM's
        "benchmarks/.cache/",  # git-ignored: the benchmarks make it on their first run
    }
    assert len(named) > 20
    assert sorted(n for n in named - others if not (PACKAGE.parent / n).exists()) == []
