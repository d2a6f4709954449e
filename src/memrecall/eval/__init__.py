"""Evaluation: retrieval metrics (retrieval_metrics, the official LongMemEval definitions) and
QA metrics (qa_metrics)."""
