"""The intake stages never reach up: intake, readers, staging, MLPerf and the store import no
later stage.

Issue 28: ``intake/collect.py`` took ``InputFile`` from ``analyze/models.py`` and ``SPEC_PATH``
from ``pack/layout.py``, a format module took runtime names from ``analyze/normalise.py``, and
the store imported the input models and the decision model. What two stages share lives in the
lower one (``intake/records.py``, ``readers/normalise.py``); the store imports no other stage.
"""

from __future__ import annotations

import ast
from pathlib import Path

import evidencepack

PACKAGE = Path(evidencepack.__file__).parent
LATER = ("analyze", "render", "pack", "pipeline", "signing", "diff", "export", "warehouse", "api")


def _imported(path: Path, package_dir: Path = PACKAGE) -> set[str]:
    """Every ``evidencepack`` module named by an import in ``path`` (a file of the package in
    ``package_dir``), anywhere in it: a deferred import or one under TYPE_CHECKING still ties
    the module to the later stage."""
    parts = list(path.relative_to(package_dir.parent).with_suffix("").parts)
    package = parts if parts[-1] == "__init__" else parts[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join([*base, *([node.module] if node.module else [])])
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name.startswith("evidencepack.")}


def _reaching_up(stage: str, banned: tuple[str, ...]) -> list[str]:
    out = []
    for path in sorted((PACKAGE / stage).rglob("*.py")):
        for name in sorted(_imported(path)):
            top = name.split(".")[1]
            if top in banned:
                out.append(f"{path.relative_to(PACKAGE.parent)} imports {name}")
    return out


def test_the_intake_stages_import_no_later_stage() -> None:
    found = [
        line
        for stage in ("intake", "readers", "staging", "mlperf")
        for line in _reaching_up(stage, LATER)
    ]
    assert found == []


def test_the_store_imports_no_other_stage() -> None:
    stages = ("intake", "readers", "staging", "mlperf", "pricing", "measure", "spec", *LATER)
    assert _reaching_up("store", stages) == []


def test_the_check_finds_an_import_that_reaches_up(tmp_path: Path) -> None:
    """The walk sees relative, absolute, deferred and TYPE_CHECKING imports alike."""
    names = _imported(PACKAGE / "intake" / "collect.py")
    assert {"evidencepack.intake.records.InputFile", "evidencepack.intake.snapshot"} <= names
    module = tmp_path / "evidencepack" / "store" / "analysis.py"
    module.parent.mkdir(parents=True)
    module.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from ..analyze.models import DecisionDocument\n"
        "def f():\n    import evidencepack.pack.layout\n"
    )
    seen = _imported(module, tmp_path / "evidencepack")
    assert {"evidencepack.analyze.models", "evidencepack.pack.layout"} <= seen
