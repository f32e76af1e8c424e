"""fuser-flush-wgmma: the wgmma group protocol -- fence, commit, and one flush per accumulator use.

Rules (nvFuser PRs #3843, #3863, #3865; ../shared/HOPPER.md):
  * `wgmma.fence` once before each group of consecutive wgmma (a k-block), not per instruction;
    address arithmetic between them (the next k-slice's `memref.subview`, arith) does not
    break a group;
  * every wgmma is committed (`wgmma.commit_group`) once, right after its group, before any wait
    relies on it;
  * `wgmma.wait_group 0` ("flush") once before the first op that reads an accumulator; later
    readers need none until another wgmma is issued.  Two independent mma chains read after both
    are issued share one flush; chains read in between get one each.  The flush goes at the
    outermost level: before a loop whose body reads the accumulator, not inside it;
  * a wgmma reads its smem operands until its group completes: when anything may rewrite those
    buffers, the warpgroup waits (`wgmma.wait_group 0`) before the op that releases them.  Two
    ops release:
      - a CTA or named barrier (`sync_threads`, `named_barrier`; fuser-insert-syncs places it
        before a rewrite by other threads, e.g. the refill of a `pipelined` stage).  Where
        fuser-insert-syncs marked it `fuser.wgmma_pending` (a later wgmma group runs between
        every wgmma read it releases and itself: a `pipelined` loop refilling the stage the
        previous step read), the wait is `wgmma.wait_group 1`: the newest group stays in flight
        across the barrier and into the next step, reading a buffer nothing rewrites yet;
      - a pipeline's consumer release: an `mbarrier_arrive` on a stage's `empty` barrier (marked
        by fuser-pipeline-mbarriers with `fuser.pipeline = "empty[...]"`), after which the
        producer refills the stage by TMA (`warp_specialized` mode).  The arrive runs in one
        elected lane per warp after a `warp_sync`; wgmma.wait_group is .sync.aligned (every
        thread of the warpgroup executes it), so the wait goes before that `warp_sync`, outside
        the elected branch -- or before the region op that holds the arrive when there is no
        `warp_sync` in front of it.
    A wait already in place (e.g. the flush of an accumulator read earlier in the stage) covers
    the release: none is added then.
Contract
  in:  kernels with wgmma ops (after fuser-insert-syncs, which placed the releasing barriers, and
       after fuser-pipeline-mbarriers, which created the empty-barrier releases).
  out: the same kernels plus wgmma_fence / wgmma_commit / wgmma_wait ops marked `fuser.derived`.
"""
from __future__ import annotations

from mlir import ir

from ..dialects import nvasync
from .insert_syncs import BARRIERS, WGMMA_PENDING, describe, mark
from .smem_model import accesses, accumulator_readers, first_nested, kernels, op_key
from .sync_paths import invalidate

TERMINATORS = ("scf.yield", "gpu.yield", "gpu.return")
VIEW_OPS = ("memref.subview", "memref.cast", "memref.reinterpret_cast")
PROTOCOL = "fuser.pipeline"            # fuser-pipeline-mbarriers' mark on the protocol ops it creates


def is_empty_release(op) -> bool:
    """A consumer's arrive on a pipeline stage's `empty` mbarrier: the stage may be refilled."""
    op = op_key(op)
    return (op.name == "nvasync.mbarrier_arrive" and PROTOCOL in op.attributes
            and ir.StringAttr(op.attributes[PROTOCOL]).value.startswith("empty["))


def run(module_op, pass_) -> None:
    for func in kernels(module_op):
        invalidate()
        readers = {op_key(r) for _, r in accumulator_readers(func)}
        found = accesses(func)
        operands = [a for a in found if a.op.name == "nvasync.wgmma"]
        rewritten = any(w.is_write and w.op.name != "nvasync.wgmma" and any(w.overlaps(o) for o in operands)
                        for w in found)
        _Flusher(readers, rewritten).block(func.regions[0].blocks[0], unwaited=False)


class _Flusher:
    def __init__(self, readers, operands_rewritten):
        self.readers = readers
        self.operands_rewritten = operands_rewritten

    def contains(self, op, predicate) -> bool:
        return first_nested(op, predicate) is not None

    def transparent(self, op) -> bool:
        """Address arithmetic between two wgmma (the next k-slice's subview, its index math):
        it touches no memory and no accumulator, so the group stays open across it."""
        return (not op.regions and op not in self.readers
                and (op.name in VIEW_OPS or op.name.partition(".")[0] in ("arith", "index")))

    def releases(self, ops, index) -> bool:
        """Does ops[index] start a consumer release: the warp_sync right before an empty-barrier
        arrive (or the op holding one), or, without that warp_sync, such an op itself?"""
        op = ops[index]
        if op.name == "nvasync.warp_sync":
            return index + 1 < len(ops) and self.contains(ops[index + 1], is_empty_release)
        return self.contains(op, is_empty_release)

    def block(self, block, unwaited: bool) -> bool:
        """Process `block`; returns whether wgmma groups may still be in flight at its end."""
        ops = [op_key(o) for o in block.operations]
        run_open = False                       # wgmma issued since the last commit
        for index, op in enumerate(ops):
            name = op.name
            if name == "nvasync.wgmma":
                previous = ops[index - 1].name if index else None
                if not run_open and previous != "nvasync.wgmma_fence":
                    with ir.InsertionPoint(op), op.location:
                        mark(nvasync.WgmmaFenceOp(), f"order accumulator/operand accesses before {describe(op)}")
                run_open = True
                continue
            if name == "nvasync.wgmma_fence":
                continue
            if run_open and self.transparent(op):
                continue
            if run_open:
                run_open = False
                unwaited = True
                if name != "nvasync.wgmma_commit":
                    with ir.InsertionPoint(op), op.location:
                        mark(nvasync.WgmmaCommitOp(), f"commit the wgmma group before {describe(op)}")
            if name == "nvasync.wgmma_commit":
                unwaited = True
            elif name == "nvasync.wgmma_wait" and ir.IntegerAttr(op.attributes["pending"]).value == 0:
                unwaited = False
            elif unwaited and self.contains(op, lambda o: op_key(o) in self.readers):
                with ir.InsertionPoint(op), op.location:
                    mark(nvasync.WgmmaWaitOp(pending=0), f"flush wgmma before reading the accumulator: {describe(op)}")
                unwaited = False
            elif unwaited and name in BARRIERS and self.operands_rewritten:
                lagging = WGMMA_PENDING in op.attributes     # the newest group reads no buffer released
                with ir.InsertionPoint(op), op.location:
                    mark(nvasync.WgmmaWaitOp(pending=int(lagging)),
                         f"wgmma still reads its smem operands: wait before the barrier that releases them "
                         f"({describe(op)})" + (", all but the newest group" if lagging else ""))
                unwaited = lagging
            elif unwaited and self.operands_rewritten and self.releases(ops, index):
                with ir.InsertionPoint(op), op.location:
                    mark(nvasync.WgmmaWaitOp(pending=0), "wgmma still reads its smem operands: wait before "
                                                         f"the empty-barrier arrive that releases them ({describe(op)})")
                unwaited = False
            for region in op.regions:          # groups left in flight inside stay in flight after
                for inner in region.blocks:
                    if self.block(inner, False):
                        unwaited = True
        if run_open:
            terminator = ops[-1] if ops and ops[-1].name in TERMINATORS else None
            with (ir.InsertionPoint(terminator) if terminator else ir.InsertionPoint(block)), \
                    (terminator or ops[-1]).location:
                mark(nvasync.WgmmaCommitOp(), "commit the wgmma group at the end of its block")
            unwaited = True
        return unwaited
