"""Watches in the warehouse (issue 41): a signed watch folder added beside its pack, verified like
a pack and bound to it, held once, queried (``no-longer-holds``, ``not-watched``), re-verified and
compacted. The watch is tests/watches.py's: the sample watched against a loopback endpoint 30%
too slow at its operating point, so its decision is broken."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path

import pytest

from evidencepack._cli import main
from evidencepack.errors import EXIT_FAILED, EXIT_OK, StoreError
from evidencepack.signing.keys import generate_keypair
from evidencepack.signing.sign import sign_pack_detailed
from evidencepack.warehouse import storage
from evidencepack.warehouse.add import add_packs
from evidencepack.warehouse.audit import audit
from evidencepack.warehouse.catalog import open_catalog
from evidencepack.warehouse.compact import compact
from evidencepack.warehouse.named import bind, named_query
from evidencepack.warehouse.query import run_query

from ..watches import BROKEN_AS_OF
from .conftest import Built
from .test_postgres import postgres

__all__ = ["postgres"]  # the fixture: a private PostgreSQL server (skipped without one)

pytestmark = pytest.mark.slow

DECISION = "contract-summariser-2026q4"


def _named(root: Path, name: str, **params: str) -> list[dict[str, object]]:
    query = named_query(name)
    return run_query(root, query.sql, bind(query, params)).records()


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted((root / storage.TABLES_DIR).rglob("*"))
        if p.is_file()
    }


def test_no_longer_holds_lists_the_broken_decision(
    built: Built, broken_watch: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "wh"
    key = ["--key", str(built.public_key)]
    # The watch given before its pack: watches are added after the packs of the same call.
    add = ["warehouse", "add", str(broken_watch), str(built.sample_archive), str(built.variants[0])]
    assert main([*add, "--warehouse", str(root), *key]) == EXIT_OK
    said = capsys.readouterr().out
    assert f"watch of {DECISION}: broken as of {BROKEN_AS_OF}" in said, said
    report = json.loads((broken_watch / "watch.json").read_text(encoding="utf-8"))

    query = ["warehouse", "query", "--named", "no-longer-holds", "--warehouse", str(root)]
    assert main([*query, "--json"]) == EXIT_OK
    (row,) = json.loads(capsys.readouterr().out)
    assert row["decision_id"] == DECISION
    assert row["status"] == "broken"
    assert row["as_of"] == BROKEN_AS_OF
    assert row["pack_digest"] == report["pack"]["evidence_digest"]
    # Why: the SLO figure missed at X*, the watch's figure beside the pack's, and the quote.
    assert "ttft_p99_ms: missed: measured" in row["why"], row["why"]
    assert "valid until 2027-02-18" in row["why"], row["why"]
    assert main(query) == EXIT_OK
    assert DECISION in capsys.readouterr().out

    # The watches table holds the measured figures beside the pack's.
    (watch,) = run_query(root, "SELECT * FROM watches").records()
    ttft = next(f for f in report["figures"] if f["metric"] == "ttft_p99_ms")
    assert (watch["ttft_p99_ms_pack"], watch["ttft_p99_ms_measured"]) == (
        ttft["pack"],
        ttft["measured"],
    )
    assert watch["ttft_p99_ms_measured"] > watch["ttft_p99_ms_limit"]
    assert watch["endpoint"].startswith("http://127.0.0.1:")
    assert watch["watched_at"] is not None
    assert watch["signer_mode"] == "key"

    # Held once: a second add is a no-op that says so.
    before = _tree(root)
    assert main(["warehouse", "add", str(broken_watch), "--warehouse", str(root), *key]) == 0
    assert "already held" in capsys.readouterr().out
    assert _tree(root) == before

    # not-watched: the variant was never watched; the sample was watched on the run's day.
    watched_on = dt.date.fromisoformat(str(watch["watched_at"])[:10])
    on_the_day = _named(root, "not-watched", days="30", as_of=watched_on.isoformat())
    today = {r["decision_id"]: r["why"] for r in on_the_day}
    assert DECISION not in today
    assert list(today.values()) == ["never watched"]
    later = (watched_on + dt.timedelta(days=45)).isoformat()
    rows = {r["decision_id"]: r["why"] for r in _named(root, "not-watched", days="30", as_of=later)}
    assert rows[DECISION] == "not watched for 45 days"

    # verify re-verifies the watch from its folder, and its Parquet file against its digest.
    assert main(["warehouse", "verify", "--warehouse", str(root), *key]) == EXIT_OK
    assert "1 of 1 held watch(es) verify" in capsys.readouterr().out


def test_a_watch_of_a_pack_not_held_is_refused(
    built: Built, broken_watch: Path, tmp_path: Path
) -> None:
    root = tmp_path / "wh"
    (outcome,) = add_packs(root, [broken_watch], built.policy)
    assert outcome.status == "refused"
    assert outcome.kind == "watch"
    assert "does not hold: add the pack first" in outcome.problems[0]
    assert _tree(root) == {}
    assert open_catalog(root).held_watches() == []


def test_a_tampered_or_foreign_watch_is_refused(
    built: Built, broken_watch: Path, tmp_path: Path
) -> None:
    root = tmp_path / "wh"
    add_packs(root, [built.sample], built.policy)
    before = _tree(root)
    # watch.json edited after signing: "broken" turned into "holds".
    forged = Path(shutil.copytree(broken_watch, tmp_path / "forged"))
    text = (forged / "watch.json").read_text(encoding="utf-8")
    (forged / "watch.json").write_text(text.replace('"broken"', '"holds"'), encoding="utf-8")
    # The same watch signed again with a key the policy does not trust.
    other = Path(shutil.copytree(broken_watch, tmp_path / "other"))
    keys = generate_keypair(tmp_path / "o.pem", tmp_path / "o.pub", None)
    from evidencepack.signing.keyed import KeySigner

    sign_pack_detailed(other, None, KeySigner.from_file(keys.private_key), force=True)
    outcomes = add_packs(root, [forged, other], built.policy)
    assert [o.status for o in outcomes] == ["refused", "refused"]
    assert any("watch.json" in p for p in outcomes[0].problems), outcomes[0].problems
    assert _tree(root) == before
    assert open_catalog(root).held_watches() == []


def test_a_rewritten_watch_file_is_found_and_compaction_keeps_watches(
    built: Built, broken_watch: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "wh"
    copy = Path(shutil.copytree(broken_watch, tmp_path / "watch"))
    outcomes = add_packs(root, [built.sample, copy], built.policy)
    assert [o.status for o in outcomes] == ["added", "added"]
    (written,) = (root / storage.TABLES_DIR / "watches").rglob("*.parquet")
    assert written.name == f"{outcomes[1].digest}.parquet"
    assert written.relative_to(root).as_posix() in open_catalog(root).held_files()

    # A compaction of the watches table keeps the one file as it is, still recorded and owned.
    compact(root, tables=("watches",))
    results, problems = audit(root, built.policy)
    assert problems == []
    assert [(r.kind, r.status) for r in results] == [("pack", "ok"), ("watch", "ok")]

    # A rewritten Parquet file of the watches table is never answered as held.
    saved = written.read_bytes()
    written.write_bytes(saved[:-8] + b"\0" * 8)
    _, problems = audit(root, built.policy)
    assert any("changed since it was written" in p for p in problems), problems
    with pytest.raises(StoreError, match="changed since it was added"):
        run_query(root, "SELECT status FROM watches")
    written.write_bytes(saved)

    # The watch folder it was added from, changed afterwards: verify names it (exit 1).
    (copy / "watch.md").write_text("all is well\n", encoding="utf-8")
    key = ["--key", str(built.public_key)]
    assert main(["warehouse", "verify", "--warehouse", str(root), *key]) == EXIT_FAILED
    said = capsys.readouterr().out
    assert "0 of 1 held watch(es) verify" in said, said
    assert "watch.md" in said


def test_a_postgresql_catalog_holds_watches_once(
    built: Built, broken_watch: Path, postgres: str, tmp_path: Path
) -> None:
    root = tmp_path / "pg"
    catalog = open_catalog(root, postgres)
    outcomes = add_packs(root, [built.sample, broken_watch], built.policy, catalog)
    assert [o.status for o in outcomes][1] == "added"
    (held,) = [w for w in catalog.held_watches() if w.watch_digest == outcomes[1].digest]
    assert held.status == "broken"
    assert held.reasons
    assert catalog.record_watch(held) is False  # the database refuses a second record
    (again,) = add_packs(root, [broken_watch], built.policy, catalog)
    assert again.status == "skipped"
    query = named_query("no-longer-holds")
    rows = run_query(root, query.sql, bind(query, {}), catalog).records()
    assert [r["watch_digest"] for r in rows] == [held.watch_digest]
    results, problems = audit(root, built.policy, catalog)
    assert problems == []
    assert {(r.kind, r.status) for r in results if r.digest == held.watch_digest} == {
        ("watch", "ok")
    }
