"""A key-signed bundle too big to read whole: its signature checked while its payload streams.

A pack of many files has a big statement (about 170 bytes of bundle per file), and DSSE signs
the payload whole. Here the bundle is read in chunks: every JSON string longer than
``_SMALL_STRING`` is left out of a small *skeleton* of the bundle (its place recorded), the
skeleton is parsed by sigstore's own model (``bundle.parse_bundle``), and the one big string,
the base64 DSSE payload, is decoded chunk by chunk into the signature's pre-hash (ECDSA over a
``Prehashed`` digest of the PAE) and, later, into the statement's incremental parser. Memory is
a chunk, whatever the bundle's size. Keyless bundles are not read here: sigstore-python's
verifier takes the bundle whole.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import Prehashed

from ..core.limits import regular_file_problem
from ..errors import CouldNotRun, VerificationError, option
from .bundle import ParsedBundle, parse_bundle
from .keys import key_fingerprint, signature_hash, wrong_key_message
from .signer import SignerInfo

MAX_STREAMED_BUNDLE_BYTES = 2 << 30
"""The hard bound on a key-signed bundle ``verify`` streams: 2 GiB. A subject costs about
``len(path) + 90`` bytes of statement, 4/3 of that in the bundle: a pack of 8 million files
of 60-character paths, or 10 million (``MAX_STREAMED_FILES``) of 40-character ones."""
MAX_STREAMED_FILES = 10_000_000
"""The most subjects a streamed statement may hold (the walk of the pack is bounded too)."""

_CHUNK = 1 << 20  # a multiple of 4: base64 decodes chunk by chunk
_SMALL_STRING = 1 << 16
_SKELETON_LIMIT = 1 << 20
_MARKER = b"evidencepack:streamed-payload"
_MARKER_B64 = base64.b64encode(_MARKER)
_STOP = re.compile(rb'["\\]')


@dataclass(frozen=True)
class Span:
    """Where a big JSON string's characters lie in the file: ``[start, end)``."""

    start: int
    end: int
    escaped: bool


@dataclass(frozen=True)
class StreamedSignature:
    """A streamed key bundle whose signature held: the signer and where its payload lies."""

    signer: SignerInfo
    path: Path
    source: str
    payload: Span | bytes
    payload_sha256: str
    bundle_sha256: str


def _skeleton(path: Path, source: str) -> tuple[bytes, list[Span], str]:
    """The bundle with each big string replaced by ``_MARKER_B64``, the big strings' spans and
    the sha256 of the whole file."""
    problem = regular_file_problem(path)
    if problem:
        raise VerificationError(f"{source}: {problem}")
    skeleton = bytearray()
    spans: list[Span] = []
    whole = hashlib.sha256()
    in_string = pending = escaped = False
    start = 0
    text: bytearray | None = None
    offset = 0
    try:
        with path.open("rb") as handle:
            while chunk := handle.read(_CHUNK):
                whole.update(chunk)
                i = 0
                while i < len(chunk):
                    if not in_string:
                        j = chunk.find(b'"', i)
                        stop = len(chunk) if j < 0 else j + 1
                        skeleton += chunk[i:stop]
                        if j >= 0:
                            in_string, start, text, escaped = (
                                True,
                                offset + stop,
                                bytearray(),
                                False,
                            )
                        i = stop
                    elif pending:
                        if text is not None:
                            text += chunk[i : i + 1]
                        pending, i = False, i + 1
                    else:
                        m = _STOP.search(chunk, i)
                        k = len(chunk) if m is None else m.start()
                        if text is not None:
                            text += chunk[i:k]
                            if len(text) > _SMALL_STRING:
                                text = None
                        if m is None:
                            i = k
                        elif chunk[k] == 0x5C:  # a backslash: the next byte is escaped
                            escaped = pending = True
                            if text is not None:
                                text += b"\\"
                            i = k + 1
                        else:
                            if text is None:
                                spans.append(Span(start, offset + k, escaped))
                                skeleton += _MARKER_B64
                            else:
                                skeleton += text
                            skeleton += b'"'
                            in_string, i = False, k + 1
                    if len(skeleton) > _SKELETON_LIMIT:
                        raise VerificationError(
                            f"{source}: not a Sigstore bundle: over {_SKELETON_LIMIT} bytes "
                            "besides its payload"
                        )
                offset += len(chunk)
    except OSError as exc:
        raise CouldNotRun(f"{source}: cannot read the Sigstore bundle: {exc}") from exc
    if in_string:
        raise VerificationError(f"{source}: not a Sigstore bundle: a string is not closed")
    return bytes(skeleton), spans, whole.hexdigest()


def decoded_chunks(path: Path, span: Span, source: str) -> Iterator[bytes]:
    """The base64 string at ``span`` of ``path``, decoded a chunk at a time."""
    try:
        with path.open("rb") as handle:
            handle.seek(span.start)
            left = span.end - span.start
            while left > 0:
                raw = handle.read(min(_CHUNK, left))
                if not raw:
                    raise VerificationError(f"{source}: the bundle changed while being read")
                left -= len(raw)
                try:
                    yield base64.b64decode(raw, validate=True)
                except binascii.Error as exc:
                    raise VerificationError(
                        f"{source}: dsseEnvelope.payload is not base64: {exc}"
                    ) from exc
    except OSError as exc:
        raise CouldNotRun(f"{source}: cannot read the Sigstore bundle: {exc}") from exc


class DecodedPayload(io.RawIOBase):
    """The decoded payload as a binary file (for an incremental JSON parser), hashed as read."""

    def __init__(self, chunks: Iterator[bytes]) -> None:
        """Read from ``chunks`` (``decoded_chunks``)."""
        self._chunks = chunks
        self._left = b""
        self.sha256 = hashlib.sha256()

    def drain(self) -> None:
        """Read (and hash) what is left."""
        while self.read(_CHUNK):
            pass

    def readable(self) -> bool:
        """Always readable."""
        return True

    def read(self, size: int = -1) -> bytes:
        """Up to ``size`` bytes (all with -1); ``b""`` at the end."""
        if size < 0:
            return b"".join(iter(lambda: self.read(_CHUNK), b""))
        while not self._left:
            chunk = next(self._chunks, None)
            if chunk is None:
                return b""
            self.sha256.update(chunk)
            self._left = chunk
        if size >= len(self._left):
            out, self._left = self._left, b""
        else:
            out, self._left = self._left[:size], self._left[size:]
        return out

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        """``read`` into ``buffer``."""
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


def _payload_length(path: Path, span: Span, source: str) -> int:
    size = span.end - span.start
    if span.escaped or size % 4:
        raise VerificationError(f"{source}: dsseEnvelope.payload is not plain base64")
    with path.open("rb") as handle:
        handle.seek(span.end - 2)
        tail = handle.read(2)
    return size // 4 * 3 - tail.count(b"=")


@dataclass(frozen=True)
class ScannedBundle:
    """A bundle read in chunks: its parts but the big payload, where that lies, its sha256."""

    bundle: ParsedBundle
    spans: tuple[Span, ...]
    sha256: str


def scan_bundle(path: Path, source: str) -> ScannedBundle:
    """Read a bundle of up to ``MAX_STREAMED_BUNDLE_BYTES`` in chunks; its big strings are
    left in the file (``_MARKER`` stands for them in ``bundle``)."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise CouldNotRun(f"{source}: cannot read the Sigstore bundle: {exc}") from exc
    if size > MAX_STREAMED_BUNDLE_BYTES:
        raise VerificationError(
            f"{source}: {size} bytes, over the limit of {MAX_STREAMED_BUNDLE_BYTES} bytes for a "
            f"Sigstore bundle (about {MAX_STREAMED_FILES:,} pack files)"
        )
    skeleton, spans, bundle_sha256 = _skeleton(path, source)
    return ScannedBundle(parse_bundle(skeleton, source), tuple(spans), bundle_sha256)


def verify_streamed_key_bundle(
    path: Path,
    source: str,
    public_key: ec.EllipticCurvePublicKey,
    scanned: ScannedBundle | None = None,
) -> StreamedSignature:
    """Check a key-signed bundle of any size up to ``MAX_STREAMED_BUNDLE_BYTES`` with
    ``public_key``, reading it in chunks (``scanned`` if already scanned); the same checks and
    messages as ``verify_key_bundle``."""
    scanned = scanned or scan_bundle(path, source)
    bundle, spans, bundle_sha256 = scanned.bundle, scanned.spans, scanned.sha256
    if bundle.mode != "key":
        raise VerificationError(
            f"{source}: signed keyless (it holds a certificate, not a key hint); "
            f"verify with {option('cert_identity')} and {option('cert_oidc_issuer')}"
        )
    if bundle.payload is None or bundle.payload_type is None:
        raise VerificationError(f"{source}: a key-signed bundle must hold a DSSE envelope")
    if spans and (len(spans) != 1 or bundle.payload != _MARKER):
        raise VerificationError(
            f"{source}: not a streamable bundle: only dsseEnvelope.payload may be over "
            f"{_SMALL_STRING} bytes"
        )
    if len(bundle.signatures) != 1:
        raise VerificationError(
            f"{source}: expected exactly one DSSE signature, found {len(bundle.signatures)}"
        )
    where: Span | bytes = spans[0] if spans else bundle.payload
    length = len(where) if isinstance(where, bytes) else _payload_length(path, where, source)
    algorithm = signature_hash(public_key)
    kind = bundle.payload_type.encode()
    pae = hashlib.new(algorithm.name)
    pae.update(b"DSSEv1 %d %s %d " % (len(kind), kind, length))
    payload = hashlib.sha256()
    for chunk in _chunks(path, where, source):
        pae.update(chunk)
        payload.update(chunk)
    try:
        public_key.verify(bundle.signatures[0], pae.digest(), ec.ECDSA(Prehashed(algorithm)))
    except InvalidSignature:
        raise VerificationError(wrong_key_message(source, public_key, bundle.key_hint)) from None
    signer = SignerInfo(
        mode="key", key_fingerprint=key_fingerprint(public_key), key_hint=bundle.key_hint
    )
    return StreamedSignature(signer, path, source, where, payload.hexdigest(), bundle_sha256)


def _chunks(path: Path, where: Span | bytes, source: str) -> Iterator[bytes]:
    return iter((where,)) if isinstance(where, bytes) else decoded_chunks(path, where, source)


def streamed_payload(signature: StreamedSignature) -> DecodedPayload:
    """The signed payload read again as a file; the caller checks its ``sha256`` at the end
    against ``signature.payload_sha256`` (a bundle swapped in between is refused)."""
    return DecodedPayload(_chunks(signature.path, signature.payload, signature.source))
