"""read: turn each question's final candidate sessions into a reader prompt and answer it."""
