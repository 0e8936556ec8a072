"""DDL of the files table: every file any stage read, with its digest."""

from __future__ import annotations

DDL: tuple[str, ...] = (
    """
    CREATE TABLE IF NOT EXISTS files (
        sha256 VARCHAR NOT NULL,
        path VARCHAR NOT NULL,
        size_bytes BIGINT NOT NULL,
        role VARCHAR NOT NULL,
        tool VARCHAR,
        tool_version VARCHAR,
        warnings VARCHAR[],
        PRIMARY KEY (sha256, path)
    )
    """,
)
