"""fuser-grid-dependency: let each kernel start while the kernel before it in its stream finishes.

Rule (PTX ISA, "griddepcontrol"; CUDA, "programmatic dependent launch").  The runtime launches a
kernel that holds `nvasync.grid_dependency_wait` as a programmatic dependent of the kernel before
it in the stream (launcher.py), so its CTAs may run while that kernel's last CTAs still do.
`griddepcontrol.wait` holds a thread until that kernel has completed and its memory operations
are visible.  So no thread may touch global memory before it has waited: not read what the
previous kernel writes, not write what it still reads.  The pass puts one wait in the kernel's
top-level block, right before the first op that may access global memory
(`smem_model.accesses_global`, in the op or its regions: a warp role, a tile loop).  Every thread
runs it, and the prologue before it (thread indices, mbarrier initialisation and its fence and
barrier, L2 prefetches -- `nvasync.tma_prefetch`, a hint no thread observes: the skinny matmul's
weights) overlaps the previous kernel.  `launch_dependents` goes first: the next kernel, launched
the same way, may begin as soon as every CTA of this one has; it waits on its own
`grid_dependency_wait` for this kernel to complete.  A kernel that never touches global memory
gets neither.

Decision: every kernel, the trigger first and the wait as late as the rule allows.  Measured
(tools/bench_chain.py: chains of 8 calls, each layer its own weights, against the same kernels
launched one after another in the same run; an H100, three rounds, before the skinny matmul's L2
prefetch -- tools/results/bench_chain_h100.json is the later run with it, 1.012-1.107x): 16.5 us a
call against 17.8-17.9 at 64 x 2112 x 7168, 17.7 against 19.0 at 64 x 1024 x 16384, 52.8-53.0
against 53.6-53.9 at 64 x 2048 x 32768, 89.0-90.8 against 89.5-90.7 at 64 x 7168 x 16384 (noise),
33.7-33.8 against 34.9 for an add + relu of [4096, 4096] bf16: what a launch and a kernel's start
cost, up to 1.3 us a call (an H200, the same run's kernels: 0.3-1.2).  A probe before (the two ops
at the kernel's entry, one kernel relaunched on the same data through the Python path, an H200)
gained 1.8-3.6 us a call at 64 x 2112 x 7168 and 64 x 1024 x 16384, whose weights stayed in L2, and
3.1 at 16 x 2048 x 32768.

Contract
  in:  gpu.func kernels; one that holds either op already is left as it is.
  out: each other kernel that accesses global memory starts with `nvasync.launch_dependents` and
       has one `nvasync.grid_dependency_wait` in its top-level block before any op that may
       access global memory (fuser-verify-syncs checks the placement in every kernel).  Both
       carry `fuser.grid_dependency` (the reason), not `fuser.derived`: a kernel without them is
       correct, only not launched early.
"""
from __future__ import annotations

from mlir import ir

from ..dialects import nvasync
from .smem_model import first_global_access, first_nested, kernels

MARK = "fuser.grid_dependency"
WAIT = "nvasync.grid_dependency_wait"
TRIGGER = "nvasync.launch_dependents"


def run(module_op, pass_) -> None:
    for func in kernels(module_op):
        insert(func)


def insert(func) -> None:
    body = func.regions[0].blocks[0]
    ops = list(body.operations)
    if any(first_nested(op, lambda inner: inner.name in (WAIT, TRIGGER)) for op in ops):
        return                       # placed already (fuser-verify-syncs checks where)
    first = next((op for op in ops if first_global_access(op) is not None), None)
    if first is None:
        return
    with ir.InsertionPoint(first), first.location:
        _mark(nvasync.GridDependencyWaitOp(), "no global access before the previous kernel in the stream completed: "
                                              f"first {first_global_access(first).name}")
    with ir.InsertionPoint(ops[0]), ops[0].location:
        _mark(nvasync.LaunchDependentsOp(), "the next kernel in the stream may start launching")


def _mark(op, reason: str):
    op.operation.attributes[MARK] = ir.StringAttr.get(reason)
    return op
