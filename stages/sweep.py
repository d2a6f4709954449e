"""sweep: one DVC experiment per Hydra override combination, run in parallel, then compared.

    python stages/sweep.py -m reader=deepseek,kimi,glm --jobs 3
    python stages/sweep.py +sweep=ablation reader=deepseek
    python stages/sweep.py -m hydra/launcher=submitit_slurm retrieval=dense,hybrid

Driver knobs live under `sweep.` (++sweep.on_exists=skip, ++sweep.track=false, ...); they never
reach params.yaml. See docs/sweeps-and-mlflow.md.
"""

import sys

import hydra
from omegaconf import DictConfig

import _bootstrap  # noqa: F401
from memrecall.stage import run_stage
from memrecall.sweep import hydra_argv, hydra_job


@hydra.main(version_base="1.3", config_path="../conf", config_name="config")
def main(cfg: DictConfig) -> None:
    hydra_job(cfg)


def cli() -> None:
    sys.argv = hydra_argv(sys.argv)  # --jobs N, and the end-of-sweep callback
    main()


if __name__ == "__main__":
    run_stage(cli)
