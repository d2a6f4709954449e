"""BEAM at size: time and peak RSS per stage for one synthetic chat of the released shape.

    python bench/beam_size.py [--tokens 1000000] [--stages download embed retrieve]
                              [--granularity session] [--keep DIR]

Writes, in a temp folder, one chat folder in the repository's layout (chats/1M/1/chat.json and
probing_questions/probing_questions.json; 20 questions, two per ability, with source ids) whose
size matches a released chat of --tokens tokens: 842 exchanges and 2,134 messages per 1M tokens
(the README's averages: 1,067 user messages, 842 turns), about 4 characters of text per token,
assistant messages ~5x longer than user ones, batches of ~36 exchanges each starting with a time
anchor. The text is pseudo-words (no model reads meaning here; what is measured is work per
character and per unit).

Then each stage runs as DVC runs it, in a fresh child process, on that chat (dataset=local):
download (BEAM's normalisation into questions/sessions/turns Parquet), embed (the configured
embedder, MiniLM by default, on this machine's CPU), retrieve (dense, then bm25). It prints wall
time and peak RSS (ru_maxrss of the child) per stage and the extrapolation to 10M tokens
(linear in text and units; retrieval per question is linear in the haystack).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from memrecall.benchmarks.beam.formats import ABILITIES  # noqa: E402  (the released ten)

EXCHANGES_PER_MTOK = 842
MESSAGES_PER_MTOK = 2134
CHARS_PER_TOKEN = 4.0
EXCHANGES_PER_BATCH = 36
MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


def _text(rng: random.Random, words: list[str], chars: int) -> str:
    out, n = [], 0
    while n < chars:
        w = rng.choice(words)
        if rng.random() < 0.02:
            w = str(rng.randint(1, 5000))
        out.append(w)
        n += len(w) + 1
    return " ".join(out)


def synthesise(folder: Path, tokens: int, seed: int = 0) -> dict:
    """One chat folder of the released shape; returns its counts."""
    rng = random.Random(seed)
    words = [
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 10)))
        for _ in range(6000)
    ]
    n_ex = max(1, round(EXCHANGES_PER_MTOK * tokens / 1e6))
    n_msg = max(2 * n_ex, round(MESSAGES_PER_MTOK * tokens / 1e6))
    extra_pairs = (n_msg - 2 * n_ex) // 2  # follow-up pairs spread over the exchanges
    follow = set(rng.sample(range(n_ex), min(extra_pairs, n_ex)))
    total_chars = tokens * CHARS_PER_TOKEN
    pairs = n_ex + len(follow)
    user_chars, asst_chars = total_chars / pairs / 6, 5 * total_chars / pairs / 6
    batches, mid = [], 0
    for e in range(n_ex):
        b = e // EXCHANGES_PER_BATCH
        if e % EXCHANGES_PER_BATCH == 0:
            batches.append({"batch_number": b + 1, "turns": [], "time_anchor": None})
        index = f"{b + 1},{e % EXCHANGES_PER_BATCH + 1}"
        first = {"role": "user", "id": mid}
        if e % EXCHANGES_PER_BATCH == 0:
            first["time_anchor"] = f"{MONTHS[b % 12]}-{1 + b % 28:02d}-{2024 + b // 12}"
        first.update(
            {
                "index": index,
                "question_type": "main_question",
                "content": _text(rng, words, user_chars) + f" ->-> {index}",
            }
        )
        turn = [
            first,
            {"role": "assistant", "id": mid + 1, "content": _text(rng, words, asst_chars)},
        ]
        mid += 2
        if e in follow:
            turn += [
                {
                    "role": "user",
                    "id": mid,
                    "question_type": "followup_question",
                    "content": _text(rng, words, user_chars),
                },
                {"role": "assistant", "id": mid + 1, "content": _text(rng, words, asst_chars)},
            ]
            mid += 2
        batches[-1]["turns"].append(turn)
    questions = {}
    for a in ABILITIES:
        questions[a] = []
        for i in range(2):
            q = {
                "question": _text(rng, words, 80) + "?",
                "difficulty": "medium",
                "rubric": [f"LLM response should state: {_text(rng, words, 20)}"],
            }
            gold = {
                "abstention": "ideal_response",
                "contradiction_resolution": "ideal_answer",
                "instruction_following": "expected_compliance",
                "preference_following": "expected_compliance",
                "summarization": "ideal_summary",
            }.get(a, "answer")
            q[gold] = _text(rng, words, 60)
            if a != "abstention":
                q["source_chat_ids"] = sorted(rng.sample(range(mid), 3))
            questions[a].append(q)
    (folder / "probing_questions").mkdir(parents=True, exist_ok=True)
    (folder / "chat.json").write_text(json.dumps(batches, indent=2), encoding="utf-8")
    (folder / "probing_questions" / "probing_questions.json").write_text(
        json.dumps(questions, indent=4), encoding="utf-8"
    )
    return {
        "exchanges": n_ex,
        "messages": mid,
        "batches": len(batches),
        "chat_json_mb": (folder / "chat.json").stat().st_size / 1e6,
    }


CHILD = r"""
import json, resource, sys, time
from pathlib import Path
sys.path.insert(0, {src!r})
t0 = time.perf_counter()
{code}
print(json.dumps({{"wall_s": time.perf_counter() - t0,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""


def run_child(code: str, cwd: Path, env: dict) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD.format(src=str(REPO / "src"), code=code)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
    )
    if out.returncode:
        raise SystemExit(f"stage failed:\n{out.stderr[-4000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tokens", type=int, default=1_000_000)
    ap.add_argument(
        "--stages",
        nargs="+",
        default=["download", "embed", "retrieve", "bm25"],
        help="download, embed, retrieve (dense), bm25 (both retrievals read embed's key texts)",
    )
    ap.add_argument("--granularity", default="session", choices=["session", "sentence"])
    ap.add_argument("--keep", type=Path, default=None, help="work here instead of a temp folder")
    args = ap.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="beam_size_"))
    chat = work / "chats" / "1M" / "1"
    t0 = time.perf_counter()
    counts = synthesise(chat, args.tokens)
    print(f"synthesised {args.tokens:,} tokens in {time.perf_counter() - t0:.1f}s: {counts}")
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "PYTHONPATH": str(REPO / "src"),
    }
    kw = dict(repo=str(REPO), out=str(work), granularity=args.granularity)
    steps = {
        "download": STAGE_DOWNLOAD.format(path=str(chat), **kw),
        "embed": STAGE_EMBED.format(**kw),
        "retrieve": STAGE_RETRIEVE.format(method="dense", **kw),
        "bm25": STAGE_RETRIEVE.format(method="bm25", **kw),
    }
    scale = 10_000_000 / args.tokens
    print(f"{'stage':<10}{'wall s':>10}{'peak RSS MB':>14}{'10M wall s (x%.0f)' % scale:>22}")
    for stage in args.stages:
        got = run_child(steps[stage], work, env)
        print(
            f"{stage:<10}{got['wall_s']:>10.1f}{got['peak_rss_mb']:>14.0f}"
            f"{got['wall_s'] * scale:>22.0f}"
        )


# Each stage's library entry point, as its stages/<name>.py script calls it, on configs composed
# from conf/ (the embed cache lives in the work folder: every run embeds from scratch).
STAGE_DOWNLOAD = """
from memrecall.compose import compose_config
from memrecall.data.prepare import run_download
cfg = compose_config(["dataset=local", "dataset.path={path}"], root=Path({repo!r}))["dataset"]
run_download(cfg, questions="{out}/questions.parquet", sessions="{out}/sessions.parquet",
             turns="{out}/turns.parquet", card_path="{out}/data_card.md", raw_dir="{out}/raw")
"""
STAGE_EMBED = """
import os
os.environ["MEMRECALL_CACHE_DIR"] = "{out}/cache"
from memrecall.compose import compose_config
from memrecall.retrieval.embed import run_embed
cfg = compose_config(["embedder=minilm", "embedder.granularity={granularity}"],
                     root=Path({repo!r}))["embedder"]
run_embed(cfg, sessions="{out}/sessions.parquet", turns="{out}/turns.parquet",
          out="{out}/embeddings.parquet")
"""
STAGE_RETRIEVE = """
import os
os.environ["MEMRECALL_CACHE_DIR"] = "{out}/cache"
from memrecall.compose import compose_config
from memrecall.retrieval.retrieve import run_retrieve
c = compose_config(["embedder=minilm", "embedder.granularity={granularity}",
                    "retrieval={method}"], root=Path({repo!r}))
run_retrieve(c["retrieval"], c["embedder"], questions="{out}/questions.parquet",
             embeddings="{out}/embeddings.parquet", out="{out}/candidates_{method}.parquet",
             sessions="{out}/sessions.parquet", turns="{out}/turns.parquet")
"""

if __name__ == "__main__":
    main()
