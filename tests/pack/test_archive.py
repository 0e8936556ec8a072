"""Pack archives: the same pack gives the same bytes; unsafe archives are refused before writing."""

from __future__ import annotations

import io
import shutil
import tarfile
from pathlib import Path

import pytest

from evidencepack.core.provenance import sha256_file
from evidencepack.errors import InputError
from evidencepack.pack.archive import ArchiveLimits, UnsafeArchive, extract_archive, write_archive
from evidencepack.pack.layout import BUNDLE_NAME
from evidencepack.signing.keys import load_public_key
from evidencepack.signing.verify import KeyPolicy, verify_pack

from ..sigstore_testing.fixtures import KeyPack


def test_archive_is_deterministic_and_holds_the_whole_pack(
    key_pack: KeyPack, tmp_path: Path
) -> None:
    first = write_archive(key_pack.folder, tmp_path / "a" / "decision-2026q4.tar.gz")
    # Another copy of the same pack, somewhere else, with other file times.
    copy = tmp_path / "copy"
    shutil.copytree(key_pack.folder, copy)
    for path in copy.rglob("*"):
        path.touch()
    second = write_archive(copy, tmp_path / "b" / "decision-2026q4.tar.gz")
    assert first.read_bytes() == second.read_bytes()
    assert first.read_bytes()[4:8] == b"\x00\x00\x00\x00"  # gzip MTIME
    with tarfile.open(first) as tar:
        members = tar.getmembers()
    names = [m.name for m in members]
    assert names[0] == "decision-2026q4"
    assert names == sorted(names, key=lambda n: n.split("/"))
    files = {m.name.split("/", 1)[1] for m in members if m.isfile()}
    expected = {p.relative_to(key_pack.folder).as_posix() for p in key_pack.folder.rglob("*")}
    assert files == {n for n in expected if (key_pack.folder / n).is_file()}
    assert BUNDLE_NAME in files
    assert {(m.mtime, m.uid, m.gid, m.uname, m.gname) for m in members} == {(0, 0, 0, "", "")}
    assert {m.mode for m in members if m.isfile()} == {0o644}
    assert {m.mode for m in members if m.isdir()} == {0o755}
    assert write_archive(key_pack.folder, tmp_path / "t.tar.gz", mtime=1795996800).read_bytes() != (
        write_archive(key_pack.folder, tmp_path / "t2.tar.gz").read_bytes()
    )


def test_verify_accepts_the_archive_and_catches_a_changed_member(
    key_pack: KeyPack, tmp_path: Path
) -> None:
    archive = write_archive(key_pack.folder, tmp_path / "pack.tar.gz")
    policy = KeyPolicy(load_public_key(key_pack.keys.public_key))
    report = verify_pack(archive, policy)
    assert report.ok, report.problems
    assert (report.target_kind, report.target) == ("archive", str(archive))
    assert report.bundle == f"{archive}!{BUNDLE_NAME}"
    (key_pack.folder / "decision.json").write_text('{"decision_id": "swapped"}\n')
    tampered = write_archive(key_pack.folder, tmp_path / "tampered.tar.gz")
    report = verify_pack(tampered, policy)
    assert not report.ok
    assert [(m.path, m.actual_sha256) for m in report.changed] == [
        ("decision.json", sha256_file(key_pack.folder / "decision.json"))
    ]


def _tar(path: Path, *members: tuple[tarfile.TarInfo, bytes | None]) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for info, data in members:
            if data is not None:
                info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return path


def _file(name: str) -> tuple[tarfile.TarInfo, bytes]:
    return tarfile.TarInfo(name), b"evidence\n"


def _special(name: str, kind: bytes, link: str = "") -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, link
    return info, None


UNSAFE: dict[str, tuple[list[tuple[tarfile.TarInfo, bytes | None]], str]] = {
    "parent": ([_file("pack/ok.txt"), _file("pack/../../escaped.txt")], "path is not normalised"),
    "absolute": ([_file("/tmp/escaped.txt")], "absolute path"),
    "symlink": ([_special("pack/link", tarfile.SYMTYPE, "/etc/passwd")], "link to '/etc/passwd'"),
    "hardlink": ([_file("pack/a"), _special("pack/b", tarfile.LNKTYPE, "pack/a")], "link to"),
    "device": ([_special("pack/dev", tarfile.CHRTYPE)], "not a regular file or folder"),
    "fifo": ([_special("pack/fifo", tarfile.FIFOTYPE)], "not a regular file or folder"),
    "duplicate": ([_file("pack/a.txt"), _file("pack/a.txt")], "duplicate member"),
    "case-duplicate": ([_file("pack/Report.pdf"), _file("pack/report.pdf")], "duplicate member"),
    "file-and-folder": ([_file("pack/a"), _file("pack/a/b")], "is a file and the folder of"),
    "backslash": ([_file("pack\\..\\x")], "backslash in path"),
}


@pytest.mark.parametrize("case", sorted(UNSAFE))
def test_unsafe_archives_are_refused_and_nothing_is_written(tmp_path: Path, case: str) -> None:
    members, message = UNSAFE[case]
    archive = _tar(tmp_path / f"{case}.tar.gz", *members)
    dest = tmp_path / "out" / "x"
    dest.mkdir(parents=True)
    with pytest.raises(UnsafeArchive) as info:
        extract_archive(archive, dest)
    assert any(message in problem for problem in info.value.problems), info.value.problems
    assert list(dest.iterdir()) == []
    assert not (tmp_path / "escaped.txt").exists()
    assert {p.name for p in tmp_path.iterdir()} == {f"{case}.tar.gz", "out"}


def test_verify_reports_an_unsafe_archive_as_a_failure(key_pack: KeyPack, tmp_path: Path) -> None:
    archive = _tar(tmp_path / "evil.tar.gz", _file("pack/../../escaped.txt"))
    report = verify_pack(archive, KeyPolicy(load_public_key(key_pack.keys.public_key)))
    assert not report.ok
    assert report.problems[0].startswith("'pack/../../escaped.txt': path is not normalised")


@pytest.mark.parametrize(
    ("limits", "message"),
    [
        (ArchiveLimits(max_member_bytes=8), "9 bytes, over the limit of 8"),
        (ArchiveLimits(max_total_bytes=17), "the members hold 18 bytes, over the limit of 17"),
        (ArchiveLimits(max_members=2), "more than 2 members"),
    ],
)
def test_size_and_count_limits(tmp_path: Path, limits: ArchiveLimits, message: str) -> None:
    archive = _tar(tmp_path / "big.tar.gz", _file("pack/a"), _file("pack/b"), _file("pack/c"))
    if limits.max_members != 2:  # two members of 9 bytes for the byte limits
        archive = _tar(tmp_path / "big.tar.gz", _file("pack/a"), _file("pack/b"))
    (tmp_path / "dest").mkdir()
    with pytest.raises(UnsafeArchive) as info:
        extract_archive(archive, tmp_path / "dest", limits)
    assert message in str(info.value.problems)
    assert list((tmp_path / "dest").iterdir()) == []


def test_flat_archive_and_dot_prefixes_are_accepted(tmp_path: Path) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    archive = _tar(
        tmp_path / "flat.tar.gz", _special(".", tarfile.DIRTYPE), _file("./a.txt"), _file("b.txt")
    )
    root = extract_archive(archive, folder)
    assert root == folder
    assert sorted(p.name for p in root.iterdir()) == ["a.txt", "b.txt"]


def test_not_a_gzip_tar(tmp_path: Path) -> None:
    (tmp_path / "junk.tar.gz").write_bytes(b"this is not gzip")
    (tmp_path / "dest").mkdir()
    with pytest.raises(UnsafeArchive, match="not a readable .tar.gz"):
        extract_archive(tmp_path / "junk.tar.gz", tmp_path / "dest")
    with pytest.raises(InputError, match="must end in .tar.gz"):
        write_archive(tmp_path, tmp_path / "pack.zip")


def test_archive_refuses_a_pack_with_a_symlink(key_pack: KeyPack, tmp_path: Path) -> None:
    (key_pack.folder / "escape").symlink_to("/etc/passwd")
    with pytest.raises(InputError) as info:
        write_archive(key_pack.folder, tmp_path / "pack.tar.gz")
    assert info.value.problems == ("escape: symbolic link (packs hold regular files only)",)
    assert not (tmp_path / "pack.tar.gz").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".pack")] == []
