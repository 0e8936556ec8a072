"""The example workflow: the release job signs keyless with id-token: write, the pull-request job
diffs against the last released pack and gates on it, and every evidencepack command parses."""

from __future__ import annotations

import shlex
from typing import Any

import yaml

from evidencepack._cli import build_parser

from .conftest import REPO_ROOT

WORKFLOW = REPO_ROOT / ".github" / "workflows" / "evidence-pack.yml"


def _workflow() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(WORKFLOW.read_text())
    return data


def _job(name: str) -> dict[str, Any]:
    job: dict[str, Any] = _workflow()["jobs"][name]
    return job


def _commands(job: dict[str, Any]) -> list[list[str]]:
    """Every ``evidencepack ...`` line of the job's run scripts, split as the shell would
    (without an output redirection)."""
    lines = [line for step in job["steps"] for line in step.get("run", "").splitlines()]
    return [
        shlex.split(line.split(" > ", 1)[0])
        for line in lines
        if line.strip().startswith("evidencepack ")
    ]


def test_keyless_signing_needs_only_the_id_token_permission() -> None:
    job = _job("pack")
    assert job["permissions"] == {"contents": "read", "id-token": "write"}
    assert _workflow()["permissions"] == {"contents": "read"}
    assert _workflow()["env"]["ISSUER"] == "https://token.actions.githubusercontent.com"
    assert job["env"]["SIGNER"] == "https://github.com/${{ github.workflow_ref }}"
    # Only the release job, which signs nothing, may write (the release asset).
    assert _job("release")["permissions"] == {"contents": "write"}
    assert _job("release")["needs"] == "pack"


def test_every_evidencepack_command_parses() -> None:
    commands = _commands(_job("pack"))
    assert [c[1] for c in commands] == ["check", "build", "verify"]
    parser = build_parser()
    for command in commands:
        args = parser.parse_args(command[1:])
        if command[1] == "build":
            assert args.sign
            assert args.archive
            assert args.key is None  # keyless
        if command[1] == "verify":
            assert (args.cert_identity, args.cert_oidc_issuer) == ("$SIGNER", "$ISSUER")


def test_a_change_to_the_evidence_is_diffed_against_the_last_release() -> None:
    on = _workflow().get("on", _workflow().get(True))  # YAML 1.1 reads a bare `on` as true
    assert on["pull_request"]["paths"] == ["samples/pack.yaml", "samples/evidence/**"]
    job = _job("diff")
    assert job["if"] == "github.event_name == 'pull_request'"
    assert job["permissions"] == {"contents": "read", "pull-requests": "write"}
    (command,) = _commands(job)
    args = build_parser().parse_args(command[1:])
    assert args.command == "diff"
    assert (args.old, args.new) == ("released/pack.tar.gz", "$SPEC")
    assert args.markdown
    # The released pack is verified as the release job signed it: this workflow at the tag.
    assert (args.cert_identity, args.cert_oidc_issuer) == ("$RELEASED_BY", "$ISSUER")
    fetch = "\n".join(step.get("run", "") for step in job["steps"])
    assert "evidence-pack.yml@refs/tags/$tag" in fetch
    assert (args.fail_on_cost_increase, args.fail_on_capacity_loss) == (0.1, 0.05)
    # The summary is posted whatever the outcome, then the diff's exit code decides the job.
    script = job["steps"][-1]["run"].splitlines()
    assert script[0] == "set +e"
    assert script[2:4] == ["status=$?", "set -e"]
    assert any(
        line.startswith("gh pr comment") and "--body-file diff.md" in line for line in script
    )
    assert '>> "$GITHUB_STEP_SUMMARY"' in "\n".join(script)
    assert script[-1] == 'exit "$status"'
