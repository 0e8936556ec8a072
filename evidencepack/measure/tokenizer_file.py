"""A tokenizer the user names, for a server with no tokenize endpoint: a Hugging Face
``tokenizer.json``, or the vocabulary embedded in a GGUF model file.

``measure --tokenizer FILE`` reads it once, before any request: a ``tokenizer.json`` as it is, a
GGUF file's byte-level BPE vocabulary (``tokenizer.ggml.model`` ``gpt2``: its ``tokens``,
``merges``, ``token_type`` and the pre-tokenizer ``tokenizer.ggml.pre`` names) rebuilt as the
same tokenizer llama.cpp runs on it. Either way what counts is a Hugging Face ``tokenizers``
tokenizer, and its ``tokenizer.json`` (the user's bytes, or the one rebuilt from the GGUF file)
is what a run folder keeps, with the source file's name and sha256, so the pack holds the very
tokenizer that counted. Both libraries are the optional extra ``evidencepack[tokenizer]``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import CouldNotRun, InputError
from ..limits import regular_file_problem

if TYPE_CHECKING:
    from tokenizers import Tokenizer

TOKENIZER_FILE = "tokenizer.json"
"""The name of the tokenizer a run folder keeps when it counted output tokens."""
_MAX_JSON_BYTES = 256 << 20
_GGUF_MAGIC = b"GGUF"
_INSTALL = "pip install 'evidencepack[tokenizer]'"

# llama.cpp's pre-tokenizer regexes (src/llama-vocab.cpp, llm_tokenizer_bpe), by the
# ``tokenizer.ggml.pre`` names that select them; where llama.cpp adapted a tokenizer.json's regex
# to its own engine, the original (which the Hugging Face library runs) is used.
_GPT2 = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)"
_LLAMA3 = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
_QWEN2 = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
_DEFAULT = (r"[\p{P}\$\+<=>\^~\|]+", _GPT2, r"\p{N}+", r"[0-9][0-9][0-9]")


@dataclass(frozen=True)
class _Pre:
    regexes: tuple[str, ...]
    ignore_merges: bool = False
    """A whole pre-tokenized word that is a token is taken as it is (llama.cpp: Llama 3)."""


_PRE: dict[str, _Pre] = {
    "default": _Pre(_DEFAULT),
    **dict.fromkeys(
        ("llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0"),
        _Pre((_LLAMA3,), ignore_merges=True),
    ),
    **dict.fromkeys(("lfm2", "jina-v5-nano"), _Pre((_LLAMA3,), ignore_merges=True)),
    **dict.fromkeys(("dbrx", "smaug-bpe", "glm4", "chatglm-bpe"), _Pre((_LLAMA3,))),
    **dict.fromkeys(
        ("gpt-2", "phi-2", "mpt", "olmo", "jina-es", "jina-de", "jina-v2-es", "jina-v2-de"),
        _Pre((_GPT2,)),
    ),
    **dict.fromkeys(("gigachat", "a.x-4.0", "mellum", "modern-bert", "exaone4"), _Pre((_GPT2,))),
    **dict.fromkeys(
        ("qwen2", "deepseek-r1-qwen", "kormo", "f2llmv2", "megrez", "stablelm2"),
        _Pre((_QWEN2,)),
    ),
    **dict.fromkeys(
        ("starcoder", "refact", "command-r", "smollm", "codeshell", "exaone", "minerva-7b"),
        _Pre((r"\p{N}", _GPT2)),
    ),
}
_CONTROL, _USER_DEFINED = 3, 4  # llama.cpp's token types (gguf.TokenType)


@dataclass(frozen=True)
class FileTokenizer:
    """A tokenizer read from a file: what counts, the ``tokenizer.json`` a run folder keeps, and
    where it came from (``source``: the file's name, sha256, format and what was read of it)."""

    tokenizer: Tokenizer
    json_text: str
    source: dict[str, Any]

    def count(self, text: str) -> int:
        """The tokens of ``text`` (no special tokens added: the server's own are not counted)."""
        return len(self.tokenizer.encode(text, add_special_tokens=False).ids)

    @property
    def sha256(self) -> str:
        """The sha256 of the ``tokenizer.json`` a run folder keeps."""
        return hashlib.sha256(self.json_text.encode("utf-8")).hexdigest()


def _require(module: str, what: str) -> None:
    if importlib.util.find_spec(module) is None:
        raise CouldNotRun(
            f"--tokenizer reads {what} with the {module!r} package, which is not installed: "
            f"{_INSTALL}"
        )


def load_tokenizer_file(path: Path) -> FileTokenizer:
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
        return _from_gguf(path, name)
    size = path.stat().st_size
    if size > _MAX_JSON_BYTES:
        raise InputError(
            f"{size} bytes: a tokenizer.json is at most {_MAX_JSON_BYTES >> 20} MiB "
            "(or give a GGUF model file, which starts with 'GGUF')",
            file=name,
        )
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
        doc = json.loads(text)
    except ValueError as exc:
        raise InputError(
            f"neither a GGUF model file nor a tokenizer.json (JSON): {exc}", file=name
        ) from None
    if not isinstance(doc, dict) or not isinstance(doc.get("model"), dict):
        raise InputError(
            "not a Hugging Face tokenizer.json: no 'model' object", file=name, where="$.model"
        )
    _require("tokenizers", "a tokenizer.json")
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
    return FileTokenizer(tokenizer, text, source)


def read_kept(path: Path, source: dict[str, Any]) -> FileTokenizer:
    """The tokenizer a run folder keeps (written by ``measure`` from ``load_tokenizer_file``),
    as the worker process loads it."""
    _require("tokenizers", "a tokenizer.json")
    from tokenizers import Tokenizer

    text = path.read_text(encoding="utf-8")
    return FileTokenizer(Tokenizer.from_str(text), text, source)


def _field(reader: Any, key: str, name: str, *, required: bool = True) -> Any:
    field = reader.fields.get(key)
    if field is None:
        if required:
            raise InputError("the model file has no such key", file=name, where=key)
        return None
    try:
        return field.contents()
    except (ValueError, IndexError, UnicodeDecodeError) as exc:
        raise InputError(f"unreadable: {exc}", file=name, where=key) from None


def _strings(value: Any, key: str, name: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError("expected a list of strings", file=name, where=key)
    return value


def _from_gguf(path: Path, name: str) -> FileTokenizer:
    _require("gguf", "a GGUF model file")
    _require("tokenizers", "a GGUF model file's vocabulary")
    import gguf

    try:
        reader = gguf.GGUFReader(str(path), "r")
    except (ValueError, OSError, IndexError, KeyError) as exc:
        raise InputError(f"not a readable GGUF model file: {exc}", file=name) from None
    model = _field(reader, "tokenizer.ggml.model", name)
    if model != "gpt2":
        raise InputError(
            f"{model!r}: only a byte-level BPE vocabulary ('gpt2': Llama 3, Qwen 2 and 3, "
            "GPT-2, ...) is read from a GGUF file; give the model's tokenizer.json instead",
            file=name,
            where="tokenizer.ggml.model",
        )
    pre_name = _field(reader, "tokenizer.ggml.pre", name, required=False) or "default"
    pre = _PRE.get(str(pre_name))
    if pre is None:
        raise InputError(
            f"{pre_name!r}: a pre-tokenizer evidencepack does not know (it knows "
            f"{', '.join(sorted(_PRE))}); give the model's tokenizer.json instead",
            file=name,
            where="tokenizer.ggml.pre",
        )
    tokens = _strings(_field(reader, "tokenizer.ggml.tokens", name), "tokenizer.ggml.tokens", name)
    merges = _strings(_field(reader, "tokenizer.ggml.merges", name), "tokenizer.ggml.merges", name)
    types = _field(reader, "tokenizer.ggml.token_type", name, required=False)
    if types is not None and (not isinstance(types, list) or len(types) != len(tokens)):
        raise InputError(
            f"{len(types) if isinstance(types, list) else 'no'} types for {len(tokens)} tokens",
            file=name,
            where="tokenizer.ggml.token_type",
        )
    tokenizer, dropped = _byte_level_bpe(tokens, merges, types or [], pre)
    raw_sha = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(1 << 20):
            raw_sha.update(block)
    source = {
        "file": path.name,
        "sha256": raw_sha.hexdigest(),
        "format": "gguf",
        "model": model,
        "pre_tokenizer": pre_name,
        "vocabulary": len(tokens),
        "merges": len(merges),
        "merges_unused": dropped,
    }
    return FileTokenizer(tokenizer, tokenizer.to_str(pretty=True), source)


def _byte_level_bpe(
    tokens: list[str], merges: list[str], types: list[Any], pre: _Pre
) -> tuple[Tokenizer, int]:
    """The Hugging Face tokenizer llama.cpp's BPE session amounts to; and how many merges it
    leaves out (those whose parts or result are no token: llama.cpp could only emit their
    bytes)."""
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, pre_tokenizers

    vocab = {text: i for i, text in enumerate(tokens)}  # a repeated text: the last id, as llama.cpp
    pairs = []
    for merge in merges:
        cut = merge.find(" ", 1)
        left, right = (merge[:cut], merge[cut + 1 :]) if cut > 0 else (merge, "")
        if left in vocab and right in vocab and left + right in vocab:
            pairs.append((left, right))
    bpe = models.BPE(vocab, pairs, ignore_merges=pre.ignore_merges)
    tokenizer = Tokenizer(bpe)
    splits: list[pre_tokenizers.PreTokenizer] = [
        pre_tokenizers.Split(Regex(r), behavior="isolated") for r in pre.regexes
    ]
    splits.append(pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False))
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(splits)
    tokenizer.decoder = decoders.ByteLevel()
    kinds = [int(t) for t in types]
    special = [t for t, k in zip(tokens, kinds, strict=False) if k == _CONTROL]
    user = [t for t, k in zip(tokens, kinds, strict=False) if k == _USER_DEFINED]
    tokenizer.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in special])
    tokenizer.add_tokens([AddedToken(t, special=False, normalized=False) for t in user])
    return tokenizer, len(merges) - len(pairs)
