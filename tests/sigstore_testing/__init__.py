"""Test code: a local Sigstore instance (CA, CT key, transparency log, trusted root) so that the
real keyless signing and verification code of sigstore-python runs offline. See ``instance``."""
