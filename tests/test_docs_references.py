"""What the docs and the code's comments point at exists: every relative link of README.md and
docs/ resolves, and every file of this repository that they name by path (src/memrecall/...,
docs/..., bench/..., stages/..., conf/..., tests/..., examples/...) is there. A renamed or
removed file otherwise leaves readers a path to nothing: the planner cited a performance page
for a week after that page was split and renamed. The tests themselves are not read (they name
the files they write)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import REPO

DOCS = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")
# A path of this repository, as docs and comments write it. Placeholders (NAME, x.py) and the
# files that commands write (reports/, artifacts/) are not sources, so they are not matched.
REPO_PATH = re.compile(
    r"(?<![\w./-])((?:src/memrecall|docs|bench|stages|conf|tests|examples)/[\w./-]*[\w-]"
    r"\.(?:py|md|yaml|yml|txt|csv|json))\b"
)
PLACEHOLDER = re.compile(r"(^|/)([A-Z][A-Z_]+|x)\.|/[A-Z][A-Z_]+/")


def _sources() -> list[Path]:
    code = [
        p
        for top in ("src", "bench", "stages", "conf", "examples")
        for p in (REPO / top).rglob("*")
        if p.suffix in (".py", ".yaml", ".yml") and "__pycache__" not in p.parts
    ]
    return [*DOCS, *sorted(code), REPO / "dvc.yaml", REPO / "Makefile"]


def test_every_relative_link_resolves():
    broken = [
        f"{doc.relative_to(REPO)}: {target}"
        for doc in DOCS
        for target in LINK.findall(doc.read_text(encoding="utf-8"))
        if not target.startswith(("http://", "https://", "mailto:"))
        and not (doc.parent / target).exists()
    ]
    assert not broken, "links to nothing:\n" + "\n".join(broken)


def test_every_cited_repository_path_exists():
    missing = sorted(
        {
            f"{src.relative_to(REPO)}: {path}"
            for src in _sources()
            for path in REPO_PATH.findall(src.read_text(encoding="utf-8"))
            if not PLACEHOLDER.search(path) and not (REPO / path).exists()
        }
    )
    assert not missing, "cited paths that are not in the repository:\n" + "\n".join(missing)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("see docs/judges-and-comparability.md, and", ["docs/judges-and-comparability.md"]),
        ("(src/memrecall/plan/read.py)", ["src/memrecall/plan/read.py"]),
        ("`python stages/NAME.py`", ["stages/NAME.py"]),
        ("LongMemEval's src/evaluation/evaluate_qa.py", []),
        ("its eval/src/core/loaders.py", []),
    ],
)
def test_the_path_pattern_reads_repository_paths_only(text, found):
    assert REPO_PATH.findall(text) == found


def test_placeholders_are_not_checked():
    assert PLACEHOLDER.search("stages/NAME.py") and PLACEHOLDER.search("bench/x.py")
    assert not PLACEHOLDER.search("src/memrecall/plan/read.py")
