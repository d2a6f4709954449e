"""judge: label each answer correct or not (stage.py), with the offline rules (rules/), an LLM
judge (llm_judge.py: the prompts are each benchmark's), imported labels (imported.py), or a
benchmark's official judge (in its folder)."""
