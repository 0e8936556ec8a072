"""Run a composite action's steps as the GitHub runner does, without GitHub (test helper).

Each ``run:`` script goes to ``bash --noprofile --norc -eo pipefail`` (the runner's ``shell:
bash``) in a clean environment: ``PATH`` holds only the system folders plus what earlier steps
appended to ``$GITHUB_PATH`` (that is how a step's install reaches the next step), with
``GITHUB_OUTPUT``, ``GITHUB_STEP_SUMMARY``, ``GITHUB_ENV`` and ``RUNNER_TEMP`` files in a temporary
folder. ``${{ }}`` expressions are evaluated for the few forms an action's ``env:`` and
``outputs:`` use (``inputs.X``, ``github.action_path``, ``steps.ID.outputs.X``); any other
expression, or one inside a script, is an error: inputs must reach scripts as environment variables.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"


@dataclass
class ActionRun:
    """The outcome of one run of the action: each step's exit code, the outputs, the files."""

    returncodes: list[int] = field(default_factory=list)
    outputs: dict[str, str] = field(default_factory=dict)
    summary: str = ""
    stdout: str = ""
    stderr: str = ""

    @property
    def ok(self) -> bool:
        """Every step ran and exited 0."""
        return bool(self.returncodes) and all(code == 0 for code in self.returncodes)


def load_action(path: Path) -> dict[str, Any]:
    """The action's metadata (action.yml)."""
    data: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return data


def _evaluate(text: str, context: dict[str, str]) -> str:
    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in context:
            raise ValueError(f"unsupported expression ${{{{ {name} }}}}")
        return context[name]

    return EXPRESSION.sub(one, text)


def _read_outputs(path: Path) -> dict[str, str]:
    """``name=value`` lines and ``name<<DELIM`` blocks, as the runner reads $GITHUB_OUTPUT."""
    outputs: dict[str, str] = {}
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            end = lines.index(delimiter, i + 1)
            outputs[name] = "\n".join(lines[i + 1 : end])
            i = end + 1
            continue
        if "=" in line:
            name, value = line.split("=", 1)
            outputs[name] = value
        i += 1
    return outputs


def run_action(
    action_dir: Path,
    workspace: Path,
    inputs: dict[str, str],
    runner_temp: Path,
    *,
    timeout: float = 300,
) -> ActionRun:
    """Run ``action_dir/action.yml`` with ``inputs`` in ``workspace``, as a runner would."""
    action = load_action(action_dir / "action.yml")
    declared = action.get("inputs", {})
    unknown = set(inputs) - set(declared)
    if unknown:
        raise ValueError(f"inputs the action does not declare: {sorted(unknown)}")
    context = {
        f"inputs.{name}": str(inputs.get(name, spec.get("default", "")))
        for name, spec in declared.items()
    }
    context["github.action_path"] = str(action_dir)
    runner_temp.mkdir(parents=True, exist_ok=True)
    files = {
        name: runner_temp / f"{name.lower()}.txt"
        for name in ("GITHUB_PATH", "GITHUB_STEP_SUMMARY", "GITHUB_ENV")
    }
    for path in files.values():
        path.touch()
    result = ActionRun()
    for index, step in enumerate(action["runs"]["steps"]):
        script = step["run"]
        if EXPRESSION.search(script):
            raise ValueError(f"step {index}: an expression inside the script (use env:)")
        added = files["GITHUB_PATH"].read_text(encoding="utf-8").split()
        output_file = runner_temp / f"output-{index}.txt"
        output_file.touch()
        env = {
            "PATH": os.pathsep.join([*reversed(added), SYSTEM_PATH]),
            "HOME": os.environ.get("HOME", "/root"),
            "LANG": "C.UTF-8",
            # This machine's setting, not the action's: pip leaves the installed dependencies
            # uncompiled (a runner's pip compiles all of them, about 7 s of CPU per install);
            # the steps' first run of Python writes the bytecode of what it imports.
            "PIP_NO_COMPILE": "1",
            "RUNNER_TEMP": str(runner_temp),
            "GITHUB_WORKSPACE": str(workspace),
            "GITHUB_ACTION_PATH": str(action_dir),
            "GITHUB_OUTPUT": str(output_file),
            **{name: str(path) for name, path in files.items()},
        }
        env |= {k: _evaluate(str(v), context) for k, v in (step.get("env") or {}).items()}
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
            cwd=workspace,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        result.returncodes.append(done.returncode)
        result.stdout += done.stdout
        result.stderr += done.stderr
        if "id" in step:
            for name, value in _read_outputs(output_file).items():
                context[f"steps.{step['id']}.outputs.{name}"] = value
        if done.returncode != 0:
            break
    for name, spec in (action.get("outputs") or {}).items():
        try:
            result.outputs[name] = _evaluate(spec["value"], context)
        except ValueError:
            result.outputs[name] = ""  # a step that did not run leaves its outputs empty
    result.summary = files["GITHUB_STEP_SUMMARY"].read_text(encoding="utf-8")
    return result
