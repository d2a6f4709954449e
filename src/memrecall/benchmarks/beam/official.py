"""judge=official for BEAM: the released judge, read at run time from the user's checkout of
https://github.com/mohammadtavakoli78/BEAM (its prompts and code are not ours to copy).

`judge.official_script` points at the checkout's metric code: src/evaluation/compute_metrics.py
(evaluation.py in the first release, at the repository root). Nothing of the checkout is
imported (its modules load models and call nltk.download at import time); the files are parsed
with `ast` and these facts are taken out of them:

- the rubric prompt: the string assigned to `unified_llm_judge_base_prompt` in src/prompts.py
  (prompts.py beside evaluation.py in the first release);
- per ability, how `evaluate_<ability>` fills it (the `.replace(placeholder, value)` chain, in
  order: the released code fills <rubric_item> and <llm_response> and leaves <question> as it
  is) and the cast each item's score passes through (`int(response['score'])` or `float(...)`);
- `llm_equivalence`: its system message and its user message template (event ordering's
  alignment), and that a reply counts as a match when it contains "yes";
- the judge model and temperature of `gpt_llm` in src/llm.py (llm.py).

The sha256 of every file read goes into the verdicts' metadata and metrics.json. The run is
comparable with published numbers only with these prompts and the model the checkout names.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

from ...errors import MemrecallError
from ...hashing import sha256_file
from ..checkout import official_file
from .formats import ABILITIES

REPOSITORY = "https://github.com/mohammadtavakoli78/BEAM"
PINNED_MODEL = "gpt-4.1-mini"
PROMPT_VARIABLE = "unified_llm_judge_base_prompt"
# where each file sits, relative to the checkout root: the current layout, then the first one
METRICS_FILES = ("src/evaluation/compute_metrics.py", "evaluation.py")
PROMPT_FILES = ("src/prompts.py", "prompts.py")
LLM_FILES = ("src/llm.py", "llm.py")
# what a placeholder is filled with, by the name the released code passes
VALUES = {"item": "rubric_item", "llm_response": "response", "probing_question": "question"}


def _where() -> str:
    return (
        f"Clone the BEAM repository ({REPOSITORY}) and set judge.official_script to its "
        f"{METRICS_FILES[0]} (or {METRICS_FILES[1]} in a checkout of the first release), "
        f"an absolute path."
    )


@dataclass
class Filling:
    placeholders: list[tuple[str, str]]  # (placeholder, which value), in the order applied
    cast: str  # "int" or "float"


@dataclass
class OfficialBeam:
    rubric_template: str
    fillings: dict[str, Filling]  # ability -> how its rubric prompt is filled
    equivalence_system: str
    equivalence_user: str  # with {first} and {second}
    model: str
    temperature: float | None
    files: dict[str, str] = field(default_factory=dict)  # path in the checkout -> sha256

    def rubric_prompt(self, ability: str, rubric_item: str, response: str, question: str) -> str:
        values = {"rubric_item": rubric_item, "response": response, "question": question}
        text = self.rubric_template
        for placeholder, what in self.fillings[ability].placeholders:
            text = text.replace(placeholder, values[what])
        return text

    def equivalence_messages(self, first: str, second: str) -> list[dict]:
        return [
            {"role": "system", "content": self.equivalence_system},
            {"role": "user", "content": self.equivalence_user.format(first=first, second=second)},
        ]


def _parse(path: Path) -> ast.Module:
    try:
        return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (OSError, SyntaxError, UnicodeDecodeError) as e:
        raise MemrecallError(
            f"judge.official_script: cannot read {path} as Python ({e}). {_where()}"
        ) from None


def _find(root: Path, rel: str, what: str) -> Path:
    if (root / rel).is_file():
        return root / rel
    raise MemrecallError(f"the BEAM checkout at {root} has no {what} ({rel}). {_where()}")


def _layout(script: Path) -> tuple[Path, int]:
    """(checkout root, which layout: 0 current, 1 first release) of the metric file."""
    for i, rel in enumerate(METRICS_FILES):
        if script.as_posix().endswith("/" + rel):
            return script.parents[len(Path(rel).parts) - 1], i
    raise MemrecallError(
        f"judge.official_script: {script} is not {' or '.join(METRICS_FILES)}"
        f" of a BEAM checkout. {_where()}"
    )


def _string_assignment(tree: ast.Module, name: str) -> str | None:
    found = None
    for node in tree.body:  # the last assignment wins, as Python would bind it
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                found = node.value.value
    return found


def _functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    return {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}


def _filling(fn: ast.FunctionDef, path: Path) -> Filling:
    chain: list[tuple[str, str]] = []
    for node in ast.walk(fn):
        if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)):
            continue
        call, steps = node.value, []
        while (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr == "replace"
            and len(call.args) == 2
        ):
            ph, val = call.args
            if not (isinstance(ph, ast.Constant) and isinstance(val, ast.Name)):
                break
            steps.append((ph.value, VALUES.get(val.id, val.id)))
            call = call.func.value
        if steps and isinstance(call, ast.Name) and call.id == PROMPT_VARIABLE:
            chain = list(reversed(steps))
            break
    casts = {
        node.func.id
        for node in ast.walk(fn)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("int", "float")
        and node.args
        and isinstance(node.args[0], ast.Subscript)
        and isinstance(node.args[0].slice, ast.Constant)
        and node.args[0].slice.value == "score"
    }
    unknown = [w for _, w in chain if w not in ("rubric_item", "response", "question")]
    if not chain or unknown or len(casts) != 1:
        raise MemrecallError(
            f"{path}: {fn.name} does not fill {PROMPT_VARIABLE} and cast "
            f"response['score'] the way the released code does (placeholders "
            f"{chain}, casts {sorted(casts)}): memrecall cannot reproduce it"
        )
    return Filling(chain, casts.pop())


def _equivalence(fn: ast.FunctionDef, path: Path) -> tuple[str, str]:
    contents: dict[str, ast.expr] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Dict):
            d = {k.value: v for k, v in zip(node.keys, node.values) if isinstance(k, ast.Constant)}
            role = d.get("role")
            if isinstance(role, ast.Constant) and "content" in d:
                contents[role.value] = d["content"]
    yes_test = any(
        isinstance(n, ast.Compare)
        and isinstance(n.left, ast.Constant)
        and n.left.value == "yes"
        and isinstance(n.ops[0], ast.In)
        for n in ast.walk(fn)
    )
    system, user = contents.get("system"), contents.get("user")
    if not (isinstance(system, ast.Constant) and isinstance(user, ast.JoinedStr) and yes_test):
        raise MemrecallError(
            f"{path}: llm_equivalence is not a system message, a user message "
            f"with the two snippets and a 'yes' test: memrecall cannot "
            f"reproduce it"
        )
    names = {a.arg: slot for a, slot in zip(fn.args.args, ("first", "second"))}
    parts = []
    for v in user.values:
        if isinstance(v, ast.Constant):
            parts.append(str(v.value).replace("{", "{{").replace("}", "}}"))
        elif (
            isinstance(v, ast.FormattedValue)
            and isinstance(v.value, ast.Name)
            and v.value.id in names
            and v.conversion == -1
            and v.format_spec is None
        ):
            parts.append("{" + names[v.value.id] + "}")
        else:
            raise MemrecallError(
                f"{path}: llm_equivalence's user message has a part memrecall cannot reproduce"
            )
    return system.value, "".join(parts)


def _judge_model(tree: ast.Module, path: Path) -> tuple[str, float | None]:
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "gpt_llm_obj" for t in node.targets)
            and isinstance(node.value, ast.Call)
        ):
            kw = {k.arg: k.value for k in node.value.keywords}
            model, temp = kw.get("model_name"), kw.get("temperature")
            if isinstance(model, ast.Constant) and isinstance(model.value, str):
                t = temp.value if isinstance(temp, ast.Constant) else None
                return model.value, (float(t) if t is not None else None)
    raise MemrecallError(
        f"{path}: no gpt_llm_obj = BuildLLm(model_name=..., temperature=...): "
        f"cannot tell the released judge model"
    )


def read_checkout(script) -> OfficialBeam:
    """The released judge's prompts, fillings, casts and model from the user's checkout."""
    p = official_file(script, _where())
    root, layout = _layout(p)
    prompts = _find(root, PROMPT_FILES[layout], "prompt file")
    llm = _find(root, LLM_FILES[layout], "LLM settings file")
    template = _string_assignment(_parse(prompts), PROMPT_VARIABLE)
    if template is None or "<rubric_item>" not in template or "<llm_response>" not in template:
        raise MemrecallError(
            f"{prompts}: no string {PROMPT_VARIABLE} with <rubric_item> and "
            f"<llm_response>. {_where()}"
        )
    fns = _functions(_parse(p))
    missing = [f"evaluate_{a}" for a in ABILITIES if f"evaluate_{a}" not in fns]
    if missing or "llm_equivalence" not in fns:
        raise MemrecallError(f"{p}: missing {missing or ['llm_equivalence']}. {_where()}")
    fillings = {a: _filling(fns[f"evaluate_{a}"], p) for a in ABILITIES}
    system, user = _equivalence(fns["llm_equivalence"], p)
    model, temperature = _judge_model(_parse(llm), llm)
    files = {str(f.relative_to(root)): sha256_file(f) for f in (p, prompts, llm)}
    return OfficialBeam(template, fillings, system, user, model, temperature, files)
