"""The rendering toolchain: the libraries WeasyPrint itself loaded, and the fonts it would use."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

import pytest

from evidencepack.core.provenance import sha256_file
from evidencepack.errors import RenderError
from evidencepack.pack.toolchain import Toolchain, rendering_toolchain


def test_versions_are_those_weasyprint_runs_with(toolchain: Toolchain) -> None:
    from weasyprint.text.ffi import pango

    assert toolchain.weasyprint == metadata.version("weasyprint")
    assert toolchain.pydyf == metadata.version("pydyf")
    # pango_version() of WeasyPrint's own handle: major*10000 + minor*100 + micro.
    major, rest = divmod(pango.pango_version(), 10000)
    assert toolchain.pango == f"{major}.{rest // 100}.{rest % 100}"
    assert toolchain.harfbuzz.count(".") == 2
    assert toolchain.harfbuzz_subset, "libharfbuzz-subset0 is in .ci/apt-packages.txt"


def test_report_fonts_are_the_dejavu_files_with_their_digests(toolchain: Toolchain) -> None:
    regular, bold = toolchain.fonts
    assert (regular.pattern, regular.family, regular.file_name) == (
        "DejaVu Sans",
        "DejaVu Sans",
        "DejaVuSans.ttf",
    )
    assert bold.file_name == "DejaVuSans-Bold.ttf"
    for font in toolchain.fonts:
        assert font.sha256 == sha256_file(Path(font.path))


def test_fallback_font_is_recorded_as_what_was_matched() -> None:
    # fontconfig always answers; a family that is not installed shows up under its substitute.
    (font,) = rendering_toolchain(["No Such Family Anywhere"]).fonts
    assert font.pattern == "No Such Family Anywhere"
    assert font.family != "No Such Family Anywhere"
    assert font.sha256 == sha256_file(Path(font.path))


def test_a_bad_font_pattern_is_an_error() -> None:
    with pytest.raises(RenderError, match="cannot parse the font pattern"):
        rendering_toolchain([":weight=abc"])
