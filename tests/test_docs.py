"""The documentation site: README.md stays a short front door, every page of docs/ is in
mkdocs.yml's nav, the README's links reach pages that exist, and the generated reference pages
are current."""

from __future__ import annotations

import importlib.util
import re
from types import ModuleType
from typing import Any

from mkdocs.config import load_config

from .conftest import REPO_ROOT
from .docs_pages import DOCS

README_MAX_LINES = 350


def test_the_readme_is_a_short_front_door() -> None:
    lines = (REPO_ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines: move text to docs/"


def _nav_pages(nav: Any) -> list[str]:
    """The page files a mkdocs nav names, at any depth."""
    if isinstance(nav, str):
        return [nav] if nav.endswith(".md") else []
    if isinstance(nav, dict):
        return [page for value in nav.values() for page in _nav_pages(value)]
    if isinstance(nav, list):
        return [page for item in nav for page in _nav_pages(item)]
    return []


def _site_nav() -> list[str]:
    config = load_config(str(REPO_ROOT / "mkdocs.yml"))
    assert config["strict"] is True  # warnings fail the build, in CI and locally alike
    return _nav_pages(config["nav"])


def test_every_docs_page_is_in_the_nav_and_every_nav_entry_is_a_page() -> None:
    nav = _site_nav()
    pages = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    assert len(nav) == len(set(nav)), "a page is in the nav twice"
    assert sorted(set(nav) - pages) == [], "the nav names pages that are not there"
    missing = sorted(pages - set(nav))
    assert missing == [], f"pages under docs/ that mkdocs.yml's nav does not list: {missing}"
    for guide in ("procurement", "auditor", "pipeline"):
        assert f"guides/{guide}.md" in nav  # a guide per user, each one page


def test_the_nav_check_sees_a_page_left_out() -> None:
    nav = [{"Home": "index.md"}, {"Guides": [{"A": "guides/a.md"}, "guides/b.md"]}]
    assert _nav_pages(nav) == ["index.md", "guides/a.md", "guides/b.md"]
    assert _nav_pages([{"Site": "https://example.com/"}]) == []


_LINK = re.compile(r"\]\(([^)\s]+)\)")


def _slug(heading: str) -> str:
    """The anchor GitHub and Python-Markdown's toc both give a heading (for plain headings)."""
    text = re.sub(r"[^\w\s-]", "", heading.strip().lower())
    return re.sub(r"\s", "-", text)


def test_the_readmes_links_reach_files_and_headings_that_exist() -> None:
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    links = [link for link in _LINK.findall(readme) if not link.startswith(("http", "mailto:"))]
    assert len(links) > 20
    for link in links:
        target, _, anchor = link.partition("#")
        path = REPO_ROOT / target if target else REPO_ROOT / "README.md"
        assert path.exists(), f"README.md links to {link}: no such file"
        if anchor:
            headings = re.findall(r"^#+ (.+)$", path.read_text(encoding="utf-8"), re.M)
            assert anchor in {_slug(h) for h in headings}, f"README.md links to {link}: no heading"


def _gen_reference() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_reference", DOCS / "gen_reference.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_generated_reference_pages_are_current() -> None:
    gen = _gen_reference()
    for page, make in gen.PAGES.items():
        committed = (DOCS / page).read_text(encoding="utf-8")
        assert committed == make(), f"docs/{page} is stale: run python docs/gen_reference.py"
        assert page in _site_nav()


def test_a_readme_slug_is_the_sites_anchor() -> None:
    assert (
        _slug("The auditor's walk-through: verify, rebuild")
        == "the-auditors-walk-through-verify-rebuild"
    )
    assert _slug("Quick start (fresh machine)") == "quick-start-fresh-machine"
