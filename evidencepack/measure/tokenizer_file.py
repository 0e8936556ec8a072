"""A tokenizer the user names, for a server with no tokenize endpoint: a Hugging Face
``tokenizer.json``, or the vocabulary embedded in a GGUF model file.

``measure --tokenizer FILE`` reads it once, before any request: a ``tokenizer.json`` as it is, a
GGUF file's vocabulary rebuilt as the same tokenizer llama.cpp runs on it
(``tokenizer_gguf.py``). Either way what counts is a Hugging Face ``tokenizers``
tokenizer, and its ``tokenizer.json`` (the user's bytes, or the one rebuilt from the GGUF file)
is what a run folder keeps, with the source file's name and sha256, so the pack holds the very
tokenizer that counted. The library is the optional extra ``evidencepack[tokenizer]``.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.limits import regular_file_problem
from ..core.progress import SILENT, Progress
from ..errors import InputError
from .tokenizer_gguf import from_gguf, require_library

if TYPE_CHECKING:
    from tokenizers import Tokenizer

TOKENIZER_FILE = "tokenizer.json"
"""The name of the tokenizer a run folder keeps when it counted output tokens."""
_MAX_JSON_BYTES = 256 << 20
_SAY_READING_BYTES = 8 << 20
"""A tokenizer.json past this size is announced on the progress line before it is read."""
_GGUF_MAGIC = b"GGUF"


@dataclass(frozen=True)
class FileTokenizer:
    """A tokenizer read from a file: what counts, the ``tokenizer.json`` a run folder keeps, and
    where it came from (``source``: the file's name, sha256, format and what was read of it)."""

    tokenizer: Tokenizer
    json_bytes: bytes
    """The ``tokenizer.json`` a run folder keeps: the given file's bytes, or the rebuilt one's."""
    source: dict[str, Any]

    def count(self, text: str) -> int:
        """The tokens of ``text`` (no special tokens added: the server's own are not counted)."""
        return len(self.tokenizer.encode(text, add_special_tokens=False).ids)

    @property
    def sha256(self) -> str:
        """The sha256 of the ``tokenizer.json`` a run folder keeps."""
        return hashlib.sha256(self.json_bytes).hexdigest()


def load_tokenizer_file(path: Path, progress: Progress = SILENT) -> FileTokenizer:
    """The tokenizer in ``path``: a Hugging Face ``tokenizer.json`` or a GGUF model file."""
    name = str(path)
    if (problem := regular_file_problem(path)) is not None:
        raise InputError(problem, file=name)
    try:
        with path.open("rb") as handle:
            magic = handle.read(4)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", file=name) from None
    if magic == _GGUF_MAGIC:
        tokenizer, read = from_gguf(path, name)
        source = {"file": path.name, "sha256": _file_sha256(path), "format": "gguf", **read}
        return FileTokenizer(tokenizer, tokenizer.to_str(pretty=True).encode("utf-8"), source)
    size = path.stat().st_size
    if size > _MAX_JSON_BYTES:
        raise InputError(
            f"{size} bytes: a tokenizer.json is at most {_MAX_JSON_BYTES >> 20} MiB "
            "(or give a GGUF model file, which starts with 'GGUF')",
            file=name,
        )
    if size > _SAY_READING_BYTES:  # tens of seconds for a large vocabulary: say so first
        progress.stage(
            f"reading the tokenizer {name} ({size / 1e6:,.0f} MB): a large vocabulary takes a while"
        )
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
        doc = json.loads(text)
    except ValueError as exc:
        raise InputError(
            f"neither a GGUF model file nor a tokenizer.json (JSON): {exc}", file=name
        ) from None
    except RecursionError:
        raise InputError(
            "a tokenizer.json nested too deep to read (thousands of levels; a real one has a few)",
            file=name,
        ) from None
    if not isinstance(doc, dict) or not isinstance(doc.get("model"), dict):
        raise InputError(
            "not a Hugging Face tokenizer.json: no 'model' object", file=name, where="$.model"
        )
    require_library("tokenizers", "a tokenizer.json")
    from tokenizers import Tokenizer

    try:
        tokenizer = Tokenizer.from_str(text)
    except Exception as exc:  # noqa: BLE001 - the Rust library raises plain Exception
        raise InputError(f"the tokenizers library cannot read it: {exc}", file=name) from None
    source = {
        "file": path.name,
        "sha256": hashlib.sha256(raw).hexdigest(),
        "format": "tokenizer.json",
        "model": str(doc["model"].get("type") or "unknown"),
        "vocabulary": tokenizer.get_vocab_size(with_added_tokens=True),
    }
    return FileTokenizer(tokenizer, raw, source)


def read_kept(path: Path, source: dict[str, Any]) -> FileTokenizer:
    """The tokenizer a run folder keeps (written by ``measure`` from ``load_tokenizer_file``),
    as the worker process loads it."""
    require_library("tokenizers", "a tokenizer.json")
    from tokenizers import Tokenizer

    raw = path.read_bytes()
    return FileTokenizer(Tokenizer.from_str(raw.decode("utf-8")), raw, source)


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()
