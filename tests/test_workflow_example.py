"""The example workflow and the action it uses: the release job signs keyless with id-token:
write, the pull-request job diffs against the last released pack and gates on it, and the
action's own steps (action.yml's shell) run check, a signed build, verify and diff of the sample
in a clean environment, the way a runner runs them."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from lxml import etree

from evidencepack.signing.keys import generate_keypair

from .action_runner import SYSTEM_PATH, ActionRun, load_action, run_action
from .conftest import REPO_ROOT
from .packs import SignedSample

WORKFLOW = REPO_ROOT / ".github" / "workflows" / "evidence-pack.yml"
ACTION = load_action(REPO_ROOT / "action.yml")
PASSPHRASE = "action-passphrase"


def _workflow() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(WORKFLOW.read_text())
    return data


def _job(name: str) -> dict[str, Any]:
    job: dict[str, Any] = _workflow()["jobs"][name]
    return job


def _action_steps(job: dict[str, Any]) -> list[dict[str, str]]:
    """The ``with:`` of each step of the job that uses this repository's action."""
    return [step.get("with", {}) for step in job["steps"] if step.get("uses") == "./"]


def test_keyless_signing_needs_only_the_id_token_permission() -> None:
    job = _job("pack")
    assert job["permissions"] == {"contents": "read", "id-token": "write"}
    assert _workflow()["permissions"] == {"contents": "read"}
    assert _workflow()["env"]["ISSUER"] == "https://token.actions.githubusercontent.com"
    assert job["env"]["SIGNER"] == "https://github.com/${{ github.workflow_ref }}"
    # Only the release job, which signs nothing, may write (the release asset).
    assert _job("release")["permissions"] == {"contents": "write"}
    assert _job("release")["needs"] == "pack"


def test_the_release_job_checks_builds_keyless_and_verifies_with_the_action() -> None:
    check, build, verify = _action_steps(_job("pack"))
    assert (check["command"], build["command"], verify["command"]) == ("check", "build", "verify")
    assert (build["sign"], build["archive"], build["pack"]) == ("keyless", "true", "pack")
    assert (verify["cert-identity"], verify["cert-oidc-issuer"]) == (
        "${{ env.SIGNER }}",
        "${{ env.ISSUER }}",
    )
    for step in (check, build, verify):
        assert set(step) <= set(ACTION["inputs"]), step
    # No step runs evidencepack itself: the action installs it and puts it on the PATH.
    assert not any("evidencepack" in s.get("run", "") for s in _job("pack")["steps"])


def test_a_change_to_the_evidence_is_diffed_against_the_last_release() -> None:
    on = _workflow().get("on", _workflow().get(True))  # YAML 1.1 reads a bare `on` as true
    assert on["pull_request"]["paths"] == ["samples/pack.yaml", "samples/evidence/**"]
    job = _job("diff")
    assert job["if"] == "github.event_name == 'pull_request'"
    assert job["permissions"] == {"contents": "read", "pull-requests": "write"}
    (diff,) = _action_steps(job)
    assert set(diff) <= set(ACTION["inputs"])
    assert (diff["command"], diff["base"], diff["spec"]) == (
        "diff",
        "released/pack.tar.gz",
        "${{ env.SPEC }}",
    )
    # The released pack is verified as the release job signed it: this workflow at the tag.
    assert (diff["cert-identity"], diff["cert-oidc-issuer"]) == (
        "${{ env.RELEASED_BY }}",
        "${{ env.ISSUER }}",
    )
    fetch = "\n".join(step.get("run", "") for step in job["steps"])
    assert "evidence-pack.yml@refs/tags/$tag" in fetch
    assert (diff["fail-on-cost-increase"], diff["fail-on-capacity-loss"]) == ("10%", "5%")
    # The summary is posted whatever the outcome, then the diff's exit code decides the job.
    assert diff["fail"] == "false"
    last = job["steps"][-1]
    assert last["env"]["SUMMARY"] == "${{ steps.diff.outputs.result }}"
    assert last["env"]["STATUS"] == "${{ steps.diff.outputs.exit-code }}"
    script = last["run"].splitlines()
    assert script[0].startswith("gh pr comment")
    assert '--body-file "$SUMMARY"' in script[0]
    assert script[-1] == 'exit "$STATUS"'


def test_every_input_and_output_of_the_action_is_described() -> None:
    for kind in ("inputs", "outputs"):
        for name, spec in ACTION[kind].items():
            assert len(spec.get("description", "")) > 20, f"{kind}.{name}"
    for step in ACTION["runs"]["steps"]:
        assert step["shell"] == "bash"
        assert "${{" not in step["run"], "inputs reach the scripts as environment variables"


# --- the action's steps, run ------------------------------------------------------------------


@pytest.fixture(scope="module")
def repo_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This checkout as `uses: ./` sees it (action path and workspace), without the checkout's
    virtual environment, caches or outputs."""
    root = tmp_path_factory.mktemp("action") / "repo"
    shutil.copytree(
        REPO_ROOT,
        root,
        ignore=shutil.ignore_patterns(
            ".git", ".venv", "node_modules", "__pycache__", "*_cache", ".cache", "out", "dist"
        ),
    )
    generate_keypair(root / "key.pem", root / "pub.pem", PASSPHRASE.encode())
    return root


def _run(repo: Path, tmp_path: Path, **inputs: str) -> ActionRun:
    shared_venv = repo.parent / "venv"  # installed by the first run, reused by the next ones
    inputs = {"venv": str(shared_venv), **inputs}
    return run_action(repo, repo, inputs, tmp_path / "runner")


WATCH_TEST = "test_the_actions_watch_command_and_its_summary_in_the_log"


def _run_watch(repo: Path, folder: Path, sample: SignedSample) -> ActionRun:
    """The action's watch command against an endpoint where nothing listens. command: watch
    installs the measure extra too: into a venv of its own, so that it neither replaces the
    shared one (the stamp of a venv with the extra differs) nor waits for it."""
    prompts = folder / "prompts.jsonl"
    prompts.write_text('{"prompt": "Summarise contract 1. [ce-0001]"}\n', encoding="utf-8")
    inputs = {
        "venv": str(repo.parent / "venv-watch"),
        "command": "watch",
        "pack": str(sample.archive),
        "key": str(sample.pub),
        "endpoint": "http://127.0.0.1:9",
        "prompts": str(prompts),
        "out": str(folder / "watched"),
        "duration": "5",
        "max-requests": "10",
    }
    return run_action(repo, repo, inputs, folder / "runner")


@pytest.fixture(scope="module", autouse=True)
def watch_started(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Future[tuple[ActionRun, Path]] | None]:
    """The watch test's action run, started in the background when the module starts (if that
    test is selected): its install (pip, most of a minute of waiting on the package index)
    runs while the other tests install and run the shared venv, not after them."""
    here = request.node
    if not any(
        getattr(item, "originalname", "") == WATCH_TEST and item.parent is here
        for item in request.session.items
    ):
        yield None
        return
    repo = request.getfixturevalue("repo_copy")
    sample = request.getfixturevalue("signed_sample")
    folder = tmp_path_factory.mktemp("action-watch")
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="action-watch") as pool:
        yield pool.submit(lambda: (_run_watch(repo, folder, sample), folder))


def _with(step: dict[str, str], **changes: str) -> dict[str, str]:
    """A workflow step's inputs with its ``${{ env.* }}`` values replaced for the test."""
    env = {"${{ env.SPEC }}": "samples/pack.yaml"}
    return {k: env.get(v, v) for k, v in step.items()} | changes


# slow: runs the action's steps (install, check, build, verify, diff) as CI does
@pytest.mark.slow
def test_the_actions_steps_run_check_build_verify_and_diff(repo_copy: Path, tmp_path: Path) -> None:
    assert shutil.which("evidencepack", path=SYSTEM_PATH) is None  # the action must install it
    check_step, build_step, verify_step = _action_steps(_job("pack"))

    check = _run(repo_copy, tmp_path / "check", **_with(check_step))
    assert check.ok, check.stderr
    assert (check.outputs["verdict"], check.outputs["exit-code"]) == ("PASS", "0")
    assert check.outputs["recommendation"] == "mi325x-vllm"
    assert "evidencepack check: contract-summariser-2026q4: PASS" in check.summary
    schema = etree.XMLSchema(etree.parse(str(REPO_ROOT / "tests" / "junit" / "junit-10.xsd")))
    assert schema.validate(etree.parse(str(repo_copy / "junit.xml")))

    # Keyless signing needs GitHub's OIDC token: the test signs with a key instead.
    build = _run(
        repo_copy,
        tmp_path / "build",
        **_with(build_step, sign="key", key="key.pem", **{"key-passphrase": PASSPHRASE}),
    )
    assert build.ok, build.stderr
    assert build.outputs["pack"] == "pack"
    assert build.outputs["archive"] == "pack.tar.gz"
    assert re.fullmatch(r"[0-9a-f]{64}", build.outputs["evidence-digest"])
    assert (repo_copy / "pack" / "pack.sigstore.json").is_file()
    assert "evidencepack build: contract-summariser-2026q4: PASS" in build.summary
    assert build.outputs["evidence-digest"] in build.summary
    build_json = json.loads(Path(build.outputs["result"]).read_text(encoding="utf-8"))
    schema_file = REPO_ROOT / "schemas" / "build-result.v1.schema.json"
    build_schema = json.loads(schema_file.read_text(encoding="utf-8"))
    assert list(jsonschema.Draft202012Validator(build_schema).iter_errors(build_json)) == []
    assert build_json["signed"] is True

    verify_inputs = {k: v for k, v in verify_step.items() if not k.startswith("cert-")}
    verify = _run(repo_copy, tmp_path / "verify", **verify_inputs, key="pub.pem")
    assert verify.ok, verify.stderr
    assert verify.outputs["ok"] == "true"
    assert "evidencepack verify: OK" in verify.summary

    (diff_step,) = _action_steps(_job("diff"))
    diff_inputs = {k: v for k, v in diff_step.items() if not k.startswith("cert-")}
    diff = _run(
        repo_copy,
        tmp_path / "diff",
        **_with(diff_inputs, base="pack.tar.gz", pack="pack", key="pub.pem"),
    )
    assert diff.ok, diff.stderr
    assert (diff.outputs["holds"], diff.outputs["exit-code"]) == ("true", "0")
    assert "the decision holds" in diff.summary
    assert Path(diff.outputs["result"]).read_text(encoding="utf-8") in diff.summary

    # A tampered pack fails verification: the step fails, the outputs say why.
    (repo_copy / "pack" / "report.html").write_text("changed", encoding="utf-8")
    tampered = _run(repo_copy, tmp_path / "tampered", **verify_inputs, key="pub.pem")
    assert tampered.returncodes == [0, 1]
    assert tampered.outputs["ok"] == "false"
    assert "evidencepack verify: FAIL" in tampered.summary
    assert "report.html" in tampered.summary


# slow: runs the action's install and check steps as CI does
@pytest.mark.slow
def test_the_action_reports_an_invalid_spec_and_fails_the_step(
    repo_copy: Path, tmp_path: Path
) -> None:
    spec = repo_copy / "samples" / "broken.yaml"
    text = (repo_copy / "samples" / "pack.yaml").read_text(encoding="utf-8")
    spec.write_text(text.replace("  utilisation: 0.6", "  utilisaton: 0.6", 1), encoding="utf-8")
    run = _run(repo_copy, tmp_path, command="check", spec="samples/broken.yaml")
    assert run.returncodes == [0, 1]
    assert (run.outputs["exit-code"], run.outputs["verdict"]) == ("1", "")
    assert "traffic.utilisaton" in run.summary
    assert "did you mean 'utilisation'?" in run.summary
    report = yaml.safe_load(Path(run.outputs["result"]).read_text(encoding="utf-8"))
    assert report["problems"][0]["field"] == "traffic.utilisaton"


# slow: runs the action's install and check steps as CI does
@pytest.mark.slow
def test_the_actions_no_waivers_input_fails_a_waived_gate(repo_copy: Path, tmp_path: Path) -> None:
    server = "no-round/closed/SampleVendor/8xMI325X_vLLM/llama2-70b-99/Server"
    text = (repo_copy / "samples" / "pack.yaml").read_text(encoding="utf-8")
    assert server in text
    text = text.replace(server, server.replace("/Server", "/Offline")) + (
        "\nwaivers:\n  - check: C1\n    candidate: mi325x-vllm\n    reason: accepted\n"
        "    approver: A. Example\n    expires: 2027-01-31\n"
    )
    (repo_copy / "samples" / "waived.yaml").write_text(text, encoding="utf-8")
    waived = _run(repo_copy, tmp_path / "allowed", command="check", spec="samples/waived.yaml")
    assert waived.ok, waived.stderr
    assert waived.outputs["verdict"] == "PASS WITH WAIVERS"
    refused = _run(
        repo_copy,
        tmp_path / "refused",
        command="check",
        spec="samples/waived.yaml",
        **{"no-waivers": "true"},
    )
    assert refused.returncodes == [0, 1]
    assert refused.outputs["verdict"] == "PASS WITH WAIVERS"
    assert refused.summary.startswith("### \u274c evidencepack check: ")
    # The action's log shows the summary too.
    assert refused.summary.splitlines()[0] in refused.stdout


# slow: runs the action's watch command against a loopback endpoint
@pytest.mark.slow
def test_the_actions_watch_command_and_its_summary_in_the_log(
    watch_started: Future[tuple[ActionRun, Path]] | None,
) -> None:
    """command: watch verifies the pack and measures the endpoint; an endpoint that does not
    answer is "could not run" (exit 3, the step fails), said in the job summary and the log."""
    assert watch_started is not None
    # run_action bounds each step (300 s); the install and the watch are two steps.
    run, folder = watch_started.result(timeout=900)
    assert run.returncodes == [0, 3], run.stderr[-2000:]
    assert (run.outputs["exit-code"], run.outputs["holds"]) == ("3", "false")
    assert run.summary.startswith("### :x: evidencepack watch: could not run")
    # The log shows the summary the job summary gets.
    assert "evidencepack watch: could not run" in run.stdout
    assert not (folder / "watched").exists()
