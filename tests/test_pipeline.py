"""The whole compiler on the sample: the release gate, the pack, and what it refuses."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb
import jsonschema
import pytest

from evidencepack._cli import main
from evidencepack.analyze.models import DecisionDocument
from evidencepack.core.resources import schemas_dir
from evidencepack.errors import RenderError, SpecError
from evidencepack.pack.manifest import EvidenceManifest
from evidencepack.pipeline import BuildOptions, BuildResult, CompileOptions, build, check
from evidencepack.render.pdf import load_weasyprint, url_fetcher

from .conftest import REPO_ROOT, SAMPLE_SPEC

GOLDEN = Path(__file__).parent / "golden" / "sample-decision.json"
MI325X_SERVER = "no-round/closed/SampleVendor/8xMI325X_vLLM/llama2-70b-99/Server"
V51_MI325X = "v5.1/closed/AMD/8xMI325X_2xEPYC_9575F_2/llama2-70b-99/Interactive"


def _edit(spec: Path, old: str, new: str) -> None:
    text = spec.read_text()
    assert old in text, old
    spec.write_text(text.replace(old, new))


def _cite_mlperf(samples: Path, path: str, key: str) -> Path:
    """The sample spec with mi325x-vllm's MLPerf reference replaced by ``key`` under ``path``."""
    spec = samples / "pack.yaml"
    _edit(
        spec,
        f"        - path: evidence/mlperf\n          result: {MI325X_SERVER}",
        f"        - path: {path}\n          result: {key}",
    )
    return spec


def _detail(folder: Path) -> dict[str, float]:
    """The values the analysis needs, read straight from a LoadGen detail log."""
    wanted = {
        "result_completed_samples_per_sec",
        "result_first_token_99.00_percentile_latency_ns",
        "result_time_per_output_token_99.00_percentile_ns",
    }
    out = {}
    for line in (folder / "mlperf_log_detail.txt").read_text().splitlines():
        record = json.loads(line.split(":::MLLOG", 1)[1])
        if record["key"] in wanted:
            out[record["key"]] = float(record["value"])
    return out


def test_check_reaches_the_decision_on_the_sample(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(SAMPLE_SPEC)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("contract-summariser-2026q4: PASS")
    assert "Recommend mi325x-vllm" in out
    decision = check(SAMPLE_SPEC, CompileOptions())
    assert decision.recommendation == decision.chosen == "mi325x-vllm"
    # X* is the highest completed rate among the runs within the SLO, read here from the logs.
    spec_runs = sorted((SAMPLE_SPEC.parent / "evidence" / "mi325x-vllm" / "runs").iterdir())
    meeting = [
        d["result_completed_samples_per_sec"]
        for d in map(_detail, spec_runs)
        if d["result_first_token_99.00_percentile_latency_ns"] / 1e6 <= 2000
        and d["result_time_per_output_token_99.00_percentile_ns"] / 1e6 <= 100
    ]
    capacity = next(c for c in decision.capacity if c.candidate == "mi325x-vllm")
    assert capacity.operating_point_rps == pytest.approx(max(meeting))
    assert capacity.accelerators == -(-17.5 // max(meeting))  # ceil(14 x 1.25 / X*) x 1


def test_offline_reference_for_interactive_traffic_fails_c1(
    samples: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = samples / "pack.yaml"
    _edit(spec, MI325X_SERVER, MI325X_SERVER.replace("/Server", "/Offline"))
    assert main(["check", str(spec)]) == 1
    out = capsys.readouterr().out
    assert "FAIL C1 [mi325x-vllm] (hard): " in out
    assert "Offline figure sizing interactive traffic" in out


def test_changed_input_fails_provenance(samples: Path) -> None:
    scores = samples / "evidence" / "b200-trtllm" / "scores.jsonl"
    scores.write_bytes(scores.read_bytes().replace(b'"score": 1', b'"score": 0', 1))
    decision = check(samples / "pack.yaml", CompileOptions())
    assert decision.verdict == "FAIL"
    prov = next(c for c in decision.checks if c.id == "PROV-FILES" and c.candidate == "b200-trtllm")
    assert prov.status == "FAIL"
    assert "evidence/b200-trtllm/scores.jsonl: sha256" in prov.reason


def _waiver(spec: Path, expires: str) -> None:
    _edit(spec, MI325X_SERVER, MI325X_SERVER.replace("/Server", "/Offline"))
    spec.write_text(
        spec.read_text()
        + (
            "\nwaivers:\n  - check: C1\n    candidate: mi325x-vllm\n    reason: Offline figure "
            f"accepted for this sample\n    approver: A. Example\n    expires: {expires}\n"
        )
    )


def test_current_waiver_is_applied(samples: Path) -> None:
    _waiver(samples / "pack.yaml", "2027-01-31")
    decision = check(samples / "pack.yaml", CompileOptions())
    # the recommended candidate rests on the waived failure: the verdict says so
    assert decision.verdict == "PASS WITH WAIVERS"
    assert decision.gate_passes()
    assert not decision.gate_passes(allow_waivers=False)
    c1 = next(c for c in decision.checks if c.id == "C1" and c.candidate == "mi325x-vllm")
    assert c1.status == "FAIL"
    assert c1.waived is not None
    assert c1.waived.approver == "A. Example"
    (note,) = next(v for v in decision.candidates if v.id == "mi325x-vllm").waivers
    assert note.startswith("C1 waived by A. Example until 2027-01-31")


def test_no_waivers_fails_the_gate_on_a_waived_failure(
    samples: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _waiver(samples / "pack.yaml", "2027-01-31")
    assert main(["check", str(samples / "pack.yaml")]) == 0
    assert "PASS WITH WAIVERS" in capsys.readouterr().out
    assert main(["check", "--no-waivers", str(samples / "pack.yaml")]) == 1
    out = capsys.readouterr().out
    assert "--no-waivers: the gate allows no waived failure: C1 [mi325x-vllm]" in out
    # The first line, the gate's verdict, agrees with the exit code.
    assert out.splitlines()[0].endswith(
        ": FAIL (waived failures are not allowed by --no-waivers; "
        "the decision's verdict is PASS WITH WAIVERS)"
    ), out.splitlines()[0]


def test_expired_waiver_is_rejected(samples: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _waiver(samples / "pack.yaml", "2026-11-01")
    assert main(["check", str(samples / "pack.yaml")]) == 1
    assert "waiver rejected: C1 for mi325x-vllm: expired on 2026-11-01" in capsys.readouterr().out
    # The same waiver, judged as of a later date with --as-of, is expired too.
    _edit(samples / "pack.yaml", "expires: 2026-11-01", "expires: 2027-01-31")
    assert main(["check", "--as-of", "2027-02-01", str(samples / "pack.yaml")]) == 1
    assert main(["check", "--as-of", "2027-01-31", str(samples / "pack.yaml")]) == 0


@pytest.fixture(scope="session")
def pack(sample_build: BuildResult) -> Path:
    """The session's unsigned sample pack (tests/packs.py; read only)."""
    return sample_build.out_dir


def test_pack_holds_every_part(pack: Path) -> None:
    names = {p.name for p in pack.iterdir()}
    assert names == {
        "report.html",
        "report.pdf",
        "decision.json",
        "evidence.duckdb",
        "manifest.json",
        "predicate.json",
        "inputs",
    }
    decision = DecisionDocument.model_validate_json((pack / "decision.json").read_bytes())
    assert decision == check(SAMPLE_SPEC, CompileOptions())
    manifest = EvidenceManifest.model_validate_json((pack / "manifest.json").read_bytes())
    on_disk = {str(p.relative_to(pack)) for p in (pack / "inputs").rglob("*") if p.is_file()}
    assert {f.pack_path for f in manifest.inputs} == on_disk
    for item in manifest.inputs:
        assert hashlib.sha256((pack / item.pack_path).read_bytes()).hexdigest() == item.sha256
    assert (
        manifest.decision.sha256
        == hashlib.sha256((pack / "decision.json").read_bytes()).hexdigest()
    )


@pytest.mark.parametrize(
    ("document", "schema"),
    [
        ("decision.json", "decision.v1.schema.json"),
        ("manifest.json", "evidence-manifest.v1.schema.json"),
        ("predicate.json", "pack-predicate.v1.schema.json"),
    ],
)
def test_pack_documents_match_their_json_schemas(pack: Path, document: str, schema: str) -> None:
    validator = jsonschema.Draft202012Validator(
        json.loads((schemas_dir() / schema).read_text()), format_checker=jsonschema.FormatChecker()
    )
    errors = [e.message for e in validator.iter_errors(json.loads((pack / document).read_text()))]
    assert errors == []


def test_store_holds_inputs_and_analysis(pack: Path) -> None:
    con = duckdb.connect(str(pack / "evidence.duckdb"), read_only=True)
    counts = {
        t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]  # type: ignore[index]
        for t in (
            "serving_runs",
            "score_items",
            "mlperf_results",
            "checks",
            "claims",
            "runs",
            "files",
        )
    }
    con.close()
    assert counts["serving_runs"] == 15
    assert counts["score_items"] == 1200
    assert counts["mlperf_results"] == 3  # the cited results only, whose files the pack holds
    assert counts["runs"] == 15
    assert counts["checks"] > 20
    assert counts["claims"] > 10


def test_golden_decision(pack: Path, update_goldens: bool) -> None:
    produced = (pack / "decision.json").read_text()
    if update_goldens:
        GOLDEN.write_text(produced)
    assert produced == GOLDEN.read_text(), "run pytest --update-goldens and review the diff"


def test_existing_outdir_is_never_half_overwritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "pack"
    out.mkdir()
    (out / "precious.txt").write_text("keep me")
    assert main(["build", str(SAMPLE_SPEC), "-o", str(out)]) == 2
    assert "exists" in capsys.readouterr().err

    def broken(*args: object, **kwargs: object) -> bytes:
        raise RenderError("simulated WeasyPrint failure")

    # --force replaces only a pack folder (it has the pack's manifest and predicate).
    assert main(["build", str(SAMPLE_SPEC), "-o", str(out), "--force"]) == 2
    assert "not an evidencepack pack" in capsys.readouterr().err
    (out / "manifest.json").write_text("{}")
    (out / "predicate.json").write_text("{}")
    # Files named like a pack's are not a pack: its own manifest must list every file.
    assert main(["build", str(SAMPLE_SPEC), "-o", str(out), "--force"]) == 2
    assert "not an evidencepack pack" in capsys.readouterr().err
    monkeypatch.setattr("evidencepack.render.pdf.render_pdf", broken)  # build imports it late
    assert main(["build", str(SAMPLE_SPEC), "-o", str(out / "new")]) == 3
    assert not (out / "new").exists()
    assert sorted(p.name for p in out.iterdir()) == [
        "manifest.json",
        "precious.txt",
        "predicate.json",
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pack"]  # no staging left behind


def _build_in_process(out: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "SOURCE_DATE_EPOCH"}
    done = subprocess.run(
        [sys.executable, "-m", "evidencepack", "build", str(SAMPLE_SPEC), "-o", str(out)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        env={**env, "PYTHONHASHSEED": str(len(str(out)))},
        check=False,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr


# slow: two builds of the sample, each in a fresh process
@pytest.mark.slow
def test_two_builds_in_separate_processes_are_identical(tmp_path: Path) -> None:
    _build_in_process(tmp_path / "a")
    _build_in_process(tmp_path / "bb")
    for name in ("report.html", "report.pdf", "decision.json", "manifest.json", "predicate.json"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "bb" / name).read_bytes(), name


def test_other_formats_and_unreadable_files(samples: Path, shared_data: Path) -> None:
    """A real guidellm sweep (several runs in one file) and a file of no known format, cited
    as a candidate's runs: the sweep's load points join the sizing, the other is a finding."""
    shutil.copy(shared_data / "formats/guidellm/generated/benchmarks.json", samples / "gl.json")
    (samples / "notes.txt").write_text("not a benchmark\n")
    _edit(
        samples / "pack.yaml",
        "        - path: evidence/b200-trtllm/runs/qps_2.0\n",
        "        - path: evidence/b200-trtllm/runs/qps_2.0\n        - path: gl.json\n"
        "        - path: notes.txt\n",
    )
    decision = check(samples / "pack.yaml", CompileOptions())
    # each load point of the sweep is a run of its own; they ran another model on short
    # prompts, so none fits the candidate: each is listed with the reasons, none sizes it
    sweep = [f for f in decision.fit if f.subject.startswith("gl.json")]
    raw = json.loads((samples / "gl.json").read_text())
    assert len(sweep) == len(raw["benchmarks"]) > 1
    assert all("#" in f.subject and not f.fits for f in sweep)
    assert all(any(r.startswith("model 'fake-org/") for r in f.reasons) for f in sweep)
    capacity = next(c for c in decision.capacity if c.candidate == "b200-trtllm")
    assert not [lp for lp in capacity.load_points if lp.run.startswith("gl.json")]
    prov = next(c for c in decision.checks if c.id == "PROV-FILES" and c.candidate == "b200-trtllm")
    assert prov.status == "FAIL"
    assert "notes.txt: cannot read" in prov.reason
    assert "unknown format" in prov.reason
    tool = {f.pack_path: f.tool for f in decision.inputs}
    assert tool["inputs/gl.json"] == "guidellm"


def _pages(html: str) -> int:
    """The pages WeasyPrint lays ``html`` out on, as ``render_pdf`` does before writing them."""
    return len(load_weasyprint().HTML(string=html, url_fetcher=url_fetcher()).render().pages)


# slow: two builds with 500 and 100,000 per-request rows
@pytest.mark.slow
@pytest.mark.no_pdf  # counts the pages of the report's layout; writing the PDF/A adds none
def test_report_length_does_not_grow_with_the_rows(samples: Path, tmp_path: Path) -> None:
    """The same evidence with 500 or 100,000 per-request rows gives a report of the same length:
    the document holds aggregates, the raw rows go to the store."""
    loader = importlib.util.spec_from_file_location(
        "bench_requests", REPO_ROOT / "benchmarks" / "bench_requests.py"
    )
    assert loader is not None
    assert loader.loader is not None
    bench = importlib.util.module_from_spec(loader)
    loader.loader.exec_module(bench)
    pages = {}
    for rows in (500, 100_000):
        copy = tmp_path / f"samples-{rows}"
        shutil.copytree(samples, copy)
        bench.generate(copy / "profile_export.jsonl", rows)
        _edit(
            copy / "pack.yaml",
            "        - path: evidence/b200-trtllm/runs/qps_2.0\n",
            "        - path: evidence/b200-trtllm/runs/qps_2.0\n"
            "        - path: profile_export.jsonl\n",
        )
        out = tmp_path / f"pack-{rows}"
        build(copy / "pack.yaml", out, BuildOptions(compile=CompileOptions()))
        pages[rows] = _pages((out / "report.html").read_text(encoding="utf-8"))
        con = duckdb.connect(str(out / "evidence.duckdb"), read_only=True)
        stored = con.execute("SELECT count(*) FROM run_requests").fetchone()
        con.close()
        assert stored == (rows,)
    assert pages[500] == pages[100_000] < 24


def test_a_real_round_cited_from_outside_the_spec_folder(samples: Path, shared_data: Path) -> None:
    """A spec citing one result of the real v5.1 tree (outside its folder, so only with the
    explicit flag); a mistyped key is a finding that suggests the near keys."""
    tree = (shared_data / "mlperf" / "v5.1").resolve()
    key = V51_MI325X
    spec = _cite_mlperf(samples, str(tree), key.replace("_2/", "_1/"))
    with pytest.raises(SpecError) as refused:
        check(spec, CompileOptions())
    assert "absolute path" in refused.value.problems[0]
    decision = check(spec, CompileOptions(allow_outside=True))
    prov = next(c for c in decision.checks if c.id == "PROV-FILES" and c.candidate == "mi325x-vllm")
    assert prov.status == "FAIL"
    assert f"did you mean {key!r}" in prov.reason
    _edit(spec, key.replace("_2/", "_1/"), key)
    decision = check(spec, CompileOptions(allow_outside=True))
    ref = next(r for r in decision.references if r.candidate == "mi325x-vllm")
    assert (ref.key, ref.scenario, ref.validity, ref.round) == (key, "Interactive", "VALID", "v5.1")
    c1 = next(c for c in decision.checks if c.id == "C1" and c.candidate == "mi325x-vllm")
    assert c1.status == "PASS"  # Interactive limits (450/40 ms) are tighter than the SLO
    copied = [
        f.pack_path for f in decision.inputs if f.role == "mlperf" and f.candidate == "mi325x-vllm"
    ]
    assert copied
    assert all(p.startswith("inputs/external/") for p in copied)
    assert len(copied) < 12  # only the cited result's files, not the round's 2,538


def test_only_the_cited_results_of_a_round_are_parsed(
    samples: Path, shared_data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A spec citing one result of the whole v5.1 tree (416 results) parses that one alone, not
    the round (issue 14: each tree read once, only the cited results parsed)."""
    from evidencepack.mlperf import importer

    parsed: list[str] = []
    real = importer.build_result

    def counting(files: Any, **kwargs: Any) -> Any:
        parsed.append(files.location)
        return real(files, **kwargs)

    monkeypatch.setattr(importer, "build_result", counting)
    tree = (shared_data / "mlperf" / "v5.1").resolve()
    key = "v5.1/closed/AMD/8xMI325X_2xEPYC_9575F_2/llama2-70b-99/Interactive"
    _edit(
        samples / "pack.yaml",
        f"        - path: evidence/mlperf\n          result: {MI325X_SERVER}",
        f"        - path: {tree}\n          result: {key}",
    )
    decision = check(samples / "pack.yaml", CompileOptions(allow_outside=True))
    ref = next(r for r in decision.references if r.candidate == "mi325x-vllm")
    assert ref.key == key
    assert [p for p in parsed if "8xMI325X" in p and "Interactive" in p] == parsed[-1:]
    # the sample's own tree: the two results still cited there (of its six); v5.1: the one
    assert len(parsed) == 3, parsed


@pytest.mark.no_pdf  # reads the pack's JSON, store or HTML only (tests/pdf_cache.py)
def test_the_packed_store_names_each_file_by_its_place_in_the_pack(
    samples: Path, shared_data: Path, tmp_path: Path
) -> None:
    """The store a pack holds records no path of the building machine: every file it names
    (runs, scores, MLPerf results from inside and outside the spec's folder) is named by its
    pack path, and the pack holds that file with that digest. Its messages, ``file:line``
    sources and MLPerf records are written the same way."""
    tree = (shared_data / "mlperf" / "v5.1").resolve()
    # Cited relative to the spec (an absolute path in the spec would be the spec's own words).
    spec = _cite_mlperf(samples, os.path.relpath(tree, samples), V51_MI325X)
    out = tmp_path / "out"
    build(spec, out, BuildOptions(compile=CompileOptions(allow_outside=True)))
    con = duckdb.connect(str(out / "evidence.duckdb"), read_only=True)
    # This machine's path of a folder, not the tail of the spec's own relative "../../x".
    machine_paths = [f"(^|[^.]){re.escape(str(p))}" for p in (samples.resolve(), tree)]
    leaks = []
    for table, column in con.execute(
        "SELECT table_name, column_name FROM information_schema.columns ORDER BY ALL"
    ).fetchall():
        found = con.execute(
            f'SELECT count(*) FROM "{table}" WHERE regexp_matches(CAST("{column}" AS VARCHAR), ?) '
            f'OR regexp_matches(CAST("{column}" AS VARCHAR), ?)',
            machine_paths,
        ).fetchone()
        if found and found[0]:
            leaks.append(f"{table}.{column}: {found[0]} row(s)")
    assert leaks == []
    named = con.execute("SELECT sha256, path, role FROM files ORDER BY path").fetchall()
    runs_and_scores = "SELECT file_path FROM serving_runs UNION SELECT file_path FROM score_sets"
    stored = [p for (p,) in con.execute(runs_and_scores).fetchall()]
    con.close()
    assert {role for _, _, role in named} >= {"runs", "scores", "mlperf.detail", "mlperf.system"}
    assert any(p.startswith("inputs/external/") for _, p, role in named if role == "mlperf.detail")
    for sha256, path, _ in named:
        assert hashlib.sha256((out / path).read_bytes()).hexdigest() == sha256, path
    assert stored
    assert all((out / p).is_file() for p in stored)
