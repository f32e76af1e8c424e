"""fuser-tma-reduce-store: rewrite split-K marks into TMA store/reduce-stores and semaphore protocols.

Rule.  A split-K tile is computed by `splits` work units (its splits), each over a slice of K;
the last split runs the epilogue on the sum.  Each tile has an i32 semaphore `flag` in global
memory, zero at launch and left zero at exit, and an f32 workspace tile.  The scheduler marks:
  * `nvasync.split_k_store`: a non-last split's partial box, to be added into the workspace tile.
    A run of them (consecutive in one block, same flag, split and mode) is one split's partial;
  * `nvasync.split_k_wait`: where the last split needs the others' partials.
The pass rewrites a run of split_k_stores, by mode:
  * deterministic: `wait_flag(flag, split)` (the splits of a tile go in split order); split 0
    TMA-stores its boxes, later splits reduce-add theirs (`scf.if split == 0`); then
    `release_flag(flag, 1)`.  Every launch adds the same partials in the same order: the sums are
    bitwise reproducible.
  * atomic: reduce-adds.  The splits add in any order (each add is atomic, relaxed at GPU scope;
    f32 sums are not bitwise reproducible).  The workspace tile must be zero at launch: the
    scheduler's last split clears what it reads.  Always followed by a split_k_last (below);
  * slots: TMA-stores its boxes (`coords` name a workspace slot of the split's own), then
    `release_flag(flag, 1)`.  The splits run in any order; the last split folds the slots in split
    order, so any fold (max, min, not only add) is bitwise reproducible.
A run followed by a `split_k_last` on its flag (atomic; the matmul's slots) releases by that
arrival instead of a release_flag.  A split_k_wait (every mode) becomes `wait_flag(flag, splits -
1)` then `reset_flag(flag)` on its `issuer` thread alone (`scf.if issuer`): one thread polls the
flag and, as its only waiter once every release is in, sets it back to 0 with a plain store -- no
atomic round trip -- and the other threads are ordered after its acquire by the barrier after the
branch (CUTLASS's Semaphore::wait does the same).

With a split_k_last there is no designated last split and no wait: the last split to arrive runs
the epilogue.  A `split_k_last` (after the split's run of stores) becomes the issuer's arrival
(`arrive_flag`, acq_rel: a release of the partial written before, an acquire of the others'), its
old count handed on in the mark's `cell`; last = old == splits - 1, and the last split's issuer
resets the flag (every other split has arrived, none touches it again).  Exactly one arrival sees splits - 1.  The
cell is read after the issuer's write through the barrier fuser-insert-syncs derives for the
acquire; what every thread reads from one smem word at one point is uniform
(smem_model.is_divergent), so the branch on `last` keeps the block's threads together.  No split
waits for another: no hang, whatever order the splits finish in.
Measured (H100, the nine skinny shapes the heuristic splits, alternating rounds in one run):
the same as or faster than a designated last split polling for the others (the previous atomic
mode; 64 x 2112 x 7168: 20.6-20.7 us against 21.0-21.2, the others within 0-0.3 us).  A first
read of the flag after the K loop -- letting a split that finds every other split in skip its
own reduce and arrival -- ran 0-0.5 us slower than without: the read's round trip sits on every
split's path, and within a tile the splits finish too close together for the slowest to find
the others in.  Decision: no such read; every split adds its partial.  Nor a ticket taken right
after the K loop, the last to take one keeping its partial in registers and waiting for the
others' adds on the tile's second flag (a probe, not committed; Nsight Compute, H100, alternating
with this protocol on one machine): 64 x 2112 x 7168 19.9-20.4 us against 19.2-19.4, 64 x 1024 x
16384 21.1 against 20.3-20.6, the skinny table's geomean against cuBLAS 0.967-0.971x against
0.983-0.992x.  Its last split still waits out the others' reduce-adds, and the ticket's round
trip comes first.

Syncs are not written here: fuser-insert-syncs adds the barriers after the acquires, the bulk
commit and the `wait_group 0` without `.read` that completes the global writes before a release
(release_flag, arrive_flag); fuser-insert-proxy-fences the `fence.proxy.async.global` between an
acquire and a TMA store/reduce that follows it.

Forward progress (deterministic, slots): a split waits only for lower splits of its own tile.
The scheduler numbers a tile's splits in consecutive work units, each CTA takes its units in
increasing order and every CTA of the grid is resident, so the lowest unit not yet done never
waits: no hang, also for splits with no K tiles (they add zeros and still release).

Contract
  in:  gpu.func kernels with `gpu.known_block_size`; split_k_stores under the kernel's issue
       predicate; split_k_waits run by all threads of the block or of a warp role, their `issuer`
       one of them; so do split_k_lasts.  An atomic run of split_k_stores is followed by a
       split_k_last on its flag.
  out: no split_k_* op remains; the ops above in their place, each marked `fuser.split_k` with
       the mode (or "wait", "last").
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, memref, scf

from ..dialects import nvasync
from .smem_model import block_dims, kernels, threads_of

MARK = "fuser.split_k"


def run(module_op, pass_) -> None:
    for func in kernels(module_op):
        marks = {f"nvasync.{name}": [] for name in ("split_k_store", "split_k_wait", "split_k_last")}
        func.walk(lambda op: marks[op.name].append(op) or ir.WalkResult.ADVANCE if op.name in marks
                  else ir.WalkResult.ADVANCE)
        announced = [last.opview.flag for last in marks["nvasync.split_k_last"]]
        problems = []
        for run_ in _runs(marks["nvasync.split_k_store"]):
            view = run_[0].opview
            if view.mode == "atomic" and view.flag not in announced:
                problems.append((run_[0].location, "an atomic split_k_store needs a split_k_last on its flag after "
                                                   "it (its arrival), else no split would run the tile's epilogue"))
            _rewrite_stores(run_, released_by_arrival=view.flag in announced)
        for rewrite, name in ((_rewrite_wait, "split_k_wait"), (_rewrite_last, "split_k_last")):
            for op in marks[f"nvasync.{name}"]:
                problem = _group_problem(func, op, name)
                if problem:
                    problems.append((op.location, problem))
                else:
                    rewrite(op)
        for location, problem in problems:
            location.emit_error(f"fuser-tma-reduce-store: {problem}")
            pass_.signal_pass_failure()


def _runs(stores):
    """split_k_stores grouped into runs: consecutive ops of one block with the same flag, split and
    mode (one split's partial tile)."""
    runs = []
    for op in stores:
        view = op.opview
        last = runs[-1][-1].opview if runs else None
        siblings = list(op.block.operations)
        position = next(i for i, o in enumerate(siblings) if o == op)
        if last is not None and position and siblings[position - 1] == last.operation \
                and (last.flag, last.split, last.mode) == (view.flag, view.split, view.mode):
            runs[-1].append(op)
        else:
            runs.append([op])
    return runs


def _mark(op, what: str):
    op.operation.attributes[MARK] = ir.StringAttr.get(what)
    return op


def _rewrite_stores(run_, released_by_arrival: bool):
    first = run_[0].opview
    mode, flag, split = first.mode, first.flag, first.split
    i32 = ir.IntegerType.get_signless(32)
    with ir.InsertionPoint(run_[0]), run_[0].location:
        if mode == "deterministic":
            _mark(nvasync.WaitFlagOp(flag, split), mode)
            first_split = scf.IfOp(arith.cmpi(arith.CmpIPredicate.eq, split, arith.constant(i32, 0)),
                                   has_else=True)
            with ir.InsertionPoint(first_split.then_block):
                _copy(run_, store=True, mode=mode)
                scf.YieldOp([])
            with ir.InsertionPoint(first_split.else_block):
                _copy(run_, store=False, mode=mode)
                scf.YieldOp([])
        else:
            _copy(run_, store=mode == "slots", mode=mode)
        if not released_by_arrival:
            _mark(nvasync.ReleaseFlagOp(flag, arith.constant(i32, 1)), mode)
    for op in run_:
        op.erase()


def _copy(run_, store: bool, mode: str):
    for op in run_:
        view = op.opview
        with op.location:
            if store:
                _mark(nvasync.TmaStoreOp(view.desc, view.src, list(view.coords)), mode)
            else:
                _mark(nvasync.TmaReduceOp(view.desc, view.src, list(view.coords), kind="add"), mode)


def _group_problem(func, op, name: str) -> str | None:
    """Why `op` (a split_k_wait or split_k_last) cannot be rewritten where it is, or None."""
    threads = threads_of(op)
    if threads.issuer is not None or threads.subset or block_dims(func) is None:
        return (f"{name} must run on every thread of the block or of a warp role (one acquires for "
                "the others, a barrier over them after it), in a kernel with gpu.known_block_size")
    return None


def _rewrite_wait(wait) -> None:
    view = wait.opview
    i32 = ir.IntegerType.get_signless(32)
    with ir.InsertionPoint(wait), wait.location:
        acquiring = scf.IfOp(view.issuer)
        with ir.InsertionPoint(acquiring.then_block):
            _mark(nvasync.WaitFlagOp(view.flag, arith.constant(i32, view.splits - 1), for_group=True), "wait")
            _mark(nvasync.ResetFlagOp(view.flag), "wait")
            scf.YieldOp([])
    wait.erase()


def _rewrite_last(last) -> None:
    """The issuer arrives (release and acquire) and hands the old count on through the cell;
    last = every other split arrived before; the last one's issuer resets the flag."""
    view = last.opview
    i32 = ir.IntegerType.get_signless(32)
    with ir.InsertionPoint(last), last.location:
        slot = arith.constant(ir.IndexType.get(), 0)
        arriving = scf.IfOp(view.issuer)
        with ir.InsertionPoint(arriving.then_block):
            arrival = _mark(nvasync.ArriveFlagOp(i32, view.flag, arith.constant(i32, 1), for_group=True), "last")
            memref.store(arrival.old, view.cell, [slot])
            scf.YieldOp([])
        before = memref.load(view.cell, [slot])
        is_last = arith.cmpi(arith.CmpIPredicate.eq, before, arith.constant(i32, view.splits - 1))
        resetting = scf.IfOp(is_last)
        with ir.InsertionPoint(resetting.then_block):
            issuing = scf.IfOp(view.issuer)
            with ir.InsertionPoint(issuing.then_block):
                _mark(nvasync.ResetFlagOp(view.flag), "last")
                scf.YieldOp([])
            scf.YieldOp([])
    last.result.replace_all_uses_with(is_last)
    last.erase()
