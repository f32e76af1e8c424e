"""fuser-flush-wgmma: the wgmma group protocol -- fence, commit, and one flush per accumulator use.

Rules (nvFuser PRs #3843, #3863, #3865; ../shared/HOPPER.md):
  * `wgmma.fence` once before each group of consecutive wgmma (a k-block), not per instruction;
    address arithmetic between them (the next k-slice's `memref.subview`, arith) does not
    break a group;
  * every wgmma is committed (`wgmma.commit_group`) once, right after its group, before any wait
    relies on it;
  * groups still in flight at the kernel's end (an accumulator never read) are retired before it
    (`wgmma.wait_group 0`): their smem must outlive their reads;
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
        entry = func.regions[0].blocks[0]
        if _Flusher(readers, rewritten).block(entry, unwaited=False):
            exit_op = op_key(list(entry.operations)[-1])
            with ir.InsertionPoint(exit_op), exit_op.location:
                mark(nvasync.WgmmaWaitOp(pending=0), "retire the wgmma groups still in flight before exit")


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

    def insert(self, before, make, reason: str, dry: bool) -> None:
        if not dry:
            with ir.InsertionPoint(before), before.location:
                mark(make(), reason)

    def block(self, block, unwaited: bool, dry: bool = False) -> bool:
        """Process `block`, entered with groups in flight when `unwaited`; returns whether groups
        may still be in flight at its end.  `dry`: only that answer, the IR left alone."""
        ops = [op_key(o) for o in block.operations]
        run_open = False                       # wgmma issued since the last commit
        for index, op in enumerate(ops):
            name = op.name
            if name == "nvasync.wgmma":
                previous = ops[index - 1].name if index else None
                if not run_open and previous != "nvasync.wgmma_fence":
                    self.insert(op, nvasync.WgmmaFenceOp, f"order accumulator/operand accesses before {describe(op)}",
                                dry)
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
                    self.insert(op, nvasync.WgmmaCommitOp, f"commit the wgmma group before {describe(op)}", dry)
            if name == "nvasync.wgmma_commit":
                unwaited = True
            elif name == "nvasync.wgmma_wait" and ir.IntegerAttr(op.attributes["pending"]).value == 0:
                unwaited = False
            elif unwaited and self.contains(op, lambda o: op_key(o) in self.readers):
                self.insert(op, lambda: nvasync.WgmmaWaitOp(pending=0),
                            f"flush wgmma before reading the accumulator: {describe(op)}", dry)
                unwaited = False
            elif unwaited and name in BARRIERS and self.operands_rewritten:
                # fuser-insert-syncs' count: groups the barrier leaves in flight (their reads are
                # of buffers it does not release)
                pending = ir.IntegerAttr(op.attributes[WGMMA_PENDING]).value if WGMMA_PENDING in op.attributes else 0
                self.insert(op, lambda: nvasync.WgmmaWaitOp(pending=pending),
                            f"wgmma still reads its smem operands: wait before the barrier that releases them "
                            f"({describe(op)})" + (", all but the newest group" if pending else ""), dry)
                unwaited = pending > 0
            elif unwaited and self.operands_rewritten and self.releases(ops, index):
                self.insert(op, lambda: nvasync.WgmmaWaitOp(pending=0), "wgmma still reads its smem operands: wait "
                            f"before the empty-barrier arrive that releases them ({describe(op)})", dry)
                unwaited = False
            for region in op.regions:
                for inner in region.blocks:
                    # A loop body's later iterations start as it ends; a branch starts as here.
                    entry = unwaited or (name == "scf.for" and self.block(inner, unwaited, dry=True))
                    if self.block(inner, entry, dry):
                        unwaited = True         # groups left in flight inside stay in flight after
        if run_open:
            terminator = ops[-1] if ops and ops[-1].name in TERMINATORS else None
            if not dry:
                with (ir.InsertionPoint(terminator) if terminator else ir.InsertionPoint(block)), \
                        (terminator or ops[-1]).location:
                    mark(nvasync.WgmmaCommitOp(), "commit the wgmma group at the end of its block")
            unwaited = True
        return unwaited
