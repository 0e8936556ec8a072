"""Signing a pack: the in-toto statement, keys, signers, and offline verification.

``statement`` hashes a pack into the signed in-toto Statement; ``sign`` writes
``pack.sigstore.json`` with a signer from ``keyless`` (Sigstore) or ``keyed`` (air-gapped keys,
``keys``); ``verify`` checks a signed pack. This package depends on ``evidencepack.pack`` and never
the other way. Nothing is imported here, so that key-only use never loads sigstore (0.7 s).
"""
