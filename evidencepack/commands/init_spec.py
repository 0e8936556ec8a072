"""Start a pack spec from a folder of evidence (``evidencepack init``).

Each file's format is detected by content (as ``inspect`` does); each top-level subfolder with
evidence becomes a candidate. What the files record (model, runtime, precision, loads) fills
the spec; what only the team can state (SLO, traffic, prices, the quality bar) is left as a
``TODO`` value with a comment, and ``validate`` names each one until it is filled."""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from ..core._atomic import atomic_write
from ..errors import InputError, InvalidRequest, option
from ..mlperf.loadgen_log import DETAIL_NAME, SUMMARY_NAME
from ..mlperf.tree import DIVISIONS
from ..readers.base import ParsedInput
from ..readers.clients import is_client
from ..readers.models import Identity
from ..readers.registry import UnknownFormat, read_input
from ..spec.fit import fit_lines
from ..spec.located import is_hidden
from ..spec.models import API_VERSION

TODO = "TODO"
MAX_FILES = 5000
"""Files looked at in one folder, at most: an evidence folder, not a disk."""
MAX_DEPTH = 32  # folders below the evidence folder looked into (deeper: said, not read)


@dataclass
class Ref:
    """One evidence reference init found, with the comment that says what it is."""

    path: str
    role: str  # mlperf, runs, scores, references
    note: str
    identities: list[Identity] = field(default_factory=list)
    input_tokens: list[float] = field(default_factory=list)
    output_tokens: list[float] = field(default_factory=list)
    metrics: list[tuple[str, str | None]] = field(default_factory=list)
    result: str | None = None  # an MLPerf result key (TODO where the tree holds several)
    keys: list[str] = field(default_factory=list)  # the tree's keys, when it holds several


@dataclass
class Found:
    """One candidate folder and the evidence found in it."""

    candidate: str
    refs: list[Ref] = field(default_factory=list)


@dataclass(frozen=True)
class InitResult:
    """The spec written: path, candidates, evidence references, TODO values, files not cited."""

    path: Path
    candidates: tuple[str, ...]
    references: int
    todos: int
    skipped: tuple[str, ...]


def init_spec(folder: Path, out: Path | None = None, *, force: bool = False) -> InitResult:
    """Write a starting spec for the evidence under ``folder`` to ``out`` (FOLDER/pack.yaml)."""
    if not folder.is_dir():
        raise InputError(f"{folder}: no such folder")
    out = out if out is not None else folder / "pack.yaml"
    if out.exists() and not force:
        choose = f"choose another file with {option('out')} or pass {option('force')}"
        raise InvalidRequest(f"{out} exists: {choose}")
    base = out.resolve().parent
    skipped: list[str] = []
    found = _survey(folder.resolve(), base, out.resolve(), skipped)
    if not any(f.refs for f in found):
        raise InputError(
            f"{folder}: no evidence evidencepack can read"
            + (f" ({len(skipped)} file(s) not recognised)" if skipped else "")
        )
    text = render(folder.resolve().name, found, skipped)
    atomic_write(out, text.encode("utf-8"))
    return InitResult(
        path=out,
        candidates=tuple(f.candidate for f in found),
        references=sum(len(f.refs) for f in found),
        todos=sum(1 for line in text.splitlines() if re.search(r":\s+TODO\b", line)),
        skipped=tuple(skipped),
    )


# --- finding the evidence -----------------------------------------------------------------------


def _survey(folder: Path, base: Path, out: Path, skipped: list[str]) -> list[Found]:
    """Candidates by folder layout: each top-level subfolder holding evidence is one, except an
    MLPerf results tree, which every candidate cites; files at the top belong to one candidate
    named after the folder when there is no subfolder."""
    budget = [MAX_FILES]
    links = sorted(p for p in folder.iterdir() if p.is_symlink() and not _hidden(p))
    skipped += [f"{_rel(p, base)}: a symbolic link, not followed; cite it yourself" for p in links]
    subfolders = sorted(
        p for p in folder.iterdir() if p.is_dir() and not p.is_symlink() and not _hidden(p)
    )
    found = []
    shared: list[Ref] = []  # a top-level MLPerf tree: every candidate's reference
    for sub in subfolders:
        refs = list(_refs_in(sub, base, out, skipped, budget))
        if refs and all(r.role == "mlperf" for r in refs) and _is_mlperf_tree(sub):
            shared += refs
        elif refs and all(r.role == "references" for r in refs):
            shared += refs  # public results: every candidate compares with them
        elif refs:
            found.append(Found(_slug(sub.name), refs))
    if shared and not found:
        found.append(Found(_slug(folder.name), []))
    for candidate in found:
        candidate.refs = shared + candidate.refs
    loose = sorted(
        p for p in folder.iterdir() if p.is_file() and not p.is_symlink() and not _hidden(p)
    )
    loose_refs = [r for p in loose if (r := _file_ref(p, base, out, skipped, budget))]
    if loose_refs and not found:
        found.append(Found(_slug(folder.name), loose_refs))
    elif loose_refs:
        skipped += [f"{r.path}: beside the candidate folders; cite it yourself" for r in loose_refs]
    for candidate in found:
        named = [r for r in candidate.refs if _unsafe(r.path) or _unsafe(r.result or "")]
        skipped += [
            f"{r.path}: its name holds hidden characters (the spec refuses them); rename it "
            "to cite it"
            for r in named
        ]
        candidate.refs = [r for r in candidate.refs if r not in named]
    return [candidate for candidate in found if candidate.refs]


def _refs_in(
    folder: Path, base: Path, out: Path, skipped: list[str], budget: list[int], depth: int = 1
) -> Iterator[Ref]:
    if depth > MAX_DEPTH:
        skipped.append(
            f"{_rel(folder, base)}: nested deeper than {MAX_DEPTH} folders; not looked at"
        )
        return
    if _is_mlperf_tree(folder):
        mlperf = _mlperf_ref(folder, base, skipped)
        if mlperf is not None:
            yield mlperf
        return
    if (folder / DETAIL_NAME).is_file() or (folder / SUMMARY_NAME).is_file():
        ref = _loadgen_ref(folder, base, skipped)
        if ref is not None:
            yield ref
        return
    for child in sorted(folder.iterdir()):
        if _hidden(child):
            continue
        if child.is_symlink():
            skipped.append(f"{_rel(child, base)}: a symbolic link, not followed; cite it yourself")
            continue
        if child.is_dir():
            yield from _refs_in(child, base, out, skipped, budget, depth + 1)
        elif child.is_file():
            ref = _file_ref(child, base, out, skipped, budget)
            if ref is not None:
                yield ref


def _file_ref(
    path: Path, base: Path, out: Path, skipped: list[str], budget: list[int]
) -> Ref | None:
    if path.resolve() == out:
        return None
    rel = _rel(path, base)
    if budget[0] <= 0:
        skipped.append(f"{rel}: not looked at (more than {MAX_FILES} files)")
        return None
    budget[0] -= 1
    try:
        parsed = read_input(path, name=rel)
    except InputError as exc:
        skipped.append(_why(exc))
        return None
    return _ref_of(parsed, rel)


def _loadgen_ref(folder: Path, base: Path, skipped: list[str]) -> Ref | None:
    """A LoadGen output folder of the team's own: a serving run, read by its detail log."""
    log = folder / DETAIL_NAME if (folder / DETAIL_NAME).is_file() else folder / SUMMARY_NAME
    try:
        parsed = read_input(log, name=_rel(log, base))
    except InputError as exc:
        skipped.append(_why(exc))
        return None
    if not parsed.runs:
        skipped.append(f"{_rel(folder, base)}: a LoadGen folder with no performance run")
        return None
    return _ref_of(parsed, _rel(folder, base))


def _is_mlperf_tree(folder: Path) -> bool:
    names = {p.name.lower() for p in folder.iterdir() if p.is_dir()}
    return bool(names & set(DIVISIONS)) or {"results", "systems"} <= names


def _mlperf_ref(folder: Path, base: Path, skipped: list[str]) -> Ref | None:
    """An MLPerf results tree, imported into a throw-away store for its result keys."""
    from ..mlperf.importer import import_path
    from ..store import Store

    rel = _rel(folder, base)
    try:
        with Store() as store:
            report = import_path(store, folder)
    except InputError as exc:
        skipped.append(_why(exc.named(rel) if exc.file == str(folder) else exc))
        return None
    keys = sorted({*report.imported, *report.unchanged})
    if not keys:
        skipped.append(
            f"{rel}: an MLPerf tree with no usable result ({len(report.rejected)} rejected)"
        )
        return None
    ref = Ref(rel, "mlperf", f"an MLPerf results tree: {len(keys)} result(s)")
    if len(keys) == 1:
        ref.result = keys[0]
    else:
        ref.note += "; cite the one this candidate compares with as `result:`"
        ref.result = TODO
        ref.keys = keys
    return ref


def _ref_of(parsed: ParsedInput, rel: str) -> Ref:
    record = parsed.file
    tool = " ".join(x for x in (record.tool, record.tool_version) if x) or parsed.format_id
    ref = Ref(rel, parsed.kind, f"{parsed.format_id} ({tool})")
    loads: list[str] = []
    for run in parsed.runs:
        ref.identities.append(run.identity)
        if run.tokens.input_mean_tokens:
            ref.input_tokens.append(run.tokens.input_mean_tokens)
        if run.tokens.output_mean_tokens:
            ref.output_tokens.append(run.tokens.output_mean_tokens)
        load = run.load
        if load.request_rate_per_s:
            loads.append(f"{load.request_rate_per_s:g} req/s")
        elif load.concurrency:
            loads.append(f"concurrency {load.concurrency}")
        elif load.kind:
            loads.append(load.kind.replace("_", " "))
    for score_set in parsed.score_sets:
        ref.identities.append(score_set.identity)
        ref.metrics.append((score_set.metric, score_set.direction))
    if parsed.runs:
        ref.note += f": {len(parsed.runs)} run(s)"
        if loads:
            ref.note += f" at {', '.join(loads[:6])}{', ...' if len(loads) > 6 else ''}"
    if parsed.references:
        kinds = sorted({p.provenance.replace("_", " ") for p in parsed.references})
        ref.note += f": {len(parsed.references)} reference point(s), {', '.join(kinds)}"
        models = [p.model_name for p in parsed.references]
        if _common(models):
            ref.note += f"; model {_common(models)}"
    if parsed.score_sets:
        tasks = sorted({s.task or s.metric for s in parsed.score_sets})
        ref.note += f": {len(parsed.score_sets)} score set(s) ({', '.join(tasks[:4])})"
    model = _common(i.model_name for i in ref.identities)
    if model:
        ref.note += f"; model {model}"
    return ref


# --- writing the spec ---------------------------------------------------------------------------


def render(name: str, found: list[Found], skipped: list[str]) -> str:
    """The spec's text: what the files record, and TODO for what only the team can state."""
    every = [ident for f in found for ref in f.refs for ident in ref.identities]
    model = _common(i.model_name for i in every)
    digest = _common(i.model_digest for i in every)
    refs = [ref for f in found for ref in f.refs]
    precision = _serving(refs, "precision")
    runtime = _serving(refs, "runtime_name")
    runtime_version = _serving(refs, "runtime_version")
    concurrency = max((i.concurrency for i in every if i.concurrency), default=None)
    metrics = [m for f in found for ref in f.refs for m in ref.metrics]
    metric = _common(m for m, _ in metrics)
    direction = _common(d for m, d in metrics if m == metric)
    inputs = [t for f in found for ref in f.refs for t in ref.input_tokens]
    outputs = [t for f in found for ref in f.refs for t in ref.output_tokens]

    lines = [
        f"# Started by `evidencepack init` from the evidence in {_comment(name)}/.",
        "# Fill every TODO (`evidencepack validate` names each one still open), then review the",
        "# rest: it is what the files record, and what they do not record is left to you.",
        f"apiVersion: {API_VERSION}",
        "",
        "decision:",
        f"  id: {_scalar(_slug(name))}",
        "  question: TODO  # what is being decided, in one sentence",
        "  owner: TODO  # who owns the decision",
        "  date: TODO  # the decision's date, YYYY-MM-DD (the report's date; never the clock)",
        "",
        "task:",
        "  statement: TODO  # what the model must do, for whom",
        "",
        "dataset:",
        "  name: TODO  # the prompts the team scores its model on",
        "  version: TODO",
        "  size_items: TODO  # how many items",
        "  digest: TODO  # its sha256 (64 hex); or replace this line with `path: FILE`",
        "",
        "scoring:",
        f"  metric: {_scalar(metric) if metric else 'TODO'}"
        + ("  # as the score files name it" if metric else "  # e.g. pass_rate"),
        f"  direction: {direction or 'higher_is_better'}",
        "  bar:",
        "    threshold: TODO  # your quality bar, e.g. 0.80 for an 80% pass rate",
        "    judged_on: confidence_bound",
        "    confidence_level: 0.95",
        "",
        "traffic:",
        "  pattern: TODO  # interactive or batch",
        "  peak_requests_per_s: TODO  # your peak traffic",
        f"  input_tokens: {{mean: TODO}}  # production mean{_measured(inputs)}",
        f"  output_tokens: {{mean: TODO}}  # production mean{_measured(outputs)}",
        "  utilisation: 0.6",
        "  arrival: poisson  # how requests arrive: poisson, bursty, uniform or any",
        "",
        "slo:",
        "  ttft_p99_ms: TODO  # p99 time to first token you promise, in ms",
        "  tpot_p99_ms: TODO  # p99 time per output token, in ms",
        "  max_error_rate: 0.01",
        "",
        "envelope:",
        "  model:",
        *_field("    name", model, "the model you serve"),
        *_field("    digest", digest, "the model's sha256 (64 hex)"),
        *_field("  precision", precision, "e.g. fp8, bf16"),
        "  runtime:",
        *_field("    name", runtime, "e.g. vllm"),
        *_field("    version", runtime_version, "the runtime's version"),
    ]
    if concurrency:
        lines.append(f"  max_concurrency: {concurrency}  # the highest concurrency the runs used")
    lines += fit_lines()
    lines += ["", "candidates:"]
    for f in found:
        lines += _candidate(f)
    if skipped:
        lines += ["", "# Not cited (not recognised, or not a candidate's):"]
        lines += [f"#   {_comment(s)}" for s in skipped[:50]]
        if len(skipped) > 50:
            lines.append(f"#   ... and {len(skipped) - 50} more")
    return "\n".join(lines) + "\n"


def _serving(refs: Iterable[Ref], attr: str) -> str | None:
    """How the model is served, as the runs record it, else as the score sets do (an eval
    harness's own backend counts only where no run says)."""
    refs = list(refs)
    # An HTTP client (lm-eval's local-completions) is no runtime: its identity names none.
    named = [
        (ref.role, i)
        for ref in refs
        for i in ref.identities
        if not (attr.startswith("runtime") and is_client(i.runtime_name))
    ]
    runs = [i for role, i in named if role == "runs"]
    scores = [i for role, i in named if role != "runs"]
    return _common(getattr(i, attr) for i in runs) or _common(getattr(i, attr) for i in scores)


def _candidate(found: Found) -> list[str]:
    runtime = _serving(found.refs, "runtime_name")
    version = _serving(found.refs, "runtime_version")
    precision = _serving(found.refs, "precision")
    lines = [
        f"  - id: {_scalar(found.candidate)}",
        "    hardware:",
        "      accelerator: TODO  # with its form factor and any slice, e.g. NVIDIA "
        "H200-SXM-141GB, NVIDIA H200 NVL, NVIDIA H100 MIG 3g.40gb",
        "      accelerators_per_node: TODO",
        "      nodes: 1",
        "      accelerators_per_replica: TODO  # e.g. the tensor-parallel size",
        "    stack:",
        *_field("      runtime", runtime, "the serving runtime"),
        *_field("      version", version, "its version"),
        *_field("      precision", precision, "e.g. fp8"),
        "    price:",
        "      per_accelerator_hour: TODO  # your quoted price per accelerator-hour",
        "      currency: USD",
        "    evidence:",
    ]
    if any(ref.role == "runs" and not i.model_name for ref in found.refs for i in ref.identities):
        lines += [
            "      # Some runs do not record the model (LoadGen logs never do): state it here,",
            "      # shown as declared, e.g.",
            "      # declared: {model_name: ..., precision: ..., runtime: ..., runtime_version: .}",
        ]
    for role in ("mlperf", "runs", "scores"):
        refs = [r for r in found.refs if r.role == role]
        if refs:
            lines.append(f"      {role}:")
        for ref in refs:
            lines.append(f"        # {_comment(ref.note)}")
            lines.append(f"        - path: {_scalar(ref.path)}")
            if ref.result == TODO:
                lines.append("          result: TODO  # one of the result keys listed below")
                lines += [f"          #   {_comment(key)}" for key in ref.keys[:40]]
                if len(ref.keys) > 40:
                    lines.append(f"          #   ... {len(ref.keys) - 40} more: mlperf list")
            elif ref.result:
                lines.append(f"          result: {_scalar(ref.result)}")
    refs = [r for r in found.refs if r.role == "references"]
    if refs:
        lines.append("      # Public results to compare with (measured elsewhere or simulated):")
        lines.append("      # shown beside the candidate, never sizing it")
        lines.append("      references:")
    for ref in refs:
        lines.append(f"        # {_comment(ref.note)}")
        lines.append(f"        - path: {_scalar(ref.path)}")
    return lines


def _field(key: str, value: str | None, hint: str) -> list[str]:
    if value and _unsafe(value):
        shown = _comment(value)
        return [f"{key}: TODO  # {hint}; the evidence records {shown} (hidden characters)"]
    if value:
        return [f"{key}: {_scalar(value)}  # as the evidence records it"]
    return [f"{key}: TODO  # {hint}; the evidence does not record it"]


def _measured(values: list[float]) -> str:
    if not values:
        return ""
    return f"; the runs measured {min(values):.0f}-{max(values):.0f}"


def _common(values: Iterable[str | None]) -> str | None:
    """The most frequent non-empty value (ties: the first in sorted order), or None."""
    counts = Counter(v for v in values if v)
    if not counts:
        return None
    top = max(counts.values())
    return sorted(v for v, n in counts.items() if n == top)[0]


def _scalar(value: str | int) -> str:
    """A YAML scalar, quoted where needed (file content never breaks the spec's syntax); text
    that holds a hidden character is written with every non-ASCII character escaped."""
    plain = not (isinstance(value, str) and _unsafe(value))
    text: str = yaml.safe_dump(value, default_flow_style=True, width=1 << 20, allow_unicode=plain)
    return text.removesuffix("\n...\n").strip()


def _unsafe(text: str) -> bool:
    """Whether ``text`` holds a character the spec refuses (a line break only YAML sees)."""
    return any(is_hidden(char) for char in text)


def _comment(text: str) -> str:
    """File-derived text made safe for one comment line: every unprintable character (controls,
    line and paragraph separators, bidi and zero-width characters) written as ``\\uXXXX``."""
    return "".join(
        char if char == " " or (char.isprintable() and not is_hidden(char)) else _escape(char)
        for char in text[:300]
    )


def _escape(char: str) -> str:
    return f"\\u{ord(char):04x}" if ord(char) <= 0xFFFF else f"\\U{ord(char):08x}"


def _why(exc: InputError) -> str:
    """Why a file is not cited, in one line: an unknown format by its content, else the error."""
    if isinstance(exc, UnknownFormat):
        return f"{exc.file}: unknown format: ({exc.content})"
    return exc.message.splitlines()[0] if exc.message else "cannot read"


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-._")[:64] or "candidate"


def _hidden(path: Path) -> bool:
    return path.name.startswith(".")


def _rel(path: Path, base: Path) -> str:
    return Path(os.path.relpath(path, base)).as_posix()
