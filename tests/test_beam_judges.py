"""BEAM's judges: judge=official reads a (test-made) checkout of the released code, fills its
prompt and casts its scores as that code does; the own-wording judge; the offline rule judge and
what it refuses to judge."""

from __future__ import annotations

import json
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from memrecall.benchmarks.beam import BENCHMARK, official, rules
from memrecall.benchmarks.beam.formats import ABILITIES
from memrecall.benchmarks.beam.judges import judge_official, judge_own
from memrecall.errors import MemrecallError

# A stand-in checkout in the released layout; its wording is ours (the released prompts are
# not ours to copy), its structure is the released code's.
PROMPTS = (
    'other = "x"\nunified_llm_judge_base_prompt = """Q: <question>\nItem: <rubric_item>\n'
    'Reply: <llm_response>\nJSON please."""\n'
)
EVALUATE = """
def evaluate_{a}(rubric, llm_response, probing_question, model):
    score = 0
    for item in rubric:
        prompt = unified_llm_judge_base_prompt.\\
            replace("<rubric_item>", item).\\
            replace("<llm_response>", llm_response)
        response = model.invoke(prompt).content.strip()
        response = parse_json_response(response=response)
        score += {cast}(response['score'])
    return dict(llm_judge_score=score / len(rubric))
"""
EQUIV = """
def llm_equivalence(first_paragraph, second_paragraph, llm):
    system_msg = {"role": "system", "content": "Same event? YES or NO."}
    user_msg = {"role": "user", "content": f"A: {first_paragraph}\\nB: {second_paragraph}"}
    response = llm.invoke([system_msg, user_msg]).content.lower()
    if "yes" in response:
        return True
    return False
"""
LLM = (
    'gpt_llm_obj = BuildLLm(model_url=None, model_name="gpt-4.1-mini", api_key="k", '
    "temperature=0)\n"
)


def checkout(tmp_path: Path, *, cast_eo="float", cast="int") -> Path:
    root = tmp_path / "BEAM"
    (root / "src" / "evaluation").mkdir(parents=True)
    (root / "src" / "prompts.py").write_text(PROMPTS)
    (root / "src" / "llm.py").write_text(LLM)
    code = (
        "".join(
            EVALUATE.format(a=a, cast=cast_eo if a == "event_ordering" else cast) for a in ABILITIES
        )
        + EQUIV
    )
    script = root / "src" / "evaluation" / "compute_metrics.py"
    script.write_text(textwrap.dedent(code))
    return script


def test_reads_prompt_fillings_casts_equivalence_and_model(tmp_path):
    got = official.read_checkout(checkout(tmp_path))
    assert got.model == "gpt-4.1-mini" and got.temperature == 0.0
    assert got.fillings["abstention"].cast == "int"
    assert got.fillings["event_ordering"].cast == "float"
    # <question> is left as it is: the released code never fills it
    assert (
        got.rubric_prompt("abstention", "ITEM", "RESP", "QUESTION")
        == "Q: <question>\nItem: ITEM\nReply: RESP\nJSON please."
    )
    msgs = got.equivalence_messages("first {x}", "second")
    assert msgs == [
        {"role": "system", "content": "Same event? YES or NO."},
        {"role": "user", "content": "A: first {x}\nB: second"},
    ]
    assert set(got.files) == {"src/evaluation/compute_metrics.py", "src/prompts.py", "src/llm.py"}
    assert all(len(h) == 64 for h in got.files.values())


def test_first_release_layout_is_found_too(tmp_path):
    script = checkout(tmp_path)
    root = script.parents[2]
    (root / "evaluation.py").write_text(script.read_text())
    (root / "prompts.py").write_text(PROMPTS)
    (root / "llm.py").write_text(LLM)
    got = official.read_checkout(root / "evaluation.py")
    assert set(got.files) == {"evaluation.py", "prompts.py", "llm.py"}


def test_a_checkout_it_cannot_reproduce_is_refused(tmp_path):
    with pytest.raises(MemrecallError, match="official_script"):
        official.read_checkout(None)
    script = checkout(tmp_path)
    script.write_text(
        script.read_text().replace("def evaluate_summarization", "def evaluate_summary")
    )
    with pytest.raises(MemrecallError, match="evaluate_summarization"):
        official.read_checkout(script)
    (script.parents[1] / "prompts.py").write_text('unified_llm_judge_base_prompt = "no slots"')
    with pytest.raises(MemrecallError, match="<rubric_item>"):
        official.read_checkout(script)


@dataclass
class Res:
    text: str | None
    error: str | None = None
    model: str = "gpt-4.1-mini"
    request_hash: str = "h"
    input_tokens: int = 10
    output_tokens: int = 2
    reasoning_tokens: int = 0
    cost_usd: float = 0.001
    latency_s: float = 0.1


class FakeClient:
    """Answers by a rule on the prompt text; records every call."""

    def __init__(self, answer):
        self.answer, self.calls = answer, []
        self.stats = {"calls": 0, "cached": 0, "failed": 0}

    def complete_many(self, messages, desc=""):
        self.calls += messages
        return [self.answer(m) for m in messages]


def item(qtype, rubric, hypothesis, qid=None):
    return {
        "question_id": qid or f"c_{qtype}_0",
        "question_type": qtype,
        "is_abstention": qtype == "abstention",
        "question": "Q?",
        "answer": "gold",
        "hypothesis": hypothesis,
        "rubric": rubric,
        "conversation_id": "c",
        "tier": "128K",
    }


def test_official_rubric_scores_with_the_released_int_cast(tmp_path):
    script = checkout(tmp_path)
    half = FakeClient(
        lambda m: Res(
            '{"score": 0.5, "reason": "partly"}'
            if "second" in m[0]["content"]
            else '{"score": 1.0}'
        )
    )
    rows, stats = judge_official(
        [item("information_extraction", ["first", "second"], "x")],
        {"official_script": str(script), "model": "gpt-4.1-mini"},
        half,
    )
    assert rows[0]["score"] == 0.5 and rows[0]["label"] is False  # int(0.5) = 0 -> (1 + 0) / 2
    assert len(half.calls) == 2 and half.calls[0][0]["role"] == "user"
    assert rows[0]["cost_usd"] == pytest.approx(0.002)
    assert stats["official_files"]["src/prompts.py"] and stats["official_model"] == "gpt-4.1-mini"


def test_official_judge_fault_is_an_error_not_a_wrong_answer(tmp_path):
    script = checkout(tmp_path)
    bad = FakeClient(lambda m: Res("I think it is fine"))
    rows, _ = judge_official(
        [item("knowledge_update", ["a"], "x")],
        {"official_script": str(script), "model": "gpt-4.1-mini"},
        bad,
    )
    assert rows[0]["score"] is None and rows[0]["label"] is None
    assert "rubric item 1" in rows[0]["error"]
    failed = FakeClient(lambda m: Res(None, error="timeout"))
    rows, _ = judge_official(
        [item("knowledge_update", ["a"], "x")],
        {"official_script": str(script), "model": "gpt-4.1-mini"},
        failed,
    )
    assert rows[0]["score"] is None and "timeout" in rows[0]["error"]


def test_official_event_ordering_aligns_line_by_line_then_tau(tmp_path):
    script = checkout(tmp_path)

    def answer(m):
        if m[0]["role"] == "system":  # equivalence: A names the rubric item, B the line
            a, b = m[1]["content"].split("\n")
            return Res("YES" if a[3:].lower() in b.lower() else "NO")
        return Res('{"score": 1.0}')

    client = FakeClient(answer)
    rubric = ["wiring", "database", "gauge"]
    rows, _ = judge_official(
        [item("event_ordering", rubric, "1. database\n2. wiring\n3. gauge")],
        {"official_script": str(script), "model": "gpt-4.1-mini"},
        client,
    )
    detail = json.loads(rows[0]["raw"])
    assert detail["aligned"] == ["database", "wiring", "gauge"]
    assert rows[0]["score"] == pytest.approx(detail["ordering"]["tau_norm"])
    assert 0 < rows[0]["score"] < 1 and detail["rubric_score"] == 1.0
    # line 1 tried wiring (no), database (yes); line 2 wiring (yes); line 3 gauge (database used)
    eq_calls = [c for c in client.calls if c[0]["role"] == "system"]
    assert len(eq_calls) == 2 + 1 + 1


def test_own_judge_keeps_half_points_and_maps_order_lines():
    client = FakeClient(
        lambda m: Res("[1, 0.5]" if "Rubric items" in m[0]["content"] else "[2, 1, 0]")
    )
    rows, stats = judge_own(
        [
            item("summarization", ["a", "b"], "text"),
            item("event_ordering", ["x", "y"], "y first\nthen x\nnoise", qid="c_event_ordering_0"),
        ],
        {"model": "gpt-4o", "wording": "strict"},
        client,
    )
    assert rows[0]["score"] == 0.75
    detail = json.loads(rows[1]["raw"])
    assert detail["aligned"] == ["y", "x", "noise"]
    # over the union [x, y, noise]: x/y discordant, both concordant with the extra line
    assert rows[1]["score"] == pytest.approx((1 / 3 + 1) / 2)
    assert set(k.split(":")[0] for k in stats["prompts"]) == {"rubric", "event_ordering"}


def test_rule_judge_checks_what_rules_can_and_refuses_the_rest():
    v = BENCHMARK.rule_verdict(
        item(
            "temporal_reasoning",
            [
                "LLM response should state: 21 days",
                "LLM response should state: from February 20 till March 12",
            ],
            "The launch slipped 21 days, from February 20 to March 12.",
        )
    )
    assert v.score == 1.0 and v.label
    v = BENCHMARK.rule_verdict(
        item(
            "knowledge_update", ["LLM response should state: every 5 minutes"], "Every 10 minutes."
        )
    )
    assert v.score == 0.0 and v.label is False
    v = BENCHMARK.rule_verdict(
        item(
            "abstention",
            ["Based on the provided chat, there is no information"],
            "You never mentioned that.",
        )
    )
    assert v.score == 1.0
    for ability in rules.NOT_CHECKABLE:
        v = BENCHMARK.rule_verdict(item(ability, ["LLM response should contain: x"], "x"))
        assert v.label is None and v.score is None and "cannot judge" in v.reason
    v = BENCHMARK.rule_verdict(
        item("event_ordering", ["Sensor wiring", "Rain gauge"], "1. rain gauge\n2. sensor wiring")
    )
    assert v.score == 0.0  # both found, reversed


def test_the_released_judge_config_and_comparability():
    from confs import group

    cfg = group("judge", "beam_official")
    assert cfg["kind"] == "official" and cfg["model"] == "gpt-4.1-mini"
    assert cfg["temperature"] == 0.0 and cfg["max_tokens"] is None
    assert BENCHMARK.comparability({"kind": "official", "model": "gpt-4.1-mini"})[0] is True
    ok, why = BENCHMARK.comparability({"kind": "official", "model": "gpt-4o-2024-08-06"})
    assert not ok and "gpt-4.1-mini" in why
    assert BENCHMARK.comparability({"kind": "llm", "model": "gpt-4.1-mini"})[0] is False
    assert BENCHMARK.comparability({"kind": "rule", "model": "rule-v1"})[0] is False


def test_trace_carries_the_ability_tier_and_chat():
    inputs, tags = BENCHMARK.trace_fields(
        {
            "question_type": "event_ordering",
            "rubric": ["a"],
            "tier": "1M",
            "conversation_id": "1M_3",
        }
    )
    assert inputs == {"ability": "event_ordering", "rubric": ["a"]}
    assert tags == {
        "memrecall.ability": "event_ordering",
        "memrecall.tier": "1M",
        "memrecall.conversation": "1M_3",
    }


def test_judge_prompt_is_what_the_own_judge_sends():
    it = item("summarization", ["a", "b"], "text")
    p = BENCHMARK.judge_prompt(it)
    assert p.kind == "rubric" and "1. a\n2. b" in p.messages[0]["content"]
    client = FakeClient(lambda m: Res("[1, 1]"))
    judge_own([it], {"model": "gpt-4o", "wording": "strict"}, client)
    assert client.calls == [p.messages]
    eo = BENCHMARK.judge_prompt(item("event_ordering", ["x"], "first\n\nsecond"))
    assert eo.kind == "event_ordering" and "1. first\n2. second" in eo.messages[0]["content"]
