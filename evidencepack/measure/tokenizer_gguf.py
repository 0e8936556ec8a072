"""A GGUF model file's vocabulary rebuilt as the Hugging Face tokenizer llama.cpp runs on it.

Two kinds of vocabulary (``tokenizer.ggml.model``) are read, the two most GGUF files carry:

- ``gpt2``, byte-level BPE (Llama 3, Qwen 2 and 3, GPT-2, ...): ``tokens``, ``merges`` and
  ``token_type``, under the pre-tokenizer regexes llama.cpp selects by ``tokenizer.ggml.pre``
  (``src/llama-vocab.cpp``; where llama.cpp adapted a tokenizer.json's regex to its own engine, the
  original, which the Hugging Face library runs, is used).
- ``llama``, SentencePiece (Llama 2, Mistral 7B): ``tokens``, ``scores`` and
  ``token_type``. llama.cpp merges the adjacent pair whose joined text is the best-scored token,
  falls back to ``<0xNN>`` byte tokens, and writes a space as ``▁`` with one in front of the text
  (``tokenizer.ggml.add_space_prefix``); the same is a BPE whose merges are ranked by the score of
  the token they make, with byte fallback and that normalizer.

Control tokens are special and user-defined ones added, as llama.cpp matches both in a text
before tokenizing it. Any other kind, or a pre-tokenizer not in the table, is refused with the key
that says so: give the model's tokenizer.json instead.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import CouldNotRun, InputError, option
from .gguf_metadata import read_metadata

if TYPE_CHECKING:
    from tokenizers import Tokenizer

INSTALL = "pip install 'evidencepack[tokenizer]'"
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

MAX_TOKENS = 1 << 20
"""Tokens of a vocabulary (the largest real ones hold about 260,000): beyond, the tokenizers
library's tables outgrow memory and the process aborts."""
MAX_TOKEN_CHARS = 1024
"""Characters of one token (real ones hold a few dozen): every split of a SentencePiece token is
looked up, so one token of millions of characters would take hours."""

_NORMAL, _UNKNOWN, _CONTROL, _USER_DEFINED, _BYTE = 1, 2, 3, 4, 6  # llama.cpp's token types
_SPACE = "\u2581"  # SentencePiece's "▁"


def require_library(module: str, what: str) -> None:
    """CouldNotRun with the install command when ``module`` is not installed."""
    if importlib.util.find_spec(module) is None:
        raise CouldNotRun(
            f"{option('tokenizer')} reads {what} with the {module!r} package, which is not "
            f"installed: {INSTALL}"
        )


def _field(meta: dict[str, Any], key: str, name: str, *, required: bool = True) -> Any:
    if key not in meta and required:
        raise InputError("the model file has no such key", file=name, where=key)
    return meta.get(key)


def _strings(value: Any, key: str, name: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError("expected a list of strings", file=name, where=key)
    return value


def from_gguf(path: Path, name: str) -> tuple[Tokenizer, dict[str, Any]]:
    """The tokenizer of the GGUF file ``path`` (``name`` in messages), and what was read of it
    (for ``run.json``: the kind of vocabulary, its size, the pre-tokenizer or merges)."""
    require_library("tokenizers", "a GGUF model file's vocabulary")
    meta = read_metadata(path, name)
    model = _field(meta, "tokenizer.ggml.model", name)
    tokens = _strings(_field(meta, "tokenizer.ggml.tokens", name), "tokenizer.ggml.tokens", name)
    if len(tokens) > MAX_TOKENS:
        raise InputError(
            f"{len(tokens)} tokens: a vocabulary of at most {MAX_TOKENS} is read",
            file=name,
            where="tokenizer.ggml.tokens",
        )
    longest = max(range(len(tokens)), key=lambda i: len(tokens[i]), default=None)
    if longest is not None and len(tokens[longest]) > MAX_TOKEN_CHARS:
        raise InputError(
            f"a token of {len(tokens[longest])} characters (at most {MAX_TOKEN_CHARS} are read)",
            file=name,
            where=f"tokenizer.ggml.tokens[{longest}]",
        )
    types = _numbers(meta, "tokenizer.ggml.token_type", name, len(tokens))
    kinds = [int(t) for t in types] if types is not None else [_NORMAL] * len(tokens)
    try:
        tokenizer, read = _build(meta, name, model, tokens, kinds)
        _add_special(tokenizer, tokens, kinds)
    except InputError:
        raise
    except Exception as exc:  # noqa: BLE001 - the Rust library raises plain Exception
        raise InputError(
            f"the tokenizers library cannot build its vocabulary: {exc}", file=name
        ) from None
    return tokenizer, {"model": model, "vocabulary": len(tokens), **read}


def _build(
    meta: dict[str, Any], name: str, model: Any, tokens: list[str], kinds: list[int]
) -> tuple[Tokenizer, dict[str, Any]]:
    """The tokenizer of the vocabulary kind ``model``, and what was read for it."""
    read: dict[str, Any] = {}
    if model == "gpt2":
        pre_name = _field(meta, "tokenizer.ggml.pre", name, required=False) or "default"
        pre = _PRE.get(str(pre_name))
        if pre is None:
            raise InputError(
                f"{pre_name!r}: a pre-tokenizer evidencepack does not know (it knows "
                f"{', '.join(sorted(_PRE))}); give the model's tokenizer.json instead",
                file=name,
                where="tokenizer.ggml.pre",
            )
        key = "tokenizer.ggml.merges"
        merges = _strings(_field(meta, key, name), key, name)
        tokenizer, dropped = _byte_level_bpe(tokens, merges, pre)
        read |= {"pre_tokenizer": pre_name, "merges": len(merges), "merges_unused": dropped}
    elif model == "llama":
        scores = _numbers(meta, "tokenizer.ggml.scores", name, len(tokens))
        prefix = _field(meta, "tokenizer.ggml.add_space_prefix", name, required=False)
        prefix = True if prefix is None else bool(prefix)
        tokenizer = _sentencepiece(tokens, [float(v) for v in scores or ()], kinds, prefix)
        read |= {"add_space_prefix": prefix}
    else:
        raise InputError(
            f"{model!r}: evidencepack reads a byte-level BPE ('gpt2': Llama 3, Qwen 2 and 3, "
            "GPT-2, ...) or a SentencePiece ('llama': Llama 2, Mistral 7B) vocabulary from "
            "a GGUF file; give the model's tokenizer.json instead",
            file=name,
            where="tokenizer.ggml.model",
        )
    return tokenizer, read


def _numbers(meta: dict[str, Any], key: str, name: str, count: int) -> list[Any] | None:
    values = _field(meta, key, name, required=key == "tokenizer.ggml.scores")
    if values is None:
        return None
    if not isinstance(values, list) or not all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in values
    ):
        raise InputError("expected a list of numbers, one per token", file=name, where=key)
    if len(values) != count:
        raise InputError(f"{len(values)} values for {count} tokens", file=name, where=key)
    return values


def _add_special(tokenizer: Tokenizer, tokens: list[str], kinds: list[int]) -> None:
    """Control tokens as special tokens, user-defined ones as added tokens: llama.cpp finds
    both in a text before it tokenizes the rest."""
    from tokenizers import AddedToken

    special = [t for t, k in zip(tokens, kinds, strict=True) if k == _CONTROL]
    user = [t for t, k in zip(tokens, kinds, strict=True) if k == _USER_DEFINED]
    tokenizer.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in special])
    tokenizer.add_tokens([AddedToken(t, special=False, normalized=False) for t in user])


def _sentencepiece(
    tokens: list[str], scores: list[float], kinds: list[int], add_space_prefix: bool
) -> Tokenizer:
    """llama.cpp's SentencePiece session as a BPE: a merge for every way a token splits in two
    tokens, ranked by the token's score (best first; a tie in the order llama.cpp lists them)."""
    from tokenizers import Tokenizer, models, normalizers

    vocab = {text: i for i, text in enumerate(tokens)}
    ranked: list[tuple[float, int, int, tuple[str, str]]] = []
    for text, i in vocab.items():
        if kinds[i] in (_CONTROL, _BYTE, _UNKNOWN) or len(text) < 2:
            continue
        ranked.extend(
            (-scores[i], i, cut, (text[:cut], text[cut:]))
            for cut in range(1, len(text))
            if text[:cut] in vocab and text[cut:] in vocab
        )
    ranked.sort(key=lambda item: item[:3])
    unknown = next((t for t, k in zip(tokens, kinds, strict=True) if k == _UNKNOWN), None)
    bpe = models.BPE(
        vocab, [pair for *_, pair in ranked], unk_token=unknown, fuse_unk=True, byte_fallback=True
    )
    tokenizer = Tokenizer(bpe)
    steps: list[normalizers.Normalizer] = [normalizers.Replace(" ", _SPACE)]
    if add_space_prefix:
        steps.insert(0, normalizers.Prepend(_SPACE))
    tokenizer.normalizer = normalizers.Sequence(steps)
    return tokenizer


def _byte_level_bpe(tokens: list[str], merges: list[str], pre: _Pre) -> tuple[Tokenizer, int]:
    """The Hugging Face tokenizer llama.cpp's BPE session amounts to; and how many merges it
    leaves out (those whose parts or result are no token: llama.cpp could only emit their
    bytes)."""
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers

    vocab = {text: i for i, text in enumerate(tokens)}  # a repeated text: the last id, as llama.cpp
    pairs = []
    for merge in merges:
        cut = merge.find(" ", 1)
        left, right = (merge[:cut], merge[cut + 1 :]) if cut > 0 else (merge, "")
        if left in vocab and right in vocab and left + right in vocab:
            pairs.append((left, right))
    tokenizer = Tokenizer(models.BPE(vocab, pairs, ignore_merges=pre.ignore_merges))
    splits: list[pre_tokenizers.PreTokenizer] = [
        pre_tokenizers.Split(Regex(r), behavior="isolated") for r in pre.regexes
    ]
    splits.append(pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False))
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(splits)
    tokenizer.decoder = decoders.ByteLevel()
    return tokenizer, len(merges) - len(pairs)
