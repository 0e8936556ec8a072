"""The evidence warehouse at scale: time and size to add 1,000 signed packs, and query latency.

Generates (once, into benchmarks/.cache/warehouse/) the sample and the stack-bump pack built and
signed with a generated key, and N signed variants of the sample (tests/warehouse/variants.py:
hard-linked copies with their own decision, re-signed). Then, in a fresh warehouse: ``add_packs``
of the sample, the stack-bump pack and the N variants (each one verified: signature and every
file re-hashed), the dataset's size on disk, and the median wall time of the named queries;
``warehouse compact`` (time, files) and the queries again. ``--spark`` asks Spark the two
questions of issue 31 before and after the compaction and compares its answers with DuckDB's.
``--replicate K`` also times the queries on a dataset K times larger, made by copying every
table's rows under new pack digests (a synthetic scale-up: the queries read the same columns;
add is not re-run), as K files per partition and then compacted.

``--requests N`` adds one pack whose b200-trtllm candidate also cites an N-request AIPerf export
(benchmarks/bench_requests.py's generator) with ``add --requests``: its time, rows and file.

    python benchmarks/bench_warehouse.py --packs 1000 --replicate 10 --spark --requests 1000000
    python benchmarks/bench_warehouse.py --packs 0 --requests 1000000   # per-request rows alone
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import statistics
import time
from pathlib import Path

from _common import CACHE, REPO, cpu_now

from evidencepack.pipeline import BuildOptions, CompileOptions, build
from evidencepack.signing.keyed import KeySigner
from evidencepack.signing.keys import generate_keypair, load_public_key
from evidencepack.signing.verify import KeyPolicy
from evidencepack.warehouse import storage
from evidencepack.warehouse.add import add_packs
from evidencepack.warehouse.compact import compact
from evidencepack.warehouse.models import TABLES
from evidencepack.warehouse.named import bind, named_query
from evidencepack.warehouse.query import run_query
from tests.warehouse.variants import make_variant, variants

HERE = CACHE / "warehouse"
QUESTIONS = (
    ("by-runtime", {"runtime": "vllm", "version": "0.9.2"}),
    ("cost-by-quarter", {}),
    ("by-mlperf-result", {"key": "%8xMI325X_vLLM%"}),
    ("waivers-expiring", {"days": "30", "as_of": "2027-01-01"}),
)


def _packs(count: int) -> tuple[list[Path], KeyPolicy]:
    """The sample, the stack-bump pack and ``count`` variants of the sample, all signed."""
    key, public = HERE / "key.pem", HERE / "key.pub.pem"
    if not key.exists():
        HERE.mkdir(parents=True, exist_ok=True)
        generate_keypair(key, public, None)
    signer = KeySigner.from_file(key)
    for name, spec in (("sample", "pack.yaml"), ("stack-bump", "pack-stack-bump.yaml")):
        if not (HERE / name / "pack.sigstore.json").exists():
            shutil.rmtree(HERE / name, ignore_errors=True)
            options = BuildOptions(compile=CompileOptions())
            build(REPO / "samples" / spec, HERE / name, options, signer)
    sample = HERE / "sample"
    made = [sample, HERE / "stack-bump"]
    started = time.perf_counter()
    for v in variants(count):
        out = HERE / "variants" / v.decision_id
        if not (out / "pack.sigstore.json").exists():
            shutil.rmtree(out, ignore_errors=True)
            make_variant(sample, out, v, signer)
        made.append(out)
    print(f"{count} signed variants ready in {time.perf_counter() - started:.1f} s")
    return made, KeyPolicy(load_public_key(public))


def _requests_pack(count: int) -> Path:
    """The sample, b200-trtllm also citing a generated ``count``-request AIPerf export, signed."""
    from bench_requests import generate

    pack = HERE / f"requests-{count}"
    if (pack / "pack.sigstore.json").exists():
        return pack
    samples = HERE / f"samples-requests-{count}"
    shutil.rmtree(samples, ignore_errors=True)
    shutil.copytree(REPO / "samples", samples, ignore=shutil.ignore_patterns("generate"))
    generate(samples / "profile_export.jsonl", count)
    spec = samples / "pack.yaml"
    anchor = "        - path: evidence/b200-trtllm/runs/qps_2.0\n"
    text = spec.read_text(encoding="utf-8")
    spec.write_text(text.replace(anchor, f"{anchor}        - path: profile_export.jsonl\n"))
    shutil.rmtree(pack, ignore_errors=True)
    started = time.perf_counter()
    signer = KeySigner.from_file(HERE / "key.pem")
    build(spec, pack, BuildOptions(compile=CompileOptions()), signer)
    print(f"a pack with {count} per-request rows built in {time.perf_counter() - started:.1f} s")
    return pack


def _add_requests(count: int, policy: KeyPolicy) -> None:
    pack = _requests_pack(count)
    root = HERE / f"wh-requests-{count}"
    shutil.rmtree(root, ignore_errors=True)
    cpu, wall = cpu_now(), time.perf_counter()
    (outcome,) = add_packs(root, [pack], policy, requests=True)
    cpu, wall = cpu_now() - cpu, time.perf_counter() - wall
    assert outcome.requests == count, outcome
    (file,) = (root / storage.TABLES_DIR / "requests").rglob("*.parquet")
    print(
        f"add --requests of a pack with {count} per-request rows: wall {wall:.1f} s, "
        f"CPU {cpu:.1f} s; requests file {file.stat().st_size / 1e6:.1f} MB"
    )
    sql = "SELECT candidate, count(*), quantile_cont(ttft_ms, 0.99) FROM requests GROUP BY ALL"
    times = []
    for _ in range(5):
        started = time.perf_counter()
        run_query(root, sql)
        times.append(time.perf_counter() - started)
    print(f"  p99 TTFT over the {count} rows: {statistics.median(times) * 1000:.1f} ms")


def _size(root: Path) -> tuple[int, int]:
    files = [p for p in root.rglob("*") if p.is_file()]
    return sum(p.stat().st_size for p in files), len(files)


def _latency(root: Path, repeat: int) -> dict[str, tuple[float, int]]:
    out = {}
    for name, params in QUESTIONS:
        query = named_query(name)
        times, rows = [], 0
        for _ in range(repeat):
            started = time.perf_counter()
            rows = len(run_query(root, query.sql, bind(query, params)).rows)
            times.append(time.perf_counter() - started)
        out[name] = (statistics.median(times), rows)
    return out


def _catalog(root: Path, owners: dict[str, tuple[str, ...]]) -> None:
    """The catalog of a synthetic dataset in ``root``: every pack of its ``packs`` table held,
    and every Parquet file (path under ``root`` -> the digests of the packs it holds) recorded
    with its sha256, as ``add`` records them (queries read only recorded files)."""
    import duckdb

    from evidencepack.warehouse.catalog import CATALOG_NAME, FILES_DDL, PACKS_DDL, WATCHES_DDL
    from evidencepack.warehouse.models import PACK_COLUMNS

    packs = sorted(name for name in owners if name.split("/")[1] == "packs")
    con = duckdb.connect(str(root / CATALOG_NAME))
    try:
        con.execute(PACKS_DDL)
        con.execute(WATCHES_DDL)
        con.execute(FILES_DDL)
        cols = ", ".join(PACK_COLUMNS)
        relation = con.read_parquet([str(root / name) for name in packs], hive_partitioning=False)
        relation.create_view("held")
        con.execute(f"INSERT INTO packs ({cols}) SELECT {cols} FROM held")
        rows = []
        for name, digests in sorted(owners.items()):
            held = storage.held_file(root, name, digests)
            rows.append((held.file, held.sha256, held.size_bytes, ",".join(held.packs)))
        con.executemany("INSERT INTO files VALUES (?, ?, ?, ?)", rows)
    finally:
        con.close()


def _replicate(source: Path, target: Path, factor: int) -> None:
    """``factor`` copies of every row under new pack digests: one file per partition and copy,
    named as compacted files are, and recorded in the target's catalog."""
    import duckdb

    shutil.rmtree(target, ignore_errors=True)
    con = duckdb.connect()
    owners: dict[str, tuple[str, ...]] = {}
    for table in TABLES:
        folder = source / storage.TABLES_DIR / table
        if not folder.is_dir():
            continue
        relation = con.read_parquet(storage.table_glob(source, table), hive_partitioning=False)
        relation.select("*, year(decision_date)::BIGINT AS decision_year").create_view(
            "src", replace=True
        )
        for partition in sorted(p for p in folder.iterdir() if p.is_dir()):
            year = int(partition.name.removeprefix("decision_year="))
            out = target / storage.TABLES_DIR / table / partition.name
            out.mkdir(parents=True, exist_ok=True)
            for k in range(factor):
                tag = hashlib.sha256(f"{table}/{partition.name}/{k}".encode()).hexdigest()[:16]
                path = out / f"part-{tag}.parquet"
                con.execute(
                    "COPY (SELECT * EXCLUDE (decision_year) "
                    "REPLACE (sha256(pack_digest || $k) AS pack_digest) "
                    "FROM src WHERE decision_year = $y) TO $p (FORMAT PARQUET)",
                    {"k": str(k), "y": year, "p": str(path)},
                )
                digests = con.execute(
                    "SELECT DISTINCT pack_digest FROM read_parquet($p) ORDER BY 1",
                    {"p": str(path)},
                ).fetchall()
                owners[path.relative_to(target).as_posix()] = tuple(d for (d,) in digests)
    con.close()
    _catalog(target, owners)


def _explode(source: Path, target: Path) -> None:
    """The dataset of ``source`` with one file per pack per table, as adds leave it
    (``tables/<table>/decision_year=YYYY/<digest>.parquet``, each recorded in the catalog)."""
    import duckdb

    shutil.rmtree(target, ignore_errors=True)
    con = duckdb.connect()
    owners: dict[str, tuple[str, ...]] = {}
    for table in TABLES:
        if not (source / storage.TABLES_DIR / table).is_dir():
            continue
        relation = con.read_parquet(storage.table_glob(source, table), hive_partitioning=False)
        relation.create_view("src", replace=True)
        years = dict(
            con.execute("SELECT DISTINCT pack_digest, year(decision_date) FROM src").fetchall()
        )
        scratch = target / ".explode" / table
        scratch.mkdir(parents=True)
        # Every row of a pack has one decision date: its file goes to that year's partition.
        con.execute(
            "COPY src TO $p (FORMAT PARQUET, PARTITION_BY (pack_digest), "
            "WRITE_PARTITION_COLUMNS true)",
            {"p": str(scratch)},
        )
        for written in sorted(scratch.rglob("*.parquet")):
            digest = written.parent.name.removeprefix("pack_digest=")
            final = target / storage.TABLES_DIR / table / f"decision_year={years[digest]}"
            final.mkdir(parents=True, exist_ok=True)
            written.rename(final / f"{digest}.parquet")
            owners[(final / f"{digest}.parquet").relative_to(target).as_posix()] = (digest,)
    con.close()
    shutil.rmtree(target / ".explode")
    _catalog(target, owners)


def _compact(root: Path) -> None:
    cpu, wall = cpu_now(), time.perf_counter()
    done = compact(root)
    cpu, wall = cpu_now() - cpu, time.perf_counter() - wall
    before = sum(c.files_before for c in done)
    size, files = _size(root / storage.TABLES_DIR)
    print(
        f"compact: {len(done)} partitions, {before} files -> {len(done)}, wall {wall:.1f} s, "
        f"CPU {cpu:.1f} s; the dataset now {size / 1e6:.1f} MB in {files} files"
    )


def _compare_with_spark(root: Path) -> None:
    from tests.warehouse.answers import duckdb_answers, local_spark, spark_answers

    spark = local_spark()
    try:
        started = time.perf_counter()
        answers = spark_answers(spark, root)
        took = time.perf_counter() - started
    finally:
        spark.stop()
    same = answers == duckdb_answers(root)
    print(
        f"Spark: {len(answers[0])} rows on vllm 0.9.2, {len(answers[1])} quarters in {took:.1f} s"
    )
    print(f"Spark and DuckDB give {'the same answers' if same else 'DIFFERENT answers'}")
    if not same:
        raise SystemExit(1)


def _print_latency(label: str, latency: dict[str, tuple[float, int]]) -> None:
    for name, (seconds, rows) in latency.items():
        print(f"  {label:>32} {name:18} {seconds * 1000:8.1f} ms  ({rows} rows)")


def _add(root: Path, packs: list[Path], policy: KeyPolicy) -> None:
    shutil.rmtree(root, ignore_errors=True)
    cpu, wall = cpu_now(), time.perf_counter()
    outcomes = add_packs(root, packs, policy)
    cpu, wall = cpu_now() - cpu, time.perf_counter() - wall
    assert all(o.status == "added" for o in outcomes), [o for o in outcomes if o.problems][:1]
    size, files = _size(root)
    count = len(packs)
    per_pack_ms = wall / count * 1000
    print(f"add {count} packs: wall {wall:.1f} s, CPU {cpu:.1f} s ({per_pack_ms:.0f} ms per pack)")
    per_pack = size / count / 1e3
    print(f"warehouse: {size / 1e6:.1f} MB in {files} files ({per_pack:.1f} kB per pack)")


def main() -> None:
    """Generate, add, measure, print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packs", type=int, default=1000)
    parser.add_argument("--replicate", type=int, default=0, metavar="K")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--reuse", action="store_true", help="query the last run's warehouse")
    parser.add_argument(
        "--spark", action="store_true", help="also ask Spark the two questions and compare"
    )
    parser.add_argument("--requests", type=int, default=0, metavar="N")
    args = parser.parse_args()
    packs, policy = _packs(args.packs)
    if args.requests:
        _add_requests(args.requests, policy)
    if not args.packs:
        return
    root = HERE / f"wh-{args.packs}"
    if args.reuse and root.exists():
        print(f"reusing {root}")
    else:
        _add(root, packs, policy)
    count = len(packs)
    _print_latency(f"{count:>6} packs", _latency(root, args.repeat))
    if args.spark:
        _compare_with_spark(root)
    _compact(root)
    _print_latency(f"{count:>6} packs, compacted", _latency(root, args.repeat))
    if args.spark:
        _compare_with_spark(root)
    if args.replicate:
        big = HERE / f"wh-{args.packs}x{args.replicate}"
        _replicate(root, big, args.replicate)
        count *= args.replicate
        (held,) = run_query(big, "SELECT count(DISTINCT pack_digest) FROM packs").rows
        assert held == (count,), held
        label = f"{count:>6} packs, {args.replicate} files a partition"
        _print_latency(label, _latency(big, args.repeat))
        _compact(big)
        compacted = _latency(big, args.repeat)
        _print_latency(f"{count:>6} packs, compacted", compacted)
        loose = HERE / f"wh-{args.packs}x{args.replicate}-per-pack"
        _explode(big, loose)
        size, files = _size(loose / storage.TABLES_DIR)
        print(f"one file per pack per table: {size / 1e6:.1f} MB in {files} files")
        per_pack = _latency(loose, args.repeat)
        _print_latency(f"{count:>6} packs, a file per pack", per_pack)
        rows = {name: n for name, (_, n) in compacted.items()}
        assert rows == {name: n for name, (_, n) in per_pack.items()}, "the answers differ"


if __name__ == "__main__":
    main()
