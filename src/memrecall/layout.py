"""Artifact and report paths, relative to the project root. dvc.yaml names the same paths
(tests/test_layout.py checks that the two agree)."""

QUESTIONS = "artifacts/questions.parquet"
SESSIONS = "artifacts/sessions.parquet"
TURNS = "artifacts/turns.parquet"
EMBEDDINGS = "artifacts/embeddings.parquet"
CANDIDATES_RETRIEVE = "artifacts/candidates_retrieve.parquet"
CANDIDATES_RERANK = "artifacts/candidates_rerank.parquet"
CANDIDATES_REWRITE = "artifacts/candidates_rewrite.parquet"
REWRITES = "artifacts/rewrites.parquet"
ANSWERS = "artifacts/answers.parquet"
VERDICTS = "artifacts/verdicts.parquet"

REPORTS = "reports"
METRICS = "reports/metrics.json"
DATA_CARD = "reports/data_card.md"
PROMPTS = "reports/prompts.json"  # the read stage: the prompts it rendered
BY_TYPE = "reports/by_type.md"
RETRIEVAL_TABLE = "reports/retrieval.md"
