"""Signers and bundle checks: keyless through Sigstore (``keyless``), key-based offline (``keyed``).

Entry points are ``evidencepack.sign`` and ``evidencepack.verify``. Nothing is imported here,
so that key-only use never loads sigstore (0.7 s).
"""
