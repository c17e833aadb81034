"""Tessera's errors as Python exceptions (TVM's tvm.error).

``DiagnosticError`` is a problem in what the user gave (malformed text, wrong shapes, an unknown
op): ``.code`` is the diagnostic's stable label (``parse``, ``conv2d_c3``, ...), ``.span`` where it
is (``Span(source, line, column)``, or None when the place is not in a text), ``.message`` what was
expected and found, ``.context`` a non-textual place (an op and argument, an ONNX node).
``InternalError`` is a failed internal check: a bug in Tessera, never the user's fault.
"""
from typing import NamedTuple


class Span(NamedTuple):
    """A place in a named source: 1-based line and column."""

    source: str
    line: int
    column: int

    def __str__(self):
        return f"{self.source}:{self.line}:{self.column}"


class TesseraError(RuntimeError):
    """Base of Tessera's errors (TVM's TVMError)."""


TVMError = TesseraError


class DiagnosticError(TesseraError):
    """A located problem in user input; str() is the diagnostic as the CLI prints it."""

    def __init__(self, text, code="", message=None, span=None, context="", notes=()):
        super().__init__(text)
        self.code = code
        self.message = text if message is None else message
        self.span = Span(*span) if span else None
        self.context = context
        self.notes = list(notes)


class InternalError(TesseraError):
    """A failed internal invariant (TS_CHECK): report it as a bug."""

    code = "internal"
    span = None

    def __init__(self, text):
        super().__init__(text)
        self.message = text
