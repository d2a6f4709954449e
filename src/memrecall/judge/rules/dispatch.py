"""The entry point: which rule family decides a response, by question type and reference."""

from __future__ import annotations

from ...thinking import strip_thinking
from .abstention import (
    abstains,
    closes_by_declining,
    opens_by_declining,
    opens_by_denying,
    sets_aside,
)
from .choice import (
    concludes_a_choice,
    either_or_verdict,
    listed_choice_verdict,
    names_an_option,
    stated_polarity,
    states_a_choice,
    superlative_verdict,
    yes_no_gold,
)
from .containment import containment_verdict
from .normalise import content_tokens, split_acceptable, without_quantity_framing
from .numbers import QUANTITY_QUESTION, quantity_verdict, worked_out_verdict
from .order import ORDER_QUESTION, order_verdict
from .preference import preference_verdict
from .response import (
    after_retraction,
    as_markdown,
    conclusion,
    repaired,
    replaced_by,
    settled_answer,
    stated_answer,
    unwrapped_json,
    without_closing_notes,
    without_examples,
    without_question_echo,
)
from .updates import asks_current, asks_earlier
from .verdict import RuleVerdict


def as_read(hypothesis: str | None) -> str:
    """A response as the rules read it: after its model's thinking (a published run's answer
    may keep it), out of a JSON object that holds only it, repaired of damage on the way to its
    file, and as Markdown (see normalise)."""
    return as_markdown(repaired(unwrapped_json(strip_thinking(hypothesis or "").strip())))


def judge_item(item: dict) -> RuleVerdict:
    """judge_one of an answer given as a record: question_type, question, answer (the
    reference), hypothesis and is_abstention (False when absent)."""
    return judge_one(
        item["question_type"],
        item["question"],
        str(item["answer"]),
        item["hypothesis"],
        is_abstention=bool(item.get("is_abstention")),
    )


def judge_one(
    question_type: str,
    question: str,
    answer: str,
    hypothesis: str | None,
    *,
    is_abstention: bool = False,
) -> RuleVerdict:
    """The rule verdict for one response. `answer` is the reference (or rubric/explanation)."""
    response = as_read(hypothesis)
    verdict = _verdict(question_type, question, answer, response, is_abstention=is_abstention)
    # An answer the response settles on after wavering ("Wait, I need to correct that: ...",
    # "..., so the answer is X", "but you corrected it later: X") must be right too. Not for an
    # abstention question, where saying the information is missing anywhere counts, nor for a
    # preference rubric, read whole.
    if not verdict.label or is_abstention or question_type == "single-session-preference":
        return verdict
    # What the response found and then says refers to something else ("500 copies. However,
    # this refers to the poster, not the album") is set aside, not given as the answer.
    if sets_aside(response):
        return RuleVerdict(False, "sets aside what it found: it refers to something else")
    # A question that asks for an earlier value is answered by the value that was updated, not
    # by what it was updated to; a correction replaces it all the same.
    settled = settled_answer(response, earlier=asks_earlier(question_type, question))
    if settled and content_tokens(settled) and names_an_option(question, answer, settled):
        again = _verdict(question_type, question, answer, settled)
        if again.label is False:
            return RuleVerdict(False, f"settles on another answer: {again.reason}")
    return verdict


def _verdict(
    question_type: str,
    question: str,
    answer: str,
    response: str,
    *,
    is_abstention: bool = False,
) -> RuleVerdict:
    # A restated question names every option and item of it; it answers nothing.
    hyp = without_question_echo(response.strip(), question).strip()
    answer = str(answer)
    if not hyp:
        return RuleVerdict(False, "empty response")
    hyp, retracted = after_retraction(hyp)
    if retracted and not content_tokens(hyp):
        return RuleVerdict(False, "retracts its answer and gives no other")
    stated = stated_answer(hyp)
    if is_abstention:
        # An abstention anywhere counts (the official labels accept one followed by a guess),
        # and so does a labelled answer that is one ('{"answer": "unknown"}', "Answer: N/A").
        # Not one whose last sentence still picks an option of a which-came-first question:
        # "There is no mention of Tom. Therefore, Alex became a parent first." answers.
        if abstains(hyp) or abstains(stated):
            if concludes_a_choice(question, hyp):
                return RuleVerdict(False, "abstention: concludes by choosing an option anyway")
            return RuleVerdict(True, "abstention: says the information is missing")
        return RuleVerdict(False, "abstention: answers instead of saying it is unknown")
    # The labelled answer is what the response answers; the reasoning or notes set apart
    # after it ("Reasoning: ...", "Confidence: ...") are not. One that opens or closes by saying
    # it cannot answer, or opens by denying what the question asks about, has answered nothing,
    # whatever facts or names of the user it lists, unless it works the asked quantity out.
    polar = yes_no_gold(answer)
    if opens_by_declining(stated):
        declined = "opens by saying it cannot answer"
    elif closes_by_declining(stated):
        declined = "closes by saying it cannot answer"
    elif polar is None and opens_by_denying(stated):  # "You never replaced it" answers "no"
        declined = "opens by denying what the question asks about"
    else:
        declined = None
    # A which-came-first response that places an option has answered, however it declines
    # around it: "I cannot determine which book you finished first. ... This suggests you likely
    # finished The Hate U Give first" (the mirror of an abstention that concludes with a
    # choice). Preference rubrics name no options.
    if (
        declined
        and question_type != "single-session-preference"
        and states_a_choice(question, answer, stated)
    ):
        declined = None
    if declined:
        worked = worked_out_verdict(question_type, question, answer, stated)
        return worked or RuleVerdict(False, f"declines: {declined}")
    if question_type == "single-session-preference":
        # Whether advice is personal is read from all of it: "I can only give a general answer"
        # before an "Answer:" label still says the advice is general.
        return preference_verdict(question, answer, hyp)
    # (a closing offer or a note on how the response was made answers nothing: "(Retrieved 5
    # memories)" counts no answer)
    hyp = without_examples(without_closing_notes(stated))
    if polar is not None:
        said = stated_polarity(question, hyp)
        return RuleVerdict(said == polar, f"yes/no: expected {polar}, response says {said}")
    main, _ = split_acceptable(answer)
    short = len(content_tokens(without_quantity_framing(main))) <= 2
    if QUANTITY_QUESTION.search(question) or short:
        verdict = quantity_verdict(question_type, question, answer, hyp)
        if verdict is not None:
            return verdict
    # A reasoning transcript answers in its conclusion; what it quotes as evidence before
    # ("Session 2: the tablet came first", "Session 2: you visited Harvard") is not its answer.
    concluded = conclusion(hyp)
    if concluded is hyp or len(concluded.split()) < 3:
        concluded = None
    replaced = replaced_by(hyp, earlier=asks_earlier(question_type, question))
    if concluded is None and replaced and names_an_option(question, main, replaced):
        concluded = replaced  # "You originally said A, but you corrected it later: B"
    if ORDER_QUESTION.search(question):
        verdict = _in_conclusion(order_verdict, question, main, hyp, concluded)
        if verdict is not None:
            return verdict
    verdict = _in_conclusion(either_or_verdict, question, main, hyp, concluded)
    if verdict is not None:
        return verdict
    verdict = _in_conclusion(listed_choice_verdict, question, main, hyp, concluded)
    if verdict is not None:
        return verdict
    verdict = superlative_verdict(question, main, hyp)  # reads a transcript's conclusion itself
    if verdict is not None:
        return verdict
    current = asks_current(question_type, question)
    return containment_verdict(question, answer, concluded or hyp, current=current)


def _in_conclusion(rule, question: str, reference: str, hyp: str, concluded: str | None):
    """The rule's verdict on the conclusion when it decides there, else on the whole response."""
    verdict = rule(question, reference, concluded) if concluded else None
    return verdict if verdict is not None else rule(question, reference, hyp)
