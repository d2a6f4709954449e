"""retrieval=plugin: the protocol (index once, search per query, turns with roles and dates,
granularities), the MeMesh FTS5 example with the bundled vectors, identity in the metadata, and
a clear error for each way a plug-in can misbehave."""

from __future__ import annotations

import importlib
import itertools
import sys
import textwrap

import polars as pl
import pytest

from confs import group
from conftest import REPO
from memrecall.artifacts import read_meta, read_table
from memrecall.hashing import sha256_file
from memrecall.plugins import PluginError, plugin_identity
from memrecall.retrieval.embed import run_embed
from memrecall.retrieval.retrieve import run_retrieve
from tables import write_downloaded
from test_retrieval_stages import EMBEDDER, SESSIONS, inputs  # noqa: F401  (fixture)

_names = itertools.count()


def write_plugin(tmp_path, monkeypatch, source: str) -> str:
    """A plug-in module in a fresh folder that becomes the working directory (as the project
    root is for a stage); returns its module name."""
    name = f"memrecall_testplug_{next(_names)}"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(source))
    monkeypatch.chdir(tmp_path)
    importlib.invalidate_caches()
    return name


def cfg(name, obj="Ret", options=None, top_k=3, code=None):
    return {
        "method": "plugin",
        "top_k": top_k,
        "callable": f"{name}:{obj}",
        "options": options or {},
        "code": code or f"{name}.py",
    }


def run(inputs, rcfg, out="cand.parquet", emb=None):  # noqa: F811
    rcfg = group("retrieval", "plugin", **rcfg)  # the shape conf/ gives a stage
    d = inputs["dir"]
    return run_retrieve(
        rcfg,
        EMBEDDER,
        questions=inputs["questions"],
        embeddings=emb or str(d / "missing_embeddings.parquet"),
        out=str(d / out),
        sessions=inputs["sessions"],
        turns=inputs["turns"],
    )


RECORDER = """
    CALLS = []
    class Ret:
        granularity = "{gran}"
        def __init__(self, boost="answer"):
            self.boost = boost
        def index(self, haystack):
            CALLS.append(("index", haystack.question_id, haystack.question_date,
                          [(s.session_id, s.date, [(t.index, t.role) for t in s.turns])
                           for s in haystack.sessions]))
            return Idx(self, haystack)
    class Idx:
        def __init__(self, ret, haystack):
            self.ret, self.h = ret, haystack
        def search(self, query, k):
            CALLS.append(("search", query.question_id, query.text, query.variant, k))
            out = []
            for pos, s in enumerate(self.h.sessions):
                score = (1.0 if s.session_id.startswith(self.ret.boost) else 0.0) - pos / 100
                if "{gran}" == "session":
                    out.append((s.session_id, score))
                else:
                    out += [(f"{{s.session_id}}_{{t.index + 1}}", score + t.index / 1000)
                            for t in s.turns if t.role == "user"]
            return out[::-1]   # not sorted: memrecall sorts
        def close(self):
            CALLS.append(("close", self.h.question_id))
"""


def test_protocol_index_once_turns_dates_and_ranking(inputs, tmp_path, monkeypatch):  # noqa: F811
    name = write_plugin(tmp_path, monkeypatch, RECORDER.format(gran="session"))
    cands = run(inputs, cfg(name, top_k=2))
    calls = sys.modules[name].CALLS
    assert [c[0] for c in calls] == ["index", "search", "close"] * 2
    index_q1 = calls[0]
    assert index_q1[1:3] == ("q_boots", "2023/06/01 (Thu) 10:00")
    # Haystack order, each session's date, its turns with roles (no has_answer: that is gold).
    assert index_q1[3] == [
        (sid, "2023/05/01 (Mon) 10:00", [(0, "user"), (1, "assistant")])
        for sid in ["s_pasta", "answer_1", "s_tax"]
    ]
    assert calls[1] == ("search", "q_boots", "Where did I buy my hiking boots?", 0, 2)
    got = {
        q: list(zip(g["session_id"], g["score"]))
        for q, g in cands.sort("rank").group_by("question_id", maintain_order=True)
    }
    assert {q[0] if isinstance(q, tuple) else q: v for q, v in got.items()} == {
        "q_boots": [("answer_1", 0.99), ("s_pasta", 0.0)],
        "q_sister": [("answer_2", 1.0), ("answer_1", 0.97)],
    }
    assert "turn_indices" not in cands.columns


def test_round_granularity_aggregates_to_sessions(inputs, tmp_path, monkeypatch):  # noqa: F811
    t = inputs["turns_df"]
    extra = pl.DataFrame(
        [("answer_1", 2, "user", "They were 120 dollars.", False)], schema=t.schema, orient="row"
    )
    write_downloaded(pl.concat([t, extra]), inputs["turns"], table="turns")
    name = write_plugin(tmp_path, monkeypatch, RECORDER.format(gran="round"))
    cands = run(inputs, cfg(name, top_k=3))
    boots = cands.filter(pl.col("question_id") == "q_boots").sort("rank")
    assert boots["session_id"].to_list() == ["answer_1", "s_pasta", "s_tax"]
    # Session score = its best round; user turns best first (turn 2 scored above turn 0).
    assert boots["score"].to_list()[0] == pytest.approx(0.99 + 2 / 1000)
    assert boots["turn_indices"].to_list() == [[2, 0], [0], [0]]
    # k is everything the plug-in could return: the haystack's user turns.
    assert ("search", "q_boots", "Where did I buy my hiking boots?", 0, 4) in sys.modules[
        name
    ].CALLS


def test_memesh_example_with_bundled_vectors(inputs, fresh_cache, monkeypatch):  # noqa: F811
    d = inputs["dir"]
    emb = str(d / "embeddings.parquet")
    run_embed(EMBEDDER, sessions=inputs["sessions"], turns=inputs["turns"], out=emb)
    monkeypatch.chdir(REPO)
    for fusion in ("rrf", "max", "weighted", "fts5"):
        rcfg = {
            "method": "plugin",
            "top_k": 4,
            "callable": "examples.memesh_fts5:MeMeshRetriever",
            "options": {"fusion": fusion},
            "code": "examples/memesh_fts5.py",
        }
        cands = run(inputs, rcfg, out=f"{fusion}.parquet", emb=emb)
        top = dict(
            cands.filter(pl.col("rank") == 1).select("question_id", "session_id").iter_rows()
        )
        assert top == {"q_boots": "answer_1", "q_sister": "answer_2"}, fusion
        assert cands.group_by("question_id").len()["len"].to_list() == [3, 4] or sorted(
            cands.group_by("question_id").len()["len"].to_list()
        ) == [3, 4]
        meta = read_meta(d / f"{fusion}.parquet")
        ident = meta["params"]["retrieval"]["plugin"]
        assert ident["code"] == {
            "file": "examples/memesh_fts5.py",
            "sha256": sha256_file(REPO / "examples/memesh_fts5.py"),
        }
        assert ident["options"] == {"fusion": fusion}
    # Fusion changes scores: RRF of two first ranks is 2/61.
    rrf = read_table(d / "rrf.parquet")
    assert rrf.filter(pl.col("rank") == 1)["score"].to_list() == pytest.approx([2 / 61] * 2)
    w = read_table(d / "weighted.parquet")
    assert w.filter(pl.col("rank") == 1)["score"].to_list() == pytest.approx([1.0, 1.0])


def test_identity_follows_code_and_options(tmp_path, monkeypatch):
    name = write_plugin(tmp_path, monkeypatch, "class Ret:\n    pass\n")
    a = plugin_identity(cfg(name), "retrieval")
    (tmp_path / f"{name}.py").write_text("class Ret:\n    granularity = 'session'\n")
    b = plugin_identity(cfg(name), "retrieval")
    c = plugin_identity(cfg(name, options={"k1": 1.2}), "retrieval")
    assert a["code"]["file"] == f"{name}.py" and a["code"]["sha256"] != b["code"]["sha256"]
    assert b["code"] == c["code"] and b != c
    # An installed distribution is known by its version.
    tq = plugin_identity(
        {"callable": "tqdm.auto:tqdm", "options": {}, "code": sys.modules["tqdm"].__path__[0]},
        "retrieval",
    )
    import tqdm

    assert tq["code"] == {"distribution": "tqdm", "version": tqdm.__version__}


def test_module_in_a_package_hashes_the_package(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    pkg = tmp_path / f"memrecall_testpkg_{next(_names)}"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "ret.py").write_text("from ..helpers import X\nclass Ret:\n    pass\n")
    (pkg / "helpers.py").write_text("X = 1\n")
    importlib.invalidate_caches()
    spec = {"callable": f"{pkg.name}.sub.ret:Ret", "options": {}, "code": pkg.name}
    a = plugin_identity(spec, "retrieval")
    (pkg / "helpers.py").write_text("X = 2\n")  # a helper module changes: so does the identity
    b = plugin_identity(spec, "retrieval")
    assert a["code"]["package"] == pkg.name and a["code"]["sha256"] != b["code"]["sha256"]


BAD = {
    "missing_index": ("class Ret:\n    pass\n", r"has no method index\(\)"),
    "index_without_search": (
        "class Ret:\n    def index(self, h):\n        return 3\n",
        r"index\(\) returned a int without a search\(\) method",
    ),
    "not_a_list": (
        "class Ret:\n    def index(self, h):\n        return self\n"
        "    def search(self, q, k):\n        return {'answer_1': 1.0}\n",
        r"question 'q_boots'.*returned a dict; expected a list of \(id, score\) pairs",
    ),
    "bad_pair": (
        "class Ret:\n    def index(self, h):\n        return self\n"
        "    def search(self, q, k):\n        return [('answer_1', 'high')]\n",
        r"question 'q_boots'.*result \[0\] is \('answer_1', 'high'\); expected a list of",
    ),
    "nan_score": (
        "class Ret:\n    def index(self, h):\n        return self\n"
        "    def search(self, q, k):\n        return [('answer_1', float('nan'))]\n",
        r"result \[0\] is \('answer_1', nan\)",
    ),
    "not_in_haystack": (
        "class Ret:\n    def index(self, h):\n        return self\n"
        "    def search(self, q, k):\n        return [('answer_2', 1.0)]\n",
        r"question 'q_boots'.*'answer_2', which is not a session of this question's haystack; "
        r"expected session ids",
    ),
    "bad_round": (
        "class Ret:\n    granularity = 'round'\n    def index(self, h):\n        return self\n"
        "    def search(self, q, k):\n        return [('answer_1_2', 1.0)]\n",
        r"'answer_1_2', which is not a round.*'<session_id>_<i\+1>' with i the index of a user",
    ),
    "duplicate": (
        "class Ret:\n    def index(self, h):\n        return self\n"
        "    def search(self, q, k):\n        return [('answer_1', 1.0), ('answer_1', 0.5)]\n",
        r"question 'q_boots'.*returned the id 'answer_1' twice; expected each id at most once",
    ),
    "bad_granularity": (
        "class Ret:\n    granularity = 'turn'\n    def index(self, h):\n        return self\n",
        r"granularity is 'turn'; expected one of",
    ),
    "search_raises": (
        "class Ret:\n    def index(self, h):\n        return self\n"
        "    def search(self, q, k):\n        return 1 / 0\n",
        r"question 'q_boots': search\(\) raised ZeroDivisionError: division by zero",
    ),
    "import_fails": (
        "import not_a_module_anywhere\nclass Ret:\n    pass\n",
        r"importing .* failed: ModuleNotFoundError",
    ),
    "bad_options": (
        "class Ret:\n    def __init__(self, fusion='rrf'):\n        pass\n",
        r"options \['nope'\] do not fit Ret\(fusion='rrf'\)",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_plugins_are_clear_errors(case, inputs, tmp_path, monkeypatch):  # noqa: F811
    source, pattern = BAD[case]
    name = write_plugin(tmp_path, monkeypatch, source)
    options = {"nope": 1} if case == "bad_options" else {}
    with pytest.raises(PluginError, match=pattern) as e:
        run(inputs, cfg(name, options=options))
    assert f"plug-in '{name}:Ret' (retrieval.callable)" in str(e.value)
    assert not (inputs["dir"] / "cand.parquet").exists()  # nothing half-written


def test_unresolvable_names_and_unwatched_code(inputs, tmp_path, monkeypatch):  # noqa: F811
    name = write_plugin(tmp_path, monkeypatch, "class Ret:\n    pass\n")
    with pytest.raises(PluginError, match=r"module 'no_such_mod' cannot be found"):
        run(inputs, {**cfg(name), "callable": "no_such_mod:Ret"})
    with pytest.raises(PluginError, match=rf"module '{name}' has no attribute 'Nope'"):
        run(inputs, cfg(name, obj="Nope"))
    with pytest.raises(PluginError, match=r"not of the form 'package.module:name'"):
        run(inputs, {**cfg(name), "callable": "just_a_name"})
    (tmp_path / "other.py").write_text("")
    with pytest.raises(
        PluginError,
        match=rf"retrieval.code is 'other.py', which does not hold "
        rf"the plug-in's module file {name}.py",
    ):
        run(inputs, cfg(name, code="other.py"))


def test_readme_minimal_example_runs(inputs, tmp_path, monkeypatch):  # noqa: F811
    """The README's complete minimal retriever, verbatim, as a namespace package mymem/."""
    import re

    readme = (REPO / "README.md").read_text()
    section = readme[readme.index("## Plug-ins") :]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    pkg = tmp_path / f"mymem_{next(_names)}"
    pkg.mkdir()
    (pkg / "keyword.py").write_text(code)
    monkeypatch.chdir(tmp_path)
    importlib.invalidate_caches()
    rcfg = {
        "method": "plugin",
        "top_k": 2,
        "callable": f"{pkg.name}.keyword:KeywordRetriever",
        "options": {"lowercase": True},
        "code": pkg.name,
    }
    cands = run(inputs, rcfg)
    top = dict(cands.filter(pl.col("rank") == 1).select("question_id", "session_id").iter_rows())
    assert top == {"q_boots": "answer_1", "q_sister": "answer_2"}
    assert (
        read_meta(inputs["dir"] / "cand.parquet")["params"]["retrieval"]["plugin"]["code"]["file"]
        == f"{pkg.name}/keyword.py"
    )
