"""Audits of the judges themselves: planted answers (planting.py) and how often each judge
accepts a wrong one or rejects a right one (leniency.py, `memrecall audit-judge`); labelled
answers in other house styles, whose verdicts should not change (restyle.py)."""
