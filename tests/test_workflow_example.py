"""The example release workflow signs keyless with id-token: write, and its commands parse."""

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


def test_keyless_signing_needs_only_the_id_token_permission() -> None:
    (job,) = _workflow()["jobs"].values()
    assert job["permissions"] == {"contents": "read", "id-token": "write"}
    assert _workflow()["permissions"] == {"contents": "read"}
    assert job["env"]["ISSUER"] == "https://token.actions.githubusercontent.com"
    assert job["env"]["SIGNER"] == "https://github.com/${{ github.workflow_ref }}"


def test_every_evidencepack_command_parses() -> None:
    (job,) = _workflow()["jobs"].values()
    commands = [
        shlex.split(step["run"])
        for step in job["steps"]
        if step.get("run", "").startswith("evidencepack ")
    ]
    assert [c[1] for c in commands] == ["check", "build", "verify"]
    parser = build_parser()
    for command in commands:
        args = parser.parse_args(command[1:])
        if command[1] == "build":
            assert args.sign
            assert args.key is None  # keyless
        if command[1] == "verify":
            assert (args.cert_identity, args.cert_oidc_issuer) == ("$SIGNER", "$ISSUER")
