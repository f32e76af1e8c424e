"""fuser-verify-dialects: the checks of the fusion and nvasync ops that IRDL cannot state.

Rule: value constraints (ranges, enums, alignment, shapes that must agree) hold for every op of
both dialects, and a kernel's `gpu.known_block_size` is a CUDA block (x, y at most 1024, z at most
64, each at least 1, at most 1024 threads): upstream checks only its arity, the NVVM lowering
takes the sizes on trust (a negative one aborts LLVM) and the sync passes enumerate its threads.
Each violation is reported at the op's location and the pass fails.
Contract: any module in, unchanged module out.  fuser-opt runs it after parsing, as mlir-opt runs
its verifier, and the compile driver runs it before lowering.
"""
from __future__ import annotations

import math

from mlir import ir

from ..dialects import verify_op

MAX_BLOCK = (1024, 1024, 64)
MAX_THREADS = 1024


def run(module_op, pass_) -> None:
    failed = False

    def visit(op):
        nonlocal failed
        for message in verify_op(op) + _block_size_errors(op.operation):
            op.location.emit_error(f"'{op.name}' op {message}")
            failed = True
        return ir.WalkResult.ADVANCE

    module_op.walk(visit)
    if failed:
        pass_.signal_pass_failure()


def _block_size_errors(op) -> list[str]:
    """gpu.func's block size, under either name the lowering reads (its own `known_block_size`, the
    `gpu.` one the passes write); upstream has checked that it is 3 i32s."""
    if op.name != "gpu.func":
        return []
    errors = []
    for name in ("known_block_size", "gpu.known_block_size"):
        sizes = list(ir.DenseI32ArrayAttr(op.attributes[name])) if name in op.attributes else [1, 1, 1]
        if not all(1 <= s <= most for s, most in zip(sizes, MAX_BLOCK)) or math.prod(sizes) > MAX_THREADS:
            errors.append(f"{name} {sizes} is not a CUDA block: x and y in [1, {MAX_BLOCK[0]}], z in "
                          f"[1, {MAX_BLOCK[2]}], at most {MAX_THREADS} threads")
    return errors
