"""The Python API: one function per command, each taking an options object, in one module per
command group. The command line (``evidencepack._cli``) calls nothing else of the library.

- ``compile``: ``load_spec``, ``validate``, ``check``, ``build``, ``rebuild``, ``init_spec``,
  ``schemas``, and the decision as JUnit XML or Markdown;
- ``signing``: ``signer``, ``verify_policy``, ``verify``, ``verify_text``, ``keygen``,
  ``sign``, ``register``;
- ``diff``, ``export``, ``watching``, ``warehouse``, ``mlperf``, ``measuring``, ``inspect``:
  those commands; ``terminal``: progress and escaped text for a person;
- ``options``: the options objects (``CheckOptions``, ``BuildOptions``, ``SignerSpec``,
  ``VerifyPolicy``, ...).

``evidencepack.__all__`` names the stable part. Each name here is imported on first use (PEP
562): ``from evidencepack.api import build`` loads the compile functions only.
"""

from __future__ import annotations

# Not ``from typing import TYPE_CHECKING``: see evidencepack/__init__.py.
TYPE_CHECKING = False

_MODULES: dict[str, tuple[str, ...]] = {
    "compile": (
        "load_spec",
        "validate",
        "check",
        "build",
        "rebuild",
        "init_spec",
        "init_report",
        "build_report",
        "schemas",
        "problems_report",
        "junit_xml",
        "markdown",
        "gate_verdict",
        "problems_junit_xml",
        "problems_markdown",
    ),
    "signing": ("signer", "verify_policy", "verify", "verify_text", "keygen", "sign", "register"),
    "diff": ("diff_packs", "diff_text", "diff_markdown", "change_note"),
    "export": ("export_oscal", "oscal_versions"),
    "watching": ("watch", "watch_text"),
    "warehouse": (
        "warehouse_add",
        "warehouse_query",
        "warehouse_verify",
        "warehouse_compact",
        "warehouse_tables",
        "named_queries",
    ),
    "mlperf": ("mlperf_import", "mlperf_list", "mlperf_show"),
    "measuring": ("measure", "MeasureOptions"),
    "inspect": ("read_input", "run_folder_files", "describe_input", "broken_plugin_warnings"),
    "options": (
        "PathLike",
        "CheckOptions",
        "BuildOptions",
        "SignerSpec",
        "PdfSignSpec",
        "VerifyPolicy",
        "VerifyOptions",
        "DiffOptions",
        "ExportOptions",
        "WatchOptions",
        "MlperfListOptions",
    ),
}
_API = {name: f"evidencepack.api.{module}" for module, names in _MODULES.items() for name in names}
"""name -> the module that defines it; resolved on first use by ``__getattr__``."""

if TYPE_CHECKING:
    from typing import Any


def __getattr__(name: str) -> Any:
    """Import an API name on first use (PEP 562)."""
    module = _API.get(name)
    if module is None:
        raise AttributeError(f"module 'evidencepack.api' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The module's names, the lazily imported ones included."""
    return sorted({*globals(), *_API})
