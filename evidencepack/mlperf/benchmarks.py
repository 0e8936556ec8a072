"""MLPerf LLM benchmark and scenario names: canonical forms, folder aliases, model families.

Benchmark folders vary: ``llama3_1-8b`` beside ``llama3.1-8b``; v5.0 named interactive runs as a
benchmark (``llama2-70b-interactive-99``); LoadGen's own config names drop the accuracy level
(``llama2-70b``). ``resolve_benchmark`` maps all of them to one canonical name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Scenario = Literal["Offline", "Server", "Interactive", "SingleStream", "MultiStream"]
SCENARIOS: tuple[str, ...] = ("Offline", "Server", "Interactive", "SingleStream", "MultiStream")

# canonical benchmark -> model family (what a spec compares across accuracy levels)
BENCHMARKS: dict[str, str] = {
    "gptj-99": "gptj",
    "gptj-99.9": "gptj",
    "llama2-70b-99": "llama2-70b",
    "llama2-70b-99.9": "llama2-70b",
    "mixtral-8x7b": "mixtral-8x7b",
    "llama3.1-405b": "llama3.1-405b",
    "llama3.1-8b": "llama3.1-8b",
    "llama3.1-8b-edge": "llama3.1-8b",
    "deepseek-r1": "deepseek-r1",
    "gpt-oss-120b": "gpt-oss-120b",
    # v6.0's vision-language LLM; the official table reports it in samples (queries) per second
    "qwen3-vl-235b-a22b": "qwen3-vl-235b-a22b",
    # v6.1's "agentic edge" benchmark (BFCL v4 function calling), measured with the endpoint tool
    "qwen3.6-27b": "qwen3.6-27b",
}

# LLM benchmarks whose headline is samples/s (Offline) and queries/s (Server), not tokens/s
# (the checker's RESULT_FIELD_BENCHMARK_OVERWRITE names no token field for them).
SAMPLE_HEADLINE: frozenset[str] = frozenset({"qwen3-vl-235b-a22b"})

# MLPerf Inference benchmarks of every round that are not LLMs (checker MODEL_CONFIG "models"
# and "model_mapping"): read as out of scope and skipped, never rejected.
OUT_OF_SCOPE: frozenset[str] = frozenset(
    {
        "resnet", "resnet50", "mobilenet", "ssd-resnet34", "ssd-mobilenet", "ssd-large",
        "ssd-small", "retinanet", "bert-99", "bert-99.9", "dlrm-99", "dlrm-99.9", "dlrm-v2-99",
        "dlrm-v2-99.9", "dlrm-v3", "3d-unet-99", "3d-unet-99.9", "rnnt", "gnmt",
        "stable-diffusion-xl", "rgat", "pointpainting", "whisper", "wan-2.2-t2v-a14b",
        "yolo-95", "yolo-99",
    }
)  # fmt: skip

# LoadGen config names (mlperf.conf) without an accuracy level -> the 99% benchmark
_LEVELLESS = {"gptj": "gptj-99", "llama2-70b": "llama2-70b-99"}


@dataclass(frozen=True)
class ResolvedBenchmark:
    """A benchmark folder name resolved: canonical name, and whether it implies Interactive."""

    benchmark: str
    interactive: bool
    assumed_level: bool = False

    @property
    def model_family(self) -> str:
        """The model family of the benchmark (``llama2-70b`` for ``llama2-70b-99.9``)."""
        return BENCHMARKS[self.benchmark]


def _normalise(name: str) -> str:
    # llama3_1-8b -> llama3.1-8b (the checker's model_mapping); case-insensitive
    return name.strip().lower().replace("llama3_1", "llama3.1")


def resolve_benchmark(name: str) -> ResolvedBenchmark | None:
    """The canonical benchmark a folder (or LoadGen config) name stands for, or None."""
    text = _normalise(name)
    interactive = False
    if "-interactive" in text:
        # v5.0: llama2-70b-interactive-99; LoadGen config: llama3_1-8b-interactive
        text = text.replace("-interactive", "")
        interactive = True
    if text in BENCHMARKS:
        return ResolvedBenchmark(text, interactive)
    if text in _LEVELLESS:
        return ResolvedBenchmark(_LEVELLESS[text], interactive, assumed_level=True)
    return None


# The checker's last resort for a folder name it cannot map (``get_mlperf_model``: "try to
# guess, keep this for backwards compatibility"): these substrings name a non-LLM benchmark,
# as in open-division folders such as ``bert-base-pruned90-none-bert-99``. Checked in order.
_GUESSED: tuple[tuple[str, str], ...] = (
    ("mobilenet", "resnet"),
    ("efficientnet", "resnet"),
    ("resnet50", "resnet"),
    ("bert-99.9", "bert-99.9"),
    ("bert-99", "bert-99"),
)


def out_of_scope_benchmark(name: str) -> str | None:
    """The non-LLM MLPerf benchmark a folder or model name stands for (by its exact name, else
    by the checker's substring guesses), or None."""
    text = _normalise(name)
    if text in OUT_OF_SCOPE:
        return text
    return next((benchmark for part, benchmark in _GUESSED if part in text), None)


def out_of_scope(name: str) -> bool:
    """Whether a benchmark name is one of MLPerf's non-LLM benchmarks."""
    return out_of_scope_benchmark(name) is not None


def resolve_scenario(folder: str) -> str | None:
    """``offline`` -> ``Offline``; None for a folder that is not a scenario."""
    return {s.lower(): s for s in SCENARIOS}.get(folder.strip().lower())


def benchmark_from_run_folder(name: str) -> ResolvedBenchmark | None:
    """The benchmark in a LoadGen output folder named ``<benchmark>_<Scenario>_...``."""
    parts = name.split("_")
    for end in range(len(parts), 0, -1):
        found = resolve_benchmark("_".join(parts[:end]))
        if found is not None:
            return found
    return None
