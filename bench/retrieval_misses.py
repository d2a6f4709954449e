"""Why gold sessions miss: where each scored question's gold sessions rank under every method,
and where the evidence sits inside the gold session's key.

    python bench/retrieval_misses.py --data FILE [--types single-session-preference ...]
                                     [--methods dense bm25 ...] [--k 5] [--haystack-scale 10]
                                     [--show-top 3]

For every scored question (official gold rule, abstention excluded) and every gold session it
prints the gold's rank under each method (99: not in the top_k), and for the gold session's
user-turn key: its length
in characters and encoder tokens, and the token offset of its first `has_answer` user turn
(the evidence) - beyond the encoder's window (max_length - 2 tokens) means a session-level dense
vector never read it, beyond `max_chars` means the session key (dense and BM25) cut it off.
Then, for all gold sessions and by type, how often the evidence lies beyond each limit, and
the questions where any method ranks a gold session below --k. `--show-top N` prints, for each
listed question, the start of the gold sessions' keys and of the first method's top N sessions
(the sessions that outranked the gold). `--haystack-scale K` grows each haystack K-fold with other
questions' sessions (bench/retrieval.py scale_haystacks), where misses are common enough to read.

Methods are the retrieve stage's own (`memrecall.retrieval.retrieve`) on the bundled MiniLM
(conf/embedder/minilm.yaml) with vectors from the shared content-addressed cache
(MEMRECALL_CACHE_DIR): session keys, passages (embedder.granularity=passage), sentence units
(the default) and each pooling.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "bench"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from memrecall.benchmarks.longmemeval.data import load_records, normalise, validate_records  # noqa: E402
from memrecall.eval.gold import answer_turns, question_gold  # noqa: E402
from memrecall.retrieval.embed import build_embeddings  # noqa: E402
from memrecall.retrieval.embedders import CachedEncoder, resolve_model  # noqa: E402
from memrecall.retrieval.keys import JOINER  # noqa: E402
from memrecall.retrieval.passages import model_tokenizer  # noqa: E402
from memrecall.retrieval.retrieve import retrieve  # noqa: E402
from retrieval import load_cfg, scale_haystacks  # noqa: E402  (bench/retrieval.py)

# name: (embedder overrides, retrieval overrides)
SESSION = {"granularity": "session"}
PASSAGE = {"granularity": "passage"}
SENTENCE = {"granularity": "sentence"}
METHODS = {
    "dense": (SESSION, {"method": "dense"}),
    "bm25": (SESSION, {"method": "bm25"}),
    "hybrid_rrf": (SESSION, {"method": "hybrid", "fusion": "rrf"}),
    "hybrid_w": (SESSION, {"method": "hybrid", "fusion": "weighted"}),
    "dense_pass": (PASSAGE, {"method": "dense"}),
    "dense_pass_fair": (PASSAGE, {"method": "dense", "unit_pool": "max_fair"}),
    "dense_pass_blend": (PASSAGE, {"method": "dense", "unit_pool": "blend"}),
    "hybrid_w_pass": (PASSAGE, {"method": "hybrid", "fusion": "weighted"}),
    "dense_sent": (SENTENCE, {"method": "dense"}),
    "hybrid_w_sent": (SENTENCE, {"method": "hybrid", "fusion": "weighted"}),
}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--data", required=True)
    ap.add_argument("--types", nargs="*", help="question types to list one by one (all: every)")
    ap.add_argument("--methods", nargs="+", default=list(METHODS), choices=list(METHODS))
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--haystack-scale", type=int, default=1, metavar="K")
    ap.add_argument("--scale-seed", type=int, default=0)
    ap.add_argument("--show-top", type=int, default=0, metavar="N")
    args = ap.parse_args(argv)

    records = load_records(args.data)
    validate_records(records, str(args.data))
    ds = normalise(records, str(args.data))
    questions, sessions, turns = ds.questions, ds.sessions, ds.turns
    questions = scale_haystacks(questions, sessions, args.haystack_scale, args.scale_seed)
    gold = question_gold(questions, turns)
    qinfo = {
        q: (t, text)
        for q, t, text in questions.select("question_id", "question_type", "question").iter_rows()
    }

    ranks: dict[str, dict[tuple[str, str], int]] = {}
    top: dict[str, list[str]] = {}  # the first method's ranking, for --show-top
    key_text: dict[str, str] = {}  # a session's key (its first unit's text)
    cfg0 = load_cfg("embedder", "minilm", {})
    for name in args.methods:
        eset, rset = METHODS[name]
        ecfg = {**cfg0, **eset}
        rcfg = {**load_cfg("retrieval", "hybrid", {}), **rset}
        enc = CachedEncoder(ecfg)
        emb = build_embeddings(sessions, turns, ecfg, enc)
        cands = retrieve(questions, emb, rcfg, ecfg, encoder=enc)
        ranks[name] = {
            (q, s): r for q, r, s in cands.select("question_id", "rank", "session_id").iter_rows()
        }
        if not top:
            for q, sid in cands.select("question_id", "session_id").iter_rows():
                top.setdefault(q, []).append(sid)
        for sid, text in emb.select("session_id", "text").iter_rows():
            key_text.setdefault(sid, text)

    # Where the evidence sits in the user-turn key (as keys.py builds it, before any cut).
    tok = model_tokenizer(resolve_model(cfg0["model"])[0])
    window, max_chars = int(cfg0["max_length"]) - 2, int(cfg0["max_chars"])
    marked = answer_turns(turns)
    user = {}
    for sid, idx, role, content in (
        turns.filter(turns["role"] == "user")
        .select("session_id", "turn_index", "role", "content")
        .sort("session_id", "turn_index")
        .iter_rows()
    ):
        user.setdefault(sid, []).append((int(idx), content or ""))

    def where(sid):
        key, start = "", None
        for idx, content in user.get(sid, []):
            if start is None and idx in marked.get(sid, []):
                start = len(key) + (len(JOINER) if key else 0)
            key = f"{key}{JOINER}{content}" if key else content
        enc = tok.encode(key, add_special_tokens=False)
        tok_at = next((i for i, (a, _) in enumerate(enc.offsets) if a >= start), len(enc.ids))
        return len(key), len(enc.ids), start, tok_at

    rows, stats = [], {}
    for qid, g in gold.items():
        if g is None or not g.sessions:
            continue
        qtype, text = qinfo[qid]
        for sid in g.sessions:
            chars, ntok, at_char, at_tok = where(sid)
            r = {m: ranks[m].get((qid, sid), 99) for m in args.methods}
            rows.append((qid, qtype, text, sid, chars, ntok, at_char, at_tok, r))
            for key in (qtype, "all"):
                s = stats.setdefault(key, [0, 0, 0, [], []])
                s[0] += 1
                s[1] += at_tok >= window
                s[2] += at_char >= max_chars
                s[3].append(at_tok)
                s[4].append(ntok)

    print(
        f"gold sessions whose evidence (first has_answer user turn) starts beyond the "
        f"encoder window ({window} tokens) / beyond max_chars ({max_chars}):"
    )
    for key, (n, beyond_w, beyond_c, at, length) in sorted(stats.items()):
        print(
            f"  {key:28} n={n:3}  beyond window {beyond_w:3} ({beyond_w / n:.0%})  "
            f"beyond max_chars {beyond_c:3} ({beyond_c / n:.0%})  evidence at token 0: "
            f"{sum(a == 0 for a in at) / n:.0%}, median token {statistics.median(at):.0f}; "
            f"key median {statistics.median(length):.0f} tokens"
        )
    listed = set(args.types or [])
    head = " ".join(f"{m[:13]:>13}" for m in args.methods)
    print(
        f"\n{'question':12} {'type':10} {'chars':>6} {'tokens':>6} {'ev@tok':>6} {head}  "
        f"question text"
    )
    for qid, qtype, text, sid, chars, ntok, at_char, at_tok, r in rows:
        miss = any(v > args.k for v in r.values())
        if miss or qtype in listed or "all" in listed:
            cells = " ".join(f"{v:>13}" for v in r.values())
            print(
                f"{qid[:12]:12} {qtype[:10]:10} {chars:6} {ntok:6} {at_tok:6} {cells}  {text[:90]}"
            )
            if args.show_top:
                print(f"    gold {sid}: {key_text.get(sid, '')[:160]!r}")
                for i, other in enumerate(top.get(qid, [])[: args.show_top], start=1):
                    print(
                        f"    {args.methods[0]} #{i}{' (gold)' if other == sid else ''}: "
                        f"{key_text.get(other, '')[:160]!r}"
                    )


if __name__ == "__main__":
    main()
