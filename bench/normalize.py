"""Benchmark the download stage (streaming parse + validate + normalise + Parquet write).

Inputs: the real dev file (100 questions of LongMemEval-S cleaned) and the oracle file (all 500
questions, evidence sessions only); a synthetic file of full LongMemEval-S size (500 questions,
~277 MB of JSON) built from the dev file: the dev questions repeated 5 times, each copy with its
own question and session ids, padded with filler sessions (or trimmed) to the target size; and
with --m-sizes, synthetic LongMemEval-M-shaped files (500 questions, ~500 sessions each at
2.7 GB) written to /tmp, never held in memory (see build_synthetic_m).

Each run happens in a fresh child process running the download stage's own code
(prepare.run_download, source: local); its wall time (process start to exit, imports included)
and peak RSS (VmHWM) are printed. Targets: full S in < 60 s; M in < 4 GB RSS, time linear in
file size.

    python bench/normalize.py [--data DEV_FILE] [--m-sizes 0.25 0.5 1.0 2.7] [--skip-s]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
DEFAULT_DATA = (
    REPO.parent / "shared" / "data" / "longmemeval" / "longmemeval_s_cleaned_dev100.json.gz"
)


def child(path: str, out: str) -> None:
    """One download-stage pass (source: local) over `path`, as DVC runs it."""
    from memrecall.data.prepare import run_download

    t0 = time.perf_counter()
    from memrecall.compose import compose_config

    cfg = compose_config(
        ["dataset=local", f"dataset.path={path}"], root=Path(__file__).resolve().parents[1]
    )["dataset"]
    cfg["name"] = "bench"
    out = Path(out)
    summ = run_download(
        cfg,
        questions=out / "questions.parquet",
        sessions=out / "sessions.parquet",
        turns=out / "turns.parquet",
        card_path=out / "data_card.md",
        raw_dir=out / "raw",
    )
    t = {"total": time.perf_counter() - t0}
    print(
        json.dumps(
            {
                "phases": t,
                "peak_rss_mb": _vm_hwm_mb(),
                "questions": summ["n_questions"],
                "sessions": [summ["sessions_total"], summ["sessions_unique"]],
                "turns": [summ["turns_total"], summ["turns_unique"]],
            }
        )
    )


def _vm_hwm_mb() -> float:
    """This process's peak RSS. Not ru_maxrss from wait4: Linux carries the parent's peak
    across fork+exec into it, which would count the parent's loaded data."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(path: Path, out: Path) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, __file__, "--child", str(path), str(out)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "HF_HUB_DISABLE_PROGRESS_BARS": "1"},
    )
    stdout = proc.stdout.read()
    # CPU seconds (user + sys) of the child: robust to other load on a shared machine, unlike
    # wall time.
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    shutil.rmtree(out, ignore_errors=True)
    wall = time.perf_counter() - t0
    if proc.returncode:
        raise SystemExit(f"child failed on {path} (exit {proc.returncode})")
    res = json.loads(stdout.strip().splitlines()[-1])
    res.update(
        wall_s=wall, cpu_s=usage.ru_utime + usage.ru_stime, file_mb=path.stat().st_size / 1e6
    )
    return res


def build_synthetic(src: Path, dst: Path, n_questions: int = 500, target_mb: float = 277.0) -> None:
    """Full-S-sized file from the dev file (see module doc)."""
    import orjson

    from memrecall.benchmarks.longmemeval.data import load_records

    base = load_records(src)
    out = []
    k = 0
    while len(out) < n_questions:
        for rec in base:
            if len(out) == n_questions:
                break
            r = dict(rec)
            ren = lambda s: f"{s}~c{k}"  # noqa: E731  (copy-specific session ids)
            r["question_id"] = f"c{k}_{rec['question_id']}"  # keeps a trailing _abs
            r["haystack_session_ids"] = [ren(s) for s in rec["haystack_session_ids"]]
            r["answer_session_ids"] = [ren(s) for s in rec["answer_session_ids"]]
            out.append(r)
        k += 1
    data = orjson.dumps(out)
    # Pad (extra filler sessions, borrowed from other questions under new ids) or trim (drop
    # non-evidence sessions) toward the target size.
    target = int(target_mb * 1e6)
    n_sessions = sum(len(r["haystack_sessions"]) for r in out)
    if len(data) < target:
        extra = round((target - len(data)) / (len(data) / n_sessions))
        for j in range(extra):
            r, donor = out[j % len(out)], base[(j * 7 + 3) % len(base)]
            i = j % len(donor["haystack_sessions"])
            r["haystack_session_ids"] = r["haystack_session_ids"] + [
                f"{donor['haystack_session_ids'][i]}~pad{j}"
            ]
            r["haystack_dates"] = r["haystack_dates"] + [r["haystack_dates"][-1]]
            r["haystack_sessions"] = r["haystack_sessions"] + [donor["haystack_sessions"][i]]
    elif len(data) > target:
        scale = target / len(data)
        for r in out:
            keep = max(1, int(len(r["haystack_sessions"]) * scale))
            ev = set(r["answer_session_ids"])
            idx = [i for i, s in enumerate(r["haystack_session_ids"]) if s in ev]
            idx = sorted(set(idx) | set(range(keep)))
            for key in ("haystack_session_ids", "haystack_dates", "haystack_sessions"):
                r[key] = [r[key][i] for i in idx]
    data = orjson.dumps(out)
    dst.write_bytes(data)


def build_synthetic_m(
    src: Path,
    dst: Path,
    target_gb: float,
    n_questions: int = 500,
    unique_frac: float = 0.5,
    seed: int = 0,
) -> dict:
    """A LongMemEval-M-shaped file of about `target_gb`, written question by question.

    Each of the n_questions haystacks holds its dev question's own evidence sessions (renamed
    per question) plus filler sessions drawn from a shared pool, so sessions repeat across
    haystacks as M's do; the pool holds `unique_frac` of all filler slots (M's real share is not
    known here; 0.5 is a middle case, and memory does not depend on it much because turn text
    is spilled to disk). Haystack size follows from the target: ~500 sessions at 2.7 GB. Pool
    sessions are dev sessions under new ids (`<id>~p<k>`), dated from the dev dates.
    """
    import orjson

    from memrecall.benchmarks.longmemeval.data import load_records

    base = load_records(src)
    rng = random.Random(seed)
    sessions, dates = {}, []
    for r in base:
        for sid, d, turns in zip(
            r["haystack_session_ids"], r["haystack_dates"], r["haystack_sessions"]
        ):
            sessions.setdefault(sid, turns)
            dates.append(d)
    pool_src = sorted(sessions)
    avg = sum(len(orjson.dumps(t)) for t in sessions.values()) / len(sessions) + 60
    per_q = max(2, round(target_gb * 1e9 / n_questions / avg))
    fill_per_q = per_q - 2
    pool_n = max(fill_per_q, round(unique_frac * n_questions * fill_per_q))
    pool = [
        (f"{pool_src[i % len(pool_src)]}~p{i // len(pool_src)}", pool_src[i % len(pool_src)])
        for i in range(pool_n)
    ]
    pool_map = dict(pool)
    with open(dst, "wb") as f:
        f.write(b"[")
        for qi in range(n_questions):
            rec = base[qi % len(base)]
            ev = [s for s in rec["answer_session_ids"] if s in sessions][:2]
            ids = [f"{s}~q{qi}" for s in ev] + [p[0] for p in rng.sample(pool, fill_per_q)]
            src_of = {f"{s}~q{qi}": s for s in ev}
            hay_dates = sorted(rng.choice(dates) for _ in ids)
            rng.shuffle(ids)
            out = {
                **{k: v for k, v in rec.items() if not k.startswith("haystack_")},
                "question_id": f"m{qi}_{rec['question_id']}",
                "answer_session_ids": [f"{s}~q{qi}" for s in ev],
                "haystack_session_ids": ids,
                "haystack_dates": hay_dates,
                "haystack_sessions": [sessions[src_of.get(s) or pool_map[s]] for s in ids],
            }
            data = orjson.dumps(out)
            f.write(data if qi == 0 else b"," + data)
        f.write(b"]")
    return {"sessions_per_question": per_q, "pool": pool_n, "bytes": dst.stat().st_size}


def _row(name: str, r: dict) -> str:
    return (
        f"{name:<22}{r['file_mb']:>9.1f}{r['questions']:>10}"
        f"{'%d/%d' % tuple(r['sessions']):>25}{'%d/%d' % tuple(r['turns']):>25}"
        f"{r['wall_s']:>8.1f}{r['cpu_s']:>8.1f}{r['peak_rss_mb']:>13.0f}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--oracle", default=str(DEFAULT_DATA.with_name("longmemeval_oracle.json")))
    ap.add_argument("--questions", type=int, default=500)
    ap.add_argument("--target-mb", type=float, default=277.0)
    ap.add_argument(
        "--m-sizes",
        type=float,
        nargs="*",
        default=[],
        help="synthetic M-shaped files of these sizes in GB (e.g. 0.25 0.5 1 2.7)",
    )
    ap.add_argument("--unique-frac", type=float, default=0.5)
    ap.add_argument("--skip-s", action="store_true", help="only the M-shaped files")
    ap.add_argument("--tmp", default="/tmp", help="where synthetic files go (not the repo)")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        child(*a.child)
        return
    print(
        f"{'input':<22}{'file MB':>9}{'questions':>10}{'sessions (total/unique)':>25}"
        f"{'turns (total/unique)':>25}{'wall s':>8}{'cpu s':>8}{'peak RSS MB':>13}",
        flush=True,
    )
    with tempfile.TemporaryDirectory(prefix="memrecall_bench_", dir=a.tmp) as tmp:
        tmp = Path(tmp)
        if not a.skip_s:
            for name, path in (("dev file", Path(a.data)), ("oracle file", Path(a.oracle))):
                if path.exists():
                    print(_row(name, measure(path, tmp / "out")), flush=True)
            synth = tmp / "longmemeval_s_synthetic.json"
            build_synthetic(Path(a.data), synth, a.questions, a.target_mb)
            print(_row("synthetic full S", measure(synth, tmp / "out")), flush=True)
            synth.unlink()
        for gb in a.m_sizes:
            synth = tmp / f"longmemeval_m_synthetic_{gb:g}gb.json"
            t0 = time.perf_counter()
            info = build_synthetic_m(Path(a.data), synth, gb, a.questions, a.unique_frac)
            built = time.perf_counter() - t0
            r = measure(synth, tmp / "out")
            print(
                _row(f"synthetic M {gb:g} GB", r) + f"   ({info['sessions_per_question']} "
                f"sessions/question, pool {info['pool']:,}; built in {built:.0f} s; "
                f"{r['cpu_s'] / (r['file_mb'] / 1e3):.1f} cpu s/GB)",
                flush=True,
            )
            synth.unlink()


if __name__ == "__main__":
    main()
