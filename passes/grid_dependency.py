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
weights) overlaps the end of the previous kernel.  The pass writes no `launch_dependents`: without
one, a kernel's dependents launch as its CTAs exit, while its last memory operations drain.  A
kernel that never touches global memory gets no wait.

Decision: the wait as late as the rule allows, and no trigger.  Measured (tools/bench_chain.py:
chains of 8 calls, each layer its own weights, against the same kernels launched one after
another in the same run; an H100, three rounds, with the trigger at the kernel's entry, before the
skinny matmul's L2 prefetch): 16.5 us a call against 17.8-17.9 at 64 x 2112 x 7168, 17.7 against
19.0 at 64 x 1024 x 16384, 52.8-53.0 against 53.6-53.9 at 64 x 2048 x 32768, 89.0-90.8 against
89.5-90.7 at 64 x 7168 x 16384 (noise), 33.7-33.8 against 34.9 for an add + relu of [4096, 4096]
bf16: what a launch and a kernel's start cost, up to 1.3 us a call.  The trigger at the entry
then lost on the H200 where a kernel leaves some SMs free, so that some of its dependents' CTAs
start early and the rest as it ends (a probe, PTX without the trigger against the same PTX with
it, both JIT-compiled; chains as above, us a call, entry / no trigger / serial): 64 x 6144 x 16384
in 2 splits, 96 CTAs, 66.7 / 58.7 / 59.8; 64 x 7168 x 16384 in 2 splits, 112 CTAs, 68.7 / 65.2 /
66.1; the same unsplit, 56 CTAs, 74.7 / 74.3 / 75.7; 64 x 8448 x 16384, 132 CTAs, 73.0 / 73.4 /
75.2; 64 x 2112 x 7168, 119 CTAs, 13.9 / 14.0 / 15.0; 64 x 2048 x 32768, 128 CTAs, 40.4 / 40.4 /
41.6.  Not measured on the H100 without the trigger.

Contract
  in:  gpu.func kernels; one that holds either op already is left as it is.
  out: each other kernel that accesses global memory has one `nvasync.grid_dependency_wait` in its
       top-level block before any op that may access global memory (fuser-verify-syncs checks the
       placement in every kernel), marked `fuser.grid_dependency` (the reason), not
       `fuser.derived`: a kernel without it is correct, only not launched early.
"""
from __future__ import annotations

from mlir import ir

from ..dialects import nvasync
from .smem_model import first_global_access, first_nested, kernels

MARK = "fuser.grid_dependency"
WAIT = "nvasync.grid_dependency_wait"
TRIGGER = "nvasync.launch_dependents"     # the pass writes none; a kernel holding one is left alone


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
        wait = nvasync.GridDependencyWaitOp()
    wait.operation.attributes[MARK] = ir.StringAttr.get(
        f"no global access before the previous kernel in the stream completed: first {first_global_access(first).name}")
