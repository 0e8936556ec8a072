"""OpenSSF model signatures (OMS v1.0, ``model.sig``): verified offline, read as a manifest.

An OMS bundle is a Sigstore bundle whose DSSE payload is an in-toto Statement v1 with predicate
type ``https://model_signing/signature/v1.0`` (sigstore/model-transparency, the ``model_signing``
package 1.x). Its predicate lists every model file (``resources``: name, algorithm, hex digest)
and how they were hashed (``serialization``); its one subject is the model's *root digest*:
sha256 over the concatenated raw digests of the resources, in the order listed (sorted by name).

We verify with our own key and keyless verifiers (cryptography, sigstore-python) and read the
manifest here, rather than depend on ``model_signing``: its verification re-hashes the model's
folder, which a pack never holds, and it pulls protobuf, click, blake3 and in-toto-attestation.

**How a manifest names the envelope's model** (``ModelManifest.names``): the envelope's
``model.digest`` is the signed weights when it equals the root digest (the subject's sha256,
recomputed from the resources), or, for a manifest of exactly one sha256-hashed file, that
file's sha256 (what ``sha256sum model.safetensors`` prints for a one-file model).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import VerificationError
from .bundle import CheckedSignature, parse_bundle
from .statement import PAYLOAD_TYPE, STATEMENT_TYPE

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric import ec

    from .keyless import TrustRoot

OMS_PREDICATE_TYPE = "https://model_signing/signature/v1.0"
_OMS_V02 = "https://model_signing/Digests/v0.1"
_HEX = re.compile(r"^[0-9a-f]+$")
_METHODS = ("files", "shards")


@dataclass(frozen=True)
class ModelFile:
    """One resource of the manifest: a file (or shard) name, its algorithm and digest."""

    name: str
    algorithm: str
    digest: str


@dataclass(frozen=True)
class ModelManifest:
    """What a verified OMS bundle says: the model's name, its root digest and its files."""

    model_name: str
    root_sha256: str
    method: str
    files: tuple[ModelFile, ...]

    def names(self, digest: str) -> bool:
        """Whether ``digest`` (the envelope's model digest) is these signed weights: the root
        digest, or the one file's sha256 of a one-file manifest."""
        if digest == self.root_sha256:
            return True
        only = self.files[0] if len(self.files) == 1 else None
        return only is not None and only.algorithm == "sha256" and only.digest == digest


def _field(source: str, path: str, problem: str) -> VerificationError:
    return VerificationError(f"{source}: {path}: {problem}")


def _resources(source: str, predicate: dict[str, object]) -> tuple[ModelFile, ...]:
    resources = predicate.get("resources")
    if not isinstance(resources, list) or not resources:
        raise _field(source, "predicate.resources", "missing or empty: no model file is signed")
    files = []
    for i, resource in enumerate(resources):
        where = f"predicate.resources[{i}]"
        if not isinstance(resource, dict):
            raise _field(source, where, "not an object")
        name, algorithm, digest = (resource.get(k) for k in ("name", "algorithm", "digest"))
        if not isinstance(name, str) or not name:
            raise _field(source, f"{where}.name", "missing")
        if not isinstance(algorithm, str) or not algorithm:
            raise _field(source, f"{where}.algorithm", "missing")
        if not isinstance(digest, str) or not _HEX.match(digest) or len(digest) % 2:
            raise _field(source, f"{where}.digest", f"{digest!r} is not a hex digest")
        files.append(ModelFile(name, algorithm, digest))
    return tuple(files)


def read_manifest(payload: bytes, source: str) -> ModelManifest:
    """The manifest of a signed OMS v1.0 statement; VerificationError naming the file and the
    field when it is another format (another predicate version, no single subject, a root
    digest its resources do not hash to)."""
    try:
        statement = json.loads(payload)
    except (ValueError, RecursionError) as exc:
        raise _field(source, "dsseEnvelope.payload", f"not JSON: {exc}") from exc
    if not isinstance(statement, dict):
        raise _field(source, "dsseEnvelope.payload", "not a JSON object")
    if statement.get("_type") != STATEMENT_TYPE:
        raise _field(source, "_type", f"{statement.get('_type')!r}, not {STATEMENT_TYPE}")
    kind = statement.get("predicateType")
    if kind != OMS_PREDICATE_TYPE:
        hint = " (the pre-1.0 format: sign the model again with model_signing 1.x)"
        raise _field(
            source,
            "predicateType",
            f"{kind!r} is not an OpenSSF model signature v1.0 ({OMS_PREDICATE_TYPE})"
            + (hint if kind == _OMS_V02 else ""),
        )
    subjects = statement.get("subject")
    if not isinstance(subjects, list) or len(subjects) != 1 or not isinstance(subjects[0], dict):
        raise _field(source, "subject", "an OMS v1.0 statement has exactly one subject")
    digest = subjects[0].get("digest")
    root = digest.get("sha256") if isinstance(digest, dict) else None
    if not isinstance(root, str) or not re.fullmatch(r"[0-9a-f]{64}", root):
        raise _field(source, "subject[0].digest.sha256", "missing or not a sha256 hex digest")
    predicate = statement.get("predicate")
    if not isinstance(predicate, dict):
        raise _field(source, "predicate", "missing")
    serialization = predicate.get("serialization")
    method = serialization.get("method") if isinstance(serialization, dict) else None
    if method not in _METHODS:
        raise _field(
            source, "predicate.serialization.method", f"{method!r} is not one of {_METHODS}"
        )
    files = _resources(source, predicate)
    hashed = hashlib.sha256(b"".join(bytes.fromhex(f.digest) for f in files)).hexdigest()
    if hashed != root:
        raise _field(
            source,
            "subject[0].digest.sha256",
            f"{root}, but the signed resources hash to {hashed}: an inconsistent manifest",
        )
    name = subjects[0].get("name")
    return ModelManifest(str(name or ""), root, str(method), files)


def verify_model_signature(
    raw: bytes,
    source: str,
    *,
    public_key: ec.EllipticCurvePublicKey | None = None,
    identity: str | None = None,
    issuer: str | None = None,
    trust_root: TrustRoot | None = None,
) -> tuple[CheckedSignature, ModelManifest]:
    """Verify an OMS bundle with a public key, or keyless for an identity and issuer against a
    trusted root, offline; then read its manifest. VerificationError naming ``source``."""
    bundle = parse_bundle(raw, source)
    if bundle.payload is None or bundle.payload_type != PAYLOAD_TYPE:
        raise _field(
            source, "dsseEnvelope.payloadType", f"{bundle.payload_type!r}, not {PAYLOAD_TYPE}"
        )
    if public_key is not None:
        from .keyed import verify_key_bundle

        checked = verify_key_bundle(bundle, public_key)
    else:
        from .keyless import verify_keyless_bundle

        if identity is None or issuer is None or trust_root is None:
            raise VerificationError(
                f"{source}: keyless verification needs an identity, an issuer and a trusted root"
            )
        checked = verify_keyless_bundle(
            bundle, identity=identity, issuer=issuer, trust_root=trust_root
        )
    return checked, read_manifest(checked.payload or b"", source)
