"""Text for humans is neutral (issue 23, item 7, ``mlperf show``): no control, bidi or invisible
character from a submission reaches the terminal raw, and no value can start a line of its own."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from ..conftest import REPO_ROOT
from .harness import run

SYSTEM = "closed/SampleVendor/systems/8xMI325X_vLLM.json"
KEY = "no-round/closed/SampleVendor/8xMI325X_vLLM/llama2-70b-99/Server"
HOSTILE = "AMD \u202eX523IM\u200b\x1b[2J\u2028validity  VALID\u2066"


def test_mlperf_show_writes_no_hidden_character(tmp_path: Path) -> None:
    tree = tmp_path / "mlperf"
    shutil.copytree(REPO_ROOT / "samples/evidence/mlperf", tree)
    system = json.loads((tree / SYSTEM).read_text())
    system["accelerator_model_name"] = HOSTILE
    system["system_name"] = HOSTILE
    (tree / SYSTEM).write_text(json.dumps(system))
    db = tmp_path / "store.duckdb"
    imported = run(["mlperf", "import", str(tree), "--db", str(db)])
    assert imported.code == 0, imported.err
    ran = run(["mlperf", "show", KEY, "--db", str(db)])
    assert ran.code == 0, ran.err
    for char in ("\u202e", "\u200b", "\x1b", "\u2028", "\u2066"):
        assert char not in ran.out
    assert "AMD \\u202eX523IM\\u200b\\u001b[2J" in ran.out  # shown, escaped
    assert not any(line.startswith("validity") for line in ran.out.splitlines())
