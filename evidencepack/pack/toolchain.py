"""The rendering toolchain recorded in a pack's predicate: library versions and font digests.

Read without importing WeasyPrint (``render/pdf.py`` stays its only importer): from package
metadata, the shared libraries WeasyPrint loads, and fontconfig's match for each font.
"""

from __future__ import annotations

import ctypes
import platform
import sys
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

from pydantic import Field

from ..core._models import Sha256Hex, StrictModel
from ..core.provenance import sha256_file
from ..errors import RenderError

REPORT_FONTS: tuple[str, ...] = ("DejaVu Sans", "DejaVu Sans:bold")
"""fontconfig patterns of the fonts the report templates ask for."""

# The names WeasyPrint 70 tries for each library (weasyprint/text/ffi.py), in its order: with
# the same sonames the dynamic loader hands back the very library WeasyPrint renders with.
_LIBRARY_NAMES: dict[str, tuple[str, ...]] = {
    "pango": ("libpango-1.0.so.0", "libpango-1.0-0", "libpango-1.0.dylib", "libpango-1.0-0.dll"),
    "harfbuzz": ("libharfbuzz.so.0", "libharfbuzz-0", "libharfbuzz.0.dylib", "libharfbuzz-0.dll"),
    "harfbuzz_subset": (
        "libharfbuzz-subset.so.0",
        "libharfbuzz-subset-0",
        "libharfbuzz-subset.0.dylib",
        "libharfbuzz-subset-0.dll",
    ),
    "fontconfig": (
        "libfontconfig.so.1",
        "libfontconfig-1",
        "libfontconfig.1.dylib",
        "libfontconfig-1.dll",
    ),
}

_FC_RESULT_MATCH = 0
_FC_MATCH_PATTERN = 0


class FontFile(StrictModel):
    """One font as fontconfig resolves a requested pattern on the rendering machine."""

    pattern: str = Field(
        description="the fontconfig pattern the report asks for (e.g. 'DejaVu Sans:bold')"
    )
    family: str = Field(description="the family name of the font fontconfig matched")
    file_name: str = Field(description="the matched font file's name, without its folder")
    path: str = Field(description="the matched font file's absolute path on the rendering machine")
    sha256: Sha256Hex = Field(description="sha256 hex of the matched font file's bytes")


class Toolchain(StrictModel):
    """What turned the HTML into the PDF: the same inputs on a different toolchain differ."""

    python: str = Field(description="the Python version that rendered (e.g. 3.11.7)")
    platform: str = Field(
        description=(
            "the rendering machine's platform and architecture "
            "(sys.platform-machine, e.g. linux-x86_64)"
        )
    )
    weasyprint: str = Field(description="the installed WeasyPrint package version")
    pydyf: str = Field(description="the installed pydyf package version")
    fonttools: str | None = Field(
        description="the installed fonttools package version; None when it is not installed"
    )
    pango: str = Field(description="the version of the Pango library WeasyPrint loads")
    harfbuzz: str = Field(description="the version of the HarfBuzz library WeasyPrint loads")
    harfbuzz_subset: bool = Field(
        description="whether the HarfBuzz subsetting library (libharfbuzz-subset) could be loaded"
    )
    fontconfig: str = Field(
        description="the version of the fontconfig library (major.minor.revision)"
    )
    fonts: tuple[FontFile, ...] = Field(
        description=(
            "each font the report templates ask for, as fontconfig resolves it, with its digest"
        )
    )


def _package_version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _load_optional(kind: str) -> ctypes.CDLL | None:
    for name in _LIBRARY_NAMES[kind]:
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    return None


def _load(kind: str) -> ctypes.CDLL:
    lib = _load_optional(kind)
    if lib is None:
        raise RenderError(
            f"cannot load the {kind} library (tried {', '.join(_LIBRARY_NAMES[kind])}): install "
            "the Debian packages in .ci/apt-packages.txt (WeasyPrint needs them too)"
        )
    return lib


def _pango_version(lib: ctypes.CDLL) -> str:
    lib.pango_version_string.restype = ctypes.c_char_p
    return str(lib.pango_version_string().decode("ascii"))


def _harfbuzz_version(lib: ctypes.CDLL) -> str:
    lib.hb_version_string.restype = ctypes.c_char_p
    return str(lib.hb_version_string().decode("ascii"))


def _fontconfig_version(lib: ctypes.CDLL) -> str:
    lib.FcGetVersion.restype = ctypes.c_int
    # FcGetVersion returns major * 10000 + minor * 100 + revision.
    major, rest = divmod(int(lib.FcGetVersion()), 10000)
    minor, revision = divmod(rest, 100)
    return f"{major}.{minor}.{revision}"


def _match_fonts(lib: ctypes.CDLL, patterns: Sequence[str]) -> tuple[FontFile, ...]:
    lib.FcInitLoadConfigAndFonts.restype = ctypes.c_void_p
    lib.FcNameParse.restype = ctypes.c_void_p
    lib.FcNameParse.argtypes = [ctypes.c_char_p]
    lib.FcConfigSubstitute.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
    lib.FcDefaultSubstitute.argtypes = [ctypes.c_void_p]
    lib.FcFontMatch.restype = ctypes.c_void_p
    lib.FcFontMatch.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)]
    lib.FcPatternGetString.restype = ctypes.c_int
    lib.FcPatternGetString.argtypes = [
        ctypes.c_void_p,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.POINTER(ctypes.c_char_p),
    ]
    lib.FcPatternDestroy.argtypes = [ctypes.c_void_p]
    lib.FcConfigDestroy.argtypes = [ctypes.c_void_p]

    config = lib.FcInitLoadConfigAndFonts()
    if not config:
        raise RenderError("fontconfig could not load its configuration")
    fonts = []
    try:
        for text in patterns:
            pattern = lib.FcNameParse(text.encode("utf-8"))
            if not pattern:
                raise RenderError(f"fontconfig cannot parse the font pattern {text!r}")
            try:
                lib.FcConfigSubstitute(config, pattern, _FC_MATCH_PATTERN)
                lib.FcDefaultSubstitute(pattern)
                result = ctypes.c_int(-1)
                match = lib.FcFontMatch(config, pattern, ctypes.byref(result))
            finally:
                lib.FcPatternDestroy(pattern)
            if not match or result.value != _FC_RESULT_MATCH:
                raise RenderError(f"fontconfig finds no font for {text!r}")
            try:
                file_value, family_value = ctypes.c_char_p(), ctypes.c_char_p()
                if lib.FcPatternGetString(match, b"file", 0, ctypes.byref(file_value)) != 0:
                    raise RenderError(f"fontconfig's match for {text!r} names no file")
                lib.FcPatternGetString(match, b"family", 0, ctypes.byref(family_value))
                path = Path((file_value.value or b"").decode("utf-8", errors="surrogateescape"))
                family = (family_value.value or b"").decode("utf-8", errors="replace")
            finally:
                lib.FcPatternDestroy(match)
            fonts.append(
                FontFile(
                    pattern=text,
                    family=family,
                    file_name=path.name,
                    path=str(path),
                    sha256=sha256_file(path),
                )
            )
    finally:
        lib.FcConfigDestroy(config)
    return tuple(fonts)


def rendering_toolchain(font_patterns: Sequence[str] = REPORT_FONTS) -> Toolchain:
    """Collect the toolchain of this machine: call it in the process that renders the PDF."""
    pango = _load("pango")
    harfbuzz = _load("harfbuzz")
    fontconfig = _load("fontconfig")
    weasyprint_version = _package_version("weasyprint")
    pydyf_version = _package_version("pydyf")
    if weasyprint_version is None or pydyf_version is None:
        raise RenderError("WeasyPrint or pydyf is not installed; reinstall evidencepack")
    try:
        return Toolchain(
            python=platform.python_version(),
            platform=f"{sys.platform}-{platform.machine()}",
            weasyprint=weasyprint_version,
            pydyf=pydyf_version,
            fonttools=_package_version("fonttools"),
            pango=_pango_version(pango),
            harfbuzz=_harfbuzz_version(harfbuzz),
            harfbuzz_subset=_load_optional("harfbuzz_subset") is not None,
            fontconfig=_fontconfig_version(fontconfig),
            fonts=_match_fonts(fontconfig, font_patterns),
        )
    except AttributeError as exc:
        # A library too old to export the version function: name it rather than crash.
        raise RenderError(f"a rendering library lacks an expected function: {exc}") from exc
