"""Judging EverMemBench: multiple choice by the released letter rule under every judge; open
answers by the rule judge, our own-wording LLM judge, or judge=official with the released
prompts read from a checkout (here a stand-in file with the same keys and placeholders)."""

from types import SimpleNamespace

import pytest

from memrecall.benchmarks.evermembench import BENCHMARK, official
from memrecall.errors import MemrecallError


def item(qid="F_SH_Top01_001", form="open", answer="65%", hyp="It peaked at 65%.", q="CPU?"):
    return {
        "question_id": qid,
        "question_type": qid.split("_Top")[0],
        "is_abstention": False,
        "question": q,
        "answer": answer,
        "hypothesis": hyp,
        "form": form,
        "options": [],
    }


@pytest.mark.parametrize(
    "hyp, label",
    [("C", True), ("c) security review", True), ("B", False), ("I cannot tell", False)],
)
def test_multiple_choice_is_fixed_by_the_released_rule(hyp, label):
    it = item("MA_C_Top01_001", "multiple_choice", "C", hyp)
    v = BENCHMARK.fixed_verdict(it)
    assert v.label is label and v.reason.startswith("exact-match")
    assert BENCHMARK.rule_verdict(it) == v


def test_the_marker_quirk_is_said():
    v = BENCHMARK.fixed_verdict(item("MA_C_Top01_001", "multiple_choice", "A", "no idea"))
    assert v.label is True and "marker read as its first A-D letter" in v.reason


def test_open_answers_are_not_fixed_and_go_to_the_rules():
    assert BENCHMARK.fixed_verdict(item()) is None
    assert BENCHMARK.rule_verdict(item()).label is True
    assert BENCHMARK.rule_verdict(item(hyp="It peaked at 80%.")).label is False


def test_own_wording_prompt():
    p = BENCHMARK.judge_prompt(item())
    text = p.messages[0]["content"]
    assert "Gold answer: 65%" in text and "Response: It peaked at 65%." in text
    assert p.kind == "evermembench" and text.rstrip().endswith("yes or no.")
    assert set(BENCHMARK.judge_templates()) == {"evermembench"}


PROMPTS = """\
llm_judge:
  system_prompt: |
    You grade answers.
  user_prompt: |
    Q: {question}
    Gold: {golden_answer}
    Got: {generated_answer}
    Reply {{"label": "CORRECT"}} or {{"label": "WRONG"}}.
"""


@pytest.fixture
def checkout(tmp_path):
    cfg = tmp_path / "eval" / "config"
    cfg.mkdir(parents=True)
    (cfg / "prompts.yaml").write_text(PROMPTS)
    (cfg / "pipeline.yaml").write_text("evaluate:\n  model: google/gemini-3-flash-preview\n")
    return cfg / "prompts.yaml"


class FakeClient:
    def __init__(self, replies):
        self.replies, self.sent = list(replies), []
        self.stats = {"calls": 0, "cached": 0, "failed": 0}

    def complete_many(self, messages, desc=""):
        self.sent += messages
        out = []
        for m, r in zip(messages, self.replies):
            err = r if isinstance(r, Exception) else None
            out.append(
                SimpleNamespace(
                    text=None if err else r,
                    error=str(err) if err else None,
                    model="gemini/gemini-3-flash-preview",
                    request_hash="h",
                    input_tokens=10,
                    output_tokens=5,
                    reasoning_tokens=0,
                    cost_usd=0.001,
                    latency_s=0.1,
                )
            )
        return out


def test_official_reads_the_checkout_and_the_released_parse(checkout):
    items = [
        item(),
        item("F_MH_Top01_001", hyp="no"),
        item("F_TP_Top01_001", hyp="x"),
        item("MA_U_Top01_001", "multiple_choice", "B", "B"),
        item("F_SH_Top01_003"),
    ]
    client = FakeClient(
        ['Same value. {"label": "CORRECT"}', "WRONG", RuntimeError("boom"), "CORRECT"]
    )
    rows, stats = BENCHMARK.judge_official(
        items, {"official_script": str(checkout), "model": "gemini/gemini-3-flash-preview"}, client
    )
    assert [r["label"] for r in rows] == [True, False, None, True, True]
    assert [r["strict_label"] for r in rows] == [True, None, None, True, None]
    assert (
        rows[2]["error"].startswith("judge call failed") and rows[3]["judge_model"] == "exact-match"
    )
    assert len(client.sent) == 4  # multiple choice is never sent
    system, user = client.sent[0]
    assert system == {"role": "system", "content": "You grade answers.\n"}
    assert user["content"].startswith("Q: CPU?\nGold: 65%\nGot: It peaked at 65%.\n")
    assert '{"label": "CORRECT"}' in user["content"]
    assert stats["official_script_sha256"] == official.sha256_file(checkout)
    assert stats["released_model"] == "google/gemini-3-flash-preview"


def test_official_needs_a_usable_checkout(tmp_path, checkout):
    with pytest.raises(MemrecallError, match="needs judge.official_script"):
        official.load(None)
    with pytest.raises(MemrecallError, match="not found"):
        official.load(tmp_path / "nope.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("llm_judge:\n  system_prompt: s\n  user_prompt: '{question} {other}'\n")
    with pytest.raises(MemrecallError, match="does not format"):
        official.load(bad)
    bad.write_text("answer: {}\n")
    with pytest.raises(MemrecallError, match="has no llm_judge"):
        official.load(bad)


@pytest.mark.parametrize(
    "kind, model, ok",
    [
        ("official", "gemini/gemini-3-flash-preview", True),
        ("official", "gpt-4o-2024-08-06", False),
        ("llm", "gemini/gemini-3-flash-preview", False),
        ("rule", None, False),
    ],
)
def test_comparable_only_with_the_released_prompts_and_model(kind, model, ok):
    comparable, why = BENCHMARK.comparability({"kind": kind, "model": model})
    assert comparable is ok and "multiple choice" in why
