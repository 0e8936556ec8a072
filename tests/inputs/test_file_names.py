"""One name per file (issue 28): a build reads each cited file from a private copy in a temporary
folder, but every message about the file names it as the spec does. Readers are handed that
name with the bytes (``read_input(copy, name=...)``), so nothing rewrites a message afterwards;
``test_no_module_rewrites_a_file_name_in_a_message`` keeps it that way."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

import pytest

from evidencepack.errors import InputError, SpecError
from evidencepack.pipeline import CompileOptions, check, rebuild
from evidencepack.readers.registry import read_input

from .builders import requests, vllm_result, write_json

PACKAGE = Path(__file__).resolve().parents[2] / "evidencepack"
PRIVATE = "evidencepack-inputs-"
"""The prefix of a build's private folder of copies (``pipeline``)."""


def _cite(samples: Path, relative: str, role: str = "runs") -> None:
    """Cite ``relative`` as one more ``role`` file of the mi325x-vllm candidate."""
    spec = samples / "pack.yaml"
    text = spec.read_text(encoding="utf-8")
    anchor = (
        "        - path: evidence/mi325x-vllm/runs/qps_3.2\n"
        if role == "runs"
        else "        - path: evidence/mi325x-vllm/scores.jsonl\n"
    )
    assert anchor in text
    spec.write_text(text.replace(anchor, f"{anchor}        - path: {relative}\n", 1), "utf-8")


def _said(samples: Path) -> str:
    """Everything the decision says, as one text."""
    return check(samples / "pack.yaml", CompileOptions()).model_dump_json()


def test_a_run_file_is_named_by_its_spec_path_never_the_private_copy(samples: Path) -> None:
    result = vllm_result(requests(20, seed=1), detailed=False)
    result["completed"] = 0
    write_json(samples / "evidence" / "mi325x-vllm" / "zero.json", result)
    _cite(samples, "evidence/mi325x-vllm/zero.json")
    said = _said(samples)
    assert PRIVATE not in said
    assert "evidence/mi325x-vllm/zero.json: $.completed: zero completed requests" in said


def test_a_score_file_is_named_by_its_spec_path_never_the_private_copy(samples: Path) -> None:
    scores = samples / "evidence" / "mi325x-vllm" / "scores.jsonl"
    lines = scores.read_text(encoding="utf-8").splitlines()
    bad = samples / "evidence" / "mi325x-vllm" / "cut.jsonl"
    bad.write_text("\n".join([*lines[:3], lines[3][: len(lines[3]) // 2]]) + "\n", "utf-8")
    _cite(samples, "evidence/mi325x-vllm/cut.jsonl", role="scores")
    said = _said(samples)
    assert PRIVATE not in said
    assert "evidence/mi325x-vllm/cut.jsonl: line 4" in said


def test_an_mlperf_tree_file_is_named_by_its_pack_path_never_the_private_copy(
    samples: Path,
) -> None:
    log = next((samples / "evidence" / "mlperf").rglob("mlperf_log_detail.txt"))
    with log.open("a", encoding="utf-8") as handle:
        handle.write(':::MLLOG {"key": "result_validity", "value": \n')
    relative = log.relative_to(samples).as_posix()
    said = _said(samples)
    assert PRIVATE not in said
    assert f"{relative}:" in said  # the log, by its path in the pack (inputs/<spec path>)


def test_a_reader_names_the_file_by_the_name_it_is_handed(tmp_path: Path) -> None:
    result = vllm_result(requests(20, seed=1), detailed=False)
    result["completed"] = 0
    (tmp_path / "private").mkdir()
    copy = write_json(tmp_path / "private" / "0001.json", result)
    with pytest.raises(InputError) as raised:
        read_input(copy, name="runs/rate2.json")
    exc = raised.value
    assert exc.file == "runs/rate2.json"
    assert exc.where == "$.completed"
    assert exc.message.startswith("runs/rate2.json: $.completed: zero completed")
    assert str(tmp_path) not in exc.message
    assert exc.named("elsewhere.json").message.startswith("elsewhere.json: $.completed:")


@pytest.mark.parametrize(
    ("edit", "raised"),
    [
        # the spec loads, but cites evidence this test pack does not hold
        (lambda text: text, SpecError),
        # the spec is not YAML (read before the build, for paths outside the pack)
        (lambda text: text + "\n  - [unclosed\n", InputError),
    ],
)
def test_a_failed_rebuild_names_the_packs_spec_by_its_pack_path(
    pack: tuple[Path, object], edit: Callable[[str], str], raised: type[InputError]
) -> None:
    """``verify --rebuild`` builds from a private copy of the pack; what fails names the spec
    as the pack does (``inputs/pack.yaml``), never the copy's folder."""
    folder, _ = pack
    spec = folder / "inputs" / "pack.yaml"
    spec.write_text(edit(spec.read_text(encoding="utf-8")), encoding="utf-8")
    with pytest.raises(raised) as failed:
        rebuild(folder)
    said = [failed.value.message, *failed.value.problems]
    assert said[0].startswith("inputs/pack.yaml:")
    assert all(s.startswith("inputs/pack.yaml:") for s in said[1:]), said
    assert not [s for s in said if str(folder) in s]


# -- the rule, checked on the source ---------------------------------------------------------

RENAMING_HELPERS = {"named_as", "portable", "in_pack", "_renamed"}
"""The helpers that patched a reader's text after it was written (removed by issue 28)."""
PATH_WORDS = ("path", "copy", "source", "private", "root", "shown")
"""A ``.replace`` argument naming one of these is a file's name being swapped in a text."""


def _names_a_path(node: ast.expr) -> bool:
    """``str(x)``, or a name or attribute whose name says it holds a file's path."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "str":
        return True
    if isinstance(node, ast.BinOp):  # root + os.sep
        return _names_a_path(node.left)
    if isinstance(node, ast.JoinedStr):  # f"{root}/"
        return any(isinstance(v, ast.FormattedValue) for v in node.values)
    word = node.id if isinstance(node, ast.Name) else getattr(node, "attr", "")
    return any(w in word.lower() for w in PATH_WORDS)


def _rewrites(tree: ast.AST) -> list[str]:
    """Each renaming helper defined and each ``text.replace(<a path>, ...)`` call in ``tree``
    (``os.replace(a, b)`` moves a file and is not one)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if node.name in RENAMING_HELPERS:
                found.append(f"def {node.name}")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "replace"
            and len(node.args) >= 2
            and not (isinstance(node.func.value, ast.Name) and node.func.value.id == "os")
            and _names_a_path(node.args[0])
        ):
            found.append(f"replace({ast.unparse(node.args[0])}, ...)")
    return found


def test_no_module_rewrites_a_file_name_in_a_message() -> None:
    """Every reader is handed the file's name (none is left to rename afterwards)."""
    found = [
        (module.relative_to(PACKAGE).as_posix(), what)
        for module in sorted(PACKAGE.rglob("*.py"))
        for what in _rewrites(ast.parse(module.read_text(encoding="utf-8")))
    ]
    assert found == []


def test_the_rule_catches_a_rewrite() -> None:
    caught = _rewrites(
        ast.parse(
            "def portable(m, source, shown):\n"
            "    return m.replace(str(source), shown)\n"
            "x = text.replace(copy_path, name)\n"
            "os.replace(tmp, final)\n"
            "y = value.replace('_', ' ')\n"
        )
    )
    assert sorted(caught) == [
        "def portable",
        "replace(copy_path, ...)",
        "replace(str(source), ...)",
    ]
