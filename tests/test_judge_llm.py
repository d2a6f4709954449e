"""The LLM judge: per-type prompt assembly, strict parsing, and the full path through the shared
LLM client against a local OpenAI-compatible HTTP server (tests/fake_openai_server.py)."""

from __future__ import annotations

import re

import polars as pl
import pytest

from confs import group
from conftest import judge_cases
from fake_openai_server import FakeOpenAIServer, fake_runtime, last_user
from memrecall.benchmarks.longmemeval import BENCHMARK as LME
from memrecall.benchmarks.longmemeval.judge import PROMPT_HASHES, build_prompt, prompt_kind
from memrecall.errors import ConfigError
from memrecall.eval.qa_metrics import qa_metrics
from memrecall.judge.llm_judge import parse_verdict
from memrecall.judge.stage import judge_answers

CASES = judge_cases()["cases"]
# Replies the fake judge gives instead of a clean yes/no, by case id.
UNPARSEABLE = {
    "ssu-name-wrong": "The response is incorrect.",
    "ku-duration": "Maybe.",
    "ms-yes": "",
}
STYLED = {
    "ssu-name-exact": "**Yes**",
    "tr-days-exact": " yes, it matches",
    "ku-old-only": "No.",
    "ssp-iphone": "YES",
}
FAILING = "ms-bedtime"  # the server answers 500 to every attempt


def _hyp_of(prompt: str) -> str:
    return re.search(r"\nResponse: (.*)\n\nIs the response correct\?", prompt, re.S).group(1)


BY_HYP = {c["hypothesis"].strip(): c for c in CASES}


def test_cases_that_share_a_response_share_their_verdict():
    """The fake judge server answers by the response it is sent (BY_HYP), so two cases with one
    response get one verdict: they must expect the same."""
    expected: dict[str, set[bool]] = {}
    for c in CASES:
        expected.setdefault(c["hypothesis"].strip(), set()).add(c["expected"])
    split = [c["id"] for c in CASES if len(expected[c["hypothesis"].strip()]) > 1]
    assert not split, f"these cases share a response but not its verdict: {split}"


def fake_judge(messages):
    case = BY_HYP[_hyp_of(last_user(messages))]
    if case["id"] in UNPARSEABLE:
        return UNPARSEABLE[case["id"]]
    if case["id"] in STYLED:
        return STYLED[case["id"]]
    return "yes" if case["expected"] else "no"


def tables(extra_failed: int = 2):
    qs, ans = [], []
    for c in CASES:
        qs.append(
            {
                "question_id": c["id"] + ("_abs" if c.get("abstention") else ""),
                "question_type": c["type"],
                "is_abstention": bool(c.get("abstention")),
                "question": c["question"],
                "answer": str(c["answer"]),
            }
        )
        ans.append(
            {"question_id": qs[-1]["question_id"], "hypothesis": c["hypothesis"], "error": None}
        )
    for i in range(extra_failed):  # reader calls that failed: must not reach the judge
        qs.append(
            {
                "question_id": f"zz-reader-failed-{i}",
                "question_type": "multi-session",
                "is_abstention": False,
                "question": "How many?",
                "answer": "3",
            }
        )
        ans.append(
            {
                "question_id": f"zz-reader-failed-{i}",
                "hypothesis": None,
                "error": "RateLimitError: 429 after 3 attempts",
            }
        )
    return pl.DataFrame(qs), pl.DataFrame(
        ans, schema={"question_id": pl.String, "hypothesis": pl.String, "error": pl.String}
    )


@pytest.fixture
def server():
    with FakeOpenAIServer(answer=fake_judge) as srv:
        yield srv


def judge_cfg(server, **over):
    return group(
        "judge",
        "gpt4o",
        **{
            "name": "fake",
            "model": "openai/fake-judge",
            **fake_runtime(server.url, num_retries=1),
            "max_tokens": 5,
            "concurrency": 4,
            "backoff_s": 0.01,
            **over,
        },
    )


# ---- prompt assembly -----------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_prompt_assembly(case):
    p = build_prompt(
        case["type"],
        case["question"],
        str(case["answer"]),
        case["hypothesis"],
        is_abstention=bool(case.get("abstention")),
    )
    assert len(p.messages) == 1 and p.messages[0]["role"] == "user"
    text = p.messages[0]["content"]
    assert f"Question: {case['question'].strip()}" in text
    assert str(case["answer"]).strip() in text
    assert _hyp_of(text) == case["hypothesis"].strip()
    assert text.rstrip().endswith("Reply with one word: yes or no.")
    kind = prompt_kind(case["type"], bool(case.get("abstention")))
    assert p.kind == kind and p.prompt_hash == PROMPT_HASHES[kind]
    markers = {
        "temporal-reasoning": "off by one",
        "knowledge-update": "updated one",
        "single-session-preference": "\nRubric: ",
        "abstention": "\nExplanation of why it cannot be answered: ",
    }
    for k, marker in markers.items():
        assert (marker in text) is (k == kind), (k, kind)
    if kind in ("default", "temporal-reasoning", "knowledge-update"):
        assert "\nReference answer: " in text


def test_prompt_kinds_and_hashes():
    assert prompt_kind("multi-session", False) == "default"
    assert prompt_kind("single-session-user", False) == "default"
    assert prompt_kind("temporal-reasoning", True) == "abstention"
    assert len(set(PROMPT_HASHES.values())) == len(PROMPT_HASHES) == 5


@pytest.mark.parametrize(
    "reply,label",
    [
        ("yes", True),
        ("Yes.", True),
        ("**Yes**", True),
        ('"no"', False),
        ("No, it is wrong", False),
        (" YES", True),
        ("\nno\n", False),
        ("The answer is yes", None),
        ("yesno", None),
        ("Maybe", None),
        ("", None),
        (None, None),
        ("noted: yes", None),
        ("Y", None),
    ],
)
def test_strict_parsing(reply, label):
    got, err = parse_verdict(reply)
    assert got is label
    assert (err is None) is (label is not None)


# ---- through the client, against the local server ------------------------------------------


def test_llm_judge_end_to_end(server, fresh_cache, fake_key):
    server.plan(BY_HYP_CASE_HYP[FAILING], ["500"] * 10)
    questions, answers = tables()
    cfg = judge_cfg(server)
    v = judge_answers(LME, questions, answers, cfg)

    assert v.height == len(CASES) + 2
    assert v["question_id"].to_list() == sorted(v["question_id"].to_list())
    got = {r["question_id"].removesuffix("_abs"): r for r in v.iter_rows(named=True)}
    for c in CASES:
        r = got[c["id"]]
        if c["id"] in UNPARSEABLE or c["id"] == FAILING:
            assert r["label"] is None and r["error"], c["id"]
            assert r["reader_failed"] is False
        else:
            assert r["label"] is c["expected"], c["id"]
            assert r["error"] is None
        kind = prompt_kind(c["type"], bool(c.get("abstention")))
        assert r["prompt_hash"] == PROMPT_HASHES[kind]
        assert r["judge_model"] == "openai/fake-judge"
    assert got["ssu-name-wrong"]["raw"] == "The response is incorrect."
    assert "unparseable" in got["ssu-name-wrong"]["error"]
    assert got[FAILING]["error"].startswith("judge call failed")
    for i in range(2):
        r = got[f"zz-reader-failed-{i}"]
        assert r["label"] is None and r["reader_failed"] is True
        assert r["error"].startswith("reader failed: RateLimitError")

    # Exactly the assembled prompts were sent, at temperature 0 with a short output budget,
    # and the reader-failed answers never reached the judge.
    sent = [b for b in server.bodies]
    assert {b["temperature"] for b in sent} == {0.0} and {b["max_tokens"] for b in sent} == {5}
    expected = {
        build_prompt(
            c["type"],
            c["question"],
            str(c["answer"]),
            c["hypothesis"],
            is_abstention=bool(c.get("abstention")),
        ).messages[0]["content"]
        for c in CASES
    }
    assert {b["messages"][0]["content"] for b in sent} == expected
    assert server.requests_for("How many?") == 0

    m = qa_metrics(questions, v)
    assert m["judge_errors"] == len(UNPARSEABLE) + 1
    assert m["reader_errors"] == 2
    assert m["n_judged"] == len(CASES) - len(UNPARSEABLE) - 1

    # A rerun is answered from the cache: the only new requests are the failed call's attempts
    # (failures are not cached), and the paid-call journal gains no successful call.
    attempts = server.requests_for(BY_HYP_CASE_HYP[FAILING])
    assert attempts == 2  # one try + num_retries=1
    journal = fresh_cache / "llm" / "calls.jsonl"
    ok_calls = journal.read_text().count('"ok": true') + journal.read_text().count('"ok":true')
    assert ok_calls == len(CASES) - 1
    before = server.total_requests
    v2 = judge_answers(LME, questions, answers, cfg)
    assert server.total_requests - before == attempts
    assert (
        journal.read_text().count('"ok": true') + journal.read_text().count('"ok":true') == ok_calls
    )
    assert v2.drop("latency_s").equals(v.drop("latency_s"))


BY_HYP_CASE_HYP = {c["id"]: c["hypothesis"] for c in CASES}


def test_unknown_judge_kind():
    q, a = tables(0)
    with pytest.raises(ConfigError, match="judge.kind"):
        judge_answers(LME, q, a, {"name": "x", "kind": "oracle"})


def test_braces_in_the_data_are_not_placeholders():
    p = build_prompt(
        "single-session-user", "What did I write: {answer}?", "{hypothesis} x", "I wrote {question}"
    )
    text = p.messages[0]["content"]
    assert "What did I write: {answer}?" in text
    assert "{hypothesis} x" in text and "I wrote {question}" in text


def test_the_templates_sent_are_recorded_for_the_prompt_registry(server, fresh_cache, fake_key):
    from memrecall.benchmarks.longmemeval.judge import TEMPLATES
    from memrecall.judge.llm_judge import judge_with_llm

    by_id = {c["id"]: c for c in CASES}
    used = [c for c in CASES if c["id"] not in UNPARSEABLE and c["id"] != FAILING][:6]
    items = [
        {
            "question_id": c["id"],
            "question_type": c["type"],
            "is_abstention": bool(c.get("abstention")),
            "question": c["question"],
            "answer": str(c["answer"]),
            "hypothesis": c["hypothesis"],
        }
        for c in used
    ]
    _, stats = judge_with_llm(LME, items, judge_cfg(server))
    kinds = {prompt_kind(c["type"], bool(c.get("abstention"))) for c in used}
    assert set(stats["prompts"]) == {f"{k}:{PROMPT_HASHES[k]}" for k in kinds}
    sent = {b["messages"][0]["content"] for b in server.bodies}
    for pid, rec in stats["prompts"].items():
        kind = pid.split(":")[0]
        assert rec == {"stage": "judge", "name": kind, "template": TEMPLATES[kind]}
        # the recorded template, filled in for a question of that kind, is what was sent
        c = next(
            by_id[it["question_id"]]
            for it in items
            if prompt_kind(it["question_type"], it["is_abstention"]) == kind
        )
        filled = (
            rec["template"]
            .replace("{question}", c["question"].strip())
            .replace("{answer}", str(c["answer"]).strip())
            .replace("{hypothesis}", c["hypothesis"].strip())
        )
        assert filled in sent
