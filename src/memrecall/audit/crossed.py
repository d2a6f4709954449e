"""Crossed answers: a response judged against another question's rubric, wrong by construction.

A rubric (LongMemEval's preference questions) says what a right answer draws on: this user's
cat Luna, their iPhone 13 Pro, their visits to Six Flags. A response written for another
question, about another user's history, draws on none of it, so a judge that accepts it against
this rubric is reading words the two happen to share ("pro tips", "rivers and lakes", "6 ideas"),
not whether the answer is personal. Planted answers (planting.py) are short and written from the
reference; crossed ones are real responses, in a published system's length and wording. And
they need no label: any run's responses, held-out runs included, measure how often a judge
accepts an answer to another question.

Only rubrics are crossed. A reference that is a value ("3 weeks", "Luna") can be what another
question's response says too, and then that response is right by coincidence, not wrong.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator

from .variants import Labelled


def crossed(
    items: Iterable[Labelled], group: Callable[[Labelled], Hashable | None]
) -> Iterator[tuple[Labelled, Labelled]]:
    """(answer, crossed) for each answer and each other question of its group: the answer's
    response, put to the other question against its reference, labelled wrong. `group` names
    the answers that can be crossed with each other (the question type of a rubric), None for
    one that cannot; a question is told apart by its text."""
    items = list(items)
    questions: dict[Hashable, dict[str, Labelled]] = {}
    for item in items:
        g = group(item)
        if g is not None:
            questions.setdefault(g, {}).setdefault(item.question, item)
    for item in items:
        g = group(item)
        for question, other in questions.get(g, {}).items() if g is not None else ():
            if question != item.question:
                yield (
                    item,
                    Labelled(
                        question, item.response, False, record=other.record, source=item.source
                    ),
                )
