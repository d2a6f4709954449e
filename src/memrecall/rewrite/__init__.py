"""rewrite: query variants and time ranges from an LLM re-rank the configured question types'
candidates after the rerank stage (rewriter.py: the stage; prompts.py: prompts and parsing)."""
