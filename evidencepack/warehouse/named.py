"""The named questions of ``warehouse query --named``: fixed SQL, parameters bound by name.

Each query declares its parameters (name, type, default, help); a value the user gives is parsed
to that type and bound as ``$name``, never spliced into the SQL.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from ..errors import InvalidRequest, option

ParamKind = Literal["text", "int", "date", "bool"]


@dataclass(frozen=True)
class Param:
    """One parameter of a named query."""

    name: str
    kind: ParamKind
    help: str
    default: str | None = None
    """The default as the user would type it; None: the parameter is required."""


@dataclass(frozen=True)
class NamedQuery:
    """A question the warehouse answers by name."""

    name: str
    help: str
    sql: str
    params: tuple[Param, ...] = ()


_AS_OF = Param("as_of", "date", "the date to count from (YYYY-MM-DD)", "today")
_DAYS = Param("days", "int", "how many days")

QUERIES: tuple[NamedQuery, ...] = (
    NamedQuery(
        "by-runtime",
        "decisions whose candidates run this runtime (and version): e.g. runtime=vllm "
        "version=0.9.2; chosen=true keeps only the chosen candidates",
        """
        SELECT p.decision_id, p.decision_date, c.candidate, c.runtime, c.runtime_version,
               c.is_chosen, c.is_recommended, p.verdict, p.pack_digest
        FROM candidates c JOIN packs p USING (pack_digest)
        WHERE lower(c.runtime) = lower($runtime)
          AND ($version IS NULL OR c.runtime_version = $version)
          AND (NOT $chosen OR c.is_chosen)
        ORDER BY p.decision_date, p.decision_id, p.pack_digest, c.candidate
        """,
        (
            Param("runtime", "text", "the runtime, e.g. vllm"),
            Param("version", "text", "the runtime's version (default: any)", ""),
            Param("chosen", "bool", "only the chosen candidates (true/false)", "false"),
        ),
    ),
    NamedQuery(
        "by-mlperf-result",
        "decisions citing an MLPerf result: key=<result key> (SQL LIKE: % matches any text)",
        """
        SELECT p.decision_id, p.decision_date, r.candidate, r.key, r.round, r.validity,
               p.verdict, p.pack_digest
        FROM cited_results r JOIN packs p USING (pack_digest)
        WHERE r.kind = 'mlperf' AND r.key LIKE $key
        ORDER BY p.decision_date, p.decision_id, p.pack_digest, r.candidate, r.key
        """,
        (Param("key", "text", "the MLPerf result key, or a LIKE pattern"),),
    ),
    NamedQuery(
        "by-accelerator",
        "decisions with a candidate on this accelerator (case-insensitive substring)",
        """
        SELECT p.decision_id, p.decision_date, c.candidate, c.accelerator, c.eligible,
               c.is_chosen, c.cost_per_million_output_tokens, c.currency, p.pack_digest
        FROM candidates c JOIN packs p USING (pack_digest)
        WHERE contains(lower(c.accelerator), lower($accelerator))
        ORDER BY p.decision_date, p.decision_id, p.pack_digest, c.candidate
        """,
        (Param("accelerator", "text", "part of the accelerator's name, e.g. MI325X"),),
    ),
    NamedQuery(
        "cost-by-quarter",
        "cost per 1M output tokens of the chosen candidates, by quarter of the decision date "
        "and currency",
        """
        SELECT printf('%d-Q%d', year(decision_date), quarter(decision_date)) AS quarter,
               currency, count(*) AS decisions,
               round(avg(cost_per_million_output_tokens), 4) AS mean_per_1m,
               round(min(cost_per_million_output_tokens), 4) AS min_per_1m,
               round(max(cost_per_million_output_tokens), 4) AS max_per_1m
        FROM candidates
        WHERE is_chosen AND cost_per_million_output_tokens IS NOT NULL
        GROUP BY ALL
        ORDER BY quarter, currency
        """,
    ),
    NamedQuery(
        "waivers-expiring",
        "waivers that expire within days=N of as_of (already expired ones are not listed)",
        """
        SELECT w.expires, w.check_id, w.candidate, w.approver, w.applied,
               w.decision_id, w.decision_date, w.pack_digest
        FROM waivers w
        WHERE w.expires BETWEEN $as_of AND $as_of + CAST($days AS INTEGER)
        ORDER BY w.expires, w.decision_id, w.pack_digest, w.check_id, w.candidate
        """,
        (_DAYS, _AS_OF),
    ),
    NamedQuery(
        "stale-evidence",
        "packs whose approvals or price quotes are more than days=N old on as_of",
        """
        SELECT decision_id, decision_date, what, subject, dated,
               date_diff('day', dated, $as_of) AS age_days, pack_digest
        FROM (
            SELECT decision_id, decision_date, 'approval' AS what,
                   name || ' (' || role || ')' AS subject, approved_on AS dated, pack_digest
            FROM approvals
            UNION ALL
            SELECT decision_id, decision_date, 'price quote', candidate, price_as_of, pack_digest
            FROM candidates WHERE price_as_of IS NOT NULL
        )
        WHERE date_diff('day', dated, $as_of) > $days
        ORDER BY decision_date, decision_id, pack_digest, what, subject
        """,
        (_DAYS, _AS_OF),
    ),
)


_WATCHED_ON = "coalesce(try_cast(left(w.watched_at, 10) AS DATE), w.as_of)"
"""The day a watch was made: its run's start date (the as-of date where the run does not say)."""

WATCH_QUERIES: tuple[NamedQuery, ...] = (
    NamedQuery(
        "no-longer-holds",
        "decisions whose newest watch says broken or degraded: which, as of when, and why",
        """
        SELECT decision_id, decision_date, status, as_of, watched_at, candidate,
               coalesce(nullif(array_to_string(reasons, '; '), ''), summary) AS why,
               summary, endpoint, pack_digest, watch_digest
        FROM (
            SELECT w.*, row_number() OVER (
                PARTITION BY w.pack_digest
                ORDER BY w.as_of DESC, w.watched_at DESC NULLS LAST, w.watch_digest
            ) AS newest
            FROM watches w JOIN packs p USING (pack_digest)
        )
        WHERE newest = 1 AND status IN ('broken', 'degraded')
        ORDER BY CASE status WHEN 'broken' THEN 0 ELSE 1 END, decision_date, decision_id,
                 pack_digest
        """,
    ),
    NamedQuery(
        "not-watched",
        "decisions with no watch made in the days=N before as_of (never watched ones too); a "
        "watch counts on the day its run started",
        f"""
        SELECT p.decision_id, p.decision_date, p.chosen, max({_WATCHED_ON}) AS last_watched,
               date_diff('day', max({_WATCHED_ON}), $as_of) AS days_since,
               CASE WHEN max({_WATCHED_ON}) IS NULL THEN 'never watched'
                    ELSE 'not watched for ' || date_diff('day', max({_WATCHED_ON}), $as_of)
                         || ' days' END AS why,
               p.pack_digest
        FROM packs p LEFT JOIN watches w
          ON w.pack_digest = p.pack_digest AND {_WATCHED_ON} <= $as_of
        GROUP BY p.decision_id, p.decision_date, p.chosen, p.pack_digest
        HAVING max({_WATCHED_ON}) IS NULL
            OR date_diff('day', max({_WATCHED_ON}), $as_of) > $days
        ORDER BY p.decision_date, p.decision_id, p.pack_digest
        """,
        (_DAYS, _AS_OF),
    ),
)

QUERIES += WATCH_QUERIES


def named_query(name: str) -> NamedQuery:
    """The named query ``name``; an unknown name lists the known ones."""
    for query in QUERIES:
        if query.name == name:
            return query
    known = ", ".join(q.name for q in QUERIES)
    raise InvalidRequest(f"no named query {name!r}: the named queries are {known}")


def _parse(param: Param, text: str, query: str) -> object:
    where = f"{option('named')} {query}: {option('param')} {param.name}={text!r}"
    if param.kind == "text":
        return text or None
    if param.kind == "int":
        try:
            return int(text)
        except ValueError as exc:
            raise InvalidRequest(f"{where}: give a whole number") from exc
    if param.kind == "bool":
        if text.lower() not in ("true", "false"):
            raise InvalidRequest(f"{where}: give true or false")
        return text.lower() == "true"
    if text == "today":
        return dt.datetime.now(dt.UTC).date()
    try:
        return dt.date.fromisoformat(text)
    except ValueError as exc:
        raise InvalidRequest(f"{where}: give a date as YYYY-MM-DD") from exc


def bind(query: NamedQuery, given: Mapping[str, str]) -> dict[str, object]:
    """The query's parameters parsed from ``given`` (name -> text), defaults filled in."""
    names = {p.name for p in query.params}
    unknown = sorted(set(given) - names)
    if unknown:
        expected = ", ".join(sorted(names)) or "none"
        raise InvalidRequest(
            f"{option('named')} {query.name}: unknown parameter(s) {', '.join(unknown)} "
            f"(it takes: {expected})"
        )
    bound = {}
    for param in query.params:
        text = given.get(param.name, param.default)
        if text is None:
            raise InvalidRequest(
                f"{option('named')} {query.name}: give {option('param')} {param.name}=... "
                f"({param.help})"
            )
        bound[param.name] = _parse(param, text, query.name)
    return bound
