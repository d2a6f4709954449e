"""Retrieval: key texts (keys), encoders behind a vector cache (embedders), the embed stage
(embed), optional V+fact key expansion (expansion), the embeddings indexed by session (units),
dense / BM25 / hybrid ranking (dense, bm25, fusion, retrieve) and cached cross-encoder reranking
(rerank). Heavy libraries (torch, FlagEmbedding) load only when a text or pair is missing from
the caches."""
