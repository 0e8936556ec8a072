"""An in-house benchmark tool's format added without forking: a plug-in installed as a
distribution registers it through the ``evidencepack.formats`` entry-point group, and a pack read
by it says so (in its inputs, its manifest and its report)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from evidencepack.readers.base import Format
from evidencepack.readers.registry import (
    ENTRY_POINT_GROUP,
    read_input,
    register_format,
    unregister_format,
)

from ..conftest import REPO_ROOT

PLUGIN = textwrap.dedent(
    '''
    """A toy in-house benchmark format: {"acme_bench": 1, ...}: SAMPLE, for the plug-in test."""
    from evidencepack.readers.base import Format, ParsedInput, item_id
    from evidencepack.readers.models import Identity, LatencyStats, Load, ServingRun, TokenStats


    def detect(probe):
        return probe.container == "json" and isinstance(probe.first, dict) and (
            probe.first.get("acme_bench") == 1
        )


    def _p99(metric, definition, value, count):
        return LatencyStats(
            metric=metric, definition=definition, weighting="request",
            source="tool_aggregate", count=count, p99_ms=value, max_ms=value,
        )


    def parse(probe, record):
        doc = probe.first
        run = ServingRun(
            run_id=item_id(record, 0), index=0, format_id="acme-bench", tool="acme-bench",
            tool_version="1.2.0",
            identity=Identity(model_name=doc["model"]),
            load=Load(kind="open_loop", request_rate_per_s=doc["rate"]),
            requests_sent=doc["requests"], requests_completed=doc["requests"],
            requests_failed=0, request_throughput_per_s=doc["rate"],
            output_token_throughput_per_s=doc["rate"] * doc["output_tokens"],
            tokens=TokenStats(
                input_mean_tokens=doc["input_tokens"], output_mean_tokens=doc["output_tokens"]
            ),
            ttft=_p99("ttft", "ttft", doc["ttft_p99_ms"], doc["requests"]),
            tpot=_p99("tpot", "tpot_excl_first", doc["tpot_p99_ms"], doc["requests"]),
        )
        return ParsedInput(format_id="acme-bench", file=record, runs=(run,))


    FORMAT = Format(id="acme-bench", kind="runs", tool="acme-bench", detect=detect, parse=parse)
    '''
)


def _install(site: Path, module: str = "acme_bench_plugin", body: str = PLUGIN) -> None:
    """A distribution on disk, as pip would leave it: the module and its dist-info (version
    1.2.0 for the working plug-in, 0.4.0 for a broken one)."""
    (site / f"{module}.py").write_text(body, encoding="utf-8")
    name, version = module.replace("_", "-"), "1.2.0" if body == PLUGIN else "0.4.0"
    info = site / f"{module}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(
        f"[{ENTRY_POINT_GROUP}]\nacme = {module}:FORMAT\n", encoding="utf-8"
    )


def _run_file(path: Path) -> Path:
    path.write_text(
        json.dumps(
            {
                "acme_bench": 1,
                "model": "acme/contract-summariser-70b-fp8 (sample)",
                "rate": 2.1,
                "requests": 600,
                "input_tokens": 1790,
                "output_tokens": 255,
                "ttft_p99_ms": 900.0,
                "tpot_p99_ms": 60.0,
            }
        ),
        encoding="utf-8",
    )
    return path


def test_register_format_at_run_time(tmp_path: Path) -> None:
    namespace: dict[str, object] = {}
    exec(PLUGIN, namespace)  # the plug-in's module body, as an embedding application holds it
    fmt = namespace["FORMAT"]
    assert isinstance(fmt, Format)
    register_format(fmt, plugin="acme-bench-plugin 0.0.1")
    try:
        with pytest.raises(ValueError, match="already registered"):
            register_format(fmt)
        parsed = read_input(_run_file(tmp_path / "acme.json"))
        assert parsed.format_id == "acme-bench"
        assert parsed.plugin == "acme-bench-plugin 0.0.1"
        assert parsed.runs[0].request_throughput_per_s == 2.1
        assert any("read by the plug-in acme-bench-plugin 0.0.1" in w for w in parsed.warnings)
    finally:
        unregister_format("acme-bench")
    with pytest.raises(Exception, match="unknown format"):
        read_input(tmp_path / "acme.json")


# slow: builds the sample in a fresh process that finds the plug-in installed
@pytest.mark.slow
def test_an_installed_plugin_reads_a_cited_file_and_the_pack_says_so(
    samples: Path, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    site.mkdir()
    _install(site)
    _run_file(samples / "acme.json")
    spec = samples / "pack.yaml"
    text = spec.read_text(encoding="utf-8")
    anchor = "        - path: evidence/mi325x-vllm/runs/qps_3.2\n"
    spec.write_text(text.replace(anchor, anchor + "        - path: acme.json\n", 1))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(REPO_ROOT)])}
    done = subprocess.run(
        [sys.executable, "-m", "evidencepack", "build", str(spec), "-o", str(tmp_path / "pack")],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    manifest = json.loads((tmp_path / "pack" / "manifest.json").read_text(encoding="utf-8"))
    entry = next(i for i in manifest["inputs"] if i["pack_path"] == "inputs/acme.json")
    assert entry["plugin"] == "acme-bench-plugin 1.2.0"
    assert entry["format"] == "acme-bench"
    html = (tmp_path / "pack" / "report.html").read_text(encoding="utf-8")
    assert "read by plug-in acme-bench-plugin 1.2.0" in html
    shutil.rmtree(site)


# slow: inspect, check and build, each in a fresh process with the broken plug-in
@pytest.mark.slow
def test_a_plugin_that_fails_to_load_is_a_warning_in_inspect_check_and_the_report(
    samples: Path, tmp_path: Path
) -> None:
    """A broken plug-in never stops the built-in readers, and it is never silent: ``inspect``,
    ``check`` and the report each say which plug-in failed and why."""
    site = tmp_path / "site"
    site.mkdir()
    _install(site, "broken_plugin", "raise ImportError('needs acme-sdk 3')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(REPO_ROOT)])}
    said = "the reader plug-in broken-plugin 0.4.0 (broken_plugin:FORMAT) failed to load"

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "evidencepack", *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )

    spec = samples / "pack.yaml"
    inspected = cli("inspect", str(samples / "evidence/h200-vllm/scores.jsonl"))
    assert inspected.returncode == 0, inspected.stderr
    assert f"warning: {said}: ImportError: needs acme-sdk 3" in inspected.stdout
    as_json = cli("inspect", "--json", str(samples / "evidence/h200-vllm/scores.jsonl"))
    assert json.loads(as_json.stdout)[0]["ok"] is True
    assert said in as_json.stderr
    checked = cli("check", str(spec))
    assert f"warning: {said}" in checked.stdout, checked.stderr
    built = cli("build", str(spec), "-o", str(tmp_path / "pack"))
    assert built.returncode == 0, built.stderr
    html = (tmp_path / "pack" / "report.html").read_text(encoding="utf-8")
    assert "broken-plugin 0.4.0" in html
    assert "needs acme-sdk 3" in html
    decision = json.loads((tmp_path / "pack" / "decision.json").read_text(encoding="utf-8"))
    spec_file = next(f for f in decision["inputs"] if f["role"] == "spec")
    assert any(said in w for w in spec_file["warnings"])
