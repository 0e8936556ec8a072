"""Reader plug-ins and rebuilds attacked (issue 42): a plug-in that raises or sleeps is a located
error naming it, one claiming a built-in's id is warned, every installed plug-in is named in the
pack and a rebuild names the plug-ins that differ; ``build`` then ``sign`` rebuilds; a rebuild
failure shows where two long lines differ."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest

from evidencepack.signing.keys import generate_keypair
from evidencepack.signing.rebuild_compare import file_difference

from ..conftest import REPO_ROOT
from ..inputs.test_plugin import PLUGIN, _install
from .harness import assert_refused, run

HEAD = "from evidencepack.readers.base import Format\n"


def _site(tmp_path: Path, body: str, module: str = "hostile_plugin") -> dict[str, str]:
    site = tmp_path / "site"
    site.mkdir(exist_ok=True)
    _install(site, module, textwrap.dedent(body))
    return {"PYTHONPATH": os.pathsep.join([str(site), str(REPO_ROOT)])}


def _unknown(tmp_path: Path) -> Path:
    path = tmp_path / "odd.json"
    path.write_text(json.dumps({"nothing_reads_this": 1}))
    return path


def test_a_plugin_detector_that_raises_is_a_located_error(tmp_path: Path) -> None:
    env = _site(
        tmp_path,
        HEAD + "def detect(probe):\n    raise RuntimeError('boom in detect')\n"
        "FORMAT = Format(id='odd', kind='runs', tool='odd', detect=detect, parse=None)\n",
    )
    path = _unknown(tmp_path)
    ran = run(["inspect", str(path)], env=env)
    assert_refused(ran, 1, str(path), "hostile-plugin 0.4.0", "boom in detect", "detector")


def test_a_plugin_parser_that_raises_is_a_located_error(tmp_path: Path) -> None:
    env = _site(
        tmp_path,
        HEAD + "def parse(probe, record):\n    return {}['missing']\n"
        "FORMAT = Format(id='odd', kind='runs', tool='odd', detect=lambda p: True, "
        "parse=parse)\n",
    )
    path = _unknown(tmp_path)
    ran = run(["inspect", str(path)], env=env)
    assert_refused(ran, 1, str(path), "hostile-plugin 0.4.0", "KeyError", "parser")


def test_a_plugin_detector_that_sleeps_is_bounded(tmp_path: Path) -> None:
    env = _site(
        tmp_path,
        HEAD + "import time\ndef detect(probe):\n    time.sleep(3600)\n"
        "FORMAT = Format(id='odd', kind='runs', tool='odd', detect=detect, parse=None)\n",
    )
    path = _unknown(tmp_path)
    ran = run(["inspect", str(path)], env={**env, "EVIDENCEPACK_PLUGIN_SECONDS": "2"})
    assert_refused(ran, 1, str(path), "hostile-plugin 0.4.0", "no answer in 2 s")
    assert ran.seconds < 60


def test_a_plugin_claiming_a_built_in_id_is_warned(tmp_path: Path) -> None:
    env = _site(
        tmp_path,
        HEAD
        + "FORMAT = Format(id='vllm-bench-serve', kind='runs', tool='x', detect=lambda p: True, "
        "parse=None)\n",
    )
    ran = run(["inspect", str(REPO_ROOT / "samples/evidence/h200-vllm/scores.jsonl")], env=env)
    assert ran.code == 0, ran.err
    said = ran.out + ran.err
    assert "the reader plug-in hostile-plugin 0.4.0" in said
    assert "failed to load" in said
    assert "'vllm-bench-serve' is a built-in reader's" in said


# slow: a build and a verify --rebuild, each in a fresh limited process
@pytest.mark.slow
def test_an_installed_plugin_is_named_in_the_pack_and_by_a_rebuild(
    tmp_path: Path, samples: Path
) -> None:
    env = _site(tmp_path, PLUGIN, "acme_bench_plugin")
    keys = generate_keypair(tmp_path / "k.pem", tmp_path / "k.pub", None)
    pack = tmp_path / "pack"
    spec = samples / "pack.yaml"
    built = run(["build", str(spec), "-o", str(pack), "--key", str(keys.private_key)], env=env)
    assert built.code == 0, built.err
    decision = json.loads((pack / "decision.json").read_text())
    spec_record = next(f for f in decision["inputs"] if f["role"] == "spec")
    assert any("acme-bench-plugin 1.2.0" in w for w in spec_record["warnings"])
    # On a machine without it, the rebuild fails and says which plug-in differs.
    ran = run(["verify", str(pack), "--key", str(keys.public_key), "--rebuild"])
    assert_refused(ran, 1, "reader plug-ins differ", "acme-bench-plugin 1.2.0")


# slow: a build, a sign and a verify --rebuild, each in a fresh limited process
@pytest.mark.slow
def test_build_unsigned_then_sign_gives_a_pack_that_rebuilds(tmp_path: Path, samples: Path) -> None:
    keys = generate_keypair(tmp_path / "k.pem", tmp_path / "k.pub", None)
    pack = tmp_path / "pack"
    built = run(["build", str(samples / "pack.yaml"), "-o", str(pack)])
    assert built.code == 0, built.err
    signed = run(["sign", str(pack), "--key", str(keys.private_key)])
    assert signed.code == 0, signed.err
    ran = run(["verify", str(pack), "--key", str(keys.public_key), "--rebuild"])
    assert ran.code == 0, ran.out + ran.err


def test_a_rebuild_difference_shows_where_two_long_lines_differ() -> None:
    common = "<p>" + "a" * 300
    found = file_difference(
        "report.html", f"{common}PACKED tail\n".encode(), f"{common}REBUILT tail\n".encode()
    )
    assert found is not None
    assert "PACKED" in found.message
    assert "REBUILT" in found.message
