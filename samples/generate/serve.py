"""Serve one sample candidate's simulated system on 127.0.0.1, to try ``evidencepack measure``.

The server is the one the sample's measured runs were made against (``simserver.py``, SAMPLE
DATA): an OpenAI-compatible streaming endpoint (``/version``, ``/v1/models``,
``/v1/completions``) timed by the candidate's capacity model. It also writes the prompts file
``measure`` sends (the sample dataset's 400 items, each named for the server)::

    python samples/generate/serve.py --candidate mi325x-vllm --port 8000 --prompts prompts.jsonl

serves until Ctrl-C (or ``--seconds``). It listens on 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

import make_evidence  # noqa: E402
from simserver import SimServer  # noqa: E402
from simsut import Capacity  # noqa: E402


def main(argv: Sequence[str] | None = None) -> int:
    """Start the server, print its URL, serve until interrupted or ``--seconds`` pass."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--candidate", choices=sorted(make_evidence.SWEEPS), default="mi325x-vllm")
    parser.add_argument("--port", type=int, default=8000, help="0 picks a free port")
    parser.add_argument("--prompts", type=Path, help="write the prompts file for measure here")
    parser.add_argument("--seconds", type=float, help="stop after this many seconds")
    args = parser.parse_args(argv)
    spec = yaml.safe_load(make_evidence.SPEC.read_text(encoding="utf-8"))
    candidate = next(c for c in spec["candidates"] if c["id"] == args.candidate)
    rows = make_evidence.read_dataset()
    if args.prompts:
        make_evidence.write_prompts(args.prompts, rows)
        print(f"wrote {args.prompts}: {len(rows)} prompts", flush=True)
    inputs = {str(row["id"]): int(str(row["input_tokens"])) for row in rows}
    server = SimServer(
        Capacity(**vars(make_evidence.SWEEPS[args.candidate].capacity)),
        inputs,
        model=spec["envelope"]["model"]["name"],
        runtime=candidate["stack"]["runtime"],
        version=candidate["stack"]["version"],
        seed=make_evidence.derived_seed("serve", args.candidate),
        port=args.port,
    )
    try:
        server.__enter__()
    except OSError as exc:
        print(f"serve: error: 127.0.0.1:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return 3
    print(f"serving {args.candidate} (SAMPLE DATA) at {server.url}; Ctrl-C stops", flush=True)
    deadline = time.monotonic() + args.seconds if args.seconds is not None else None
    try:
        while deadline is None or time.monotonic() < deadline:
            time.sleep(0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server.__exit__(None, None, None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
