"""evidencepack: compile accelerator-decision evidence into a signed, auditable pack.

The compiler runs in stages, data flowing one way::

    pack.yaml ──> spec ──> inputs (MLPerf trees, LoadGen logs, serving runs, eval scores)
                              │  provenance: sha256, tool, version of every file
                              v
                           store (DuckDB) ──> analyze (checklist, capacity, cost, quality, decision)
                                                  │
                                                  v
                                        render (HTML, PDF/A-3b) ──> manifest ──> sign / verify

Library use: the names in ``__all__`` are the stable API (semantic versioning, CHANGELOG.md),
with ``evidencepack.plugins`` (the plug-in types) and the functions and options objects of
``evidencepack.api`` (one function per command); every other module and name is internal and
may change in any release::

    import evidencepack

    report = evidencepack.validate("samples/pack.yaml")     # every problem, located
    decision = evidencepack.check("samples/pack.yaml")      # decision.json as a model
    print(decision.verdict, decision.recommendation)
    key = evidencepack.SignerSpec(key="out/evidencepack.key.pem")
    options = evidencepack.BuildOptions(signer=key)
    built = evidencepack.build("samples/pack.yaml", "out/pack", options)
    policy = evidencepack.VerifyPolicy(key="out/evidencepack.pub.pem")
    print(evidencepack.verify("out/pack", policy).ok)

Importing ``evidencepack`` loads nothing heavy: each name is imported when first used (PEP 562).
"""

from __future__ import annotations

# Not ``from typing import TYPE_CHECKING``: importing typing (and re) would double the cost of
# ``import evidencepack``. Type checkers treat any ``TYPE_CHECKING`` as true.
TYPE_CHECKING = False

__version__ = "0.1.0"

# name -> the module that defines it; resolved on first use by ``__getattr__``.
_API: dict[str, str] = {
    # functions
    "load_spec": "evidencepack.api.compile",
    "validate": "evidencepack.api.compile",
    "check": "evidencepack.api.compile",
    "build": "evidencepack.api.compile",
    "rebuild": "evidencepack.api.compile",
    "read_input": "evidencepack.api.inspect",
    "verify": "evidencepack.api.signing",
    "sign": "evidencepack.api.signing",
    "diff_packs": "evidencepack.api.diff",
    "signer": "evidencepack.api.signing",
    "verify_policy": "evidencepack.api.signing",
    # options
    "CheckOptions": "evidencepack.api.options",
    "BuildOptions": "evidencepack.api.options",
    "SignerSpec": "evidencepack.api.options",
    "PdfSignSpec": "evidencepack.api.options",
    "VerifyPolicy": "evidencepack.api.options",
    "VerifyOptions": "evidencepack.api.options",
    "DiffOptions": "evidencepack.api.options",
    # results
    "LoadedSpec": "evidencepack.spec.load",
    "PackSpec": "evidencepack.spec.models",
    "ValidationReport": "evidencepack.core.problems",
    "Problem": "evidencepack.core.problems",
    "DecisionDocument": "evidencepack.analyze.models",
    "BuildResult": "evidencepack.pipeline",
    "RebuildOutcome": "evidencepack.signing.verify_report",
    "ParsedInput": "evidencepack.readers.base",
    "VerifyReport": "evidencepack.signing.verify_report",
    "DiffResult": "evidencepack.diff.run",
    "DiffDocument": "evidencepack.diff.models",
    # errors
    "EvidencePackError": "evidencepack.errors",
    "UsageError": "evidencepack.errors",
    "InvalidRequest": "evidencepack.errors",
    "InputError": "evidencepack.errors",
    "SpecError": "evidencepack.errors",
    "CheckFailed": "evidencepack.errors",
    "VerificationError": "evidencepack.errors",
    "CouldNotRun": "evidencepack.errors",
    "SigningError": "evidencepack.errors",
}

__all__ = [
    "__version__",
    "load_spec",
    "validate",
    "check",
    "build",
    "rebuild",
    "read_input",
    "verify",
    "sign",
    "diff_packs",
    "signer",
    "verify_policy",
    "CheckOptions",
    "BuildOptions",
    "SignerSpec",
    "PdfSignSpec",
    "VerifyPolicy",
    "VerifyOptions",
    "DiffOptions",
    "LoadedSpec",
    "PackSpec",
    "ValidationReport",
    "Problem",
    "DecisionDocument",
    "BuildResult",
    "RebuildOutcome",
    "ParsedInput",
    "VerifyReport",
    "DiffResult",
    "DiffDocument",
    "EvidencePackError",
    "UsageError",
    "InvalidRequest",
    "InputError",
    "SpecError",
    "CheckFailed",
    "VerificationError",
    "CouldNotRun",
    "SigningError",
]
"""The stable API; ``_API`` says where each name is defined."""

if TYPE_CHECKING:
    from typing import Any

    from .analyze.models import DecisionDocument
    from .api.compile import build, check, load_spec, rebuild, validate
    from .api.diff import diff_packs
    from .api.inspect import read_input
    from .api.options import (
        BuildOptions,
        CheckOptions,
        DiffOptions,
        PdfSignSpec,
        SignerSpec,
        VerifyOptions,
        VerifyPolicy,
    )
    from .api.signing import sign, signer, verify, verify_policy
    from .core.problems import Problem, ValidationReport
    from .diff.models import DiffDocument
    from .diff.run import DiffResult
    from .errors import (
        CheckFailed,
        CouldNotRun,
        EvidencePackError,
        InputError,
        InvalidRequest,
        SigningError,
        SpecError,
        UsageError,
        VerificationError,
    )
    from .pipeline import BuildResult
    from .readers.base import ParsedInput
    from .signing.verify_report import RebuildOutcome, VerifyReport
    from .spec.load import LoadedSpec
    from .spec.models import PackSpec


def __getattr__(name: str) -> Any:
    """Import an API name on first use (PEP 562), so ``import evidencepack`` stays light."""
    module = _API.get(name)
    if module is None:
        raise AttributeError(f"module 'evidencepack' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The module's names, the lazily imported API included."""
    return sorted({*globals(), *_API})
