"""The envelope model's own signature, read once per build: the OMS bundle and its signer's key
or trusted root are packed like any input, the bundle verified offline (``signing.oms``), and
its manifest compared with ``envelope.model.digest``. ``pipeline.compile_pack`` hands the
outcome to every candidate's evidence; PROV-MODEL judges it, the claim ledger links to it.
"""

from __future__ import annotations

from pathlib import Path

from ..analyze.evidence import SignedWeights
from ..analyze.models import EvidenceLink
from ..core.limits import read_limited
from ..errors import EvidencePackError
from ..intake.collect import Collector
from ..intake.records import FileProblem, InputFile
from ..spec.load import LoadedSpec
from ..spec.model_signature import ModelSignature
from ..spec.models import EvidenceRef

MAX_SIGNATURE_BYTES = 16 << 20
"""A model signature lists one digest per file: a few KiB, at most some MiB for sharded ones."""


def read_model_signature(
    loaded: LoadedSpec, collector: Collector
) -> tuple[SignedWeights | None, list[FileProblem]]:
    """The outcome of the envelope model's signature (None: the spec cites none), and the
    problems reading its files (for PROV-FILES, as any cited file's)."""
    signature = loaded.spec.envelope.model.signature
    if signature is None:
        return None, []
    problems: list[FileProblem] = []
    files: list[InputFile] = []
    for path, pin in signature.cited():
        got = collector.add_ref(EvidenceRef(path=path, sha256=pin), "model", None)
        problems += got.problems
        if len(got.files) != 1:
            problems.append(FileProblem(f"{path}: not a single file"))
        files += got.files[:1]
    if problems:
        reasons = "; ".join(dict.fromkeys(p.reason for p in problems))
        problem = f"the model signature could not be checked: {reasons}"
        return SignedWeights(problem, "", None), problems
    bundle = files[0]
    link = EvidenceLink(
        row="model-signature", file_sha256=bundle.sha256, pack_path=bundle.pack_path
    )
    copies = [collector.result.sources[f.pack_path] for f in files]
    try:
        return _judge(loaded, signature, copies, link, files[-1].spec_path), []
    except EvidencePackError as exc:
        return SignedWeights(exc.message, "", link), []


def _judge(
    loaded: LoadedSpec,
    signature: ModelSignature,
    copies: list[Path],
    link: EvidenceLink,
    key_name: str,
) -> SignedWeights:
    """The verdict on the signature in ``copies[0]``, checked with the key or trusted root in
    ``copies[1]`` (``key_name``: that file as the spec cites it)."""
    from .oms import verify_model_signature

    raw = read_limited(copies[0], MAX_SIGNATURE_BYTES, what="model signature", label=signature.path)
    if signature.public_key is not None:
        from .keys import load_public_key

        checked, manifest = verify_model_signature(
            raw, signature.path, public_key=load_public_key(copies[1], key_name)
        )
        signer = f"key sha256:{checked.signer.key_fingerprint}"
    else:
        from .keyless import load_trust_root

        checked, manifest = verify_model_signature(
            raw,
            signature.path,
            identity=signature.identity,
            issuer=signature.issuer,
            trust_root=load_trust_root(copies[1], label=key_name),
        )
        signer = f"{checked.signer.identity} (issuer {checked.signer.issuer})"
    envelope = loaded.spec.envelope.model.digest
    detail = (
        f"weights signed by {signer}: {signature.path} root digest {manifest.root_sha256} "
        f"over {len(manifest.files)} file(s)"
    )
    if not manifest.names(envelope):
        only = manifest.files[0].digest if len(manifest.files) == 1 else None
        also = f" (its one file's sha256 {only})" if only and only != manifest.root_sha256 else ""
        problem = (
            f"{signature.path} signs other weights: its root digest is {manifest.root_sha256}"
            f"{also}, the envelope's model digest is {envelope}"
        )
        return SignedWeights(problem, detail, link)
    return SignedWeights(None, detail, link)
