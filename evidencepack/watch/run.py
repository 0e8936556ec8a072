"""Watch a signed decision: verify its pack, re-measure the endpoint at the decision's operating
point, re-check what is dated, and write the watch folder (``OUT``) in one all-or-nothing step.

``OUT`` holds ``watch.json`` (the report), ``watch.md``, ``watch.html``, ``watch.pdf`` (with
``watch.json`` embedded), ``run/`` (the measure run folder: every request of the new run),
``watched/pack.sigstore.json`` (the watched pack's signature bundle, binding the watch to that
pack), ``inputs/pack.yaml`` (the pack's spec) and ``predicate.json``: signed with a key here
(``sign_key``) or later by ``evidencepack sign OUT``, and checked by ``evidencepack verify OUT``
as a pack is.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import math
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from .. import __version__
from ..analyze.models import DecisionDocument, LoadPoint
from ..errors import CouldNotRun, InputError, InvalidRequest, VerificationError, option
from ..pack.layout import BUNDLE_NAME, DECISION_NAME, PREDICATE_NAME, SPEC_PATH
from ..pack.predicate import DecisionSummary, PackPredicate, SpecRef, ToolInfo, write_predicate
from ..pack.publish import discard, publish, staging_dir
from ..pack.toolchain import rendering_toolchain
from ..readers.models import ServingRun
from ..signing.verify import VerifyPolicy
from ..spec.load import LoadedSpec, load_spec
from ..spec.models import PackSpec
from .dated import DEFAULT_APPROVAL_MAX_DAYS, dated_findings, spec_changes
from .judge import DEFAULT_TOLERANCE, figure_findings, judge_figures, status_of
from .models import WatchedPack, WatchFinding, WatchReport, WatchRun
from .report import markdown, render_html, render_pdf_bytes

RUN_FOLDER = "run"
WATCH_FILES = ("watch.json", "watch.md", "watch.html", "watch.pdf")
WATCHED_BUNDLE = "watched/pack.sigstore.json"
MAX_DURATION_S = 3600.0
MAX_REQUESTS = 100_000
_TOKEN_MIX_TOLERANCE = 0.25


@dataclass(frozen=True)
class WatchOptions:
    """One ``evidencepack watch``: where to measure, for how long at most, and what to judge."""

    endpoint: str
    prompts: Path
    out: Path
    policy: VerifyPolicy
    spec: Path | None = None
    """Today's spec: its traffic and SLO judged against the pack's."""
    as_of: dt.date | None = None
    """The date dated things are judged at (default: today)."""
    duration_s: float = 60.0
    max_requests: int = 500
    candidate: str | None = None
    tolerance: float = DEFAULT_TOLERANCE
    approval_max_days: int = DEFAULT_APPROVAL_MAX_DAYS
    api_key_env: str | None = None
    timeout_s: float = 120.0
    lost_after_s: float = 10.0
    """A run whose endpoint answers nothing for this long ends: "could not run"."""
    sign_key: Path | None = None
    force: bool = False


@dataclass(frozen=True)
class WatchResult:
    """The report and the folder written."""

    report: WatchReport
    out: Path
    signed: bool


def check_watch_options(options: WatchOptions) -> None:
    """Bounded and sane: every load loop ends by itself."""
    if not 0 < options.duration_s <= MAX_DURATION_S:
        raise InvalidRequest(
            f"{option('duration')} must be over 0 and at most {MAX_DURATION_S:g} seconds"
        )
    if not 0 < options.max_requests <= MAX_REQUESTS:
        raise InvalidRequest(f"{option('max_requests')} must be 1 to {MAX_REQUESTS:,}")
    if not 0 <= options.tolerance <= 10:
        raise InvalidRequest(f"{option('tolerance')} must be a fraction from 0 to 10")
    if options.out.exists() and not options.force:
        raise InvalidRequest(
            f"{options.out} exists: choose another folder, or {option('force')} to replace it"
        )


def _operating_point(decision: DecisionDocument, candidate: str) -> tuple[float, LoadPoint | None]:
    capacity = next((c for c in decision.capacity if c.candidate == candidate), None)
    if capacity is None or not capacity.operating_point_rps:
        raise InputError(
            f"{DECISION_NAME}: candidate {candidate} has no operating point: the decision sized "
            "nothing to watch"
        )
    point = next((p for p in capacity.load_points if p.run == capacity.operating_point_run), None)
    return capacity.operating_point_rps, point


def _watched_candidate(decision: DecisionDocument, asked: str | None) -> str:
    ids = [c.id for c in decision.candidates]
    if asked is not None:
        if asked not in ids:
            raise InvalidRequest(
                f"{option('candidate')} {asked!r} is not in the pack; candidates: {', '.join(ids)}"
            )
        return asked
    chosen = decision.chosen or decision.recommendation
    if chosen is None:
        raise InputError(f"{DECISION_NAME}: the decision chose and recommends no candidate")
    return chosen


def _measured(folder: Path) -> ServingRun | None:
    """The new run's figures, read from its request rows as a check reads them."""
    from ..intake.snapshot import read_private

    rows = folder / "requests.jsonl"
    if not rows.is_file():
        return None
    parsed = read_private(rows)
    return parsed.runs[0] if len(parsed.runs) == 1 else None


def _token_mix(run: ServingRun | None, spec: PackSpec) -> list[WatchFinding]:
    mean = run.tokens.output_mean_tokens if run is not None else None
    want = spec.traffic.output_tokens.mean
    if mean is None or abs(mean / want - 1) <= _TOKEN_MIX_TOLERANCE:
        return []
    return [
        WatchFinding(
            kind="run",
            effect="degraded",
            detail=f"the run's requests averaged {mean:.0f} output tokens against the traffic's "
            f"{want:.0f}: its latencies describe other requests (prompts from --prompts)",
        )
    ]


@dataclass(frozen=True)
class _Opened:
    """What the watch takes from the verified pack."""

    source: str
    decision: DecisionDocument
    loaded: LoadedSpec
    """The pack's spec, read once from its checked copy (the measure settings come from it)."""
    spec_bytes: bytes
    bundle_bytes: bytes
    evidence_digest: str
    signer: str


def _signer(verified: object) -> str:
    info = getattr(verified, "signer", None)
    if info is None:
        return "unknown"
    if info.mode == "key":
        return f"key {info.key_fingerprint or '(unnamed)'}"
    return f"{info.identity} ({info.issuer})"


def _open(pack: Path, options: WatchOptions, stack: ExitStack) -> _Opened:
    """Open ``pack`` with the one pack reader under the policy (signature, files, documents),
    then take its decision and spec; the private copy lives until ``stack`` closes."""
    from ..signing.open_pack import open_pack

    opened = stack.enter_context(open_pack(pack, options.policy))
    if not opened.ok or opened.folder is None or opened.decision is None:
        raise VerificationError(
            f"{pack}: the pack does not verify, so there is no signed decision to watch",
            list(opened.problems),
        )
    folder, label = opened.folder, str(pack)
    try:
        spec_bytes = (folder / SPEC_PATH).read_bytes()
        bundle_bytes = (folder / BUNDLE_NAME).read_bytes()
    except OSError as exc:
        raise InputError(f"{label}: cannot read the verified pack's documents: {exc}") from exc
    loaded = load_spec(folder / SPEC_PATH, label=f"{label}/{SPEC_PATH}")
    return _Opened(
        source=str(pack),
        decision=opened.decision,
        loaded=loaded,
        spec_bytes=spec_bytes,
        bundle_bytes=bundle_bytes,
        evidence_digest=opened.evidence_digest or "",
        signer=_signer(opened.report),
    )


def _steady(options: WatchOptions, rate: float, point: LoadPoint | None) -> list[WatchFinding]:
    """A run that offers load for less time than one request takes at X* never holds as many
    requests in flight as production does: its latencies flatter the endpoint."""
    offered_s = min(options.duration_s, options.max_requests / rate)
    longest = point.e2e_p99_ms / 1000 if point is not None and point.e2e_p99_ms else None
    if longest is None or offered_s >= longest:
        return []
    return [
        WatchFinding(
            kind="run",
            effect="degraded",
            detail=f"the run offered load for {offered_s:.0f} s, less than the {longest:.0f} s a "
            "request took at X* in the pack (end-to-end p99): it never reached steady state, so "
            "its figures flatter the endpoint (raise --duration and --max-requests)",
        )
    ]


def watch(
    pack: Path, options: WatchOptions, *, progress: Callable[[str], None] | None = None
) -> WatchResult:
    """Watch the decision in ``pack`` (folder or archive); write ``options.out``."""
    check_watch_options(options)
    say = progress or (lambda _line: None)
    as_of = options.as_of or dt.datetime.now(dt.UTC).date()
    current = load_spec(options.spec).spec if options.spec is not None else None
    with ExitStack() as stack:
        opened = _open(pack, options, stack)
        candidate = _watched_candidate(opened.decision, options.candidate)
        rate, point = _operating_point(opened.decision, candidate)
        staging = staging_dir(options.out)
        try:
            say(f"measuring {options.endpoint} at X* = {rate:.3g} requests/s for {candidate}")
            run, ok, failed = _measure(opened, options, candidate, rate, staging / RUN_FOLDER)
            report = _report(
                opened, options, candidate, (rate, point), run, (ok, failed), current, as_of
            )
            _write(staging, opened, report)
        except BaseException:
            discard(staging)
            raise
    publish(staging, options.out, force=options.force, markers=(PREDICATE_NAME, WATCH_FILES[0]))
    signed = False
    if options.sign_key is not None:
        from ..signing.keyed import KeySigner
        from ..signing.sign import sign_pack_detailed

        sign_pack_detailed(options.out, None, KeySigner.from_file(options.sign_key))
        signed = True
    return WatchResult(report=report, out=options.out, signed=signed)


def _measure(
    opened: _Opened, options: WatchOptions, candidate: str, rate: float, outdir: Path
) -> tuple[ServingRun | None, int, int]:
    """One Server run at ``rate`` (Poisson), bounded by the duration and the request count."""
    from ..measure.options import MeasureOptions, from_spec
    from ..measure.run import measure

    # At most max_requests: LoadGen issues rate x duration queries in a Server run.
    duration_s = min(options.duration_s, options.max_requests / rate)
    duration_ms = max(1, math.floor(duration_s * 1000))
    base = MeasureOptions(
        endpoint=options.endpoint,
        model=None,
        prompts=options.prompts,
        outdir=outdir,
        target_qps=rate,
        min_duration_ms=duration_ms,
        max_duration_ms=duration_ms,
        min_query_count=1,
        timeout_s=options.timeout_s,
        lost_after_s=options.lost_after_s,
        api_key_env=options.api_key_env,
        note=f"evidencepack watch of decision {opened.decision.decision_id}, candidate "
        f"{candidate}, at its operating point",
    )
    configured = from_spec(base, opened.loaded, candidate)
    (result,) = measure(configured)
    if not result.complete:
        raise CouldNotRun(
            f"{options.endpoint}: the run did not complete ({result.stop_reason}): the watch "
            "cannot say whether the decision holds"
        )
    lost = _connection_failures(outdir / "requests.jsonl")
    if lost or result.ok == 0:
        example = f" (first: {lost[0]})" if lost else ""
        raise CouldNotRun(
            f"{options.endpoint}: the endpoint stopped answering during the run: "
            f"{len(lost) or result.failed} of {result.ok + result.failed} requests failed to reach "
            f"it and {result.ok} completed{example}: the watch cannot say whether the decision "
            "holds"
        )
    return _measured(outdir), result.ok, result.failed


_UNREACHABLE = ("connection refused", "connection lost", "network error")


def _connection_failures(rows: Path) -> list[str]:
    """The errors of requests that never reached a working endpoint (refused, lost, network):
    a down endpoint, never an SLO figure. HTTP errors and 429s are answers, and count."""
    found = []
    try:
        with rows.open(encoding="utf-8") as handle:
            for line in handle:
                row = json.loads(line)
                error = row.get("error") or "" if isinstance(row, dict) else ""
                if row.get("status") != "ok" and error.startswith(_UNREACHABLE):
                    found.append(error)
    except (OSError, ValueError) as exc:
        raise CouldNotRun(f"the run's request rows cannot be read: {exc}") from exc
    return found


def _report(
    opened: _Opened,
    options: WatchOptions,
    candidate: str,
    operating: tuple[float, LoadPoint | None],
    run: ServingRun | None,
    counts: tuple[int, int],
    current: PackSpec | None,
    as_of: dt.date,
) -> WatchReport:
    rate, point = operating
    ok, failed = counts
    spec = opened.loaded.spec
    slo = current.slo if current is not None else spec.slo
    error_rate = failed / (ok + failed) if ok + failed else None
    figures = judge_figures(slo, point, run, error_rate, tolerance=options.tolerance)
    if run is None or (run.ttft is None and run.tpot is None):
        raise CouldNotRun(
            f"{options.endpoint}: no request of the run streamed a token: nothing to judge"
        )
    findings = figure_findings(figures) + _token_mix(run, spec) + _steady(options, rate, point)
    findings += dated_findings(
        spec, opened.decision, candidate, as_of, approval_max_days=options.approval_max_days
    )
    if current is not None:
        findings += spec_changes(spec, current)
    status = status_of(findings)
    reason = next((f.detail for f in findings if f.effect == status), None)
    verb = {"holds": "holds", "degraded": "is degraded", "broken": "is broken"}[status]
    summary = (
        f"The decision {opened.decision.decision_id} ({candidate}) {verb} as of "
        f"{as_of.isoformat()}"
        + (
            f": {reason}."
            if reason
            else ": every SLO figure is met at the operating point with "
            "the pack's margin, and nothing it rests on has lapsed."
        )
    )
    return WatchReport(
        status=status,
        summary=summary,
        as_of=as_of,
        pack=WatchedPack(
            source=opened.source,
            evidence_digest=opened.evidence_digest,
            bundle_sha256=hashlib.sha256(opened.bundle_bytes).hexdigest(),
            signer=opened.signer,
            decision_id=opened.decision.decision_id,
            decided_on=opened.decision.as_of,
            verdict=opened.decision.verdict,
            candidate=candidate,
            operating_point_rps=rate,
            operating_point_run=point.run if point is not None else None,
        ),
        run=WatchRun(
            folder=RUN_FOLDER,
            endpoint=options.endpoint,
            offered_rate_rps=rate,
            achieved_rate_rps=run.request_throughput_per_s,
            duration_s=run.duration_s,
            requests_ok=ok,
            requests_failed=failed,
            error_rate=error_rate,
            output_tokens_mean=run.tokens.output_mean_tokens,
            traffic_output_tokens_mean=spec.traffic.output_tokens.mean,
        ),
        figures=figures,
        findings=tuple(findings),
        headroom=spec.headroom,
        tool_version=__version__,
    )


def _predicate(report: WatchReport, spec_sha256: str) -> PackPredicate:
    verdict = {"holds": "PASS", "degraded": "PASS", "broken": "FAIL"}[report.status]
    return PackPredicate(
        tool=ToolInfo(version=__version__),
        spec=SpecRef(pack_path=SPEC_PATH, sha256=spec_sha256),
        decision=DecisionSummary.model_validate(
            {
                "decision_id": report.pack.decision_id,
                "question": f"watch of the decision in pack {report.pack.evidence_digest}: "
                "does it still hold?",
                "as_of": report.as_of,
                "recommendation": report.pack.candidate,
                "chosen": report.pack.candidate,
                "verdict": verdict,
                "summary": report.summary,
            }
        ),
        toolchain=rendering_toolchain(),
        created_at=f"{report.as_of.isoformat()}T00:00:00Z",
        rendered=WATCH_FILES[2:],
    )


def _write(staging: Path, opened: _Opened, report: WatchReport) -> None:
    """The watch folder's files, beside the run folder measure wrote."""
    document = (report.model_dump_json(by_alias=True, indent=2) + "\n").encode("utf-8")
    html = render_html(report)
    files = {
        WATCH_FILES[0]: document,
        WATCH_FILES[1]: markdown(report).encode("utf-8"),
        WATCH_FILES[2]: html.encode("utf-8"),
        WATCH_FILES[3]: render_pdf_bytes(report, html, document),
        SPEC_PATH: opened.spec_bytes,
        WATCHED_BUNDLE: opened.bundle_bytes,
    }
    try:
        for name, data in files.items():
            (staging / name).parent.mkdir(parents=True, exist_ok=True)
            (staging / name).write_bytes(data)
        write_predicate(staging, _predicate(report, hashlib.sha256(opened.spec_bytes).hexdigest()))
    except OSError as exc:
        raise CouldNotRun(f"cannot write the watch folder beside {staging}: {exc}") from exc
