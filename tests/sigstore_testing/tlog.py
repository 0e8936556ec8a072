"""A local Rekor-v1-like transparency log: an RFC 6962 Merkle tree, signed checkpoints and SETs.

``integrate()`` takes the DSSE entry request sigstore-python's signer builds, checks its
signature as Rekor does, appends the canonical ``dsse/0.0.1`` body, and answers with the same
JSON the Rekor v1 API returns (inclusion proof with a signed checkpoint, and a signed entry
timestamp over the canonical JSON of body, integratedTime, logID and logIndex).
"""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

import rfc8785
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

from .ca import key_id


def _leaf_hash(body: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + body).digest()


def _node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def _split(n: int) -> int:
    """The largest power of two smaller than n (RFC 6962 section 2.1)."""
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def merkle_root(leaves: list[bytes]) -> bytes:
    if len(leaves) == 1:
        return leaves[0]
    k = _split(len(leaves))
    return _node_hash(merkle_root(leaves[:k]), merkle_root(leaves[k:]))


def audit_path(index: int, leaves: list[bytes]) -> list[bytes]:
    """RFC 6962 PATH(m, D[n]), bottom-up: what the verifier chains from the leaf to the root."""
    if len(leaves) == 1:
        return []
    k = _split(len(leaves))
    if index < k:
        return [*audit_path(index, leaves[:k]), merkle_root(leaves[k:])]
    return [*audit_path(index - k, leaves[k:]), merkle_root(leaves[:k])]


class LocalLog:
    """An append-only log; each entry's proof is against the tree right after it joined."""

    def __init__(self, origin: str = "rekor.local") -> None:
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.origin = origin
        self.leaves: list[bytes] = []

    @property
    def log_id(self) -> bytes:
        return key_id(self.key.public_key())

    def _sign(self, data: bytes) -> bytes:
        return self.key.sign(data, ec.ECDSA(hashes.SHA256()))

    def checkpoint(self, size: int, root: bytes) -> str:
        note = f"{self.origin} - 1\n{size}\n{base64.b64encode(root).decode()}\n"
        signature = base64.b64encode(self.log_id[:4] + self._sign(note.encode())).decode()
        return f"{note}\n\u2014 {self.origin} {signature}\n"

    def append(self, body: bytes, integrated_time: int) -> dict[str, Any]:
        """Append a canonical entry body; return the Rekor v1 API answer for it."""
        index = len(self.leaves)
        self.leaves.append(_leaf_hash(body))
        size = len(self.leaves)
        root = merkle_root(self.leaves)
        body_b64 = base64.b64encode(body).decode()
        promise = rfc8785.dumps(
            {
                "body": body_b64,
                "integratedTime": integrated_time,
                "logID": self.log_id.hex(),
                "logIndex": index,
            }
        )
        entry = {
            "body": body_b64,
            "integratedTime": integrated_time,
            "logID": self.log_id.hex(),
            "logIndex": index,
            "verification": {
                "inclusionProof": {
                    "checkpoint": self.checkpoint(size, root),
                    "hashes": [h.hex() for h in audit_path(index, self.leaves)],
                    "logIndex": index,
                    "rootHash": root.hex(),
                    "treeSize": size,
                },
                "signedEntryTimestamp": base64.b64encode(self._sign(promise)).decode(),
            },
        }
        return {hashlib.sha256(body).hexdigest(): entry}

    def integrate(self, request: dict[str, Any], integrated_time: int) -> dict[str, Any]:
        """Accept a ``dsse`` entry request as Rekor v1 does, after checking its signature."""
        if request.get("kind") != "dsse":
            raise ValueError(f"this test log only takes dsse entries, not {request.get('kind')}")
        proposed = request["spec"]["proposedContent"]
        envelope_text: str = proposed["envelope"]
        envelope = json.loads(envelope_text)
        payload = base64.b64decode(envelope["payload"])
        payload_type = envelope["payloadType"].encode()
        pae = b"DSSEv1 %d %s %d %s" % (len(payload_type), payload_type, len(payload), payload)
        verifier_pem = base64.b64decode(proposed["verifiers"][0])
        public_key = x509.load_pem_x509_certificate(verifier_pem).public_key()
        assert isinstance(public_key, ec.EllipticCurvePublicKey)
        signatures = []
        for signature in envelope["signatures"]:
            public_key.verify(base64.b64decode(signature["sig"]), pae, ec.ECDSA(hashes.SHA256()))
            signatures.append({"signature": signature["sig"], "verifier": proposed["verifiers"][0]})
        body = rfc8785.dumps(
            {
                "apiVersion": "0.0.1",
                "kind": "dsse",
                "spec": {
                    "envelopeHash": {
                        "algorithm": "sha256",
                        "value": hashlib.sha256(envelope_text.encode()).hexdigest(),
                    },
                    "payloadHash": {
                        "algorithm": "sha256",
                        "value": hashlib.sha256(payload).hexdigest(),
                    },
                    "signatures": signatures,
                },
            }
        )
        return self.append(body, integrated_time)
