"""Question subsets, all driven by params of the `dataset` group (so DVC reruns on change).

Applied in this order, each to what the previous step kept:
  question_ids   a list of ids, or a file of ids (one per line, `#` comments; or a JSON list)
  question_types a type or list of types
  stratified     {n: N, seed: S}: N questions, allocated to (type, abstention) strata in
                 proportion (largest remainder), drawn at random within each stratum; or
                 {per_type: K, seed: S}: K per question type
  limit          the first N questions, in file order
The kept questions stay in file order.
"""

from __future__ import annotations

import random
from collections import defaultdict
from pathlib import Path

import orjson

from ..config import check_int
from ..errors import ConfigError, InputError, MemrecallError
from ..paths import project_root

KEYS = ("question_ids", "question_types", "stratified", "limit")
# every dataset key that keeps part of a file's questions (a benchmark's parts or chats too)
SUBSET_KEYS = ("parts", "chats", *KEYS)


def _pos_int(value, key: str) -> int:
    return check_int(value, key, minimum=1, hint="expected a positive integer")


def resolve_path(p: str | Path) -> Path:
    """Relative paths: against the cwd (DVC runs stages at the repo root), else against the
    project root ($DVC_ROOT: queued experiments run in temp clones without untracked files)."""
    p = Path(p)
    if p.is_absolute() or p.exists():
        return p
    alt = project_root() / p
    return alt if alt.exists() else p


def read_id_file(path: str | Path) -> list[str]:
    path = resolve_path(path)
    if not path.is_file():
        raise InputError("question id file not found", file=str(path), field="dataset.question_ids")
    text = path.read_text(encoding="utf-8")
    if text.lstrip().startswith("["):
        try:
            ids = orjson.loads(text)
        except orjson.JSONDecodeError as e:
            raise InputError(
                f"malformed JSON: {e.msg}", file=str(path), field="dataset.question_ids"
            ) from None
        if not all(isinstance(i, str) for i in ids):
            raise InputError(
                "expected a JSON list of question id strings",
                file=str(path),
                field="dataset.question_ids",
            )
        return ids
    return [s for line in text.splitlines() if (s := line.split("#", 1)[0].strip())]


def wanted_ids(cfg: dict) -> list[str] | None:
    spec = cfg["question_ids"]
    if spec is None:
        return None
    if isinstance(spec, str):
        return read_id_file(spec)
    if isinstance(spec, list) and all(isinstance(i, str) for i in spec):
        return list(spec)
    raise ConfigError("dataset.question_ids", spec, hint="expected a list of ids or a file path")


def wanted_types(cfg: dict, valid) -> list[str] | None:
    spec = cfg["question_types"]
    if spec is None:
        return None
    types = [spec] if isinstance(spec, str) else spec
    if not isinstance(types, list) or not types:
        raise ConfigError("dataset.question_types", spec, valid)
    for t in types:
        if t not in valid:
            raise ConfigError("dataset.question_types", t, valid)
    return types


def _largest_remainder(sizes: dict, n: int) -> dict:
    total = sum(sizes.values())
    quotas = {k: n * v / total for k, v in sizes.items()}
    alloc = {k: int(q) for k, q in quotas.items()}
    # Hand out what is left by largest remainder; ties broken by stratum key for determinism.
    for k in sorted(sizes, key=lambda k: (-(quotas[k] - alloc[k]), k))[: n - sum(alloc.values())]:
        alloc[k] += 1
    return alloc


def stratified(records: list[dict], spec: dict) -> list[dict]:
    if (
        not isinstance(spec, dict)
        or set(spec) - {"n", "per_type", "seed"}
        or ("n" in spec) == ("per_type" in spec)
    ):
        raise ConfigError(
            "dataset.stratified", spec, hint="expected {n: N, seed: S} or {per_type: K, seed: S}"
        )
    seed = spec.get("seed", 0)
    check_int(seed, "dataset.stratified.seed")
    strata: dict[tuple, list[str]] = defaultdict(list)
    if "per_type" in spec:
        k = _pos_int(spec["per_type"], "dataset.stratified.per_type")
        for r in records:
            strata[(r["question_type"],)].append(r["question_id"])
        alloc = {s: min(k, len(ids)) for s, ids in strata.items()}
    else:
        n = _pos_int(spec["n"], "dataset.stratified.n")
        for r in records:
            qid = r["question_id"]
            strata[(r["question_type"], bool(r["is_abstention"]))].append(qid)
        alloc = _largest_remainder({s: len(v) for s, v in strata.items()}, min(n, len(records)))
    rng = random.Random(seed)
    keep: set[str] = set()
    for s in sorted(strata):  # fixed stratum order and sorted ids: the draw depends on seed only
        keep.update(rng.sample(sorted(strata[s]), alloc[s]))
    return [r for r in records if r["question_id"] in keep]


def select(records: list[dict], cfg: dict, file: str, *, types) -> tuple[list[dict], list[str]]:
    """The subset of validated `records` ({question_id, question_type, is_abstention}, in file
    order) the config asks for, and a description of each step. `types`: the benchmark's valid
    question_types."""
    steps: list[str] = []
    ids = wanted_ids(cfg)
    if ids is not None:
        present = {r["question_id"] for r in records}
        unknown = [i for i in ids if i not in present]
        if unknown:
            more = f" (+{len(unknown) - 5} more)" if len(unknown) > 5 else ""
            raise InputError(
                f"question ids not in the dataset: {', '.join(unknown[:5])}{more}",
                file=file,
                question_id=unknown[0],
                field="dataset.question_ids",
            )
        want = set(ids)
        records = [r for r in records if r["question_id"] in want]
        steps.append(f"question_ids: {len(want)} listed")
    types = wanted_types(cfg, types)
    if types is not None:
        records = [r for r in records if r["question_type"] in types]
        steps.append(f"question_types: {', '.join(types)}")
    if cfg["stratified"] is not None:
        records = stratified(records, cfg["stratified"])
        spec = cfg["stratified"]
        what = f"n={spec['n']}" if "n" in spec else f"per_type={spec['per_type']}"
        steps.append(f"stratified: {what}, seed={spec.get('seed', 0)}")
    if cfg["limit"] is not None:
        limit = _pos_int(cfg["limit"], "dataset.limit")
        records = records[:limit]
        steps.append(f"limit: first {limit} in file order")
    if not records:
        raise MemrecallError(f"the subset ({'; '.join(steps)}) selects no questions of {file}")
    return records, steps
