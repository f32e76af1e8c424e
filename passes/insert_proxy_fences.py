"""fuser-insert-proxy-fences: fence.proxy.async.shared::cta where generic smem writes feed TMA/wgmma.

Rule: shared memory written by generic stores (st.shared, vector stores) and then read by the async
proxy (a TMA store/reduce source, a wgmma operand) needs, in every writing thread, a
`fence.proxy.async.shared::cta` after its last write and before the barrier that hands the buffer
to the issuing thread (a barrier orders threads, not proxies).  Always the `.shared::cta` form,
never the bare one (which also orders global memory, at a measured cost).  Never under the issue
predicate: the fence sits in the block of the barrier, which every writer reaches, so threads do
not diverge right before `bar.sync`.  One fence covers every write before it, so one is placed per
handing-over barrier.  None after TMA loads: their mbarrier completion already orders them for
generic readers and for wgmma.

Contract
  in:  kernels after fuser-insert-syncs (each generic-write -> async-read hazard has a barrier on
       its path).
  out: the same kernels plus fences, each marked `fuser.derived`.
"""
from __future__ import annotations

from mlir import ir

from ..dialects import nvasync
from .insert_syncs import BARRIERS, _kernels, describe, mark
from .smem_model import accesses, record_loop_steps
from .sync_paths import find_path, invalidate

FENCE = "nvasync.fence_proxy_async"


def run(module_op, pass_) -> None:
    for func in _kernels(module_op):
        invalidate()
        record_loop_steps(func)
        found = accesses(func)
        for a in found:
            if not (a.proxy == "generic" and a.is_write):
                continue
            for b in found:
                if b.proxy == "async" and not b.is_write and a.overlaps(b):
                    _fence_before_handover(a, b)


def _fence_before_handover(a, b) -> None:
    path = find_path(a.op, b.op)
    if path is None:
        return
    for p in path.ops:
        if p.issuer:
            continue
        if p.op.name == FENCE and p.op.attributes["space"].value in ("shared::cta", "all"):
            return                                   # an existing fence in the writers covers it
        if p.op.name in BARRIERS:
            with ir.InsertionPoint(p.op), p.op.location:
                mark(nvasync.FenceProxyAsyncOp(space="shared::cta"),
                     f"generic writes -> async proxy: {describe(a.op)} -> {describe(b.op)}")
            return
