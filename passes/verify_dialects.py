"""fuser-verify-dialects: the checks of the fusion and nvasync ops that IRDL cannot state.

Rule: value constraints (ranges, enums, alignment, shapes that must agree) hold for every op of
both dialects; each violation is reported at the op's location and the pass fails.
Contract: any module in, unchanged module out.  fuser-opt runs it after parsing, as mlir-opt runs
its verifier, and the compile driver runs it before lowering.
"""
from __future__ import annotations

from mlir import ir

from ..dialects import verify_op


def run(module_op, pass_) -> None:
    failed = False

    def visit(op):
        nonlocal failed
        for message in verify_op(op):
            op.location.emit_error(f"'{op.name}' op {message}")
            failed = True
        return ir.WalkResult.ADVANCE

    module_op.walk(visit)
    if failed:
        pass_.signal_pass_failure()
