"""fuser-insert-proxy-fences: fence.proxy.async.shared::cta where generic smem writes feed TMA/wgmma.

Rule: shared memory written by generic stores (st.shared, vector stores) and then read by the async
proxy (a TMA store/reduce source, a wgmma operand) needs, in every writing thread, a
`fence.proxy.async.shared::cta` after its last write and before the barrier that hands the buffer
to the issuing thread (a barrier orders threads, not proxies).  Always the `.shared::cta` form,
never the bare one (which also orders global memory, at a measured cost).  Never under the issue
predicate: the fence sits in the block of the barrier, which every writer reaches, so threads do
not diverge right before `bar.sync`.  One fence covers every write before it, so one is placed per
handing-over barrier, at the last barrier on the path that orders the writers before the reader
(the one closest to the reader: hazards reaching it from several writes -- a loop-carried write
from another branch among them -- share its fence); an existing fence of the writers followed by
such a barrier covers when it is `.shared::cta`, `.shared::cluster` (which includes the CTA's
shared memory) or the bare form.  When the elected
thread writes and then issues the async op itself there is no barrier: the fence goes right
before the async op.  When the writers hand the buffer on to other warps through an mbarrier
(fuser-insert-syncs' `Handoffs`: warp roles, which no barrier can order), the fence goes
right before their arrive -- or, where one lane arrives for its warp, before the warp's sync, so
every writer has fenced when the lane arrives.  None after TMA loads: their mbarrier completion
already orders them for generic readers and for wgmma.

Rule (global memory): an acquire (`wait_flag`, `arrive_flag`) followed, in the same thread, by a TMA
store/reduce needs `fence.proxy.async.global` between them: the acquire orders the generic proxy
only, and the TMA op writes global memory through the async proxy (a split-K reduce-add into a
workspace tile another CTA wrote and released).  One fence right after the acquire serves every
TMA op it reaches; an existing `.global` or bare fence on the path covers.

Contract
  in:  kernels after fuser-insert-syncs (each generic-write -> async-read hazard has a barrier on
       its path, or an mbarrier handoff between disjoint warps).
  out: the same kernels plus fences, each marked `fuser.derived`.
"""
from __future__ import annotations

from mlir import ir

from ..dialects import nvasync
from .insert_syncs import BARRIERS, Handoffs, describe, mark
from .smem_model import (ACQUIRES, FENCE_SPACES_COVERING_CTA_SMEM, accesses, barrier_orders, elect_op, kernels,
                         record_loop_steps, threads_of)
from .sync_paths import chain, find_path, invalidate

FENCE = "nvasync.fence_proxy_async"
TMA_GLOBAL_WRITES = ("nvasync.tma_store", "nvasync.tma_reduce")


def run(module_op, pass_) -> None:
    for func in kernels(module_op):
        invalidate()
        record_loop_steps(func)
        found = accesses(func)
        handoffs = Handoffs(func)
        for a in found:
            if not (a.proxy == "generic" and a.is_write):
                continue
            for b in found:
                if b.proxy == "async" and not b.is_write and a.overlaps(b):
                    arrive = handoffs.arrive(a.op, a.threads, b.op, b.threads) \
                        if a.threads.disjoint(b.threads) else None
                    if arrive is not None:
                        _fence_before_arrive(a, b, arrive)
                    else:
                        _fence_before_handover(a, b)
        _fence_after_acquires(func)


def _fence_before_handover(a, b) -> None:
    path = find_path(a.op, b.op)
    if path is None:
        return
    single = a.threads == b.threads and a.threads.issuer     # the writer issues the async op itself
    reason = f"generic writes -> async proxy: {describe(a.op)} -> {describe(b.op)}"
    fenced, handover = False, None
    for p in path.ops:
        if p.op.name == FENCE and p.op.attributes["space"].value in FENCE_SPACES_COVERING_CTA_SMEM \
                and threads_of(p.op).covers(a.threads):
            if single:
                return                               # the writer's own fence before its async op
            fenced = True
        if not single and p.op.name in BARRIERS and barrier_orders(p.op, a.threads, b.threads):
            if fenced:
                return                               # an existing fence in the writers, then a handover
            handover = p.op
    if handover is not None:    # the last handing-over barrier: a fence there serves the hazards
        with ir.InsertionPoint(handover), handover.location:     # that reach the reader through it
            mark(nvasync.FenceProxyAsyncOp(space="shared::cta"), reason)
        return
    if single:
        with ir.InsertionPoint(b.op), b.op.location:
            mark(nvasync.FenceProxyAsyncOp(space="shared::cta"), reason)


def _fence_before_arrive(a, b, arrive) -> None:
    """Writers that hand the buffer on to other warps through an mbarrier: the fence goes right
    before their arrive, unless one of theirs already stands between the write and it."""
    path = find_path(a.op, arrive)
    if path is None or any(p.op.name == FENCE and p.op.attributes["space"].value in FENCE_SPACES_COVERING_CTA_SMEM
                           and threads_of(p.op).covers(a.threads) for p in path.ops):
        return
    # One lane arriving for its warp (after a warp sync): the fence goes before the sync, where
    # every writer of the warp runs it.
    anchor = arrive
    while anchor.parent.name == "scf.if" and elect_op(anchor.parent.operands[0]) is not None:
        anchor = anchor.parent
    if anchor != arrive:
        before = _previous(anchor)
        while before is not None and before.name == "nvasync.elect_one":
            before = _previous(before)
        if before is not None and before.name == "nvasync.warp_sync":
            anchor = before
    with ir.InsertionPoint(anchor), arrive.location:
        mark(nvasync.FenceProxyAsyncOp(space="shared::cta"),
             f"generic writes -> async proxy, handed on by an mbarrier: {describe(a.op)} -> {describe(b.op)}")


def _previous(op):
    """The op before `op` in its block, or None."""
    ops = [o.operation for o in chain(op)[0][0].operations]
    k = ops.index(op.operation)
    return ops[k - 1] if k else None


def _fence_after_acquires(func) -> None:
    waits, tma_writes = [], []

    def visit(op):
        if op.name in ACQUIRES:
            waits.append(op)
        elif op.name in TMA_GLOBAL_WRITES:
            tma_writes.append(op)
        return ir.WalkResult.ADVANCE

    func.walk(visit)
    for wait in waits:
        for store in tma_writes:
            path = find_path(wait, store)
            if path is None or not threads_of(wait).covers(threads_of(store)):
                continue
            if any(p.op.name == FENCE and p.op.attributes["space"].value in ("global", "all") for p in path.ops):
                continue
            with ir.InsertionPoint(wait), wait.location:
                fence = mark(nvasync.FenceProxyAsyncOp(space="global"),
                             f"acquire -> async-proxy global writes: {describe(wait)} -> {describe(store)}")
            wait.move_before(fence)
            invalidate()
