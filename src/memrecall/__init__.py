"""memrecall: a declarative DVC pipeline for LongMemEval."""

__version__ = "0.1.0"
