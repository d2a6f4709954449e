"""Benchmark the download stage's parse + validate + normalise + Parquet write.

Two inputs: the dev file (100 questions of LongMemEval-S cleaned), and a synthetic file of full
LongMemEval-S size (500 questions, ~277 MB of JSON) built from it in a temp folder: the dev
questions repeated 5 times, each copy with its own question and session ids (so sessions stay
as distinct as in the real file, sharing only within a copy, as in the dev file), padded with
extra filler sessions (or trimmed) to the target size. Each run happens in a fresh child
process; its wall time (process start to exit, imports included) and peak RSS (VmHWM) are
printed. Target from the issue: full S in < 60 s and < 4 GB RSS.

    python bench/normalize.py [--data ../shared/data/longmemeval/longmemeval_s_cleaned_dev100.json.gz]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
DEFAULT_DATA = REPO.parent / "shared" / "data" / "longmemeval" / "longmemeval_s_cleaned_dev100.json.gz"


def child(path: str, out: str) -> None:
    """One download-stage pass (source: local) over `path`, step by step as
    memrecall.data.prepare.run_download does it, with phase timings."""
    from memrecall.artifacts import atomic_write_text, write_table
    from memrecall.data import card
    from memrecall.data.longmemeval import load_records, normalise, summary, validate_records
    from memrecall.hashing import sha256_file

    t = {}
    t0 = time.perf_counter()
    sha256_file(path)
    t["sha256"] = time.perf_counter() - t0
    t1 = time.perf_counter()
    records = load_records(path)
    t["parse"] = time.perf_counter() - t1
    t1 = time.perf_counter()
    validate_records(records, path)
    t["validate"] = time.perf_counter() - t1
    t1 = time.perf_counter()
    ds = normalise(records, path)
    del records
    summ = summary(ds)
    t["normalise"] = time.perf_counter() - t1
    t1 = time.perf_counter()
    cfg = {"name": "bench", "source": "local", "path": path}
    for name, df in (("questions", ds.questions), ("sessions", ds.sessions), ("turns", ds.turns)):
        write_table(df, Path(out) / f"{name}.parquet", table=name, stage="download", params=cfg,
                    input_files=[path])
    src = {"kind": "local", "file": path, "shown": path, "sha256": "-", "verified_by": "-"}
    atomic_write_text(Path(out) / "data_card.md", card.render(cfg, src, summ, [], summ["n_questions"]))
    t["write"] = time.perf_counter() - t1
    t["total"] = time.perf_counter() - t0
    print(json.dumps({"phases": t, "peak_rss_mb": _vm_hwm_mb(), "questions": summ["n_questions"],
                      "sessions": [summ["sessions_total"], summ["sessions_unique"]],
                      "turns": [summ["turns_total"], summ["turns_unique"]]}))


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
    proc = subprocess.Popen([sys.executable, __file__, "--child", str(path), str(out)],
                            stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "HF_HUB_DISABLE_PROGRESS_BARS": "1"})
    stdout, _ = proc.communicate()
    wall = time.perf_counter() - t0
    if proc.returncode:
        raise SystemExit(f"child failed on {path} (exit {proc.returncode})")
    res = json.loads(stdout.strip().splitlines()[-1])
    res.update(wall_s=wall, file_mb=path.stat().st_size / 1e6)
    return res


def build_synthetic(src: Path, dst: Path, n_questions: int = 500, target_mb: float = 277.0) -> None:
    """Full-S-sized file from the dev file (see module doc)."""
    from memrecall.data.longmemeval import load_records
    import orjson

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
                f"{donor['haystack_session_ids'][i]}~pad{j}"]
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--questions", type=int, default=500)
    ap.add_argument("--target-mb", type=float, default=277.0)
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        child(*a.child)
        return
    with tempfile.TemporaryDirectory(prefix="memrecall_bench_") as tmp:
        tmp = Path(tmp)
        synth = tmp / "longmemeval_s_synthetic.json"
        t0 = time.perf_counter()
        build_synthetic(Path(a.data), synth, a.questions, a.target_mb)
        print(f"built synthetic full-S file: {synth.stat().st_size / 1e6:.1f} MB in "
              f"{time.perf_counter() - t0:.1f} s")
        rows = [("dev file", measure(Path(a.data), tmp / "out_dev")),
                ("synthetic full S", measure(synth, tmp / "out_synth"))]
    print(f"\n{'input':<18}{'file MB':>9}{'questions':>10}{'sessions (total/unique)':>25}"
          f"{'turns (total/unique)':>23}{'wall s':>8}{'peak RSS MB':>13}")
    for name, r in rows:
        print(f"{name:<18}{r['file_mb']:>9.1f}{r['questions']:>10}"
              f"{'%d/%d' % tuple(r['sessions']):>25}{'%d/%d' % tuple(r['turns']):>23}"
              f"{r['wall_s']:>8.1f}{r['peak_rss_mb']:>13.0f}")
    for name, r in rows:
        print(f"{name}: " + ", ".join(f"{k} {v:.2f} s" for k, v in r["phases"].items()))


if __name__ == "__main__":
    main()
