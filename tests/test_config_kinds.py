"""One registry per config group (kind -> settings, run): an unknown kind names the key and
lists the valid kinds, and each stage checks its groups at its start, before reading a file."""

from __future__ import annotations

import pytest

from confs import group
from memrecall.errors import ConfigError
from memrecall.retrieval.embed import run_embed
from memrecall.retrieval.embedders import EMBEDDERS, embedder_settings
from memrecall.retrieval.rerank import RERANKERS, reranker_settings, run_rerank
from memrecall.retrieval.retrieve import RETRIEVALS, retrieval_settings, run_retrieve
from memrecall.rewrite.rewriter import REWRITES, rewrite_settings, run_rewrite

KINDS = {  # group: (registry, settings function, option composed, key, valid kinds)
    "embedder": (EMBEDDERS, embedder_settings, "minilm", "model_class", ["flag", "bgem3"]),
    "retrieval": (
        RETRIEVALS,
        retrieval_settings,
        "dense",
        "method",
        ["dense", "bm25", "hybrid", "m3", "oracle", "plugin"],
    ),
    "reranker": (
        RERANKERS,
        reranker_settings,
        "none",
        "name",
        ["none", "bge_reranker_v2_m3", "graph"],
    ),
    "rewrite": (REWRITES, rewrite_settings, "off", "name", ["off", "multiangle"]),
}


@pytest.mark.parametrize("name", sorted(KINDS))
def test_unknown_kind_lists_the_valid_ones(name):
    registry, settings, option, key, kinds = KINDS[name]
    assert list(registry.names) == kinds
    cfg = group(name, option, **{key: "nosuch"})
    with pytest.raises(ConfigError, match=rf"'{name}\.{key}'; choose one of: " + ", ".join(kinds)):
        settings(cfg)


@pytest.mark.parametrize("name", sorted(KINDS))
def test_settings_are_typed_and_carry_their_kind(name):
    registry, settings, option, key, _ = KINDS[name]
    cfg = group(name, option)
    s = settings(cfg)
    assert (s.mode if name == "rewrite" else s.kind) == cfg[key]
    assert settings(s) is s  # settings pass through unchanged


def test_every_conf_option_validates():
    """Each option in conf/ composes to settings its registry accepts."""
    from conftest import REPO

    for name, (_, settings, _, _, _) in KINDS.items():
        for path in sorted((REPO / "conf" / name).glob("*.yaml")):
            settings(group(name, path.stem))


def test_stages_check_their_groups_before_reading_any_file(tmp_path):
    missing = str(tmp_path / "absent.parquet")
    with pytest.raises(ConfigError, match="embedder.model_class"):
        run_embed(
            group("embedder", "minilm", model_class="x"),
            sessions=missing,
            turns=missing,
            out=missing,
        )
    with pytest.raises(ConfigError, match="retrieval.method"):
        run_retrieve(
            group("retrieval", "dense", method="x"),
            group("embedder", "minilm"),
            questions=missing,
            embeddings=missing,
            out=missing,
        )
    with pytest.raises(ConfigError, match="embedder.pooling"):  # the other group too
        run_retrieve(
            group("retrieval", "dense"),
            group("embedder", "minilm", pooling="max"),
            questions=missing,
            embeddings=missing,
            out=missing,
        )
    with pytest.raises(ConfigError, match="reranker.name"):
        run_rerank(
            group("reranker", "none", name="x"),
            questions=missing,
            turns=missing,
            candidates=missing,
            out=missing,
        )
    with pytest.raises(ConfigError, match="reranker.top_k"):  # every key, also for `none`
        run_rerank(
            group("reranker", "none", top_k=0),
            questions=missing,
            turns=missing,
            candidates=missing,
            out=missing,
        )
    with pytest.raises(ConfigError, match="rewrite.name"):
        run_rewrite(
            group("rewrite", "off", name="x"),
            group("embedder", "minilm"),
            group("reranker", "none"),
            questions=missing,
            sessions=missing,
            turns=missing,
            candidates_rerank=missing,
            candidates_retrieve=missing,
            embeddings=missing,
            out=missing,
            out_rewrites=missing,
        )
    with pytest.raises(ConfigError, match="retrieval.unit_pool"):  # all groups it reads
        run_rewrite(
            group("rewrite", "off"),
            group("embedder", "minilm"),
            group("reranker", "none"),
            questions=missing,
            sessions=missing,
            turns=missing,
            candidates_rerank=missing,
            candidates_retrieve=missing,
            embeddings=missing,
            out=missing,
            out_rewrites=missing,
            retrieval_cfg=group("retrieval", "dense", unit_pool="min"),
        )
