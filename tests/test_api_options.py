"""The API's options objects, the library's errors worded per caller, and the plug-in module."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

import evidencepack
from evidencepack import api, plugins
from evidencepack._cli import main
from evidencepack.errors import InvalidRequest, SigningError, option


def test_an_error_names_options_as_keywords_and_the_cli_as_flags() -> None:
    error = InvalidRequest(f"out.yaml exists: pass {option('force')} or {option('trust_config')}")
    assert error.message == "out.yaml exists: pass force or trust_config"
    assert str(error) == error.message
    assert error.worded(lambda name: "--" + name.replace("_", "-")) == (
        "out.yaml exists: pass --force or --trust-config"
    )
    assert error.exit_code == 2  # a usage error's code: the command line's exit is unchanged


def test_a_key_beside_keyless_options_is_refused_in_each_callers_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(InvalidRequest) as caught:
        api.SignerSpec(key="k.pem", staging=True)
    assert caught.value.message == (
        "key signs without Sigstore: drop identity_token/staging/trust_config"
    )
    assert main(["sign", str(tmp_path), "--key", "k.pem", "--staging"]) == 2
    err = capsys.readouterr().err
    assert "--key signs without Sigstore: drop --identity-token/--staging/--trust-config" in err


def test_keyless_signing_names_staging_or_a_private_instance(tmp_path: Path) -> None:
    """``SignerSpec`` reaches keyless Sigstore's choices: the public staging instance, or a
    private one by its client trust config, read when the signer first needs it."""
    from evidencepack.signing.keyless import KeylessSigner

    staging = api.signer(api.SignerSpec(keyless=True, staging=True, identity_token="t"))
    assert isinstance(staging, KeylessSigner)
    config = tmp_path / "trust-config.json"
    config.write_text("{not json", encoding="utf-8")
    private = api.signer(api.SignerSpec(trust_config=config, identity_token="t"))
    assert isinstance(private, KeylessSigner)
    with pytest.raises(SigningError, match=f"from {config}"):
        private._signing_context()  # the private instance's config, nothing fetched


def test_options_objects_are_frozen_and_described() -> None:
    import dataclasses

    for name in ("CheckOptions", "BuildOptions", "SignerSpec", "PdfSignSpec", "VerifyPolicy"):
        cls = getattr(evidencepack, name)
        assert cls.__doc__, name
        assert dataclasses.is_dataclass(cls)
    options = api.BuildOptions(force=True)
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.force = False  # type: ignore[misc]
    source = Path(api.options.__file__).read_text(encoding="utf-8")  # type: ignore[attr-defined]
    fields = [f for c in (api.BuildOptions, api.VerifyPolicy) for f in dataclasses.fields(c)]
    for field in fields:  # every field has its docstring under it
        assert f"    {field.name}: " in source
    with pytest.raises(InvalidRequest, match="pdf_trust_root is used by rebuild"):
        api.VerifyOptions(pdf_trust_roots=("root.pem",))


def test_every_api_module_name_resolves() -> None:
    for name, module in api._API.items():
        assert getattr(api, name) is getattr(importlib.import_module(module), name), name
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = api.nope  # type: ignore[attr-defined]


def test_the_plugin_types_are_public_and_lazy() -> None:
    from evidencepack.readers.base import Format
    from evidencepack.signing.sign import PackSigner

    assert plugins.Format is Format
    assert plugins.PackSigner is PackSigner
    for name in plugins.__all__:
        value = getattr(plugins, name)
        assert name in ("ENTRY_POINT_GROUP", "Detector", "Parser") or value.__doc__, name
    assert plugins.ENTRY_POINT_GROUP == "evidencepack.formats"
    fmt = plugins.Format(
        id="w44-test-format",
        kind="runs",
        tool="test",
        detect=lambda probe: False,
        parse=None,  # type: ignore[arg-type]
    )
    try:
        named = plugins.register_format(fmt, plugin="w44 0.1")
        assert named.plugin == "w44 0.1"
        assert "w44 0.1: w44-test-format" in plugins.installed_plugins()
    finally:
        plugins.unregister_format("w44-test-format")
    assert not any("w44-test-format" in p for p in plugins.installed_plugins())


def test_the_api_page_names_every_options_object_and_plugin_type() -> None:
    page = (Path(__file__).parent.parent / "docs" / "reference" / "api.md").read_text(
        encoding="utf-8"
    )
    options = [n for n in api._MODULES["options"] if n != "PathLike"]
    public = ("Detector", "Parser")  # the callables' aliases: named as detect and parse
    named = set(re.findall(r"\w+", page))
    missing = [n for n in (*options, *plugins.__all__) if n not in named and n not in public]
    assert missing == []
