"""The plug-in types: what a reader of your own format, or a signer of your own, is made of.

A **reader plug-in** is a ``Format``: an id, the kind of evidence it yields (``runs``,
``scores`` or ``references``), the tool it reads, a ``detect`` function that looks at a
``Probe`` (the file's first bytes and parsed first document) and a ``parse`` function that
returns a ``ParsedInput`` (the runs as ``ServingRun``, score sets as ``ScoreSet``, public results
as ``ReferencePoint``) for the file's ``FileRecord``. Register it at run time with
``register_format(fmt, plugin="name version")``, or, from an installed distribution, through
the ``evidencepack.formats`` entry-point group (``ENTRY_POINT_GROUP``)::

    [project.entry-points."evidencepack.formats"]
    acme = "acme_bench_plugin:FORMAT"      # a Format, or a callable returning one or several

A plug-in's formats are tried after the built-in ones, may not reuse a built-in id, run with a
time limit per call, and every file one of them reads records the plug-in's name and version.

A **signer plug-in** is any object with the ``PackSigner`` protocol (``mode`` and
``sign_payload``: an HSM, a cloud KMS); a ``CertifiedSigner`` also names its identity before
signing, so the report can. Give it to ``build`` or ``sign`` as ``SignerSpec(custom=...)``.

Importing this module loads nothing heavy: each name is imported when first used (PEP 562).
"""

from __future__ import annotations

# Not ``from typing import TYPE_CHECKING``: see evidencepack/__init__.py.
TYPE_CHECKING = False

_TYPES: dict[str, str] = {
    "Format": "evidencepack.readers.base",
    "Probe": "evidencepack.readers.base",
    "ParsedInput": "evidencepack.readers.base",
    "Detector": "evidencepack.readers.base",
    "Parser": "evidencepack.readers.base",
    "FileRecord": "evidencepack.core.provenance",
    "ServingRun": "evidencepack.readers.models",
    "ScoreSet": "evidencepack.readers.models",
    "ReferencePoint": "evidencepack.readers.models",
    "ENTRY_POINT_GROUP": "evidencepack.readers.registry",
    "PackSigner": "evidencepack.signing.sign",
    "CertifiedSigner": "evidencepack.signing.sign",
    "SignerIdentity": "evidencepack.signing.sign",
}
"""name -> the module that defines it; resolved on first use by ``__getattr__``."""

__all__ = [
    "Format",
    "Probe",
    "ParsedInput",
    "Detector",
    "Parser",
    "FileRecord",
    "ServingRun",
    "ScoreSet",
    "ReferencePoint",
    "ENTRY_POINT_GROUP",
    "register_format",
    "unregister_format",
    "installed_plugins",
    "broken_plugins",
    "PackSigner",
    "CertifiedSigner",
    "SignerIdentity",
]
"""The plug-in API (semantic versioning, as ``evidencepack.__all__``)."""

if TYPE_CHECKING:
    from typing import Any

    from .core.provenance import FileRecord
    from .readers.base import Detector, Format, ParsedInput, Parser, Probe
    from .readers.models import ReferencePoint, ScoreSet, ServingRun
    from .readers.registry import ENTRY_POINT_GROUP
    from .signing.sign import CertifiedSigner, PackSigner, SignerIdentity


def register_format(fmt: Format, *, plugin: str | None = None) -> Format:
    """Add a reader after the built-in ones; ``plugin`` (``name version``) is recorded on every
    file it reads. A format id may be registered once; a built-in id never (``ValueError``).
    Returns the format as registered."""
    from .readers.registry import register_format as register

    return register(fmt, plugin=plugin)


def unregister_format(format_id: str) -> None:
    """Remove a format registered at run time (tests and embedding applications)."""
    from .readers.registry import unregister_format as unregister

    unregister(format_id)


def installed_plugins() -> tuple[str, ...]:
    """Each installed plug-in's formats that loaded: ``name version: format id, ...``."""
    from .readers.registry import installed_plugins as installed

    return installed()


def broken_plugins() -> tuple[str, ...]:
    """Each installed plug-in that failed to load, with the reason."""
    from .readers.registry import broken_plugins as broken

    return broken()


def __getattr__(name: str) -> Any:
    """Import a plug-in type on first use (PEP 562)."""
    module = _TYPES.get(name)
    if module is None:
        raise AttributeError(f"module 'evidencepack.plugins' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The module's names, the lazily imported ones included."""
    return sorted({*globals(), *_TYPES})
