"""Output tokens counted by a tokenizer the user brings, against llama.cpp's real server.

Behind a proxy that hides the server's ``/tokenize`` and drops ``usage`` (two tokens' text per
event, so chunks are not tokens), ``measure --tokenizer FILE`` counts every output with the
model's own tokenizer: read from the GGUF model file the server runs, or from a tokenizer.json
made for the same vocabulary. Every count equals the engine's own (its usage, and its counter
of generated tokens). A GGUF vocabulary with real merges (byte-level BPE under four of the
pre-tokenizers evidencepack knows, and SentencePiece) tokenizes as llama.cpp's ``/tokenize``
does on the same file, id for id.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import shutil
import string
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evidencepack._cli import main
from evidencepack.measure import tokenizer_gguf
from evidencepack.measure.client import Client, RequestSettings, parse_endpoint
from evidencepack.measure.tokenizer import ServerTokenizer, TokenCount
from evidencepack.measure.tokenizer_file import FileTokenizer, load_tokenizer_file

from .conftest import require_engine
from .llama_engine import ASCII, MODEL_NAME, LlamaServer, _byte_chars, write_model
from .no_usage_proxy import no_usage_proxy
from .test_engine import MAX_TOKENS, _args, _assert_every_request_exact, _metric, _record

G, N = "\u0120", "\u010a"  # GPT-2's byte characters for a space and a newline
MERGES = [
    ("t", "h"),
    ("th", "e"),
    (G, "the"),
    ("i", "n"),
    ("in", "g"),
    (G, "a"),
    ("e", "r"),
    ("o", "n"),
    (G, "t"),
    (G, "s"),
    ("s", "t"),
    (N, N),
    ("1", "2"),
    ("12", "3"),
    ("'", "s"),
    (G, G),
    (G + G, G + G),
    ("a", "n"),
    ("an", "d"),
    (G, "and"),
]
TEXTS = [
    "the cat sat on the mat",
    "Summarise contract 12: the supplier delivers by day 123456.",
    "It's the king's ring, isn't it?\n\n\nYes",
    "   spaces    and\ttabs\r\n",
    "x+y=z <= 3 ^ ~ | $5 (a) [b] {c}",
    "1234567 12 123 and 4567",
    "The THE tHe theme thing",
    "hello <s> world </s>",
    "caf\u00e9 na\u00efve \u6771\u4eac",
    " leading",
    "",
]
S = "\u2581"  # SentencePiece's space
PIECES = [S + "the", "the", "th", S + "t", "he", S, "in", "ing", S + "c", "at", S + "cat"]
PIECES += [S + "s", "er", "on", S + "a", "an", "and", S + "and", S + S, S * 4, "12", "123", "'s"]


@pytest.fixture
def hidden(engine: LlamaServer) -> Iterator[str]:
    with no_usage_proxy(engine.url, hide_tokenize=True) as url:
        yield url


def _tokenizer_json(path: Path) -> Path:
    """A Hugging Face tokenizer.json for the tiny model's vocabulary, made here with the
    tokenizers library (not by evidencepack): byte-level BPE, the two control tokens special."""
    from tokenizers import AddedToken, Tokenizer, models, pre_tokenizers

    chars = _byte_chars()
    tokens = ["<s>", "</s>", *(chars[b] for b in ASCII)]
    tokenizer = Tokenizer(models.BPE({t: i for i, t in enumerate(tokens)}, []))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.add_special_tokens([AddedToken(t, special=True) for t in tokens[:2]])
    tokenizer.save(str(path))
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))  # kept byte for byte, CRs too
    return path


def _measure(url: str, prompts: Path, out: Path, *extra: str) -> list[dict]:  # type: ignore[type-arg]
    args = _args(url, prompts, out, "--scenario", "offline", "--no-usage", *extra)
    # 16 requests, 8 at a time on the engine's 4 slots: a loaded machine times none out.
    args += ["--min-query-count", "16", "--expected-qps", "10", "--max-in-flight", "8"]
    assert main([*args, "--timeout-s", "30"]) == 0
    return [json.loads(line) for line in (out / "requests.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("kind", ["gguf", "tokenizer.json"])
def test_the_users_tokenizer_counts_every_output_when_the_server_has_no_endpoint(
    kind: str,
    engine: LlamaServer,
    hidden: str,
    prompts: Path,
    tmp_path: Path,
    samples: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    given = engine.model if kind == "gguf" else _tokenizer_json(tmp_path / "tokenizer.json")
    before = _metric(engine, "llamacpp:tokens_predicted_total")
    out = tmp_path / "run"
    rows = _measure(hidden, prompts, out, "--tokenizer", str(given))
    _assert_every_request_exact(out, 16)  # 16 tokens each, where the chunks were 8
    assert {r["tokens_source"] for r in rows} == {"tokenizer"}
    assert all(len(r["itl_gaps_ms"]) == MAX_TOKENS // 2 - 1 for r in rows)
    generated = _metric(engine, "llamacpp:tokens_predicted_total") - before
    assert generated == sum(r["output_tokens"] for r in rows)
    # run.json says what counted: the file, kept in the run folder, and where it came from.
    tokenizer = _record(out)["tokenizer"]
    assert tokenizer["path"] is None
    assert "HTTP 404" in tokenizer["problem"]
    assert tokenizer["counted_by"] == "file"
    kept = (out / "tokenizer.json").read_bytes()
    assert tokenizer["file"]["kept"] == "tokenizer.json"
    assert tokenizer["file"]["sha256"] == hashlib.sha256(kept).hexdigest()
    source = tokenizer["file"]["source"]
    assert source["file"] == given.name
    assert source["sha256"] == hashlib.sha256(given.read_bytes()).hexdigest()
    assert source["format"] == kind
    if kind == "tokenizer.json":
        assert kept == given.read_bytes()  # the user's own file, byte for byte
    else:
        assert (source["model"], source["pre_tokenizer"]) == ("gpt2", "default")
    capsys.readouterr()
    assert main(["inspect", "--json", str(out / "requests.jsonl")]) == 0
    (run,) = json.loads(capsys.readouterr().out)[0]["runs"]
    assert not any("counted, not tokens" in w for w in run["warnings"])
    if kind == "gguf":
        _the_pack_cites_the_tokenizer(out, samples, tokenizer["file"]["sha256"], capsys)


def _the_pack_cites_the_tokenizer(
    run: Path, samples: Path, sha256: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A spec citing the run folder takes its tokenizer.json in as evidence, by its digest."""
    shutil.copytree(run, samples / "evidence" / "h200-vllm" / "measured")
    spec = samples / "pack.yaml"
    runs = "        - path: evidence/h200-vllm/runs/qps_5.5\n"
    cited = "        - path: evidence/h200-vllm/measured\n"
    spec.write_text(spec.read_text().replace(runs, runs + cited))
    main(["check", "--json", str(spec)])
    inputs = json.loads(capsys.readouterr().out)["inputs"]
    (kept,) = [i for i in inputs if i["pack_path"].endswith("/measured/tokenizer.json")]
    assert (kept["sha256"], kept["spec_path"]) == (sha256, "evidence/h200-vllm/measured")


def test_a_sweep_keeps_the_tokenizer_in_every_point(
    engine: LlamaServer, hidden: str, prompts: Path, tmp_path: Path
) -> None:
    out = tmp_path / "sweep"
    args = _args(hidden, prompts, out, "--sweep", "10,20", "--min-query-count", "10", "--no-usage")
    args += ["--ttft-ms", "2000", "--tpot-ms", "500", "--tokenizer", str(engine.model)]
    assert main(args) == 0
    digests = set()
    for point in ("qps_10", "qps_20"):
        rows = _assert_every_request_exact(out / point, 10)
        assert {r["tokens_source"] for r in rows} == {"tokenizer"}
        digests.add(hashlib.sha256((out / point / "tokenizer.json").read_bytes()).hexdigest())
        assert _record(out / point)["tokenizer"]["file"]["sha256"] in digests
    assert len(digests) == 1


def test_a_long_output_is_counted_off_the_event_loop_alike(
    engine: LlamaServer, hidden: str
) -> None:
    text = "The supplier delivers by day 12.\n" * 40  # 1,320 characters: on a worker thread
    file = load_tokenizer_file(engine.model)

    async def count() -> tuple[TokenCount | None, dict[str, Any]]:
        client = Client(parse_endpoint(hidden), RequestSettings(model=MODEL_NAME), None)
        try:
            tokenizer = ServerTokenizer(client, file)
            return await tokenizer.count(text), tokenizer.record()
        finally:
            await client.close()

    counted, record = asyncio.run(count())
    assert counted is not None
    assert counted.tokens == len(engine.tokenize(text)) == file.count(text)
    assert record["counted_by"] == "file"


def test_without_endpoint_or_tokenizer_the_chunks_are_counted_and_said(
    hidden: str, prompts: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    rows = _measure(hidden, prompts, out)
    assert {(r["tokens_source"], r["output_tokens"]) for r in rows} == {("counted", 8)}
    tokenizer = _record(out)["tokenizer"]
    assert (tokenizer["counted_by"], tokenizer["file"]) == (None, None)
    assert not (out / "tokenizer.json").exists()
    capsys.readouterr()
    assert main(["inspect", "--json", str(out / "requests.jsonl")]) == 0
    (run,) = json.loads(capsys.readouterr().out)[0]["runs"]
    assert any("counted, not tokens" in w for w in run["warnings"])


def test_with_an_endpoint_the_given_tokenizer_is_not_kept(
    engine: LlamaServer, prompts: Path, tmp_path: Path
) -> None:
    with no_usage_proxy(engine.url) as url:
        rows = _measure(url, prompts, tmp_path / "run", "--tokenizer", str(engine.model))
    assert {(r["tokens_source"], r["output_tokens"]) for r in rows} == {("tokenizer", MAX_TOKENS)}
    tokenizer = _record(tmp_path / "run")["tokenizer"]
    assert (tokenizer["path"], tokenizer["counted_by"]) == ("/tokenize", "endpoint")
    assert tokenizer["file"]["kept"] is None
    assert tokenizer["file"]["source"]["file"] == engine.model.name
    assert not (tmp_path / "run" / "tokenizer.json").exists()


@pytest.mark.parametrize("pre", ["default", "llama-bpe", "qwen2", "gpt-2"])
def test_a_gguf_vocabulary_tokenizes_as_llama_cpp_does(pre: str, tmp_path: Path) -> None:
    model = write_model(tmp_path / f"merges-{pre}.gguf", merges=MERGES, pre=pre)
    ours = _same_ids_as_the_server(model)
    assert ours.source["merges_unused"] == 0
    assert (ours.source["model"], ours.source["pre_tokenizer"]) == ("gpt2", pre)


def test_a_gguf_sentencepiece_vocabulary_tokenizes_as_llama_cpp_does(tmp_path: Path) -> None:
    # Llama 2 and Mistral's kind: pieces with scores, a space as "▁" and one put in front,
    # <0xNN> byte tokens for what no piece holds (a tab, "é", "東").
    chars = string.ascii_letters + string.digits + ".,:;!?'\"()-+=<>$"
    model = write_model(tmp_path / "sentencepiece.gguf", pieces=[*PIECES, *chars])
    ours = _same_ids_as_the_server(model)
    assert (ours.source["model"], ours.source["add_space_prefix"]) == ("llama", True)


def _same_ids_as_the_server(model: Path) -> FileTokenizer:
    """The tokenizer rebuilt from ``model`` gives, for every text, the ids llama.cpp's own
    ``/tokenize`` gives on the same file; and the vocabulary's merges are at work."""
    require_engine()
    ours = load_tokenizer_file(model)
    with LlamaServer(model, parallel=1) as server:
        for text in TEXTS:
            ids = ours.tokenizer.encode(text, add_special_tokens=False).ids
            assert ids == server.tokenize(text), text
            assert ours.count(text) == len(ids)
    assert ours.count(TEXTS[0]) < len(TEXTS[0].encode())  # fewer tokens than bytes
    return ours


def test_pre_tokenizers_differ_where_llama_cpp_says_they_do(tmp_path: Path) -> None:
    # Llama 3 groups up to three digits, Qwen 2 takes each on its own: the test above can tell.
    counts = {
        pre: load_tokenizer_file(write_model(tmp_path / f"{pre}.gguf", merges=MERGES, pre=pre))
        for pre in ("llama-bpe", "qwen2")
    }
    assert counts["llama-bpe"].count("123") == 1
    assert counts["qwen2"].count("123") == 3


def _offline(tokenizer: Path, prompts: Path, tmp_path: Path) -> list[str]:
    args = ["measure", "--endpoint", "http://127.0.0.1:9", "--model", "m", "--prompts"]
    return [*args, str(prompts), "-o", str(tmp_path / "run"), "--scenario", "offline",
            "--tokenizer", str(tokenizer)]  # fmt: skip


def test_a_file_that_is_no_tokenizer_is_refused_before_any_request(
    prompts: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "notes.txt"
    bad.write_text("not a tokenizer\n")
    assert main(_offline(bad, prompts, tmp_path)) == 1
    err = capsys.readouterr().err
    assert f"{bad}: neither a GGUF model file nor a tokenizer.json (JSON)" in err
    assert "Traceback" not in err
    other = tmp_path / "other.json"
    other.write_text('{"vocab": {}}')
    assert main(_offline(other, prompts, tmp_path)) == 1
    assert f"{other}: $.model: not a Hugging Face tokenizer.json" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_a_gguf_vocabulary_it_cannot_rebuild_is_named(
    prompts: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import gguf

    wordpiece = tmp_path / "bert.gguf"
    writer = gguf.GGUFWriter(str(wordpiece), "bert")
    writer.add_tokenizer_model("bert")
    writer.add_token_list(["[UNK]", "[CLS]", "[SEP]", "the"])
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    assert main(_offline(wordpiece, prompts, tmp_path)) == 1
    err = capsys.readouterr().err
    assert f"{wordpiece}: tokenizer.ggml.model: 'bert': evidencepack reads a byte-level BPE" in err
    model = write_model(tmp_path / "tekken.gguf", pre="tekken")
    assert main(_offline(model, prompts, tmp_path)) == 1
    err = capsys.readouterr().err
    assert f"{model}: tokenizer.ggml.pre: 'tekken': a pre-tokenizer evidencepack does not" in err


def test_a_broken_gguf_header_is_named_by_its_byte(
    engine: LlamaServer, prompts: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(engine.model.read_bytes()[:600])  # inside the vocabulary
    assert main(_offline(cut, prompts, tmp_path)) == 1
    err = capsys.readouterr().err
    assert re.search(rf"{re.escape(str(cut))}: byte \d+: not a readable GGUF file: ", err)
    # An array that claims 2**60 strings is refused at once, not looped over.
    key = b"tokenizer.ggml.tokens"
    head = b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + struct.pack("<Q", len(key)) + key
    huge = tmp_path / "huge.gguf"
    huge.write_bytes(head + struct.pack("<IIQ", 9, 8, 2**60) + b"\0" * 64)
    assert main(_offline(huge, prompts, tmp_path)) == 1
    err = capsys.readouterr().err
    assert "not a readable GGUF file: an array of 1152921504606846976 items longer than" in err
    assert "Traceback" not in err


def test_a_missing_library_is_an_install_hint_not_a_traceback(
    prompts: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = tokenizer_gguf.importlib.util.find_spec
    monkeypatch.setattr(
        tokenizer_gguf.importlib.util,
        "find_spec",
        lambda name, *a: None if name == "tokenizers" else real(name, *a),
    )
    given = _tokenizer_json(tmp_path / "tokenizer.json")
    assert main(_offline(given, prompts, tmp_path)) == 3
    err = capsys.readouterr().err
    assert "pip install 'evidencepack[tokenizer]'" in err
    assert "Traceback" not in err


def _name_tokenizer(samples: Path, tokenizer: Path, sha256: str) -> Path:
    """The sample spec with ``envelope.model.tokenizer`` naming ``tokenizer`` (in its folder)."""
    shutil.copy(tokenizer, samples / "tokenizer.json")
    spec = samples / "pack.yaml"
    text = spec.read_text(encoding="utf-8")
    anchor = "  model:\n"
    assert text.count(anchor) == 1
    named = f'  model:\n    tokenizer:\n      path: tokenizer.json\n      sha256: "{sha256}"\n'
    spec.write_text(text.replace(anchor, named), encoding="utf-8")
    return spec


@pytest.mark.no_pdf  # reads the pack's JSON, store or HTML only (tests/pdf_cache.py)
def test_the_tokenizer_the_spec_names_counts_and_is_packed(
    engine: LlamaServer, hidden: str, prompts: Path, tmp_path: Path, samples: Path
) -> None:
    """``envelope.model.tokenizer``: ``measure --spec`` counts with it when the server cannot
    say, and a build packs it (role model) by the digest the spec pins."""
    given = _tokenizer_json(tmp_path / "given.json")
    pinned = hashlib.sha256(given.read_bytes()).hexdigest()
    spec = _name_tokenizer(samples, given, pinned)
    out = tmp_path / "run"
    rows = _measure(hidden, prompts, out, "--spec", str(spec), "--candidate", "h200-vllm")
    _assert_every_request_exact(out, 16)
    assert {r["tokens_source"] for r in rows} == {"tokenizer"}
    source = _record(out)["tokenizer"]["file"]["source"]
    assert (source["file"], source["sha256"]) == ("tokenizer.json", pinned)
    built = tmp_path / "pack"
    assert main(["build", str(spec), "-o", str(built)]) == 0
    manifest = json.loads((built / "manifest.json").read_text(encoding="utf-8"))
    (packed,) = [i for i in manifest["inputs"] if i["spec_path"] == "tokenizer.json"]
    assert (packed["role"], packed["sha256"]) == ("model", pinned)


def test_a_tokenizer_that_differs_from_its_pin_is_refused(
    tmp_path: Path, samples: Path, prompts: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    given = _tokenizer_json(tmp_path / "given.json")
    spec = _name_tokenizer(samples, given, "0" * 64)
    args = ["--spec", str(spec), "--candidate", "h200-vllm", "--scenario", "offline"]
    code = main(_args("http://127.0.0.1:9", prompts, tmp_path / "r", *args))
    assert code == 2
    said = capsys.readouterr().err
    assert "envelope.model.tokenizer: tokenizer.json has sha256" in said
    assert f"not the pinned {'0' * 64}" in said
    assert not (tmp_path / "r").exists()
    main(["check", "--json", str(spec)])
    checks = json.loads(capsys.readouterr().out)["checks"]
    files = [c for c in checks if c["id"] == "PROV-FILES" and c["candidate"] == "h200-vllm"]
    assert files[0]["status"] == "FAIL"
    assert "tokenizer.json" in files[0]["reason"]
