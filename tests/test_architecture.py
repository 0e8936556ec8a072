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


def _imports(name: str, path: Path, known: set[str], *, type_checking: bool = False) -> set[str]:
    """Every evidencepack module ``name`` imports, at the top or inside a function (a deferred
    import still runs), with the packages it runs on the way (a package's ``__init__`` that imports
    a module of another package is an edge to it); TYPE_CHECKING blocks are skipped unless
    ``type_checking``."""
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
            if isinstance(node, ast.If) and _is_type_checking(node) and not type_checking:
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
    assert "evidencepack.spec.load" in graph["evidencepack.pipeline"]
    assert _cycles(graph) == []


def test_the_spec_stage_has_no_circle_even_in_type_hints() -> None:
    """The spec's models, its loader and its problems import one way: the problems may name the
    models' types, the models never the problems (the old ``spec.py`` <-> ``_spec_problems.py``)."""
    modules = {n: p for n, p in _modules().items() if n.startswith("evidencepack.spec.")}
    graph = {n: _imports(n, p, set(modules), type_checking=True) for n, p in modules.items()}
    assert "evidencepack.spec.models" in graph["evidencepack.spec.semantic"]
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


# The layers contract (ARCHITECTURE.md, "Layers"): the package's stages from the bottom up. A
# stage is a package or a top-level module of evidencepack/; a module imports only from its own
# stage, from a stage in a lower layer, or from a shared leaf. Stages in one layer are siblings:
# neither imports the other. Deferred imports inside functions count (they run), TYPE_CHECKING
# blocks do not (they never run).
LEAVES = ("errors", "core")
"""Shared leaves: any stage may import them, and they import only each other: the error tree
and ``core/`` (all-or-nothing writes, hidden characters, strict models, numbers, size limits,
pack paths, problems, progress, file digests, bundled data)."""

SPEC_STAGE = (
    "spec",
    "spec_types",
    "spec_fit",
    "spec_cost",
    "_spec_problems",
    "_yaml",
    "_validation",
)

LAYERS: tuple[tuple[str, ...], ...] = (
    ("spec",),
    ("store",),
    ("mlperf", "pricing", "staging"),
    ("readers", "measure"),
    ("intake",),
    ("analyze",),
    ("pack",),
    ("render", "signing"),
    ("export",),
    ("pipeline",),
    ("diff",),
    ("watch",),
    ("warehouse",),
    ("commands",),
    ("schemas",),
    ("api", "plugins"),
    ("_cli",),
    ("__main__",),
)
"""The stages, bottom layer first."""

# Known upward imports, each waiting for one change on another branch; the list only shrinks.
ALLOWED_UPWARD: frozenset[tuple[str, str]] = frozenset()
"""Imports allowed to climb, each with the change that removes it: none since the intake moved
InputFile, FileProblem and SPEC_PATH down (``intake/records.py``) and the store stopped
importing the readers' models. The list only shrinks."""


def _stage(module: str) -> str:
    """The stage a module belongs to: its top-level package or module under evidencepack/."""
    return module.split(".")[1] if "." in module else module


def _layer_problems(
    graph: dict[str, set[str]],
    layers: tuple[tuple[str, ...], ...],
    leaves: tuple[str, ...],
    allowed: frozenset[tuple[str, str]] = frozenset(),
) -> list[str]:
    """Every import that breaks the layers: one naming the importing module and the imported."""
    level = {stage: i for i, layer in enumerate(layers) for stage in layer}
    problems = []
    for module, targets in sorted(graph.items()):
        here = _stage(module)
        for target in sorted(targets):
            there = _stage(target)
            if there == here or any(
                module == m and (t == target or t.startswith(f"{target}.")) for m, t in allowed
            ):
                continue
            if here in leaves:
                ok = there in leaves
            elif there in leaves:
                ok = True
            elif here not in level or there not in level:
                problems.append(f"{module} -> {target}: a stage the layers do not name")
                continue
            elif level[there] == level[here]:
                problems.append(f"{module} ({here}) -> {target} ({there}): siblings in one layer")
                continue
            else:
                ok = level[there] < level[here]
            if not ok:
                problems.append(f"{module} ({here}) -> {target} ({there}) climbs the layers")
    return problems


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    return {name: _imports(name, path, known) for name, path in modules.items()}


def test_the_stages_import_only_down_the_layers() -> None:
    graph = _graph()
    stages = {_stage(m) for m in graph} - {"evidencepack"}
    named = {s for layer in LAYERS for s in layer} | set(LEAVES)
    assert stages == named, "every stage has its place in LAYERS or LEAVES, and no other is named"
    assert _layer_problems(graph, LAYERS, LEAVES, ALLOWED_UPWARD) == []
    # Each allowance is still needed: one that no longer matches an import is taken out.
    assert sorted(a for a in ALLOWED_UPWARD if a[1] not in graph.get(a[0], set())) == []


def test_the_layers_catch_an_upward_import() -> None:
    """A synthetic upward import (the spec reaching for the analysis) and an import between
    siblings are caught; a leaf importing a stage is caught too."""
    graph = _graph()
    assert _layer_problems(graph, LAYERS, LEAVES, ALLOWED_UPWARD) == []
    spec = "evidencepack.spec.models"
    climbing = {**graph, spec: graph[spec] | {"evidencepack.analyze.decision"}}
    assert _layer_problems(climbing, LAYERS, LEAVES, ALLOWED_UPWARD) == [
        f"{spec} (spec) -> evidencepack.analyze.decision (analyze) climbs the layers"
    ]
    sideways = {**graph, "evidencepack.render.html": {"evidencepack.signing.verify"}}
    assert _layer_problems(sideways, LAYERS, LEAVES, ALLOWED_UPWARD) == [
        "evidencepack.render.html (render) -> evidencepack.signing.verify (signing): siblings in"
        " one layer"
    ]
    leaf = {**graph, "evidencepack.errors": {"evidencepack.store"}}
    assert _layer_problems(leaf, LAYERS, LEAVES, ALLOWED_UPWARD) == [
        "evidencepack.errors (errors) -> evidencepack.store (store) climbs the layers"
    ]


def _context_vars(root: Path) -> list[str]:
    """Every module under ``root`` that imports ``contextvars`` or names ``ContextVar``."""
    found = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            named = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else [node.id]
                if isinstance(node, ast.Name)
                else [node.attr]
                if isinstance(node, ast.Attribute)
                else []
            )
            if any(n == "contextvars" or n == "ContextVar" for n in named):
                found.append(f"{path.relative_to(root.parent)}:{node.lineno}")
                break
    return found


def test_no_context_variable_carries_a_setting() -> None:
    """A setting reaches a reader or a stage as an argument (``ReadContext``, ``Progress``),
    never through a ``ContextVar`` (issue 44): what a function reads is in its signature."""
    assert _context_vars(PACKAGE) == []


def test_the_context_variable_check_finds_one(tmp_path: Path) -> None:
    package = tmp_path / "evidencepack"
    package.mkdir()
    (package / "a.py").write_text("from contextvars import ContextVar\n")
    (package / "b.py").write_text("import contextvars\nx = contextvars.ContextVar('x')\n")
    (package / "c.py").write_text("x = 1\n")
    assert _context_vars(package) == ["evidencepack/a.py:1", "evidencepack/b.py:1"]


_REGEX_CALLS = frozenset(
    {"search", "match", "fullmatch", "findall", "finditer", "sub", "subn", "split"}
)
_PARSERS_OF_PROBLEM_TEXT = frozenset({"ProblemText", "problem_of", "split_hint"})


def _names_a_problem(node: ast.AST) -> bool:
    """The expression reads a problem's or an error's text: a name or attribute with
    ``problem`` in it, or an error's ``message`` or ``detail``."""
    for sub in ast.walk(node):
        name = sub.id if isinstance(sub, ast.Name) else getattr(sub, "attr", None)
        if name and ("problem" in name.lower() or name in ("message", "detail")):
            return True
    return False


def _problem_text_parsers(root: Path) -> list[str]:
    """Every place under ``root`` that parses problem text back: a regular expression (``re.x``
    or a compiled ``_PATTERN.x``) or a ``str.split``/``partition`` run over a problem's or an
    error's text, and the old carriers of a problem inside a string."""
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            where = f"{path.relative_to(root.parent)}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.Name | ast.FunctionDef | ast.ClassDef | ast.alias):
                named = node.id if isinstance(node, ast.Name) else node.name
                if named in _PARSERS_OF_PROBLEM_TEXT:
                    found.append(f"{where}: {named}")
                continue
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            owner, call = node.func.value, node.func.attr
            if isinstance(owner, ast.Name) and owner.id == "re" and call in _REGEX_CALLS:
                subject = node.args[2:3] if call in ("sub", "subn") else node.args[1:2]
            elif isinstance(owner, ast.Name) and owner.id.lstrip("_").isupper():
                subject = node.args[1:2] if call in ("sub", "subn") else node.args[:1]
                subject = subject if call in _REGEX_CALLS else []
            elif call in ("split", "rsplit", "partition", "rpartition"):
                subject = [owner]
            else:
                continue
            if any(_names_a_problem(s) for s in subject):
                found.append(f"{where}: {ast.unparse(node)[:80]}")
    return found


def test_no_module_parses_problem_text_back() -> None:
    """A problem travels as a ``Problem`` (file, line, column, field, code, message, hint) and is
    turned into text once; nothing reads a position, a field or a hint back out of the text
    (issue 44: ``ProblemText``, the regexes of ``problems.py``, ``spec/semantic.by_position``,
    ``init_spec._why``, the LoadGen cross-check's figure and the quote's sort key did)."""
    assert _problem_text_parsers(PACKAGE) == []


def test_the_problem_text_check_finds_a_parser(tmp_path: Path) -> None:
    package = tmp_path / "evidencepack"
    package.mkdir()
    (package / "a.py").write_text(
        "import re\n"
        "_AT = re.compile('x')\n"
        "def f(problem, exc, text):\n"
        "    re.search(r':(\\d+):', problem)\n"
        "    _AT.match(exc.message)\n"
        "    exc.problems[0].split(': ', 1)\n"
        "    re.search('x', text)\n"
        "    text.split(':')\n"
    )
    (package / "b.py").write_text("class ProblemText(str):\n    pass\n")
    assert _problem_text_parsers(package) == [
        "evidencepack/a.py:4: re.search(':(\\\\d+):', problem)",
        "evidencepack/a.py:5: _AT.match(exc.message)",
        "evidencepack/a.py:6: exc.problems[0].split(': ', 1)",
        "evidencepack/b.py:1: ProblemText",
    ]


# The command line calls the library through its front door only (ARCHITECTURE.md): the API's
# functions and options objects, the error tree (its exit codes), the package's version.
CLI_MAY_IMPORT = ("evidencepack.api", "evidencepack.errors", "evidencepack._cli")


def _cli_reaches_past_the_api(graph: dict[str, set[str]]) -> list[str]:
    """Each import of a ``_cli`` module that is not the API, the errors or its own."""
    return sorted(
        f"{module} -> {target}"
        for module, targets in graph.items()
        if _stage(module) == "_cli"
        for target in targets
        if target != "evidencepack"
        and not any(target == ok or target.startswith(f"{ok}.") for ok in CLI_MAY_IMPORT)
    )


def test_the_cli_imports_only_the_api() -> None:
    """``_cli`` imports from evidencepack only ``api`` (and its modules), ``errors`` and its
    own modules, at the top or deferred in a function."""
    graph = _graph()
    assert _cli_reaches_past_the_api(graph) == []
    assert any(t.startswith("evidencepack.api.") for t in graph["evidencepack._cli.compiler"])
    reaching = {
        **graph,
        "evidencepack._cli.diff": graph["evidencepack._cli.diff"] | {"evidencepack.diff.run"},
    }
    assert _cli_reaches_past_the_api(reaching) == [
        "evidencepack._cli.diff -> evidencepack.diff.run"
    ]


def _raised_names(tree: ast.AST) -> set[str]:
    """The names of the exceptions a module raises or imports from ``errors``."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and node.exc is not None:
            call = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if isinstance(call, ast.Name):
                names.add(call.id)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").endswith("errors"):
            names |= {alias.name for alias in node.names}
    return names


def test_only_the_cli_speaks_of_usage_errors_and_flags() -> None:
    """The library raises ``InvalidRequest`` (exit 2 as well), never ``UsageError``, and no
    library error message writes a command-line flag: it marks the option (``errors.option``)
    and the command line words it."""
    users = sorted(
        name
        for name, path in _modules().items()
        if _stage(name) not in ("_cli", "errors", "evidencepack")
        and "UsageError" in _raised_names(ast.parse(path.read_text(encoding="utf-8")))
    )
    assert users == []
    flagged = []
    for name, path in _modules().items():
        if _stage(name) == "_cli":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)):
                continue
            for arg in node.exc.args[:1]:
                for part in ast.walk(arg):
                    text = part.value if isinstance(part, ast.Constant) else None
                    if isinstance(text, str) and re.search(r"(^|[\s(/])--[a-z]", text):
                        flagged.append(f"{name}:{node.lineno}: {text!r}")
    assert flagged == []


MAX_LOOSE_MODULES = 10
"""Modules at the top of evidencepack/ (``__init__`` and ``__main__`` included): the rest live
in a subpackage named for what it is (``core/``, ``commands/``, the stages)."""


def test_at_most_ten_loose_modules() -> None:
    loose = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(loose) <= MAX_LOOSE_MODULES, loose
    assert {"__init__.py", "__main__.py", "errors.py", "plugins.py"} <= set(loose)


def test_no_module_is_over_500_lines() -> None:
    long = {
        name: lines
        for name, path in _modules().items()
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}, f"split these into a subpackage (STYLE.md: past ~500 lines): {long}"


def test_importing_the_spec_loads_no_duckdb() -> None:
    """Every module of the spec stage loads without DuckDB, the store, WeasyPrint or sigstore."""
    stage = sorted(n for n in _modules() if n.startswith("evidencepack.spec."))
    assert "evidencepack.spec.load" in stage
    code = (
        f"import sys, {', '.join(stage)}\n"
        "heavy = sorted(m for m in ('duckdb', 'evidencepack.store', 'weasyprint', 'sigstore')"
        " if m in sys.modules)\n"
        "print(','.join(heavy))\n"
    )
    ran = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert ran.stdout.strip() == ""


def _named_files(text: str) -> set[str]:
    """The file names a document writes in backticks (``intake/collect.py``, ``pyproject.toml``)."""
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
    """Every repository path the README and the docs' pages give (modules, schemas, samples,
    .ci, docs) is there."""
    from .docs_pages import documentation_text  # here, not at the top: a test of this file only

    text = documentation_text()
    roots = "evidencepack|tests|benchmarks|schemas|report_templates|samples|docs|\\.ci"
    named = set(re.findall(rf"`((?:{roots})/[A-Za-z0-9_./-]+)`", text))
    others = {
        "benchmarks/benchmark_serving.py",  # vLLM's own script, named as vLLM's
        "benchmarks/.cache/",  # git-ignored: the benchmarks make it on their first run
        "docs/api/evidencepack.html",  # git-ignored: bash .ci/api-docs writes it
        "evidencepack/v1",  # the spec's apiVersion, not a path
    }
    assert len(named) > 20
    assert sorted(n for n in named - others if not (PACKAGE.parent / n).exists()) == []


# The CLI's package is its entry point (main() lives there); every other package __init__
# is a docstring, and at most a lazy re-export (PEP 562) whose imports run only for typing.
_INIT_MAY_IMPORT = {"_cli"}
_TYPING_ONLY = {"__future__", "typing"}


def _init_imports(tree: ast.Module) -> list[str]:
    """The modules a package ``__init__`` imports when loaded (TYPE_CHECKING blocks aside)."""
    found = []
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        if isinstance(node, ast.ImportFrom) and (node.module or "") not in _TYPING_ONLY:
            found.append("." * node.level + (node.module or ""))
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name not in _TYPING_ONLY]
    return found


def test_package_inits_import_nothing() -> None:
    offenders = {
        str(init.relative_to(PACKAGE.parent)): imports
        for init in sorted(PACKAGE.rglob("__init__.py"))
        if init.parent.name not in _INIT_MAY_IMPORT
        and (imports := _init_imports(ast.parse(init.read_text(encoding="utf-8"))))
    }
    assert offenders == {}
    # Every package is one: measure/ too.
    assert all(
        (d / "__init__.py").is_file()
        for d in PACKAGE.rglob("*")
        if d.is_dir() and any(d.glob("*.py"))
    )


def test_the_init_rule_catches_an_import() -> None:
    tree = ast.parse("from __future__ import annotations\nimport duckdb\nfrom .x import y\n")
    assert _init_imports(tree) == ["duckdb", ".x"]
