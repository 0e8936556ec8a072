"""``python -m tests.pdf_cache_cli ARGS``: ``python -m evidencepack ARGS`` with the test
session's PDF cache in place of ``render_pdf`` (``tests/pdf_cache.py``; the folder and mode come
from ``pdf_cache.child_env()``). Everything else is the real command line, run as
``python -m evidencepack`` runs it."""

from __future__ import annotations

import runpy

from tests.pdf_cache import install_in_child

if __name__ == "__main__":
    install_in_child()
    runpy.run_module("evidencepack", run_name="__main__", alter_sys=True)
