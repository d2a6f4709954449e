"""Scheduling: compute once.

Experiments that share upstream params (a reader sweep shares download, embed, retrieve,
rerank, rewrite) would compute those stages once per parallel worker if they all started
together. So the experiments run in waves: a wave never holds two experiments that would
compute the same not-yet-computed stage, and later waves restore those stages from DVC's
run-cache.

A stage's identity is its command, the values of the params it declares and the identities of
the stages it depends on. The stage graph and the declared params come from DVC itself
(`Repo.index`: templating, foreach/matrix stages and params declared by key, e.g.
`params: [reader.model]`, resolved as `dvc repro` resolves them); stages that the workspace's
dvc.lock holds up to date count as computed. memrecall.pipeline reads both from DVC.
"""

from __future__ import annotations

from typing import Callable

from ..config import get as get_dotted
from ..errors import MemrecallError
from ..hashing import sha256_json
from ..pipeline import PARAMS_FILE, Stage
from .planning import ExpSpec

# params_of(stage, params file, key or None for the whole file) -> value
ParamsOf = Callable[[Stage, str, "str | None"], object]


def stage_signatures(stages: dict[str, Stage], params_of: ParamsOf) -> dict[str, str]:
    """{stage: identity}: the command, the values of its declared params and the identities of
    the stages it depends on."""
    memo: dict[str, str] = {}

    def sig(name: str, visiting=()) -> str:
        if name not in memo:
            if name in visiting:
                raise MemrecallError(f"dvc.yaml: stage '{name}' depends on itself")
            st = stages[name]
            values = {
                file: (
                    {k: params_of(st, file, k) for k in keys} if keys else params_of(st, file, None)
                )
                for file, keys in sorted(st.params.items())
            }
            memo[name] = sha256_json(
                {
                    "stage": name,
                    "cmd": st.cmd,
                    "params": values,
                    "upstream": sorted(sig(u, (*visiting, name)) for u in st.upstream),
                }
            )[:16]
        return memo[name]

    return {name: sig(name) for name in stages}


def locked_values(stage: Stage, file: str, key: str | None):
    """A param's value as dvc.lock recorded it (what the workspace's outputs were made with)."""
    values = stage.locked.get(file, {})
    return values if key is None else values.get(key)


def experiment_values(composed: dict) -> ParamsOf:
    """Param values as an experiment will see them: params.yaml composed for it; other params
    files are the workspace's (the same for every experiment of a sweep)."""

    def params_of(stage: Stage, file: str, key: str | None):
        if file == PARAMS_FILE:
            return composed if key is None else get_dotted(composed, key)
        return locked_values(stage, file, key)

    return params_of


def computed_signatures(stages: dict[str, Stage], up_to_date: set[str]) -> set[str]:
    """Identities of the stages the workspace holds: experiments restore, not compute, them."""
    sigs = stage_signatures(stages, locked_values)
    return {sigs[n] for n in up_to_date}


def schedule_waves(
    specs: list[ExpSpec], sigs: dict[str, dict[str, str]], computed: set[str] = frozenset()
) -> list[list[ExpSpec]]:
    """Split `specs` into waves (run one after the other, each in parallel) so that no stage
    identity that is not yet computed is computed by two experiments of one wave."""
    todo = list(specs)
    done = set(computed)
    waves = []
    while todo:
        wave, claimed, rest = [], set(), []
        for spec in todo:
            new = set(sigs[spec.name].values()) - done
            if new & claimed:
                rest.append(spec)
            else:
                wave.append(spec)
                claimed |= new
        waves.append(wave)
        done |= claimed
        todo = rest
    return waves
