"""The warehouse tests' packs: the session's signed sample and stack-bump packs (tests/packs.py),
and signed variants of the sample (tests/warehouse/variants.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from evidencepack.pipeline import BuildOptions, CompileOptions, build
from evidencepack.signing.keyed import KeySigner
from evidencepack.signing.keys import load_public_key
from evidencepack.signing.verify import KeyPolicy

from ..conftest import SAMPLE_SPEC
from ..packs import SIGNED_SAMPLE_PASSPHRASE, SignedSample
from ..run_once import made_once, run_folder
from .variants import make_variant, variants

VARIANTS = 20


@dataclass(frozen=True)
class Built:
    """The signed packs every warehouse test reads (never modify them: copy first)."""

    key: Path
    public_key: Path
    sample: Path
    sample_archive: Path
    stack_bump: Path
    variants: tuple[Path, ...]

    @property
    def policy(self) -> KeyPolicy:
        """The policy the packs verify under."""
        return KeyPolicy(load_public_key(self.public_key))

    def signer(self) -> KeySigner:
        """A signer holding the packs' key (its passphrase is ``SIGNED_SAMPLE_PASSPHRASE``)."""
        return KeySigner.from_file(self.key, lambda: SIGNED_SAMPLE_PASSPHRASE)


@pytest.fixture(scope="session")
def built(
    tmp_path_factory: pytest.TempPathFactory, signed_sample: SignedSample, signed_stack_bump: Path
) -> Built:
    """The session's signed sample and stack-bump packs (tests/packs.py), and 20 signed variants
    of the sample."""
    root = tmp_path_factory.mktemp("warehouse-packs")
    signer = signed_sample.signer()
    made = tuple(
        make_variant(signed_sample.pack, root / "variants" / v.decision_id, v, signer)
        for v in variants(VARIANTS)
    )
    return Built(
        signed_sample.key,
        signed_sample.pub,
        signed_sample.pack,
        signed_sample.archive,
        signed_stack_bump,
        made,
    )


@pytest.fixture
def copy_pack(tmp_path: Path) -> Callable[[Path], Path]:
    """A private full copy of a pack that a test may tamper with."""
    import shutil

    def copy(pack: Path) -> Path:
        return Path(shutil.copytree(pack, tmp_path / "copies" / pack.name))

    return copy


AIPERF_REQUESTS = "formats/aiperf/generated/profile_export.jsonl"
"""A real AIPerf per-request export (40 requests), cited in place for the requests pack."""


@pytest.fixture(scope="session")
def requests_pack(
    built: Built, tmp_path_factory: pytest.TempPathFactory, shared_data: Path
) -> Path:
    """The sample with b200-trtllm also citing a real AIPerf per-request export (read in place
    from the shared data, outside the spec's folder), built and key-signed once per run
    (tests/run_once.py; about 10 s). Read only: copy it to change it."""
    import os
    import shutil

    root = run_folder("warehouse-requests", tmp_path_factory)
    with made_once("warehouse-requests", root) as make:
        if make:
            samples = Path(
                shutil.copytree(
                    SAMPLE_SPEC.parent, root / "samples", ignore=shutil.ignore_patterns("generate")
                )
            )
            spec = samples / "pack.yaml"
            cited = os.path.relpath(shared_data / AIPERF_REQUESTS, samples)
            anchor = "        - path: evidence/b200-trtllm/runs/qps_2.0\n"
            text = spec.read_text(encoding="utf-8")
            assert anchor in text
            with_export = text.replace(anchor, f"{anchor}        - path: {cited}\n")
            spec.write_text(with_export, encoding="utf-8")
            options = BuildOptions(compile=CompileOptions(allow_outside=True))
            assert build(spec, root / "pack", options, built.signer()).out_dir == root / "pack"
    return root / "pack"
