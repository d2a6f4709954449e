"""Evaluation: the gold and abstention rule (gold), retrieval metrics (retrieval_metrics, the
official LongMemEval definitions) and QA metrics (qa_metrics)."""
