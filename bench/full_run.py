"""The whole DAG on a LongMemEval-format file, timed, and the plan checked against it.

    python bench/full_run.py --data FILE [--limit N] [--warm K] [--keep DIR]

Runs every stage of dvc.yaml (sources → download → … → judge → errata → aggregate) in a throwaway
copy of this project, each stage script in its own process exactly as `dvc repro` runs it, with
the bundled models (MiniLM embedder; no reranker, rewrite off: the default config) and a local
OpenAI-compatible server (tests/fake_openai_server.py: latency U(1, 3) s, 5% 429s) standing in
for a remote reader (priced like deepseek-chat: $0.27 / $1.10 per Mtok, concurrency 32) and a
remote LLM judge (gpt-4o's $2.50 / $10 per Mtok). The server reports prompt tokens counted with
cl100k_base over the message texts, as a provider counts with its own tokenizer.

Per stage it prints wall time, peak RSS (the stage process's VmHWM), LLM calls paid and texts
embedded. Before read and judge it asks `memrecall plan` (plan_params: the real requests
rendered and looked up in the cache), sends K of the reader's and judge's requests first
(--warm: a previous, smaller run, so the plan has output lengths and latencies to go by), plans
again, runs, and checks: calls paid == calls planned, exactly; reader cost within 10% of the
plan's. Then it extrapolates each stage linearly to 500 questions.

Embeddings go to MEMRECALL_CACHE_DIR's embeddings/ (shared: `export
MEMRECALL_CACHE_DIR=$HOME/.cache/memrecall`); the LLM cache is a fresh temp folder, so every call is
new to the plan.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _env import REPO

KEY_ENV = "MEMRECALL_STANDIN_KEY"
READER_PRICES = (0.27, 1.10)
JUDGE_PRICES = (2.50, 10.0)
# A stage script in its own process; its peak RSS is printed as the last line.
RUNNER = (
    "import runpy, sys, atexit\n"
    "def _hwm():\n"
    "    for l in open('/proc/self/status'):\n"
    "        if l.startswith('VmHWM:'):\n"
    "            print('@@VMHWM', int(l.split()[1]) // 1024, file=sys.stderr, flush=True)\n"
    "atexit.register(_hwm)\n"
    "sys.argv = [sys.argv[1]]\n"
    "sys.path.insert(0, 'stages')\n"
    "runpy.run_path(sys.argv[0], run_name='__main__')\n"
)


def overrides(data: str, limit: int | None, url: str) -> list[str]:
    ov = ["dataset=local", f"dataset.path={data}"] + ([f"dataset.limit={limit}"] if limit else [])
    for group, model, prices in (
        ("reader", "openai/standin-reader", READER_PRICES),
        ("judge", "openai/standin-judge", JUDGE_PRICES),
    ):
        rt = f"{group}.runtime"
        ov += [
            f"{group}={'deepseek' if group == 'reader' else 'gpt4o'}",
            f"{group}.model={model}",
            f"{group}.provider=openai",
            f"{rt}.api_base={url}",
            f"{rt}.api_key_env={KEY_ENV}",
            f"{rt}.concurrency=32",
            f"{rt}.num_retries=8",
            f"{rt}.timeout_s=30",
            f"{rt}.backoff_s=0.5",
            f"{group}.input_cost_per_mtok={prices[0]}",
            f"{group}.output_cost_per_mtok={prices[1]}",
        ]
    return ov + ["reader.max_tokens=256"]


def reply(messages) -> str:
    """The stand-in models: a judge says yes/no; a reader gives a short, request-dependent
    answer (20-60 words), like a real reader's."""
    import hashlib

    text = messages[-1]["content"]
    h = int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)
    if "Is the response correct?" in text:
        return "yes" if h % 3 else "no"
    words = (
        "the user said that they went to the store and bought some things before the "
        "trip last month so the answer follows from the sessions above"
    ).split()
    n = 20 + h % 41
    return " ".join(words[i % len(words)] for i in range(n)) + ". Answer: 42"


def tiktoken_counter():
    """cl100k_base, from the copy litellm bundles (tiktoken itself would download it)."""
    from litellm.rust_bridge.tokenizer import get_encoding

    enc = get_encoding("cl100k_base")
    return lambda messages: sum(len(enc.encode(str(m.get("content", "")))) for m in messages)


def run_stage(root: Path, stage: str, env: dict) -> dict:
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", RUNNER, f"stages/{stage}.py"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - t0
    if proc.returncode:
        raise SystemExit(f"stage {stage} failed (exit {proc.returncode}):\n{proc.stderr[-4000:]}")
    rss = [int(line.split()[1]) for line in proc.stderr.splitlines() if line.startswith("@@VMHWM")]
    return {
        "wall_s": wall,
        "peak_rss_mb": rss[-1] if rss else None,
        "log": [
            ln
            for ln in (proc.stdout + proc.stderr).splitlines()
            if ln.startswith((f"{stage}:", "embed:")) and "%|" not in ln
        ],
    }


def paid_since(journal_start: int, stage: str) -> list[dict]:
    from memrecall.llm.cache import read_journal

    return [j for j in read_journal()[journal_start:] if j["stage"] == stage]


def recorded_cost(rows: list[dict]) -> float:
    from memrecall.llm.cache import CallCache

    got = CallCache().get_many([r["request_hash"] for r in rows if r["ok"]])
    return sum(v["cost_usd"] for v in got.values())


def warm_up(root: Path, params: dict, k: int) -> None:
    """Send k reader requests and the k judge requests of their answers, as a smaller earlier
    run would have: the plan then knows output lengths and latencies of these models."""
    from memrecall.llm import LLMClient
    from memrecall.plan.build import plan_params

    for stage, group in (("read", "reader"), ("judge", "judge")):
        p = plan_params(params, root, status=_status(root, "read", "judge"))
        msgs = [m for _, m, cached in p.stage(stage).llm[0].rendered if not cached][:k]
        LLMClient(params[group], stage=stage, progress=False).complete_many(msgs)


def _status(root: Path, *running: str):
    """What the plan assumes: these stages run next (the graph is the project's dvc.yaml)."""
    from memrecall.pipeline import read_pipeline
    from memrecall.plan.status import RunStatus

    return RunStatus.assumed(
        read_pipeline(root, status=False).stages, running, why="bench: runs next"
    )


def report(stage: str, result: dict, detail: str = "") -> None:
    """One stage's line: wall time, peak RSS and what it did."""
    line = f"{stage:<10} {result['wall_s']:7.1f} s  peak RSS {result['peak_rss_mb']:>5} MB"
    print(f"{line}  {detail}".rstrip(), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--data",
        default=str(
            REPO.parent / "shared" / "data" / "longmemeval" / "longmemeval_s_cleaned_dev100.json.gz"
        ),
    )
    ap.add_argument("--limit", type=int, default=None, help="first N questions of the file")
    ap.add_argument("--warm", type=int, default=5, help="reader/judge calls paid before planning")
    ap.add_argument("--latency", type=float, nargs=2, default=(1.0, 3.0))
    ap.add_argument("--p429", type=float, default=0.05)
    ap.add_argument("--keep", default=None, help="keep the project copy here")
    a = ap.parse_args()

    from fake_openai_server import FakeOpenAIServer
    from memrecall.compose import compose_params
    from memrecall.config import load_params
    from memrecall.plan.build import plan_params
    from memrecall.plan.report import format_plan
    from repo_copy import copy_repo

    shared = Path(os.environ.get("MEMRECALL_CACHE_DIR") or REPO / ".memrecall" / "cache")
    tmp = Path(a.keep) if a.keep else Path(tempfile.mkdtemp(prefix="memrecall_full_run_"))
    root = copy_repo(tmp / "project")
    cache = tmp / "cache"
    (cache).mkdir(parents=True, exist_ok=True)
    (shared / "embeddings").mkdir(parents=True, exist_ok=True)
    if not (cache / "embeddings").exists():
        (cache / "embeddings").symlink_to(shared / "embeddings")
    os.environ["MEMRECALL_CACHE_DIR"] = str(cache)
    os.environ["MEMRECALL_MODELS_DIR"] = str(shared / "models")
    os.environ[KEY_ENV] = "sk-standin-not-a-real-key"
    env = {**os.environ, "MEMRECALL_PROGRESS": "0", "DVC_ROOT": str(root)}

    with FakeOpenAIServer(
        latency=tuple(a.latency),
        rates={"429": a.p429},
        answer=reply,
        count_tokens=tiktoken_counter(),
        seed=1,
    ) as srv:
        compose_params(overrides(str(Path(a.data).resolve()), a.limit, srv.url), root=root)
        params = load_params(root / "params.yaml")
        os.chdir(root)
        results: dict[str, dict] = {}
        checks: list[str] = []
        from memrecall.pipeline import read_pipeline

        # dvc.yaml's stages, upstream first as `dvc repro` runs them: those before read, then
        # read and judge against the plan, then those after
        order = list(read_pipeline(root, status=False).stages)
        first, last = order[: order.index("read")], order[order.index("judge") + 1 :]
        for stage in first:
            results[stage] = run_stage(root, stage, env)
            report(stage, results[stage], " | ".join(results[stage]["log"]))
        import polars as pl

        n_q = pl.read_parquet(root / "artifacts" / "questions.parquet").height
        n_sess = pl.read_parquet(root / "artifacts" / "sessions.parquet").height
        cold = plan_params(
            params, root, status=_status(root, "read", "judge"), title="before any reader call"
        )
        print("\n" + format_plan(cold), flush=True)
        warm_up(root, params, a.warm)
        plan = plan_params(
            params,
            root,
            status=_status(root, "read", "judge"),
            title=f"after {a.warm} warm-up calls per model",
        )
        print("\n" + format_plan(plan) + "\n", flush=True)
        from memrecall.llm.cache import read_journal

        for stage in ("read", "judge"):
            start = len(read_journal())
            results[stage] = run_stage(root, stage, env)
            paid = paid_since(start, stage)
            work = plan.stage(stage).llm[0]
            cost = recorded_cost(paid)
            results[stage].update(calls=len(paid), cost=cost)
            print(
                f"{stage:<10} {results[stage]['wall_s']:7.1f} s  peak RSS "
                f"{results[stage]['peak_rss_mb']:>5} MB  calls paid {len(paid)} (planned "
                f"{work.new_calls}, {work.estimated_calls} of them estimated); cost "
                f"${cost:.4f} (planned ${work.cost_usd:.4f}); wall planned "
                f"{work.wall_s:.0f} s",
                flush=True,
            )
            checks.append(
                f"{stage}: calls {len(paid)} == planned {work.new_calls}: "
                f"{'OK' if len(paid) == work.new_calls else 'MISMATCH'}"
            )
            err = abs(cost - work.cost_usd) / cost if cost else 0.0
            checks.append(
                f"{stage}: cost ${cost:.4f} vs planned ${work.cost_usd:.4f}: "
                f"{err:.1%} off{'' if stage != 'read' else ' (target <10%)'}"
                f": {'OK' if err < 0.10 else 'OVER'}"
            )
        for stage in last:
            results[stage] = run_stage(root, stage, env)
            report(stage, results[stage])
        print(f"\nserver: {json.dumps(srv.stats())}")
    print("\nchecks:\n  " + "\n  ".join(checks))
    total = sum(r["wall_s"] for r in results.values())
    print(f"\n{n_q} questions, {n_sess:,} unique sessions: whole DAG {total:.0f} s")
    if n_q < 500:
        print(
            "EXTRAPOLATED to 500 questions (linear in questions; embed also depends on how "
            "many sessions are already cached, and read/judge on concurrency):"
        )
        for s, r in results.items():
            print(f"  {s:<10} ~{r['wall_s'] * 500 / n_q:7.0f} s")
        print(f"  total      ~{total * 500 / n_q:7.0f} s")
    if not a.keep:
        shutil.rmtree(tmp, ignore_errors=True)
    if any("MISMATCH" in c or ("read" in c and "OVER" in c) for c in checks):
        raise SystemExit(1)


if __name__ == "__main__":
    main()
