"""LongMemEval data: hub download (hub), parsing and validation (longmemeval), subsets (subset),
the bundled sample (sample), the data card (card); prepare ties them into the download stage."""
