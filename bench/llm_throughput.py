"""LLM-layer throughput: reader-sized calls against a local OpenAI-compatible server.

    python bench/llm_throughput.py                 # 500 calls, 1-3 s latency, 5% 429s
    python bench/llm_throughput.py --local         # also: load time and tokens/s of the local model

The fake server (tests/fake_openai_server.py) runs in its own process and answers every request
after a random 1-3 s, with 5% of requests refused with HTTP 429 (retried by the client with
exponential backoff + jitter, base 1 s). Each prompt is ~10k tokens (~40k characters).

Phases, each with a fresh call cache:
1. sequential (concurrency 1) on a subset (--seq-n, default 50): 500 calls at ~2 s would take
   ~17 min, so the 500-call sequential time is EXTRAPOLATED from the subset's mean per call;
2. concurrency 32 and 64 on all 500 calls: wall time and the ratio to the extrapolated
   sequential time (target >= 30x at 64);
3. the same 500 again with the cache of phase 2 (all cached), in this process and in a fresh
   Python process (target < 5 s).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

FILLER = (
    "On Tuesday I met my sister at the cafe near the station and we talked about her new job "
    "at the hospital, the trip to Lisbon we are planning for May, and whether to adopt a "
    "second dog. "
)


def prompts(n: int, chars: int) -> list[list[dict]]:
    body = (FILLER * (chars // len(FILLER) + 1))[:chars]
    return [
        [{"role": "user", "content": f"[request {i}]\n{body}\nQuestion {i}: what did I plan?"}]
        for i in range(n)
    ]


class Server:
    """tests/fake_openai_server.py in a child process."""

    def __init__(self, latency, p429, seed):
        self.proc = subprocess.Popen(
            [
                sys.executable,
                str(REPO / "tests" / "fake_openai_server.py"),
                "--latency",
                str(latency[0]),
                str(latency[1]),
                "--p429",
                str(p429),
                "--seed",
                str(seed),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        self.port = int(self.proc.stdout.readline())
        self.url = f"http://127.0.0.1:{self.port}/v1"

    def stats(self) -> dict:
        with urllib.request.urlopen(f"{self.url}/stats", timeout=10) as r:
            return json.load(r)

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


def cfg(url: str, concurrency: int) -> dict:
    from memrecall.compose import compose_config

    cfg = compose_config(["reader=gpt4o"], root=Path(__file__).resolve().parents[1])["reader"]
    cfg.update(model="openai/gpt-4o-2024-08-06", max_tokens=64)
    cfg["runtime"].update(
        api_base=url,
        api_key_env="BENCH_FAKE_KEY",
        concurrency=concurrency,
        timeout_s=30,
        num_retries=6,
    )
    return cfg


def run_phase(name, convs, concurrency, cache_root, args) -> dict:
    from memrecall.llm import LLMClient

    os.environ["MEMRECALL_CACHE_DIR"] = str(cache_root)
    srv = Server(args.latency, args.p429, args.seed)
    try:
        client = LLMClient(cfg(srv.url, concurrency), "read", progress=not args.quiet)
        t0 = time.perf_counter()
        res = client.complete_many(convs, desc=name)
        wall = time.perf_counter() - t0
        st = srv.stats()
    finally:
        srv.stop()
    return {
        "phase": name,
        "calls": len(convs),
        "concurrency": concurrency,
        "wall_s": wall,
        "answered": sum(r.ok for r in res),
        "failed": sum(not r.ok for r in res),
        "retries": client.stats["retries"],
        "http_429": st["actions"].get("429", 0),
        "max_in_flight": st["max_in_flight"],
        "cost_usd": client.stats["cost_usd"],
        "input_tokens": client.stats["input_tokens"],
    }


_FRESH = """
import sys, time
t0 = time.perf_counter()
sys.path.insert(0, {src!r}); sys.path.insert(0, {bench!r})
from llm_throughput import prompts, cfg
from memrecall.llm import LLMClient
res = LLMClient(cfg("http://127.0.0.1:9/v1", 64), "read", progress=False).complete_many(
    prompts({n}, {chars}))
assert all(r.cached for r in res), "not all cached"
print(time.perf_counter() - t0)
"""


def bench_local() -> None:
    import torch

    from memrecall.llm import local

    with tempfile.TemporaryDirectory() as d:
        os.environ["MEMRECALL_MODELS_DIR"] = d
        t0 = time.perf_counter()
        local.ensure_converted()
        convert = time.perf_counter() - t0
        m = local.LocalModel()
        print(
            f"local model: first load (GGUF -> model folder, once): {convert + m.load_s:.1f} s;"
            f" later loads: {m.load_s:.2f} s  (torch threads: {torch.get_num_threads()})"
        )
        msgs = [{"role": "user", "content": "Tell me a short story about a cat."}]
        m.generate(msgs, 4)
        t0 = time.perf_counter()
        _, n_in, n_out = m.generate(msgs, 64)
        dt = time.perf_counter() - t0
        print(
            f"local model: {n_out} new tokens in {dt:.1f} s = {n_out / dt:.1f} tokens/s "
            f"(short prompt, greedy)"
        )
        ctx = [{"role": "user", "content": FILLER * 40 + "\nWhat did I plan?"}]
        t0 = time.perf_counter()
        _, n_in, n_out = m.generate(ctx, 16)
        print(
            f"local model: reader-sized prompt of {n_in} tokens + {n_out} new tokens: "
            f"{time.perf_counter() - t0:.1f} s"
        )


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=500)
    ap.add_argument("--seq-n", type=int, default=50, help="calls measured at concurrency 1")
    ap.add_argument("--concurrency", type=int, nargs="+", default=[32, 64])
    ap.add_argument("--latency", type=float, nargs=2, default=(1.0, 3.0))
    ap.add_argument("--p429", type=float, default=0.05)
    ap.add_argument("--prompt-chars", type=int, default=40_000, help="~4 characters per token")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quiet", action="store_true", help="no progress bars")
    ap.add_argument("--local", action="store_true", help="also time the bundled local model")
    args = ap.parse_args(argv)
    os.environ["BENCH_FAKE_KEY"] = "sk-bench-fake"
    os.environ["MEMRECALL_PROGRESS"] = "0" if args.quiet else "1"

    convs = prompts(args.n, args.prompt_chars)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        # Warm-up outside the timings: litellm's import (~4 s) and first-call set-up.
        warm = argparse.Namespace(
            **{**vars(args), "latency": (0.0, 0.0), "p429": 0.0, "quiet": True}
        )
        run_phase("warm-up", prompts(1, 100), 1, Path(tmp) / "warm", warm)
        seq = run_phase("sequential", convs[: args.seq_n], 1, Path(tmp) / "seq", args)
        seq_per_call = seq["wall_s"] / seq["calls"]
        seq_est = seq_per_call * args.n
        rows.append(seq)
        last_cache = None
        for c in args.concurrency:
            last_cache = Path(tmp) / f"c{c}"
            rows.append(run_phase(f"concurrency {c}", convs, c, last_cache, args))

        from memrecall.llm import LLMClient

        os.environ["MEMRECALL_CACHE_DIR"] = str(last_cache)
        client = LLMClient(cfg("http://127.0.0.1:9/v1", 64), "read", progress=False)  # no server
        t0 = time.perf_counter()
        res = client.complete_many(convs)
        cached_wall = time.perf_counter() - t0
        assert all(r.cached for r in res) and client.stats["calls"] == 0
        t0 = time.perf_counter()
        out = subprocess.run(
            [
                sys.executable,
                "-c",
                _FRESH.format(
                    src=str(REPO / "src"),
                    bench=str(REPO / "bench"),
                    n=args.n,
                    chars=args.prompt_chars,
                ),
            ],
            capture_output=True,
            text=True,
            env=os.environ.copy(),
            check=True,
        )
        fresh_total = time.perf_counter() - t0
        fresh_inner = float(out.stdout.strip().splitlines()[-1])

    print()
    print(
        f"{args.n} reader-sized calls (~{args.prompt_chars // 4} tokens each), server latency "
        f"U({args.latency[0]:g}, {args.latency[1]:g}) s, {args.p429:.0%} injected 429s"
    )
    print(
        f"{'phase':<16}{'calls':>6}{'wall s':>9}{'calls/s':>9}{'x seq':>8}{'retries':>9}"
        f"{'429s':>6}{'in-flight':>10}{'failed':>7}"
    )
    for r in rows:
        speed = seq_est / r["wall_s"] if r["phase"] != "sequential" else 1.0
        print(
            f"{r['phase']:<16}{r['calls']:>6}{r['wall_s']:>9.1f}{r['calls'] / r['wall_s']:>9.2f}"
            f"{speed:>7.1f}x{r['retries']:>9}{r['http_429']:>6}{r['max_in_flight']:>10}"
            f"{r['failed']:>7}"
        )
    print(
        f"sequential, {args.n} calls: EXTRAPOLATED from {seq['calls']} measured calls: "
        f"{seq_per_call:.2f} s/call x {args.n} = {seq_est:.0f} s ({seq_est / 60:.1f} min)"
    )
    print(
        f"all {args.n} cached again: {cached_wall:.2f} s in-process (0 calls sent); "
        f"{fresh_inner:.2f} s in a fresh process from import to results "
        f"({fresh_total:.2f} s including interpreter start-up)"
    )
    if args.local:
        print()
        bench_local()


if __name__ == "__main__":
    main()
