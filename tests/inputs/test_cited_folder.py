"""A folder of several result files cited as one ``runs`` entry: every run in it is its own load
point with its own name (the file's path in the spec), never a duplicate key. The naming is
``analyze/gather.py``'s ``_label`` on main (commit b30e3e9); on this branch alone, before that
merge, the check fails with the duplicate key this test guards against."""

from __future__ import annotations

from pathlib import Path

from evidencepack.pipeline import CompileOptions, check

from ..test_pipeline import _edit
from .builders import requests, vllm_result, write_json


def test_a_folder_of_vllm_results_is_one_load_point_per_file(samples: Path) -> None:
    folder = samples / "evidence" / "h200-vllm" / "vllm"
    (folder / "more").mkdir(parents=True)
    results = {}
    for k, name in enumerate(("a.json", "b.json", "more/a.json")):
        result = vllm_result(requests(n=20, seed=90 + k), detailed=False)
        result["model_id"] = "acme/contract-summariser-70b-fp8 (sample)"
        write_json(folder / name, result)
        results[name] = result
    _edit(
        samples / "pack.yaml",
        "        - path: evidence/h200-vllm/runs/qps_5.5\n",
        "        - path: evidence/h200-vllm/runs/qps_5.5\n"
        "        - path: evidence/h200-vllm/vllm\n",
    )
    decision = check(samples / "pack.yaml", CompileOptions())
    subjects = {
        r.subject
        for r in decision.comparability
        if r.kind == "run" and r.candidate == "h200-vllm" and "/vllm/" in r.subject
    }
    assert subjects == {f"evidence/h200-vllm/vllm/{name}" for name in results}
