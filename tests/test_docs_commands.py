"""Every shell block of README.md and docs/ runs as written, in a clone of the seeded project
(tests/repo_copy.py), with bash -e. A block preceded by `<!-- skip: REASON -->` needs what a test
machine lacks (a key, the network, ../shared/data, a cluster) and is reported as skipped with
that reason; a block preceded by `<!-- file: PATH -->` is written to PATH first (the README's
plug-in). The clone's conf/dataset/sample.yaml takes the seeded slice (dataset.limit=2), so an
experiment recomputes only what its overrides change."""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import REPO
from repo_copy import SEED_OVERRIDES

pytestmark = pytest.mark.slow
SHELL = {"bash", "sh", "shell", "console"}
FENCE = re.compile(r"^```(\w*)\s*$")
MARK = re.compile(r"^<!--\s*(skip|file):\s*(.*?)\s*-->\s*$")


@dataclass(frozen=True)
class Block:
    doc: str
    line: int
    lang: str
    text: str
    mark: tuple[str, str] | None  # ("skip", reason) | ("file", path)

    @property
    def id(self) -> str:
        return f"{self.doc}:{self.line}"


def blocks(path: Path) -> list[Block]:
    out, lines = [], path.read_text().splitlines()
    i, mark = 0, None
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m:
            lang, start, body = m.group(1), i + 1, []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            out.append(
                Block(str(path.relative_to(REPO)), start, lang, "\n".join(body) + "\n", mark)
            )
            mark = None
        elif lines[i].strip():
            mk = MARK.match(lines[i])
            mark = (mk.group(1), mk.group(2)) if mk else None
        i += 1
    return out


DOCS = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
ALL = [b for d in DOCS for b in blocks(d)]
SHELL_BLOCKS = [b for b in ALL if b.lang in SHELL]


def test_marks_are_well_formed():
    """A skip names its reason; a file mark sits on a block whose file a later block uses."""
    for b in ALL:
        if b.mark and b.mark[0] == "skip":
            assert len(b.mark[1]) > 10, f"{b.id}: a skip needs its reason"
        if b.mark and b.mark[0] == "file":
            assert b.lang != "" and not Path(b.mark[1]).is_absolute(), b.id
    assert any(b.mark and b.mark[0] == "file" for b in ALL)


def test_the_plugin_example_needs_no_extra_keys():
    """The README's plug-in command sets its options as the user would (a whole mapping)."""
    (cmd,) = [b for b in SHELL_BLOCKS if b.doc == "README.md" and "KeywordRetriever" in b.text]
    assert "retrieval.options={lowercase: true}" in cmd.text


@pytest.fixture
def scratch(project):
    """The clone, with the seeded slice as the dataset's default (what `dvc exp run -S ...`
    composes from conf/), and every file-marked block written out."""
    sample = project.repo / "conf/dataset/sample.yaml"
    (limit,) = [o.split("=", 1)[1] for o in SEED_OVERRIDES if o.startswith("dataset.limit=")]
    sample.write_text(sample.read_text() + f"limit: {limit}  # tests: the seeded slice\n")
    for b in ALL:
        if b.mark and b.mark[0] == "file":
            dst = project.repo / b.mark[1]
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.write_text(b.text)
    subprocess.run(["git", "add", "-A"], cwd=project.repo, check=True)
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "docs test"],
        cwd=project.repo,
        check=True,
    )
    return project


@pytest.mark.parametrize("block", SHELL_BLOCKS, ids=lambda b: b.id)
def test_shell_block_runs(block, request):
    if block.mark and block.mark[0] == "skip":
        pytest.skip(block.mark[1])
    project = request.getfixturevalue("scratch")
    proc = subprocess.run(
        ["bash", "-e", "-c", block.text],
        cwd=project.repo,
        env=project.env(),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, (
        f"{block.id} failed:\n{block.text}\n--- stdout\n"
        f"{proc.stdout[-3000:]}\n--- stderr\n{proc.stderr[-3000:]}"
    )
