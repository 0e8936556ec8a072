"""What the documentation (README.md and docs/) tells a first run to do with the sample: the key
passphrase that builds the stack-bump pack with the sample key, and the simulated server
`measure` is demonstrated against."""

from __future__ import annotations

import json
import re
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from evidencepack.signing.keyed import KeySigner

from .conftest import REPO_ROOT
from .docs_pages import documentation_text

README = documentation_text()  # README.md and every page of docs/
SCRIPT = (REPO_ROOT / "samples" / "build-signed-pack.sh").read_text(encoding="utf-8")


def _readme_command(start: str, containing: str = "") -> list[str]:
    """The documentation's shell command beginning with ``start`` and holding ``containing``
    (continuation lines joined)."""
    text = README.replace("\\\n", " ")
    line = next(line for line in text.splitlines() if line.startswith(start) and containing in line)
    return shlex.split(line.split(" &", 1)[0])


def test_the_readmes_passphrase_unlocks_the_key_the_sample_script_makes(tmp_path: Path) -> None:
    default = re.search(r"EVIDENCEPACK_KEY_PASSPHRASE:-([^}]+)\}", SCRIPT)
    assert default, "build-signed-pack.sh sets a default passphrase"
    keygen = next(
        line for line in SCRIPT.splitlines() if line.strip().startswith("evidencepack keygen")
    )
    out = tmp_path / "out"
    out.mkdir()
    env_line = f"EVIDENCEPACK_KEY_PASSPHRASE={default.group(1)}"
    subprocess.run(
        ["bash", "-c", f'out="$1"; export {env_line}; {keygen.strip()}', "keygen", str(out)],
        cwd=tmp_path,
        check=True,
        capture_output=True,
        env={"PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin"},
    )
    build = _readme_command("EVIDENCEPACK_KEY_PASSPHRASE=")
    documented = build[0].split("=", 1)[1]
    assert f"**`{documented}`**" in README
    assert build[1:4] == ["evidencepack", "build", "samples/pack-stack-bump.yaml"]
    signer = KeySigner.from_file(out / "evidencepack.key.pem", lambda: documented.encode())
    assert signer.fingerprint


def _ctrl_c_reaches_it() -> None:
    """In the child: SIGINT back to its default, so Python turns it into KeyboardInterrupt. A
    shell runs a background job with SIGINT ignored, and an ignored signal is inherited: a test
    run started with `&` would otherwise send a Ctrl-C nobody hears."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


# slow: starts the sample server and measures against it for seconds
@pytest.mark.slow
def test_the_sample_server_starts_and_measure_runs_against_it(tmp_path: Path) -> None:
    serve = _readme_command("python samples/generate/serve.py")
    measure = _readme_command("evidencepack measure", "--spec samples/pack.yaml")
    serve = [sys.executable, *serve[1:]]
    serve[serve.index("--port") + 1] = "0"  # a free port, not 8000
    serve[serve.index("--prompts") + 1] = str(tmp_path / "prompts.jsonl")
    # The server's stderr goes to a file: a pipe nobody reads fills up (64 KiB of connection
    # warnings on a loaded machine) and blocks the server, which then never stops.
    server_log = (tmp_path / "serve.log").open("w", encoding="utf-8")
    server = subprocess.Popen(
        [*serve, "--seconds", "120"],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=server_log,
        text=True,
        preexec_fn=_ctrl_c_reaches_it,  # noqa: PLW1509 (no threads started by then)
    )
    try:
        assert server.stdout is not None
        assert server.stdout.readline().startswith("wrote ")
        started = server.stdout.readline()
        url = re.search(r"at (http://127\.0\.0\.1:\d+);", started)
        assert url, started
        measure[measure.index("--endpoint") + 1] = url.group(1)
        measure[measure.index("--prompts") + 1] = str(tmp_path / "prompts.jsonl")
        measure[measure.index("-o") + 1] = str(tmp_path / "measured")
        done = subprocess.run(
            [sys.executable, "-m", *measure],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        run = json.loads((tmp_path / "measured" / "run.json").read_text(encoding="utf-8"))
        assert run["complete"] is True
        assert (tmp_path / "measured" / "mlperf_log_detail.txt").is_file()
        assert "mi325x-vllm (SAMPLE DATA)" in started
        server.send_signal(signal.SIGINT)  # Ctrl-C stops it cleanly
        assert server.wait(30) == 0, (tmp_path / "serve.log").read_text(encoding="utf-8")
    finally:
        server.kill()
        server.wait(30)
        server_log.close()
