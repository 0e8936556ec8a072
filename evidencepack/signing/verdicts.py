"""The verdict statements: the decision as two standard in-toto predicates a policy engine reads.

Beside the pack's own statement (``pack.sigstore.json``), a pack with a ``decision.json``
carries two more in-toto Statements v1 over the same subjects, signed by the same signer:

- ``svr.sigstore.json``: a Simple Verification Result
  (``https://in-toto.io/attestation/svr/v0.2``): evidencepack as the verifier, the spec as the
  policy (name and sha256), the pack statement as the input attestation (sha256 of its exact
  payload), and the verified properties: ``EVIDENCEPACK_DECISION_<VERDICT>`` and one
  ``EVIDENCEPACK_CHECK_<CHECK>_<STATUS>`` (whole decision) or
  ``EVIDENCEPACK_CANDIDATE_<CANDIDATE>_<CHECK>_<STATUS>`` per check result (a waived status
  ends ``_WAIVED``).
- ``test-result.sigstore.json``: a test result (``https://in-toto.io/attestation/test-result/v0.1``):
  ``PASSED``, ``WARNED`` (passed with waivers) or ``FAILED``, the spec as the configuration,
  and each check result named ``CANDIDATE/CHECK`` (``CHECK`` for the whole decision) under
  ``passedTests``, ``warnedTests`` (a WARN, or a FAIL a waiver covers) or ``failedTests``.

Both are a function of ``decision.json`` and the pack statement only, so ``verify`` recomputes
them and names the first field that differs. ``timeCreated`` is the decision's date at 00:00 UTC
(never the wall clock): two builds of one spec sign the same payloads.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass

from ..errors import InputError
from ..pack.layout import BUNDLE_NAME, SPEC_PATH, SVR_BUNDLE_NAME, TEST_RESULT_BUNDLE_NAME
from .statement import PAYLOAD_TYPE, STATEMENT_TYPE, SignedStatement, Statement

SVR_PREDICATE_TYPE = "https://in-toto.io/attestation/svr/v0.2"
TEST_RESULT_PREDICATE_TYPE = "https://in-toto.io/attestation/test-result/v0.1"
VERIFIER_ID = "https://evidencepack.dev/verifier/v1"
"""The SVR verifier: evidencepack's checks, versioned when what they verify changes."""
PROPERTY_PREFIX = "EVIDENCEPACK_"

_TEST_RESULT = {"PASS": "PASSED", "PASS WITH WAIVERS": "WARNED", "FAIL": "FAILED"}
_NOT_TOKEN = re.compile(r"[^A-Z0-9]+")


@dataclass(frozen=True)
class VerdictKind:
    """One verdict statement: its bundle's file name in the pack and its predicate type."""

    file: str
    predicate_type: str


VERDICTS = (
    VerdictKind(SVR_BUNDLE_NAME, SVR_PREDICATE_TYPE),
    VerdictKind(TEST_RESULT_BUNDLE_NAME, TEST_RESULT_PREDICATE_TYPE),
)


def token(text: str) -> str:
    """``text`` as a property token: upper case, every run of other characters one ``_``."""
    return _NOT_TOKEN.sub("_", text.upper()).strip("_")


@dataclass(frozen=True)
class _Result:
    check: str
    candidate: str | None
    status: str
    waived: bool


def _decision_fields(decision: Mapping[str, object]) -> tuple[str, str, str, str, list[_Result]]:
    """verdict, as_of, spec sha256, tool version and the check results; InputError naming the
    first field of decision.json that is missing or of the wrong type."""
    values: dict[str, str] = {}
    for key in ("verdict", "as_of", "spec_sha256", "tool_version"):
        value = decision.get(key)
        if not isinstance(value, str) or not value:
            raise InputError(f"decision.json: {key} is missing or not a string")
        values[key] = value
    if values["verdict"] not in _TEST_RESULT:
        raise InputError(
            f"decision.json: verdict {values['verdict']!r} is not one of {_TEST_RESULT}"
        )
    checks = decision.get("checks", [])
    if not isinstance(checks, list):
        raise InputError("decision.json: checks is not a list")
    results = []
    for index, check in enumerate(checks):
        if not isinstance(check, dict):
            raise InputError(f"decision.json: checks[{index}] is not an object")
        cid, status, candidate = check.get("id"), check.get("status"), check.get("candidate")
        if not isinstance(cid, str) or status not in ("PASS", "WARN", "FAIL"):
            raise InputError(f"decision.json: checks[{index}] has no id or a bad status")
        if candidate is not None and not isinstance(candidate, str):
            raise InputError(f"decision.json: checks[{index}].candidate is not a string")
        results.append(_Result(cid, candidate, str(status), check.get("waived") is not None))
    return (
        values["verdict"],
        values["as_of"],
        values["spec_sha256"],
        values["tool_version"],
        results,
    )


def _property(result: _Result) -> str:
    status = result.status + ("_WAIVED" if result.waived else "")
    check = token(result.check)
    if result.candidate is None:
        return f"{PROPERTY_PREFIX}CHECK_{check}_{status}"
    return f"{PROPERTY_PREFIX}CANDIDATE_{token(result.candidate)}_{check}_{status}"


def _test_name(result: _Result) -> str:
    return result.check if result.candidate is None else f"{result.candidate}/{result.check}"


def verdict_predicates(
    decision: Mapping[str, object], pack_payload: bytes, *, payload_sha256: str | None = None
) -> dict[str, dict[str, object]]:
    """Predicate type -> predicate (JSON-ready) of both verdict statements, from
    ``decision.json``'s object and the exact payload of the pack's signed statement (or its
    ``payload_sha256``, when the payload was streamed)."""
    verdict, as_of, spec_sha256, version, results = _decision_fields(decision)
    named: dict[str, str] = {}
    for result in results:
        if result.candidate is not None:
            other = named.setdefault(token(result.candidate), result.candidate)
            if other != result.candidate:
                raise InputError(
                    f"candidates {other!r} and {result.candidate!r} are one name in the verdict "
                    f"statements ({token(other)}): the decision cannot be stated unambiguously"
                )
    policy = {"name": SPEC_PATH, "digest": {"sha256": spec_sha256}}
    properties = [f"{PROPERTY_PREFIX}DECISION_{token(verdict)}", *map(_property, results)]
    svr: dict[str, object] = {
        "verifier": {"id": VERIFIER_ID, "version": {"evidencepack": version}},
        "timeCreated": f"{as_of}T00:00:00Z",
        "policy": policy,
        "inputAttestations": [
            {
                "name": BUNDLE_NAME,
                "digest": {"sha256": payload_sha256 or hashlib.sha256(pack_payload).hexdigest()},
                "mediaType": PAYLOAD_TYPE,
            }
        ],
        "verifiedProperties": sorted(set(properties)),
    }
    tests: dict[str, list[str]] = {"PASS": [], "WARN": [], "FAIL": []}
    for result in results:
        kind = "WARN" if result.status == "FAIL" and result.waived else result.status
        tests[kind].append(_test_name(result))
    test_result: dict[str, object] = {
        "result": _TEST_RESULT[verdict],
        "configuration": [policy],
        "passedTests": tests["PASS"],
        "warnedTests": tests["WARN"],
        "failedTests": tests["FAIL"],
    }
    return {SVR_PREDICATE_TYPE: svr, TEST_RESULT_PREDICATE_TYPE: test_result}


def verdict_statement(
    statement: Statement | SignedStatement, predicate_type: str, predicate: object
) -> dict[str, object]:
    """The in-toto Statement v1 over the pack statement's subjects with this predicate."""
    return {
        "_type": STATEMENT_TYPE,
        "subject": [
            {"name": name, "digest": {"sha256": sha256}}
            for name, sha256 in statement.digests().items()
        ],
        "predicateType": predicate_type,
        "predicate": predicate,
    }


def verdict_payloads(
    statement: Statement | SignedStatement, pack_payload: bytes, decision: Mapping[str, object]
) -> dict[str, bytes]:
    """Bundle file name -> the exact payload it signs: compact JSON, sorted keys, UTF-8."""
    predicates = verdict_predicates(decision, pack_payload)
    return {
        kind.file: payload_bytes(
            verdict_statement(statement, kind.predicate_type, predicates[kind.predicate_type])
        )
        for kind in VERDICTS
    }


def payload_bytes(data: object) -> bytes:
    """A statement as signed: the same serialisation as the pack statement's."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
