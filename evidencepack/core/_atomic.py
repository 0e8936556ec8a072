"""Write files all at once or not at all: a temp file in the target folder, then a rename."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from ..errors import CouldNotRun

PUBLIC_MODE = 0o644
PRIVATE_MODE = 0o600


@contextlib.contextmanager
def atomic_output(path: Path, *, mode: int = PUBLIC_MODE) -> Iterator[BinaryIO]:
    """Yield a binary handle; on success the file appears at ``path``, on error nothing does."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # mkstemp creates the file 0600, so a private key is never readable by others, not
        # even for the moment before the chmod below.
        fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise CouldNotRun(f"cannot write {path}: {exc}") from exc
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise CouldNotRun(f"cannot write {path}: {exc}") from exc
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def atomic_write(path: Path, data: bytes, *, mode: int = PUBLIC_MODE) -> Path:
    """Write ``data`` to ``path`` atomically with the given permission bits; return ``path``."""
    with atomic_output(path, mode=mode) as handle:
        handle.write(data)
    return path
