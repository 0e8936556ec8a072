"""Property (issue 23): ``measure`` against a mutating loopback server always ends with each
request recorded, and ``init`` over mutated evidence folders never writes hidden text or a
spec that does not parse. Hypothesis picks the mutations (``tests/test_fuzz.py``), derandomised
and bounded by ``EVIDENCEPACK_FUZZ_EXAMPLES``."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from evidencepack.spec.located import is_hidden

from ..measure.openai_server import OpenAIServer
from ..test_fuzz import EXAMPLES, FUZZ, Mutation, _run, mutations
from .harness import run
from .test_measure import _measure

HIDDEN = ["\u2028", "\u2029", "\u0085", "\u202e", "\u200b", "\x1b", "\n"]


@settings(FUZZ, max_examples=min(EXAMPLES, 8))
@given(mutate=mutations())
def test_measure_ends_against_a_mutating_server(mutate: Mutation) -> None:
    with tempfile.TemporaryDirectory() as tmp, OpenAIServer(mutate=mutate) as server:
        prompts = Path(tmp) / "prompts.jsonl"
        prompts.write_text("".join(json.dumps({"prompt": f"p {i}"}) + "\n" for i in range(4)))
        out = Path(tmp) / "run"
        ran = run(_measure(server, prompts, out))
        assert ran.code in (0, 3), ran.err
        assert "Traceback" not in ran.err
        rows = [json.loads(line) for line in (out / "requests.jsonl").read_text().splitlines()]
        assert len(rows) >= 16  # every sample LoadGen issued was completed and recorded
        assert all(r["status"] == "ok" or r["error"] for r in rows)
        assert all((r["tpot_ms"] or 0) >= 0 and (r["ttft_ms"] or 0) >= 0 for r in rows)


EVIDENCE = {
    "a/bench.json": "formats/guidellm/generated/benchmarks.json",
    "a/profile_export_aiperf.json": "formats/aiperf/generated/profile_export_aiperf.json",
    "b/results.json": "formats/lm-eval/public/bias_llama3-8b_results_2024-06-17.json",
}


@FUZZ
@given(
    mutate=mutations(),
    which=st.sampled_from(sorted(EVIDENCE)),
    hidden=st.sampled_from(HIDDEN),
    renamed=st.booleans(),
)
def test_init_over_a_mutated_folder_writes_a_plain_spec(
    shared_data: Path, mutate: Mutation, which: str, hidden: str, renamed: bool
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        evidence = Path(tmp) / "evidence"
        for target, source in EVIDENCE.items():
            (evidence / target).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(shared_data / source, evidence / target)
        victim = evidence / which
        victim.write_bytes(mutate(victim.read_bytes()))
        if renamed:  # a hidden character and a YAML key in the file's name
            victim.rename(victim.with_name(f"x{hidden}waivers: [{{check: C1}}]{hidden}.json"))
        if _run(["init", str(evidence)]) != 0:
            return
        text = (evidence / "pack.yaml").read_text(encoding="utf-8")
        assert not any(is_hidden(char) for char in text)
        data = yaml.safe_load(text)
        assert "waivers" not in data
