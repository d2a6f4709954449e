"""Reports: run-level tables and figures (aggregate), paper tables across DVC experiments
(paper), and their Markdown/LaTeX/CSV rendering (tables)."""
