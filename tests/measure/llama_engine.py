"""A real inference engine for the measure tests: llama.cpp's own HTTP server on a tiny model.

The server is llama.cpp's ``llama-server`` code (``tools/server``: continuous batching,
``/v1/completions`` streaming with ``usage``, ``/tokenize``, ``/metrics`` in Prometheus text with
``llamacpp:`` names) as the ``xllamacpp`` package ships it prebuilt for manylinux, so no
compiler runs. The model is written here, with the ``gguf`` package: a 2-layer Llama with random
weights and a byte-level BPE vocabulary of the 95 printable ASCII characters and newline (no
merges that produce a token), so any text the model generates tokenizes back to exactly the
tokens it was generated as. Nothing is downloaded.

    python -m tests.measure.llama_engine model tiny.gguf
    python -m tests.measure.llama_engine serve tiny.gguf --port 8080 [--parallel 4] [--seconds N]

``serve`` prints ``listening http://127.0.0.1:PORT`` once the model is loaded (``--port 0``: a
free port) and stops when its standard input, a pipe, closes, after ``--seconds`` or on Ctrl-C.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import select
import signal
import stat
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

REPO = Path(__file__).resolve().parents[2]
_LISTENING = re.compile(r"(?:^|\s)listening (http://127\.0\.0\.1:\d+)\r?\n", re.M)
MODEL_NAME = "tiny-random-llama"
ASCII = [*range(0x20, 0x7F), 0x0A]
"""The bytes the vocabulary holds, one token each: printable ASCII and newline."""


def _byte_chars() -> dict[int, str]:
    """GPT-2's byte-to-character table, which llama.cpp's byte-level BPE decodes with."""
    printable = [*range(ord("!"), ord("~") + 1), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    table = {b: chr(b) for b in printable}
    shift = 0
    for b in range(256):
        if b not in table:
            table[b] = chr(256 + shift)
            shift += 1
    return table


def write_model(
    path: Path,
    *,
    seed: int = 0,
    merges: Sequence[tuple[str, str]] = (),
    pre: str = "default",
    pieces: Sequence[str] = (),
) -> Path:
    """Write the tiny Llama GGUF to ``path`` (about 380 KB); deterministic for a ``seed``.

    ``merges`` (pairs of texts, ``" the"`` as ``("Ġt", "he")`` in GPT-2's byte characters) add
    one token each, their two parts joined, and BPE merges that make them, under the
    pre-tokenizer ``pre`` (``tokenizer.ggml.pre``): a vocabulary whose tokenization is not byte
    by byte. Without them no merge makes a token and any text tokenizes byte by byte.
    ``pieces`` instead make a SentencePiece vocabulary (``tokenizer.ggml.model`` ``llama``, as
    Llama 2 and Mistral's GGUF files have): ``<unk>``, ``<s>``, ``</s>``, the 256 byte tokens
    ``<0xNN>``, then the pieces (``▁`` for a space), each scored below the one before."""
    import gguf
    import numpy as np

    rng = np.random.default_rng(seed)
    chars = _byte_chars()
    kind = gguf.TokenType
    if pieces:
        tokens = ["<unk>", "<s>", "</s>", *(f"<0x{b:02X}>" for b in range(256)), *pieces]
        types = [kind.UNKNOWN, kind.CONTROL, kind.CONTROL, *[kind.BYTE] * 256]
        types += [kind.NORMAL] * len(pieces)
    else:
        tokens = ["<s>", "</s>", *(chars[b] for b in ASCII), *(a + b for a, b in merges)]
        types = [kind.CONTROL] * 2 + [kind.NORMAL] * (len(tokens) - 2)
    n_vocab, n_embd, n_ff, n_head, n_layer = len(tokens), 64, 128, 4, 2
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_name(MODEL_NAME)
    writer.add_context_length(4096)
    writer.add_embedding_length(n_embd)
    writer.add_block_count(n_layer)
    writer.add_feed_forward_length(n_ff)
    writer.add_head_count(n_head)
    writer.add_head_count_kv(n_head)
    writer.add_rope_dimension_count(n_embd // n_head)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_file_type(0)  # all F32
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    if pieces:
        writer.add_tokenizer_model("llama")
        writer.add_token_scores(
            [0.0] * (len(tokens) - len(pieces)) + [-float(i) for i in range(len(pieces))]
        )
        writer.add_bos_token_id(1)
        writer.add_eos_token_id(2)
    else:
        writer.add_tokenizer_model("gpt2")
        writer.add_tokenizer_pre(pre)
        # llama.cpp requires a merges list; this one merges two newlines into a string that is no
        # token, so it falls back to the two byte tokens: tokenizing never merges.
        pairs = [f"{left} {right}" for left, right in merges]
        writer.add_token_merges(pairs or [f"{chars[0x0A]} {chars[0x0A]}"])
        writer.add_bos_token_id(0)
        writer.add_eos_token_id(1)
    writer.add_add_bos_token(True)

    def weights(name: str, *shape: int, scale: float) -> None:
        writer.add_tensor(name, (rng.standard_normal(shape) * scale).astype(np.float32))

    weights("token_embd.weight", n_vocab, n_embd, scale=1.0)
    writer.add_tensor("output_norm.weight", np.ones(n_embd, np.float32))
    weights("output.weight", n_vocab, n_embd, scale=1.0)
    for i in range(n_layer):
        writer.add_tensor(f"blk.{i}.attn_norm.weight", np.ones(n_embd, np.float32))
        writer.add_tensor(f"blk.{i}.ffn_norm.weight", np.ones(n_embd, np.float32))
        for part in ("q", "k", "v", "output"):
            weights(f"blk.{i}.attn_{part}.weight", n_embd, n_embd, scale=0.1)
        weights(f"blk.{i}.ffn_gate.weight", n_ff, n_embd, scale=0.1)
        weights(f"blk.{i}.ffn_up.weight", n_ff, n_embd, scale=0.1)
        weights(f"blk.{i}.ffn_down.weight", n_embd, n_ff, scale=0.1)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def serve(model: Path, port: int, parallel: int, seconds: float | None) -> None:
    """Run llama.cpp's server on 127.0.0.1 until stdin closes, ``seconds`` pass or a signal."""
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(model)
    params.model_alias = {MODEL_NAME}
    params.hostnames = ["127.0.0.1"]
    params.port = port
    params.endpoint_metrics = True
    params.n_parallel = parallel
    params.n_ctx = 1024 * parallel
    params.cpuparams.n_threads = 1
    params.cpuparams_batch.n_threads = 1
    params.warmup = False
    server = xllamacpp.Server(params)
    # One write, newline included: llama.cpp's own log, which a test may read from the same pipe,
    # cannot come between its parts (it may still have begun the line).
    os.write(1, f"listening {server.listening_address}\n".encode())
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())

    def watch_stdin() -> None:
        with contextlib.suppress(OSError, ValueError):
            while sys.stdin.buffer.read(1 << 16):
                pass
        stop.set()

    if stat.S_ISFIFO(os.fstat(0).st_mode):  # started by a test: stop when it lets go
        threading.Thread(target=watch_stdin, daemon=True).start()
    stop.wait(seconds)
    os._exit(0)  # the server's threads are native: leave without waiting for them


class LlamaServer:
    """``with LlamaServer(model) as engine: engine.url``: the server in a child process."""

    def __init__(self, model: Path, *, parallel: int = 4, start_timeout_s: float = 60.0) -> None:
        self.model = model
        self.parallel = parallel
        self.start_timeout_s = start_timeout_s
        self.url = ""
        self.log = ""
        self._proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> LlamaServer:
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        command = [sys.executable, "-m", "tests.measure.llama_engine", "serve", str(self.model)]
        command += ["--port", "0", "--parallel", str(self.parallel)]
        self._proc = subprocess.Popen(  # noqa: S603
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=env,
        )
        try:
            self.url = self._wait_listening()
            self._wait_healthy()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def _wait_listening(self) -> str:
        assert self._proc is not None
        assert self._proc.stdout is not None
        deadline = time.monotonic() + self.start_timeout_s
        out = self._proc.stdout
        buffer = b""
        while time.monotonic() < deadline:
            ready, _, _ = select.select([out], [], [], 0.2)
            if not ready:
                if self._proc.poll() is not None:
                    break
                continue
            data = os.read(out.fileno(), 65536)
            if not data:
                break
            buffer += data
            # The server's own log shares this pipe and may have begun a line ("0.00.119.437 ")
            # just before ours: the line is found wherever it starts.
            found = _LISTENING.search(buffer.decode("utf-8", "replace"))
            if found:
                self.log = buffer.decode("utf-8", "replace")
                threading.Thread(target=self._drain, daemon=True).start()
                return found[1]
        self.log = buffer.decode("utf-8", "replace")
        raise RuntimeError(f"llama.cpp's server did not start:\n{self.log[-3000:]}")

    def _drain(self) -> None:
        assert self._proc is not None
        assert self._proc.stdout is not None
        with contextlib.suppress(OSError, ValueError):
            while data := self._proc.stdout.read1(65536):
                self.log = (self.log + data.decode("utf-8", "replace"))[-200_000:]

    def _wait_healthy(self) -> None:
        deadline = time.monotonic() + self.start_timeout_s
        while time.monotonic() < deadline:
            with (
                contextlib.suppress(OSError),
                urllib.request.urlopen(self.url + "/health", timeout=2) as answer,  # noqa: S310
            ):
                if answer.status == 200:
                    return
            time.sleep(0.1)
        raise RuntimeError(f"llama.cpp's server at {self.url} never answered /health with 200")

    def get(self, path: str) -> bytes:
        """GET ``path`` from the server (for ``/metrics``)."""
        with urllib.request.urlopen(self.url + path, timeout=10) as answer:  # noqa: S310
            body: bytes = answer.read()
            return body

    def tokenize(self, text: str) -> list[int]:
        """The server's own tokenization of ``text`` (no special tokens)."""
        data = json.dumps({"content": text, "add_special": False}).encode()
        request = urllib.request.Request(self.url + "/tokenize", data=data, method="POST")
        with urllib.request.urlopen(request, timeout=10) as answer:  # noqa: S310
            tokens: list[int] = json.loads(answer.read())["tokens"]
            return tokens

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        proc = self._proc
        if proc is None:
            return
        if proc.stdin is not None:
            with contextlib.suppress(OSError):
                proc.stdin.close()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def main(argv: list[str] | None = None) -> int:
    """``model PATH`` writes the tiny GGUF; ``serve PATH`` runs llama.cpp's server on it."""
    parser = argparse.ArgumentParser(prog="python -m tests.measure.llama_engine")
    sub = parser.add_subparsers(dest="command", required=True)
    write = sub.add_parser("model", help="write the tiny random Llama GGUF")
    write.add_argument("path", type=Path)
    write.add_argument("--seed", type=int, default=0)
    run = sub.add_parser("serve", help="run llama.cpp's OpenAI-compatible server on 127.0.0.1")
    run.add_argument("path", type=Path)
    run.add_argument("--port", type=int, default=8080)
    run.add_argument("--parallel", type=int, default=4)
    run.add_argument("--seconds", type=float, default=None)
    args = parser.parse_args(argv)
    if args.command == "model":
        write_model(args.path, seed=args.seed)
        print(f"wrote {args.path} ({args.path.stat().st_size} bytes)")
        return 0
    serve(args.path, args.port, args.parallel, args.seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
