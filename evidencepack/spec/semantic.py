"""Problems in a pack spec that no field's type catches: paths, ids, hardware, MLPerf rounds.

``spec.load_spec`` reports them beside the type errors, each at its ``pack.yaml:LINE:COL``;
paths and ids are read from the raw document so a spec with type errors reports them in the
same pass.
"""

from __future__ import annotations

import datetime as dt
import difflib
import re
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from .located import Loc
from .metrics import metric_range
from .types import KNOWN_ROUNDS

MIN_UTILISATION = 0.01
"""Below 1% of paid capacity doing useful work, cost per token is past any real figure."""
EARLIEST_DATE = dt.date(1970, 1, 1)
"""A decision's date is every pack file's time (tar and PDF): none before the Unix epoch."""

if TYPE_CHECKING:
    from .models import PackSpec


def raw_paths(data: object) -> Iterator[tuple[Loc, str]]:
    """Every evidence path, the dataset path and the model signature's and tokenizer's files in
    the unvalidated document, with its place."""
    if not isinstance(data, dict):
        return
    dataset = data.get("dataset")
    if isinstance(dataset, dict) and isinstance(dataset.get("path"), str):
        yield ("dataset", "path"), dataset["path"]
    envelope = data.get("envelope")
    model = envelope.get("model") if isinstance(envelope, dict) else None
    signature = model.get("signature") if isinstance(model, dict) else None
    for key in ("path", "public_key", "trusted_root"):
        cited = signature.get(key) if isinstance(signature, dict) else None
        if isinstance(cited, str) and cited:
            yield ("envelope", "model", "signature", key), cited
    tokenizer = model.get("tokenizer") if isinstance(model, dict) else None
    if isinstance(tokenizer, dict) and isinstance(tokenizer.get("path"), str) and tokenizer["path"]:
        yield ("envelope", "model", "tokenizer", "path"), tokenizer["path"]
    candidates = data.get("candidates")
    for ci, candidate in enumerate(candidates if isinstance(candidates, list) else []):
        price = candidate.get("price") if isinstance(candidate, dict) else None
        for source in ("focus", "quote"):
            cited = price.get(source) if isinstance(price, dict) else None
            if isinstance(cited, dict) and isinstance(cited.get("path"), str) and cited["path"]:
                yield ("candidates", ci, "price", source, "path"), cited["path"]
        api = candidate.get("api") if isinstance(candidate, dict) else None
        prices = api.get("prices") if isinstance(api, dict) else None
        cited = prices.get("focus") if isinstance(prices, dict) else None
        if isinstance(cited, dict) and isinstance(cited.get("path"), str) and cited["path"]:
            yield ("candidates", ci, "api", "prices", "focus", "path"), cited["path"]
        evidence = candidate.get("evidence") if isinstance(candidate, dict) else None
        for role in ("mlperf", "runs", "scores", "references"):
            refs = evidence.get(role) if isinstance(evidence, dict) else None
            for ri, ref in enumerate(refs if isinstance(refs, list) else []):
                if isinstance(ref, dict) and isinstance(ref.get("path"), str) and ref["path"]:
                    yield ("candidates", ci, "evidence", role, ri, "path"), ref["path"]


_NOT_TOKEN = re.compile(r"[^A-Z0-9]+")


def verdict_token(text: str) -> str:
    """A candidate id as the verdict statements name it (``signing/verdicts.py``'s ``token``:
    upper case, every run of other characters one ``_``)."""
    return _NOT_TOKEN.sub("_", text.upper()).strip("_")


def id_problems(data: object) -> Iterator[tuple[Loc, str]]:
    """Candidate ids: duplicates, and ``chosen`` or a waiver naming none. Read from the raw
    document, so they are reported in the same pass as type errors elsewhere in the spec."""
    if not isinstance(data, dict) or not isinstance(data.get("candidates"), list):
        return
    candidates = [c if isinstance(c, dict) else {} for c in data["candidates"]]
    ids = [str(c["id"]) for c in candidates if isinstance(c.get("id"), str | int)]
    seen: set[str] = set()
    tokens: dict[str, str] = {}
    for index, candidate in enumerate(candidates):
        cid = candidate.get("id")
        if isinstance(cid, str | int) and str(cid) in seen:
            yield ("candidates", index, "id"), f"duplicate candidate id {str(cid)!r}"
        elif isinstance(cid, str | int):
            token = verdict_token(str(cid))
            if token in tokens:
                yield (
                    ("candidates", index, "id"),
                    f"candidate id {str(cid)!r} and {tokens[token]!r} are one name in the "
                    f"verdict statements ({token}: upper case, other characters '_'); give ids "
                    "that differ in more than case and punctuation",
                )
            tokens.setdefault(token, str(cid))
        seen.add(str(cid))
    chosen = data.get("chosen")
    if isinstance(chosen, str | int) and str(chosen) not in ids:
        yield ("chosen",), f"{str(chosen)!r} is not a candidate id; candidates: {', '.join(ids)}"
    waivers = data.get("waivers")
    for index, waiver in enumerate(waivers if isinstance(waivers, list) else []):
        named = waiver.get("candidate") if isinstance(waiver, dict) else None
        if isinstance(named, str | int) and str(named) not in ids:
            yield ("waivers", index, "candidate"), f"{str(named)!r} is not a candidate id"


def semantic_problems(spec: PackSpec) -> Iterator[tuple[Loc, str]]:
    """A validated spec's problems: replicas over the hardware, no dataset digest, bad rounds."""
    for index, candidate in enumerate(spec.candidates):
        hw = candidate.hardware
        total = hw.accelerators_per_node * hw.nodes
        if hw.accelerators_per_replica > total:
            yield (
                ("candidates", index, "hardware", "accelerators_per_replica"),
                f"{hw.accelerators_per_replica} accelerators per replica exceed the "
                f"{total} the candidate has ({hw.nodes} node(s) x {hw.accelerators_per_node})",
            )
    if spec.cost_basis != "price":
        for index, candidate in enumerate(spec.candidates):
            stated = {r.kind for r in candidate.rent} | ({"own"} if candidate.own else set())
            if spec.cost_basis not in stated:
                yield (
                    ("candidates", index),
                    f"cost_basis is {spec.cost_basis} but candidate {candidate.id} states no "
                    f"{'own' if spec.cost_basis == 'own' else 'rent of kind ' + spec.cost_basis}"
                    " cost: every candidate is ranked on the same basis",
                )
    if spec.dataset.digest is None and spec.dataset.path is None:
        yield ("dataset",), "give the dataset's digest, its path, or both"
    scale = metric_range(spec.scoring.metric, spec.scoring.range)
    if scale is not None and not scale.holds(spec.scoring.bar.threshold):
        yield (
            ("scoring", "bar", "threshold"),
            f"{spec.scoring.bar.threshold:g} is outside {spec.scoring.metric}'s range "
            f"{scale.text()} ({scale.source}): give the bar on the metric's own scale, or "
            "state scoring.range",
        )
    if spec.traffic.utilisation < MIN_UTILISATION:
        yield (
            ("traffic", "utilisation"),
            f"{spec.traffic.utilisation:g} is below {MIN_UTILISATION}: give the share of paid "
            f"capacity doing useful work, from {MIN_UTILISATION} to 1 (cost divides by it)",
        )
    if spec.decision.date < EARLIEST_DATE:
        yield (
            ("decision", "date"),
            f"{spec.decision.date} is before {EARLIEST_DATE}: the pack's files and archive carry "
            "the decision's date as their time; give a date from 1970-01-01 to 9999-12-31",
        )
    for index, candidate in enumerate(spec.candidates):
        for ri, ref in enumerate(candidate.evidence.mlperf):
            if ref.round is not None and ref.round not in KNOWN_ROUNDS:
                yield (
                    ("candidates", index, "evidence", "mlperf", ri, "round"),
                    f"unknown MLPerf round {ref.round!r}; known: {', '.join(KNOWN_ROUNDS)}",
                )


def path_problem(
    base: Path, relative: str, *, allow_outside: bool, base_name: str | None = None
) -> tuple[str, str | None] | None:
    """Why an evidence path cannot be used (absolute, outside the spec folder, missing) and how
    to fix it, if known: ``(message, hint)``; or None. ``base_name`` is what messages call the
    spec's folder (default: ``base``; a rebuild: the pack's ``inputs``)."""
    if Path(relative).is_absolute() and not allow_outside:
        return f"absolute path {relative!r} is not allowed (use a path relative to the spec)", None
    target = (base / relative).resolve()

    def shown(path: Path) -> str:
        if base_name is None or not path.is_relative_to(base):
            return str(path)
        return str(PurePosixPath(base_name, *path.relative_to(base).parts))

    if not allow_outside and not target.is_relative_to(base):
        return (
            f"path {relative!r} resolves to {shown(target)}, outside the spec's folder "
            f"{shown(base)} (symlinks included)",
            "pass --allow-outside-paths to permit it",
        )
    if not target.exists():
        guess = _near_path(base, relative)
        hint = f"did you mean {guess!r}?" if guess else None
        return f"path {relative!r} does not exist (looked for {shown(target)})", hint
    return None


def _near_path(base: Path, relative: str) -> str | None:
    """The existing path a misspelt one most likely meant: each missing part replaced by the
    closest name in its folder (``evidence/h200-vlm/runs`` -> ``evidence/h200-vllm/runs``)."""
    parts = Path(relative).parts
    current = base
    fixed: list[str] = []
    for part in parts:
        if part in ("", ".") or (current / part).exists():
            fixed.append(part)
            current = current / part
            continue
        try:
            names = sorted(p.name for p in current.iterdir()) if current.is_dir() else []
        except OSError:
            return None
        close = difflib.get_close_matches(part, names[:1000], n=1, cutoff=0.6)
        if not close:
            return None
        fixed.append(close[0])
        current = current / close[0]
    guess = Path(*fixed).as_posix() if fixed else relative
    return guess if guess != relative and (base / guess).exists() else None
