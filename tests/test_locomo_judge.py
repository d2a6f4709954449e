"""LoCoMo's rule verdicts (memrecall.benchmarks.locomo.judge): an adversarial (category 5)
response is read as the rule judge reads any response."""

from __future__ import annotations

import json

import pytest

from memrecall.benchmarks.locomo.judge import rule_verdict
from memrecall.benchmarks.locomo.schema import ADVERSARIAL


@pytest.mark.parametrize(
    "response",
    [
        "I don't have enough information to answer that.",
        "I donâ€™t have enough information to answer that.",  # mojibake
        json.dumps({"answer": "I don't have enough information to answer that."}),
        "<think>Melanie's sister? Not in the chat.</think>That is not mentioned.",
        "<response>\nI can't find anything about that in what you've told me.\n</response>",
    ],
)
def test_an_adversarial_abstention_reads_the_same_however_delivered(response):
    """Made-up responses to a question the conversation cannot answer."""
    q = "What did Melanie's sister paint?"
    verdict = rule_verdict(ADVERSARIAL, "adversarial", q, "Not mentioned", response)
    assert verdict.label is True, verdict.reason
    for answered in (
        "A sunset.",
        "<think>Not mentioned anywhere? No: she painted a lake.</think>A lake.",  # thinking
    ):
        verdict = rule_verdict(ADVERSARIAL, "adversarial", q, "Not mentioned", answered)
        assert verdict.label is False, answered
