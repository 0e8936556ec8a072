"""No path of the building machine enters a pack: the sample built from two folders gives the same
pack byte for byte, also when a cited price file cannot be read (its error names the file by its
pack path), and such a pack rebuilds elsewhere under ``verify --rebuild``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evidencepack._cli import main
from evidencepack.pack.layout import STORE_NAME
from evidencepack.signing.keys import generate_keypair

from .conftest import REPO_ROOT

# Two builds compared byte for byte, PDFs from the session's cache (tests/pdf_cache.py): its key
# is every input of a render (HTML, attachments, date; render_pdf takes no path or base URL),
# so a path of the building machine that reached the report would miss the cache and both PDFs
# would be real renders, compared here; the first build's PDF is a real render either way.
# WeasyPrint giving the same bytes twice for the same inputs is the real_pdf tests' to show
# (a rebuild reproducing the report: tests/signing/test_signed_pack.py and others).

BROKEN_FOCUS = "      focus: {path: bill.csv, provider: AWS}\n"
BROKEN_QUOTE = "      quote: {path: quote.yaml, item: 8x H200 server}\n"


def _copy(folder: Path, *, broken_prices: bool) -> Path:
    """A copy of the sample in ``folder``; with ``broken_prices`` two candidates cite price
    files that cannot be read (a CSV that is not FOCUS, a quote that is not one)."""
    shutil.copytree(REPO_ROOT / "samples", folder, ignore=shutil.ignore_patterns("generate"))
    spec = folder / "pack.yaml"
    if broken_prices:
        (folder / "bill.csv").write_text("not,a,focus,export\n1,2,3,4\n", encoding="utf-8")
        (folder / "quote.yaml").write_text("supplier: [unclosed\n", encoding="utf-8")
        text = spec.read_text(encoding="utf-8")
        for old, new in (
            ("      per_accelerator_hour: 5.50\n", BROKEN_FOCUS),
            ("      per_accelerator_hour: 3.50\n", BROKEN_QUOTE),
        ):
            assert old in text
            text = text.replace(old, new)
        spec.write_text(text, encoding="utf-8")
    return spec


def _files(pack: Path) -> dict[str, bytes]:
    """Every file of a pack by its pack path, but the store (a DuckDB file, not signed)."""
    return {
        path.relative_to(pack).as_posix(): path.read_bytes()
        for path in sorted(pack.rglob("*"))
        if path.is_file() and path.name != STORE_NAME
    }


@pytest.mark.parametrize("broken_prices", [False, True], ids=["sample", "unreadable-price"])
def test_the_sample_built_from_two_folders_is_the_same_pack(
    tmp_path: Path, broken_prices: bool
) -> None:
    one = _copy(tmp_path / "first", broken_prices=broken_prices)
    two = _copy(tmp_path / "somewhere" / "else" / "second", broken_prices=broken_prices)
    expected = 1 if broken_prices else 0
    assert main(["build", str(one), "-o", str(tmp_path / "pack-1")]) == expected
    assert main(["build", str(two), "-o", str(tmp_path / "pack-2")]) == expected
    first, second = _files(tmp_path / "pack-1"), _files(tmp_path / "pack-2")
    assert first.keys() == second.keys()
    differing = [name for name in first if first[name] != second[name]]
    assert differing == []
    decision = first["decision.json"].decode()
    if broken_prices:
        assert "inputs/bill.csv: not a FOCUS cost-and-usage export" in decision
        assert "inputs/quote.yaml" in decision
    for name, data in first.items():
        assert str(tmp_path).encode() not in data, name


@pytest.mark.no_pdf  # the rebuild compares every input of the PDF (HTML, decision, manifest)
def test_a_pack_whose_price_file_cannot_be_read_rebuilds_elsewhere(tmp_path: Path) -> None:
    spec = _copy(tmp_path / "project", broken_prices=True)
    keys = generate_keypair(tmp_path / "k.pem", tmp_path / "k.pub", None)
    pack = tmp_path / "signed"
    assert main(["build", str(spec), "-o", str(pack), "--key", str(keys.private_key)]) == 1
    moved = tmp_path / "moved" / "pack"
    shutil.copytree(pack, moved)
    shutil.rmtree(pack)
    shutil.rmtree(tmp_path / "project")
    code = main(["verify", str(moved), "--key", str(keys.public_key), "--rebuild"])
    assert code == 0
