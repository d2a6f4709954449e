"""Compose params.yaml from conf/ exactly as `dvc exp run` does (DVC's own Hydra composer), so
`dvc repro` after `memrecall compose reader=deepseek` sees the same file an experiment would."""

from __future__ import annotations

from pathlib import Path

from .artifacts import atomic_path
from .errors import ConfigError, MemrecallError
from .paths import project_root


def compose_params(
    overrides: list[str] | None = None, *, root: Path | None = None, output: str = "params.yaml"
) -> Path:
    from dvc.utils.hydra import compose_and_dump
    from hydra.core.global_hydra import GlobalHydra
    from hydra.errors import HydraException

    root = root or project_root()
    conf = root / "conf"
    if not (conf / "config.yaml").exists():
        raise MemrecallError(f"missing {conf / 'config.yaml'}")
    GlobalHydra.instance().clear()  # composing twice in one process (tests, sweeps) is fine
    try:
        # DVC picks its dumper by suffix: the temp name's `.tmp` gets its default YAML dumper.
        with atomic_path(root / output) as tmp:
            compose_and_dump(str(tmp), str(conf), None, "config", str(root), list(overrides or []))
    except HydraException as e:
        # Hydra's message already lists the available options of the group.
        raise ConfigError(
            " ".join(overrides or []) or "(defaults)", "override", hint=f"cannot compose conf/: {e}"
        ) from None
    finally:
        GlobalHydra.instance().clear()
    return root / output


def compose_config(overrides: list[str] | None = None, *, root: Path | None = None) -> dict:
    """conf/ composed in memory, as params.yaml would hold it (for benchmarks and tests)."""
    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from omegaconf import OmegaConf

    conf = (root or project_root()) / "conf"
    GlobalHydra.instance().clear()
    with initialize_config_dir(config_dir=str(conf.resolve()), version_base="1.3"):
        return OmegaConf.to_container(compose("config", list(overrides or [])), resolve=True)
