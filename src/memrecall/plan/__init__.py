"""`memrecall plan [overrides...]`: what `dvc repro` (no overrides: params.yaml as it is) or
`dvc exp run -S ...` (overrides: composed from conf/ as DVC does) would run, and what it would
cost, without paying anything.

Per stage: whether DVC would run it (status.py: the stage graph and `dvc status` from DVC,
dvc.lock's params against the planned ones, and whether a stage upstream would run first). For
the stages that would run, the stage's planner (retrieval.py for embed, retrieve and rerank;
rewrite.py; read.py; judge.py) renders the stage's real requests with the stage's own
request-building code through llm.dryrun.DryRunClient, which answers from
the LLM cache only: the requests whose hash is not cached are the calls a run would pay for.
Where a request cannot be rendered yet (an upstream stage would run first, or a judge request
needs an answer not yet paid for) the call is counted as an *estimate* and flagged as such.
Calls that are not ours (a reader plug-in's own model) are named as not counted.

For the new calls: input tokens (llm.pricing.count_tokens, the tokenizer named), output tokens
(the mean of cached calls of the same model and stage, else max_tokens), cost (pricing.prices_
for: config prices, else litellm's map) and wall time (calls x latency / concurrency, or the rpm
bound; latency is the mean seen in cached calls of that model and stage, else an assumed value).

One module per concern:
- work: the work items and their figures (LLMWork, TextWork, StagePlan, Plan);
- status: what DVC would run (memrecall.pipeline's graph, dvc.lock, `dvc status`);
- context: what a stage's planner is given (artifacts current for this config, questions);
- retrieval, graph, rewrite, read, judge: each stage's planner (graph: the graph reranker's
  entity-extraction calls), with the stage's own code;
- build: the whole plan (each stage's planner, upstream first) and the `memrecall plan` command;
- report: printing;
- sweep: a sweep's plans, their total (shared calls once) and the gate before it starts.

Importing the package imports nothing: build imports the planners, and each planner imports its
stage's code only when it runs.
"""
