"""fuser-unroll-loops: fully unroll every `scf.for` marked `fuser.unroll`.

Rule.  A scheduler keeps repetitive per-thread code rolled in kernel IR (a matmul epilogue walks
the accumulator fragment in a loop) so the sync passes analyse one copy of it; registers need it
unrolled, since an accumulator indexed by a loop variable would live in local memory.  This pass
runs after the sync passes, at the start of the lowering: the unrolled code performs the same
accesses in the same order as the loop, so every derived sync stays valid.  Each iteration is a
clone of the body with the induction variable a constant; canonicalization then folds the index
arithmetic (dynamic `vector.extract` positions become static).

Contract
  in:  marked loops with constant bounds and step, no results, nothing but `scf.yield` ending
       the body; unmarked loops are left alone.
  out: no marked loop remains.  A marked loop with non-constant bounds or results is an error.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

UNROLL_ATTR = "fuser.unroll"


def run(module_op, pass_) -> None:
    loops = []
    module_op.walk(lambda op: loops.append(op) or ir.WalkResult.ADVANCE
                   if op.name == "scf.for" and UNROLL_ATTR in op.attributes else ir.WalkResult.ADVANCE)
    for loop in loops:                     # the walk is post-order: inner loops first
        bounds = [_constant(v) for v in loop.operands[:3]]
        if None in bounds or loop.results:
            loop.location.emit_error("fuser-unroll-loops: a loop marked fuser.unroll needs constant bounds and "
                                     "no results")
            pass_.signal_pass_failure()
            return
        _unroll(loop, *bounds)


def _constant(value):
    owner = value.owner
    if getattr(owner, "name", None) == "arith.constant":
        return ir.IntegerAttr(owner.attributes["value"]).value
    return None


def _unroll(loop, lower: int, upper: int, step: int) -> None:
    body = loop.regions[0].blocks[0]
    iv = body.arguments[0]
    with ir.InsertionPoint(loop), loop.location:
        for i in range(lower, upper, step):
            mapping = {iv: arith.constant(iv.type, i)}
            for op in body.operations:
                if op.name != "scf.yield":
                    clone_with(op, mapping)
    loop.erase()


def clone_with(op, mapping: dict):
    """Clone `op` at the current insertion point with its operands (and those of the ops nested
    in it) replaced as `mapping` says; its results are added to `mapping`.  Returns the clone."""
    clone = op.clone(ip=ir.InsertionPoint.current)

    def visit(nested):
        for k, value in enumerate(nested.operands):
            if value in mapping:
                nested.operands[k] = mapping[value]
        return ir.WalkResult.ADVANCE

    clone.operation.walk(visit)
    for old, new in zip(op.results, clone.results):
        mapping[old] = new
    return clone
