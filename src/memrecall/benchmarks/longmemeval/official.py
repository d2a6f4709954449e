"""judge=official: LongMemEval's own judge, exactly.

The official prompts are not ours to copy, so they are read at run time from the user's checkout
of the official repository: `judge.official_script` points at its `src/evaluation/evaluate_qa.py`.
That file imports openai and backoff at module level, so it is never imported: it is parsed with
`ast`, the top-level function `get_anscheck_prompt(task, question, answer, response,
abstention=False)` is taken out (without decorators) and executed alone, in a namespace of its
own. Its sha256 goes into the verdicts' metadata and metrics.json.

Each prompt is sent as one user message to the pinned model (gpt-4o-2024-08-06, temperature 0,
max_tokens 10, from the judge config) and the reply is labelled as the official script does:
`'yes' in reply.lower()`. The strict parse of the paraphrased judges (a leading yes/no) is kept
beside it as a diagnostic (`strict_label`); metrics.json counts where the two differ. A failed
call, or an empty reply, is a judge error (label null), never a "no".
"""

from __future__ import annotations

import ast
import builtins

from ...errors import MemrecallError
from ...hashing import sha256_file, sha256_text
from ...judge.llm_judge import parse_verdict
from ...llm import usage
from ..checkout import official_file
from .categories import is_abstention_id

OFFICIAL_REPO = "https://github.com/xiaowu0162/LongMemEval"
SCRIPT_IN_REPO = "src/evaluation/evaluate_qa.py"
FUNCTION = "get_anscheck_prompt"
SIGNATURE = ("task", "question", "answer", "response", "abstention")
PINNED_MODEL = "gpt-4o-2024-08-06"


def _where() -> str:
    return (
        f"Clone the official LongMemEval repository ({OFFICIAL_REPO}) and set "
        f"judge.official_script to its {SCRIPT_IN_REPO} (an absolute path)."
    )


def load_prompt_function(path) -> tuple:
    """(get_anscheck_prompt, sha256 of the script) from the official evaluate_qa.py."""
    p = official_file(path, _where())
    source = p.read_text(encoding="utf-8")
    try:
        tree = ast.parse(source, filename=str(p))
    except SyntaxError as e:
        raise MemrecallError(
            f"judge.official_script: {p} is not Python (line {e.lineno}: {e.msg}). {_where()}"
        ) from None
    found = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == FUNCTION]
    if not found:
        raise MemrecallError(
            f"judge.official_script: {p} has no top-level function "
            f"{FUNCTION}{SIGNATURE}. {_where()}"
        )
    fn = found[-1]  # as Python would bind it
    names = tuple(a.arg for a in fn.args.args)
    if names[:5] != SIGNATURE:
        raise MemrecallError(
            f"judge.official_script: {p}: {FUNCTION} takes {names}, expected "
            f"{SIGNATURE}. {_where()}"
        )
    fn.decorator_list = []
    module = ast.Module(body=[fn], type_ignores=[])
    namespace: dict = {"__builtins__": builtins, "__name__": "memrecall_official_prompt"}
    exec(compile(module, str(p), "exec"), namespace)  # noqa: S102 - the user's own checkout
    return namespace[FUNCTION], sha256_file(p)


def official_label(reply: str) -> bool:
    """The official script's rule (evaluate_qa.py): any 'yes' in the reply."""
    return "yes" in reply.lower()


def build_prompts(items: list[dict], fn) -> list[str]:
    out = []
    for it in items:
        try:
            prompt = fn(
                it["question_type"],
                it["question"],
                it["answer"],
                it["hypothesis"],
                abstention=is_abstention_id(it["question_id"]),
            )
        except Exception as e:  # noqa: BLE001 - the user's script: say which question broke it
            raise MemrecallError(
                f"{FUNCTION} failed for question_id {it['question_id']!r} "
                f"(type {it['question_type']!r}): {type(e).__name__}: {e}"
            ) from None
        if not isinstance(prompt, str):
            raise MemrecallError(
                f"{FUNCTION} returned {type(prompt).__name__}, not a prompt "
                f"string, for question_id {it['question_id']!r}"
            )
        out.append(prompt)
    return out


def prompt_records(items: list[dict], fn, script_sha: str) -> dict:
    """{prompt id: {stage, name, template, script_sha256}}: the template the user's script
    gives each (type, abstention) the run judged, rendered with placeholders in place of the
    question, gold answer and response. Only what the script returned is kept (no key can be
    in it: the script is called alone, with no client)."""
    out = {}
    for task, abstention in sorted(
        {(it["question_type"], is_abstention_id(it["question_id"])) for it in items}
    ):
        name = f"official-{task}" + ("-abstention" if abstention else "")
        try:
            text = fn(task, "{question}", "{answer}", "{response}", abstention=abstention)
        except Exception:  # noqa: BLE001 - it rendered the real questions: keep the script's hash
            text = None
        if not isinstance(text, str):
            text = f"(the template of {FUNCTION} in the official script, sha256 {script_sha})"
        out[f"{name}:{sha256_text(text)[:12]}"] = {
            "stage": "judge",
            "name": name,
            "template": text,
            "script_sha256": script_sha,
        }
    return out


def judge_official(items: list[dict], judge_cfg: dict, client=None) -> tuple[list[dict], dict]:
    """(rows, stats): one verdict row per item, like llm_judge.judge_with_llm, plus
    strict_label; stats also holds the script's sha256. `client`: as for judge_with_llm (the
    plan's dry-run client, or one built from judge_cfg)."""
    fn, script_sha = load_prompt_function(judge_cfg["official_script"])
    prompts = build_prompts(items, fn)
    if client is None:
        from ...llm import LLMClient

        client = LLMClient(judge_cfg, stage="judge")
    messages = [[{"role": "user", "content": p}] for p in prompts]
    results = client.complete_many(messages, desc="judge (official)") if items else []
    rows = []
    for it, p, res in zip(items, prompts, results):
        strict = None
        if res.error:
            label, error = None, f"judge call failed: {res.error}"
        elif res.text is None or not res.text.strip():
            label, error = None, "judge returned an empty reply"
        else:
            label, error = official_label(res.text), None
            strict, _ = parse_verdict(res.text)
        rows.append(
            {
                "question_id": it["question_id"],
                "label": label,
                "strict_label": strict,
                "judge_model": res.model or judge_cfg["model"],
                "raw": res.text,
                "error": error,
                "prompt_hash": sha256_text(p)[:12],
                "request_hash": res.request_hash,
                **usage(res),
            }
        )
    log = getattr(client, "provenance", None)  # none on the plan's dry-run client
    return rows, {
        **client.stats,
        "official_script_sha256": script_sha,
        "prompts": prompt_records(items, fn, script_sha),
        **({"provenance": log.summary()} if log is not None else {}),
    }
