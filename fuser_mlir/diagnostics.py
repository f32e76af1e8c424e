"""Located diagnostics and the errors the compiler raises.

Every failure a user can cause (bad IR, bad options, a kernel the backend rejects) becomes a
`CompileError` holding `Diagnostic`s with file, line and column; `str()` prints them the way
mlir-opt does: `file:line:col: error: message`.  No MLIR import at module level.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Diagnostic:
    severity: str            # "error" | "warning" | "note" | "remark"
    message: str
    file: str = ""
    line: int = 0
    col: int = 0
    notes: tuple["Diagnostic", ...] = field(default=())

    def format(self, filename: str | None = None) -> str:
        file = filename if filename and self.file in ("", "-") else self.file
        where = f"{file}:{self.line}:{self.col}: " if self.line else (f"{file}: " if file else "")
        text = f"{where}{self.severity}: {self.message}"
        return "\n".join([text] + [n.format(filename) for n in self.notes])

    def to_json(self) -> dict:
        return {"severity": self.severity, "message": self.message, "file": self.file,
                "line": self.line, "col": self.col, "notes": [n.to_json() for n in self.notes]}

    @staticmethod
    def from_json(d: dict) -> "Diagnostic":
        return Diagnostic(d["severity"], d["message"], d["file"], d["line"], d["col"],
                          tuple(Diagnostic.from_json(n) for n in d["notes"]))


class CompileError(Exception):
    """A failure with located diagnostics; `filename` names the input where locations say "-"."""

    def __init__(self, diagnostics, filename: str | None = None):
        self.diagnostics = list(diagnostics)
        self.filename = filename
        super().__init__(self.format())

    def format(self, filename: str | None = None) -> str:
        return "\n".join(d.format(filename or self.filename) for d in self.diagnostics)

    __str__ = format


class FusionError(ValueError):
    """A fusion that cannot be built or run as given (API misuse, unsupported input); the message
    names the tensors involved."""


def error(message: str, file: str = "", line: int = 0, col: int = 0) -> CompileError:
    return CompileError([Diagnostic("error", message, file, line, col)])


def file_location(loc):
    """(file, line, col) of an MLIR location, looking through fused/name/callsite locations."""
    if loc.is_a_file():
        return loc.filename, loc.start_line, loc.start_col
    for child in _child_locations(loc):
        found = file_location(child)
        if found[1]:
            return found
    return "", 0, 0


def _child_locations(loc):
    if loc.is_a_fused():
        return list(loc.locations)
    if loc.is_a_name():
        return [loc.child_loc]
    if loc.is_a_callsite():
        return [loc.callee, loc.caller]
    return []


_SEVERITY = {"ERROR": "error", "WARNING": "warning", "NOTE": "note", "REMARK": "remark"}


def from_mlir(diag) -> Diagnostic:
    """A Diagnostic from an MLIR diagnostic or `DiagnosticInfo` (as MLIRError carries)."""
    severity = _SEVERITY.get(str(diag.severity).rsplit(".", 1)[-1], "error")
    file, line, col = file_location(diag.location)
    return Diagnostic(severity, str(diag.message), file, line, col,
                      tuple(from_mlir(n) for n in diag.notes))


def from_mlir_error(exc) -> CompileError:
    """Turn an `MLIRError` into a CompileError, keeping its text when it carries no diagnostics."""
    diagnostics = [from_mlir(d) for d in exc.error_diagnostics]
    if not diagnostics:
        diagnostics = [Diagnostic("error", str(exc.message if hasattr(exc, "message") else exc))]
    return CompileError(diagnostics)
