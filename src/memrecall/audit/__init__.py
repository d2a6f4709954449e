"""Audits of the judges themselves: planted answers (planting.py) and how often each judge
accepts a wrong one or rejects a right one (leniency.py, `memrecall audit-judge`); labelled
answers in other house styles (restyle.py), asked in other words (reword.py), with their
questions' names made up (rename.py), against references written in other words (restate.py) or
with quantities written another way (notation.py), whose verdicts should not change (variants.py
counts the verdicts each of them changes)."""
