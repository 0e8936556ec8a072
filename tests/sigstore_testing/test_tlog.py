"""The local log's Merkle proofs are the ones sigstore-python's own inclusion check accepts."""

from __future__ import annotations

import base64

import pytest
from sigstore._internal.merkle import verify_merkle_inclusion
from sigstore.errors import VerificationError
from sigstore_models.rekor import v1 as rekor_v1

from .tlog import LocalLog


class _Entry:
    """Just what ``verify_merkle_inclusion`` reads from a TransparencyLogEntry."""

    def __init__(self, inner: rekor_v1.TransparencyLogEntry) -> None:
        self._inner = inner


@pytest.mark.parametrize("size", [1, 2, 3, 5, 8, 13])
def test_every_leaf_of_every_tree_size_verifies(size: int) -> None:
    log = LocalLog()
    answers = [log.append(f"entry {i}".encode(), 1_700_000_000) for i in range(size)]
    for index, answer in enumerate(answers):
        (entry,) = answer.values()
        proof = entry["verification"]["inclusionProof"]
        assert (proof["logIndex"], proof["treeSize"]) == (index, index + 1)
        inner = rekor_v1.TransparencyLogEntry.from_dict(
            {
                "logIndex": str(index),
                "logId": {"keyId": base64.b64encode(log.log_id).decode()},
                "kindVersion": {"kind": "dsse", "version": "0.0.1"},
                "inclusionProof": {
                    "logIndex": str(index),
                    "rootHash": base64.b64encode(bytes.fromhex(proof["rootHash"])).decode(),
                    "treeSize": str(proof["treeSize"]),
                    "hashes": [
                        base64.b64encode(bytes.fromhex(h)).decode() for h in proof["hashes"]
                    ],
                },
                "canonicalizedBody": entry["body"],
            }
        )
        verify_merkle_inclusion(_Entry(inner))  # type: ignore[arg-type]
    # The same proof for another body must fail.
    tampered = inner.model_copy(update={"canonicalized_body": b"entry that was never logged"})
    with pytest.raises(VerificationError, match="invalid root hash"):
        verify_merkle_inclusion(_Entry(tampered))  # type: ignore[arg-type]
