"""Audits of the judges themselves: planted answers (planting.py) and how often each judge
accepts a wrong one or rejects a right one (leniency.py, `memrecall audit-judge`); labelled
answers in other house styles (restyle.py), asked in other words (reword.py) or with their
questions' names made up (rename.py), whose verdicts should not change (variants.py counts the
verdicts a restyling or a rewording changes)."""
