"""One name per file (issue 28): the importer is handed what to call each file and folder
(``import_path(name=...)``) and its parsers name a file by that name from the start, so a build
that parses private copies never records a copy's path, nor the building machine's."""

from __future__ import annotations

import json
import shutil
from pathlib import Path, PurePosixPath

from evidencepack.core.provenance import sha256_file
from evidencepack.mlperf.importer import import_path
from evidencepack.store import Store

from .conftest import replace_in

POWER = "closed/Lenovo/results/SR780a_V3_B200SXMx8_TRT/llama3.1-8b"
TRAINING = "NVIDIA/results/tyche_ngpu8_ngc25.09_nemo/llama2_70b_lora"
ENDPOINT = "closed/Atlas_Inference"


def _tree(shared_data: Path, root: Path) -> dict[str, Path]:
    """A tree of real results under ``root``, some of them broken: a power-measured result
    whose readings are not all numbers, a training result whose run is cut short, the
    endpoint tool's results, and sound LoadGen results beside them."""
    mlperf = shared_data / "mlperf"
    shutil.copytree(mlperf / "v5.1-power", root / "v5.1")
    shutil.copytree(mlperf / "v6.1-sample", root / "v6.1")
    shutil.copytree(mlperf / "training-sample" / "NVIDIA", root / "training" / "NVIDIA")
    spl = root / "v5.1" / POWER / "Server/performance/run_1/spl.txt"
    lines = spl.read_text(encoding="utf-8").splitlines(keepends=True)
    spl.write_text("".join([*lines[:3], "Time,not a time\n", *lines[4:]]), encoding="utf-8")
    run = root / "training" / TRAINING / "result_2.txt"
    kept = [x for x in run.read_text(encoding="utf-8").splitlines(True) if '"run_stop"' not in x]
    run.write_text("".join(kept), encoding="utf-8")
    summary = next((root / "v6.1").rglob("result_summary.json"))
    replace_in(summary, '"n_samples_issued"', '"n_samples_issued_not"')
    return {"spl": spl, "run": run, "summary": summary}


def test_every_record_and_message_names_files_by_the_name_handed_in(
    shared_data: Path, tmp_path: Path
) -> None:
    root = tmp_path / "machine" / "tree"
    broken = _tree(shared_data, root)
    private = tmp_path / "private"
    private.mkdir()
    copies: list[Path] = []

    def read(path: Path) -> tuple[Path, str, int]:
        """As a build reads: each file into a private copy, parsed from there."""
        copy = private / f"{len(copies):05d}" / path.name
        copy.parent.mkdir()
        shutil.copyfile(path, copy)
        copies.append(copy)
        return copy, sha256_file(copy), copy.stat().st_size

    def name(path: Path) -> str:
        return str(PurePosixPath("pack", *path.relative_to(root).parts))

    with Store() as store:
        report = import_path(store, root, name=name, read=read)
        tables = {
            table: store.rows(f"SELECT * FROM {table}")  # noqa: S608 (a fixed table name)
            for table in (
                "files",
                "mlperf_results",
                "mlperf_systems",
                "mlperf_checks",
                "mlperf_result_files",
                "mlperf_rejections",
                "mlperf_training_results",
                "mlperf_training_runs",
            )
        }
    recorded = report.model_dump_json() + json.dumps(tables, default=str)
    assert copies, "the files were read from private copies"
    assert str(private) not in recorded
    assert str(tmp_path) not in recorded
    assert report.path == "pack"
    reasons = {r.location: r.reason for r in report.rejected}
    spl, run, summary = (name(broken[k]) for k in ("spl", "run", "summary"))
    assert reasons[f"pack/v5.1/{POWER}/Server"].startswith(f"{spl}:4: not a 'Time,")
    # the run cut short is dropped as the summarizer drops it; its reason names the pack path
    (training,) = [
        r for r in tables["mlperf_training_results"] if r["benchmark"] == "llama2_70b_lora"
    ]
    record = training["record"]
    (dropped,) = (json.loads(record) if isinstance(record, str) else record)["dropped_runs"]
    assert dropped["reason"].startswith(f"{run}:")
    assert " no run_stop " in dropped["reason"]
    assert any(r.startswith(f"{summary}: no n_samples_issued") for r in reasons.values())
    assert report.imported, "the sound results beside them are imported"
    files = {row["path"] for row in tables["files"]}
    assert files
    assert all(path.startswith("pack/") for path in files)
    for row in tables["mlperf_checks"]:
        assert row["source"] == "" or row["source"].startswith("pack/"), row
    assert f"pack/v5.1/{POWER}/Offline/performance/power/client.json" in files
