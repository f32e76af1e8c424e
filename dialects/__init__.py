"""The project's dialects: `fusion` (what to compute) and `nvasync` (how Hopper moves data).

`load_dialects(ctx)` makes both available in a context, once: loading an IRDL dialect twice into one
context aborts the process in this LLVM, so it is guarded per context.  Nothing here imports MLIR
until a function is called.
"""
from __future__ import annotations

from . import fusion, nvasync
from .opdef import attr_kind_errors, irdl_text

DIALECT_MODULES = (fusion, nvasync)
_python_classes_registered = False


def irdl_source() -> str:
    """Both dialects as IRDL text; a stock `mlir-opt --irdl-file=` loads it."""
    return "module {\n" + "".join(irdl_text(m.DIALECT, m.OPS) for m in DIALECT_MODULES) + "}\n"


def load_dialects(ctx) -> None:
    """Load both dialects into `ctx` (idempotent) and register their Python op classes."""
    global _python_classes_registered
    from mlir import ir
    from mlir.dialects import irdl

    if not _python_classes_registered:
        from mlir.dialects._ods_common import _cext

        # `op.opview` finds our classes only once MLIR has "imported" the dialect's module.
        _cext.globals.append_dialect_search_prefix(__name__)
        for module in DIALECT_MODULES:
            module.register_python_classes(vars(module))
        _python_classes_registered = True
    if ctx.is_registered_operation("nvasync.smem_buffer"):
        return
    with ctx, ir.Location.unknown():
        irdl.load_dialects(ir.Module.parse(irdl_source()))


def new_context():
    """A fresh MLIR context with the upstream dialects and ours loaded."""
    from mlir import ir

    ctx = ir.Context()
    load_dialects(ctx)
    return ctx


def verify_op(op) -> list[str]:
    """Value checks IRDL cannot state, for an op of either dialect (others: no errors)."""
    op = op.operation
    dialect = op.name.partition(".")[0]
    for module in DIALECT_MODULES:
        if module.DIALECT == dialect:
            # the value checks read the attributes: only once they are of their declared kinds
            return attr_kind_errors(op) or module.verify_op(op)
    return []
