"""memrecall.audit.crossed: responses put to another question with a rubric, wrong by
construction."""

from __future__ import annotations

from memrecall.audit.crossed import crossed
from memrecall.audit.variants import Labelled


def _answer(question: str, response: str, kind: str, run: str = "run_a") -> Labelled:
    return Labelled(question, response, True, record={"type": kind, "q": question}, source=run)


def test_each_response_is_put_to_every_other_question_of_its_group_labelled_wrong():
    answers = [
        _answer("Camera gear?", "Since you shoot Sony, try the 85mm.", "rubric"),
        _answer("Camera gear?", "Try a tripod.", "rubric", run="run_b"),  # same question
        _answer("Dinner ideas?", "Your lemon cake again?", "rubric"),
        _answer("Evening plans?", "Read before 9:30 pm.", "rubric"),
        _answer("How many bikes?", "Three.", "value"),  # a value: never crossed
    ]
    group = lambda item: item.record["type"] if item.record["type"] == "rubric" else None  # noqa: E731
    pairs = list(crossed(answers, group))
    put = [(a.response, w.question) for a, w in pairs]
    # 4 rubric answers, each to the 2 questions that are not its own
    assert len(put) == 8
    assert ("Since you shoot Sony, try the 85mm.", "Dinner ideas?") in put
    assert ("Try a tripod.", "Evening plans?") in put
    assert not any(
        response == "Three." or question == "How many bikes?" for response, question in put
    )
    assert not any(a.question == w.question for a, w in pairs)
    for answer, wrong in pairs:
        # the crossed answer is judged as the other question's: its record, its reference
        assert wrong.record == {"type": "rubric", "q": wrong.question}
        assert wrong.label is False and wrong.source == answer.source
