"""Start-up: each command imports only the heavy libraries it uses (checked in a fresh process)."""

from __future__ import annotations

import functools
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from .conftest import SAMPLE_SPEC

if TYPE_CHECKING:
    from evidencepack.pipeline import BuildResult

HEAVY = ("duckdb", "weasyprint", "sigstore", "numpy", "jinja2", "pydantic", "cryptography")

_PROBE = """
import sys
from evidencepack._cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
modules = sorted(sys.modules)
import json
print(json.dumps(modules))
"""

# What compiles a spec: the pipeline, the store, the input readers, the analysis (the models of
# decision.json aside: diff and verify read it), the report renderers, the measure client.
COMPILE_PIPELINE = (
    "pipeline", "store", "intake", "readers", "staging", "analyze", "render", "measure"
)  # fmt: skip
_DOCUMENT_PROBE = (
    "import sys, json, evidencepack.analyze.models, evidencepack.render.formatting; "
    "print(json.dumps(sorted(sys.modules)))"
)


def _modules(*argv: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *argv], capture_output=True, text=True, check=False
    )
    modules: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return modules


def _imported(*argv: str) -> set[str]:
    return {m.split(".")[0] for m in _modules(*argv)} & set(HEAVY)


@functools.cache
def _document_modules() -> frozenset[str]:
    """What reading decision.json needs: its models and what they import (and the number
    formatting the summaries share), however the models are split into modules."""
    done = subprocess.run(
        [sys.executable, "-c", _DOCUMENT_PROBE], capture_output=True, text=True, check=True
    )
    return frozenset(json.loads(done.stdout))


def _compile_modules(*argv: str) -> list[str]:
    """The evidencepack modules of the compile pipeline that running ``argv`` imported."""
    allowed = _document_modules()
    return [
        m
        for m in _modules(*argv)
        if m.startswith("evidencepack.")
        and m.split(".")[1] in COMPILE_PIPELINE
        and m not in allowed
    ]


def _ours(*argv: str) -> set[str]:
    """The evidencepack subsystems (top-level modules and packages; a module of ``core/`` or
    ``commands/`` by its own name) running ``argv`` imported."""
    found = set()
    for m in _modules(*argv):
        parts = m.split(".")
        if parts[0] != "evidencepack" or m in ("evidencepack.core", "evidencepack.commands"):
            continue
        grouped = len(parts) > 2 and parts[1] in ("core", "commands")
        found.add(parts[2] if grouped else parts[1] if len(parts) > 1 else m)
    return found


# What only some commands need, each a cost at start-up: none of it for --help.
STDLIB_AT_USE = ("typing", "dataclasses", "pathlib", "json", "datetime", "inspect", "logging")
# argparse and what its help formatting loads: the top-level help is written without them
ARGPARSE_AND_CO = ("argparse", "re", "textwrap", "shutil", "gettext", "locale")


@pytest.mark.parametrize("argv", [("--help",), ("-h",), ()])
def test_help_imports_no_heavy_library(argv: tuple[str, ...]) -> None:
    """``--help`` (and ``evidencepack`` alone, which prints the same help) lists every command
    from the CLI's own table, written without argparse: no command group module, none of the
    option records, not even typing, pathlib, json, argparse or re (issue 29: <= 2x ``python -c
    pass`` was 6.3x when each group module was imported to list it, 3.06x with argparse)."""
    modules = _modules(*argv)
    assert _imported(*argv) == set()
    assert {m for m in modules if m.startswith("evidencepack")} == {
        "evidencepack",
        "evidencepack._cli",
        "evidencepack._cli._help",
        "evidencepack.errors",
    }
    assert not {*STDLIB_AT_USE, *ARGPARSE_AND_CO} & set(modules)


def test_the_help_of_the_lazy_parser_is_the_full_parsers() -> None:
    """The command table ``--help`` reads agrees with each group's own registration: the same
    names, order and one-line help as the parser with every group built."""
    from evidencepack._cli import COMMANDS, build_parser

    full = build_parser()
    assert build_parser(["--help"]).format_help() == full.format_help()
    sub = next(a for a in full._actions if a.dest == "command")
    assert list(sub.choices) == list(COMMANDS)  # type: ignore[arg-type]
    helps = {a.dest: a.help for a in sub._get_subactions()}
    assert helps == {name: help_text for name, (_, help_text) in COMMANDS.items()}
    for name in COMMANDS:  # each command's own --help is built in full from its group
        lazy = build_parser([name])
        lazy_sub = next(a for a in lazy._actions if a.dest == "command")
        assert lazy_sub.choices[name].format_help() == sub.choices[name].format_help()  # type: ignore[index]


def test_check_refuses_a_missing_spec_before_it_imports_pydantic_or_yaml(tmp_path: Path) -> None:
    """``check``'s spec phase: a missing spec is refused before pydantic, PyYAML or the spec
    models load (issue 29: 63x ``python -c pass`` when the spec module came first)."""
    argv = ("check", str(tmp_path / "missing.yaml"))
    modules = _modules(*argv)
    assert not {m.split(".")[0] for m in modules} & {*HEAVY, "yaml"}
    assert not {"dataclasses", "inspect", "json"} & set(modules)  # the CLI's options: NamedTuples
    assert _ours(*argv) == {
        "evidencepack", "_cli", "errors", "export", "api", "limits", "progress",
    }  # fmt: skip


# The subsystems the spec phase imports: reading (limits, hidden characters), the spec package
# (its models, YAML reading and problems) and the problem records.
SPEC_PHASE = {
    "evidencepack", "_cli", "api", "errors", "export", "progress", "limits", "_text", "_models",
    "problems", "spec",
}  # fmt: skip


def test_validate_imports_neither_the_store_nor_rendering_nor_signing() -> None:
    assert _imported("validate", str(SAMPLE_SPEC)) == {"pydantic"}
    assert _compile_modules("validate", str(SAMPLE_SPEC)) == []
    assert _ours("validate", str(SAMPLE_SPEC)) == SPEC_PHASE


def test_check_validates_the_spec_before_it_imports_the_compile_pipeline(tmp_path: Path) -> None:
    spec = tmp_path / "pack.yaml"
    spec.write_text("apiVersion: evidencepack/v1\ncandidates: []\n", encoding="utf-8")
    assert _imported("check", str(spec)) == {"pydantic"}
    assert _compile_modules("check", str(spec)) == []
    assert _ours("check", str(spec)) == SPEC_PHASE


def test_importing_evidencepack_loads_nothing_but_itself() -> None:
    probe = "import sys, json, evidencepack; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    before = subprocess.run(
        [sys.executable, "-c", probe.replace(", evidencepack", "")],
        capture_output=True,
        text=True,
        check=True,
    )
    added = set(json.loads(done.stdout)) - set(json.loads(before.stdout))
    assert added == {"evidencepack", "__future__"}


def _fastest(argv: list[str], runs: int = 9) -> float:
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True)
        times.append(time.perf_counter() - began)
    return min(times)


def test_check_imports_no_renderer_and_no_sigstore() -> None:
    imported = _imported("check", str(SAMPLE_SPEC))
    assert {"duckdb", "pydantic"} <= imported  # it does use the store: the probe saw it run
    assert not imported & {"weasyprint", "jinja2", "sigstore"}


def test_verify_with_a_key_imports_no_store_renderer_or_numpy(tmp_path: Path) -> None:
    key = ec.generate_private_key(ec.SECP256R1()).public_key()
    pem = key.public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
    (tmp_path / "pub.pem").write_bytes(pem)
    (tmp_path / "pack").mkdir()
    (tmp_path / "pack" / "a.txt").write_text("a")  # unsigned: verify runs and reports FAIL
    argv = ("verify", str(tmp_path / "pack"), "--key", str(tmp_path / "pub.pem"))
    imported = _imported(*argv)
    assert {"cryptography", "pydantic"} <= imported
    assert not imported & {"duckdb", "weasyprint", "jinja2", "numpy", "sigstore"}
    assert _compile_modules(*argv) == []
    assert _ours(*argv) == {
        "evidencepack", "_cli", "errors", "progress", "api", "signing", "pack", "provenance",
        "limits", "_atomic", "_display", "_models", "_text", "spec", "pack_paths",
        "problems",  # the YAML loader's problems are Problem objects (a pydantic leaf)
    }  # fmt: skip


@pytest.fixture(scope="session")
def built_pack(sample_build: BuildResult) -> Path:
    """The sample built once per session, unsigned, with its archive (tests/packs.py)."""
    return sample_build.out_dir


def test_diff_imports_nothing_of_the_compile_pipeline(built_pack: Path) -> None:
    argv = (
        "diff",
        str(built_pack),
        str(built_pack.with_name("pack.tar.gz")),
        "--as-of",
        "2026-12-01",
    )
    # pydantic: it read both decisions (the probe saw it run); without --key the signature is
    # not checked, but each pack is opened by the one pack reader (signing.open_pack: its files
    # against its manifest, its documents against each other), which loads cryptography and
    # sigstore's models; never the sigstore client, the store or a renderer
    assert _imported(*argv) == {"pydantic", "cryptography"}
    modules = _modules(*argv)
    assert "evidencepack.signing.open_pack" in modules
    assert _compile_modules(*argv) == []
    # decision.json's models (analyze.models, render.formatting, and the input-file record it
    # lists, intake.records) and the spec's, the pack's reading and verification; nothing else
    # (no store, reader, measure or pipeline)
    assert _ours(*argv) == {
        "evidencepack", "_cli", "api", "errors", "progress", "limits", "_text", "_models",
        "spec", "diff", "analyze", "render", "signing", "pack", "provenance", "_atomic",
        "_display", "intake", "readers", "staging", "pack_paths", "problems",
    }  # fmt: skip
    # (readers.models for the energy method type decision.json's cost bases name, and the
    # figures it is built from, staging.figures)
    stages = ("evidencepack.intake.", "evidencepack.readers.", "evidencepack.staging.")
    assert {m for m in _modules(*argv) if m.startswith(stages)} == {
        "evidencepack.intake.records",
        "evidencepack.readers.models",
        "evidencepack.staging.figures",
    }


@pytest.mark.parametrize("command", ["mlperf", "inspect", "build", "sign", "keygen", "schemas"])
def test_each_commands_help_imports_no_heavy_library(command: str) -> None:
    assert _imported(command, "--help") == set()
