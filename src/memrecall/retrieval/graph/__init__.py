"""Graph entity rerank (`reranker=graph`), the Compass paper's entity graph on an embedded
Cypher database (docs/graph-rerank.md):

entities.py  what an entity is: the offline extractor and the LLM one, and their normal form
store.py     the session/entity graph of one question's candidate pool (ladybug, Cypher)
rerank.py    the stage's graph branch: question entities + 2-hop CO_OCCUR neighbourhood score the
             sessions; blended with the candidates' current scores by `reranker.graph.weight`
"""
