"""Signers and bundle checks: keyless through Sigstore (``keyless``), key-based offline (``keyed``).

Both produce a Sigstore bundle v0.3 holding a DSSE envelope over the pack's in-toto statement;
``evidencepack.sign.sign_pack`` and ``evidencepack.verify`` are the entry points. Nothing is
imported here so that key-only use never loads sigstore.
"""
