"""The documentation site's table of contents lists every page of docs/ (Sphinx with -W, which CI runs,
refuses a page in no toctree; this says so in the fast loop, without building the site), every page it lists
exists, and every figure the README shows is on a page of the site."""
import pathlib
import re

DOCS = pathlib.Path(__file__).resolve().parents[1] / "docs"


def toctree_entries(text: str) -> set:
    entries = set()
    for block in re.findall(r"```\{toctree\}\n(.*?)```", text, re.S):
        entries.update(line.strip() for line in block.splitlines() if line.strip() and not line.startswith(":"))
    return entries


def test_every_page_is_in_the_table_of_contents():
    listed = toctree_entries((DOCS / "index.md").read_text(encoding="utf-8"))
    pages = {path.stem for path in DOCS.glob("*.md")} - {"index"}
    assert pages - listed == set(), f"add these pages of docs/ to a toctree of docs/index.md: {pages - listed}"
    assert listed - pages == set(), f"docs/index.md lists pages that do not exist: {listed - pages}"


def test_every_figure_of_the_readme_is_on_a_page_of_the_site():
    readme = (DOCS.parent / "README.md").read_text(encoding="utf-8")
    figures = set(re.findall(r"\]\(docs/([\w.-]+\.png)\)", readme))
    assert figures, "the README shows no figure of docs/"
    pages = " ".join(path.read_text(encoding="utf-8") for path in DOCS.rglob("*.md"))
    shown = set(re.findall(r"\]\((?:\.\./)?([\w.-]+\.png)\)", pages))
    assert figures - shown == set(), f"README figures on no docs page: {figures - shown}"
