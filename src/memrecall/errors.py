"""One error type whose message always says where the problem is: file, question id, field."""

from __future__ import annotations


class MemrecallError(Exception):
    """A user-facing error. Stage scripts print it without a stack trace and exit 1."""


class InputError(MemrecallError):
    """Bad input data: names the file (and line, for line-based files), the question id and the
    field."""

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        question_id: str | None = None,
        field: str | None = None,
        line: int | None = None,
    ):
        self.file, self.question_id, self.field, self.line = file, question_id, field, line
        where = ", ".join(
            f"{k} {v!r}"
            for k, v in (
                ("file", file),
                ("line", line),
                ("question_id", question_id),
                ("field", field),
            )
            if v is not None
        )
        super().__init__(f"{message} ({where})" if where else message)


class ConfigError(MemrecallError):
    """A bad or unknown config option: names the params key and the valid choices."""

    def __init__(self, key: str, value, choices=None, hint: str = ""):
        msg = (
            f"unknown {key} override"
            if value == "override"
            else f"unknown value {value!r} for config key '{key}'"
        )
        if choices is not None:
            msg += f"; choose one of: {', '.join(map(str, choices))}"
        if hint:
            msg += f". {hint}"
        super().__init__(msg)
