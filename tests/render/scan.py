"""Parse rendered HTML with the standard library: elements, attributes and text, for assertions."""

from __future__ import annotations

import re
from html.parser import HTMLParser

# Every attribute the report may carry, with the only shape its value may take. Values from the
# document never reach an attribute, so each is a fixed word, a number or a numbered anchor.
_NUMBERS = re.compile(r"^-?[0-9.]+( -?[0-9.]+)*$")
ATTRIBUTE_SHAPES: dict[str, re.Pattern[str]] = {
    "charset": re.compile(r"^utf-8$"),
    "lang": re.compile(r"^en$"),
    "http-equiv": re.compile(r"^Content-Security-Policy$"),
    "name": re.compile(r"^(referrer|viewport|generator|dcterms\.created|dcterms\.modified)$"),
    "content": re.compile(
        r"^(default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"
        r"|no-referrer|width=device-width, initial-scale=1|evidencepack|\d{4}-\d{2}-\d{2})$"
    ),
    "class": re.compile(r"^[a-z0-9 -]+$"),
    # page 1's section carries the pack digest for the running footer: 64 hex digits, ours
    "data-pack-digest": re.compile(r"^[0-9a-f]{64}$"),
    "id": re.compile(r"^[a-z]+-[a-z0-9]+$"),
    "href": re.compile(r"^#[a-z]+-[a-z0-9]+$"),
    "colspan": re.compile(r"^\d+$"),
    "xmlns": re.compile(r"^http://www\.w3\.org/2000/svg$"),
    "viewbox": _NUMBERS,
    "font-family": re.compile(r"^DejaVu Sans$"),
    "font-weight": re.compile(r"^bold$"),
    "text-anchor": re.compile(r"^(start|middle|end)$"),
    "fill": re.compile(r"^(#[0-9a-f]{3}([0-9a-f]{3})?|none)$"),
    "stroke": re.compile(r"^#[0-9a-f]{3}([0-9a-f]{3})?$"),
    "stroke-dasharray": _NUMBERS,
    "points": re.compile(r"^([0-9.]+,[0-9.]+( [0-9.]+,[0-9.]+)*)?$"),
    **dict.fromkeys(
        (
            "width",
            "height",
            "x",
            "y",
            "x1",
            "x2",
            "y1",
            "y2",
            "dx",
            "dy",
            "cx",
            "cy",
            "r",
            "font-size",
            "stroke-width",
            "fill-opacity",
        ),
        _NUMBERS,
    ),
}


class Scan(HTMLParser):
    """Start tags with their attributes, and the text (entities decoded) in document order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.text: list[str] = []
        self.style_text: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        if tag == "style":
            self._in_style = False

    def handle_data(self, data: str) -> None:
        (self.style_text if self._in_style else self.text).append(data)

    def names(self) -> list[str]:
        return [tag for tag, _ in self.tags]

    def all_text(self) -> str:
        return " ".join(" ".join(self.text).split())


def scan(html: str) -> Scan:
    parser = Scan()
    parser.feed(html)
    parser.close()
    return parser


def bad_attributes(parsed: Scan) -> list[str]:
    """Every attribute whose name is unexpected or whose value has the wrong shape."""
    problems = []
    for tag, attrs in parsed.tags:
        for name, value in attrs:
            shape = ATTRIBUTE_SHAPES.get(name)
            if shape is None or value is None or not shape.match(value):
                problems.append(f"<{tag} {name}={value!r}>")
    return problems


def assert_names_keyless_signer(html: str, identity: str, issuer: str) -> None:
    """Page 1's signer and verify lines, the evidence-capture row and the signature section
    name a keyless signer's identity and issuer (plain names: no shell quoting needed)."""
    text = scan(html).all_text()
    assert f"Signer: keyless Sigstore signature by {identity} (OIDC issuer {issuer})" in text
    options = f"--cert-identity {identity} --cert-oidc-issuer {issuer}"
    assert f"Verify: evidencepack verify PACK {options}" in text
    capture = scan(html.split("Evidence capture", 1)[1].split("</tr>", 1)[0]).all_text()
    assert f"signed: keyless Sigstore signature by {identity} (OIDC issuer {issuer})" in capture
    assert f"Signed by {identity} (OIDC issuer {issuer}" in text
