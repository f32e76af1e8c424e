"""fuser-insert-syncs: derive the barriers and bulk-group waits that shared-memory hazards need.

Rules (A happens before B on some path, their byte ranges overlap, one of them writes):
  * generic <-> generic, different threads (RAW, WAR, WAW): a barrier between them -- `bar.sync
    id, n` over the warps reaching it when both sit in one warp role or warp-aligned branch,
    `__syncthreads` otherwise (see Barriers and uniformity).  None when every thread touches only
    what it touched itself (identical thread->element mapping).
  * generic write -> async read (TMA store/reduce source, wgmma operand): a barrier between the
    writers and the issuer (fuser-insert-proxy-fences adds the fence before it).
  * a store into a peer CTA's shared memory (`store_peer`, distributed) <-> any access of that
    buffer (RAW, WAR, WAW), and such a store -> kernel exit: a cluster barrier (`cluster_sync`:
    barrier.cluster.arrive.release + wait.acquire, every thread of every CTA of the cluster), in
    the kernel's top-level block.  It orders the CTA's own accesses too, as a barrier does.
    Kernel start -> the first such store: the peer must have started (its shared memory exists):
    a relaxed `cluster_arrive` as the kernel's first op and its `cluster_wait` at the latest
    top-level point before the store (the CUDA guide's cluster.sync() before DSMEM use, split so
    the wait finds the peers long arrived).
  * wgmma operand read -> a rewrite of the operand (WAR): a barrier, before which fuser-flush-wgmma
    retires the group.  When a later wgmma surely runs between the read and the barrier (a
    `pipelined` loop refilling the stage the previous step read), the barrier is marked
    `fuser.wgmma_pending` and retires all groups but the newest (`wgmma.wait_group 1`), which
    keeps reading its own stage across the barrier; such a barrier orders a wgmma read only from
    behind a later wgmma (before that, the group left in flight may be the read's own).
    Decision: one group in flight, not none: the 64 x 2112 x 7168 cluster-split kernel (144-wide
    tiles, 6 splits) with its waits edited to `wait_group 1` in its PTX ran 13.2 us against 13.7
    on the H200 (Nsight Compute, medians of 8), 16 x 2112 x 7168 11.7 against 12.5, and without
    its wgmma at all 13.1: the steps waited for the MMA latency.  The price, a barrier every step
    where one every other step covered two, is smaller than that wait.  The compiled kernels'
    numbers: README.
  * generic read/write -> TMA load into that buffer (WAR): a barrier.  No proxy fence: the reads
    have completed (bound their values) when `bar.sync` completes, and the async writes are issued
    after it, so they cannot be observed by those reads; CUTLASS's pipelines rely on the same.
  * TMA store/reduce reads smem -> any later write of it: the issuing thread commits its bulk
    group after the store and waits `cp.async.bulk.wait_group.read N` *before* the barrier that
    releases the writers (the last barrier on the path), N = bulk groups it surely commits in
    between (multi-buffered stores keep N in flight) -- unless a wait already on the path covers
    the group, also one without .read (the writes complete, so the reads too).  Before kernel
    exit: `wait_group.read 0`.
  * semaphore acquired for a group (`wait_flag`, `arrive_flag` `for_group`) by a subset of it,
    e.g. the issuing thread: a barrier over the group right after the outermost divergent branch
    holding the acquire (CUTLASS's Semaphore::wait), so the others' accesses follow it.
  * TMA store/reduce -> semaphore release (`release_flag`, `arrive_flag`): the issuer waits
    `cp.async.bulk.wait_group 0` *without* `.read` (which covers only the smem source) right
    before releasing, so other CTAs that acquire see the global writes (Triton PR #10415).
  * accesses of two concurrent warp roles (different nvasync.warp_role regions, disjoint warps):
    no barrier -- one between the roles would hold the second until the first ends, a deadlock
    where the first waits on the second.  An mbarrier handoff orders them (`Handoffs`: the
    role that accessed the buffer arrives after its access, the other waits on that word before
    its own), which the pipeline owning the buffer writes: the pass requires one from the
    writer's role, and one back where both accesses sit in loops (the buffer reused), and reports
    a missing one.  A TMA store handed back so gets its issuer's `wait_group.read` before the
    issuer's arrive.  Disjoint warps of warp-selecting branches that hand on by mbarrier need no
    barrier either.
  * TMA store/reduce reads smem in one loop iteration -> a generic write of it in the next, within
    one set of warps: no barrier when a one-word mbarrier round trip orders them (`round_trip`):
    the issuer arrives on word E after its `wait_group.read`, a warp role's thread waits on E and
    then arrives on word F, and the writers wait on F before the write.  The matmul epilogue's in-place operand tile:
    the consumers hand it to the producer (`empty`) and get the next tile's back (`full`), which
    already orders the next tile's writes after this tile's TMA store read it.
  * mbarrier init -> any use: `fence.mbarrier_init` after the initialising thread's last init, and
    a barrier before other threads use it.
  * mbarrier use by other threads (wait, arrive) -> `mbarrier.inval`: a barrier, so no thread
    still polls or arrives on a word being invalidated.
  * a word peer CTAs reach too (`mbarrier_arrive_cluster`, a `tma_load_multicast`'s complete_tx):
    its init -> those uses, and those uses -> its inval and kernel exit, are ordered by a cluster
    barrier, placed first so it orders the CTA's own uses too (no bar.sync beside it).
  * TMA load -> use of its destination: ordered by the mbarrier wait the pipeline already has
    (its parity is the pipeline's business); fuser-verify-syncs reports a missing one.  A
    standalone load (its mbarrier never initialised, not in a loop) gets the single-use protocol:
    init (count 1) by the issuer, `arrive.expect_tx` with the bytes of all its boxes, and a
    parity-0 wait before the first use of the data.
Placement: each sync goes at the latest point on the path before B in the outermost loop level
that covers the hazard (never inside a loop that only B is in); hazards are handled in program
order of B so one barrier covers every hazard it can.
Barriers and uniformity: a barrier synchronizes exactly the threads that reach it (smem_model
`threads_of`), so it is placed only in a block reached by every thread of the CTA -- a
`sync_threads` (bar.sync 0) -- or by whole warps that include A's and B's threads -- a
`named_barrier` over them: inside a warp role, or inside a branch whose thread-index condition
selects a contiguous range of whole warps (`tid < 128` in a 256-thread block: warps 0-3, 128
threads).  Block-uniform conditions (constants, kernel arguments, block ids, IVs of loops with
uniform bounds) keep every thread together; any other divergent branch (an elect_one guard,
`tid < 100`, loaded data, a loop whose trip count differs between threads) is never entered: the
barrier stays outside it, at the deepest legal block on the path (before a branch holding B,
after one holding A).  When even the innermost block holding both accesses is illegal, no point
separates them that a barrier can take: the pass reports the hazard at B.  Decision: each set of
warps gets one named barrier id, the one the kernel's barriers over exactly those warps already
use, else the lowest id (1-15) no other barrier uses -- two sets sharing an id would count each
other's arrivals.  Generic -> async accesses by the same elected thread need no barrier (the
proxy fence alone; fuser-insert-proxy-fences).

Contract
  in:  gpu.func kernels with nvasync ops, no barriers, fences or waits required (existing ones are
       kept and counted).  TMA ops sit under `elect_one` guards.  Thread-index conditions can
       select whole warps only when the kernel declares `gpu.known_block_size`.
  out: the same kernels plus the syncs above, every barrier naming exactly the threads that reach
       it; every inserted op carries `fuser.derived`, a string naming the hazard it serves (shown
       by fuser-opt; fuser-verify-syncs re-derives nothing).  Or an error at a hazard no barrier
       can order.
"""
from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, scf

from ..diagnostics import file_location
from ..dialects import nvasync
from .smem_model import (CLUSTER_SYNC, RELEASES, Access, Threads, accesses, barrier_orders, elect_op, group_acquires,
                         kernels, mbarrier_relays, memref_bytes, op_key, parent_ops, record_loop_steps,
                         same_thread_mapping, threads_of)
from .sync_paths import _block_of, chain, find_path, insertion_point, invalidate

DERIVED = "fuser.derived"
# On a barrier: the wgmma groups it must see retired are all but the newest (fuser-flush-wgmma
# waits `wgmma.wait_group 1` before it): a later wgmma runs between every wgmma read it releases
# and itself, so the one group left in flight reads other buffers.
WGMMA_PENDING = "fuser.wgmma_pending"
BARRIERS = ("nvasync.sync_threads", "nvasync.named_barrier", CLUSTER_SYNC)


def run(module_op, pass_) -> None:
    for func in kernels(module_op):
        try:
            _Inserter(func).run()
        except IssuerNotDominating as exc:
            func.location.emit_error(str(exc))
            pass_.signal_pass_failure()
        except PlacementError as exc:
            op_key(exc.op).location.emit_error(str(exc))
            pass_.signal_pass_failure()


def describe(op) -> str:
    """`name@line:col`, how derived syncs name the accesses they serve."""
    _, line, col = file_location(op_key(op).location)
    return f"{op_key(op).name}@{line}:{col}" if line else op_key(op).name


def mark(op, reason: str):
    """Tag an inserted sync with the hazard it serves (and drop cached layout: the IR changed)."""
    op.operation.attributes[DERIVED] = ir.StringAttr.get(reason)
    invalidate()
    return op


@dataclass(frozen=True)
class Group:
    """Consecutive async accesses of one kind by one thread set in one block (the TMA boxes of a
    pipeline stage, say): one hazard end instead of one per op.  `op` is the first, `last` the
    last op; a path leaves from `last` and arrives at `op`."""
    op: object
    last: object
    ranges: tuple
    is_write: bool
    proxy: str
    threads: object
    mapping: object = None
    remote: bool = False             # an mbarrier word peers reach too (smem_model.Access.remote)

    def overlaps(self, other: "Group") -> bool:
        return any(s < e2 and s2 < e for s, e in self.ranges for s2, e2 in other.ranges)


def grouped(found: list[Access]) -> list[Group]:
    groups: list[Group] = []
    for acc in found:
        prev = groups[-1] if groups else None
        if (prev is not None and acc.proxy == prev.proxy == "async" and acc.is_write == prev.is_write
                and acc.threads == prev.threads and op_key(acc.op).parent == op_key(prev.last).parent
                and acc.op.name == prev.op.name):
            groups[-1] = Group(prev.op, acc.op, prev.ranges + ((acc.start, acc.end),), acc.is_write,
                               acc.proxy, acc.threads)
        else:
            groups.append(Group(acc.op, acc.op, ((acc.start, acc.end),), acc.is_write, acc.proxy,
                                acc.threads, acc.mapping, acc.remote))
    return groups


def needs_barrier(a, b) -> bool:
    kinds = {a.proxy, b.proxy}
    if "cluster" in kinds:            # another CTA's store: only a cluster barrier orders it
        return True
    if "mbarrier" in kinds:           # init -> use: a barrier even for the initialising thread's own
        if a.proxy != b.proxy:        # uses (CUTLASS's convention; racecheck)
            return False
        if a.op.name == "nvasync.mbarrier_init":
            return b.op.name != "nvasync.mbarrier_init"
        # use by other threads -> inval: every wait and arrival done before the word is released
        # (a peer's remote use is always another thread's)
        return b.op.name == "nvasync.mbarrier_inval" and (a.remote or not (a.threads == b.threads and a.threads.issuer))
    single = a.threads == b.threads and a.threads.issuer
    if a.proxy == "generic" and b.proxy == "generic":
        return not (same_thread_mapping(a, b) or single)
    if a.proxy == "generic" and b.proxy == "async":
        return not single            # hand smem to the issuer (RAW) or let it overwrite (WAR)
    if a.proxy == "async" and not a.is_write and b.is_write:     # WAR on what the async proxy read
        return b.proxy == "generic" or a.op.name == "nvasync.wgmma"   # TMA->TMA: the issuer's own wait
    return False


def _surely_wgmma(p) -> bool:
    """A wgmma the warpgroup surely issues on the path (not under one thread's guard)."""
    return p.op.name == "nvasync.wgmma" and p.issuer is None


def _lagging(path, barrier) -> bool:
    """Does a later wgmma surely run on `path` before `barrier`?  Then the barrier needs only the
    groups before the newest one retired (`WGMMA_PENDING`)."""
    for p in path.ops:
        if p.op == op_key(barrier):
            return False
        if _surely_wgmma(p):
            return True
    return False


def _ordering(path, a, b, cluster: bool) -> list:
    """The barriers on `path` that order access group `a` before `b` (cluster barriers only, for
    a hazard only they order)."""
    return [p.op for p in _covering(path, a) if (p.op.name == CLUSTER_SYNC if cluster else p.op.name in BARRIERS)
            and barrier_orders(p.op, a.threads, b.threads)]


def _covering(path, a) -> list:
    """The ops on `path` that may order access group `a` before the path's end.  After a wgmma's
    operand read, a barrier that lets one group stay in flight (`WGMMA_PENDING`) orders it only
    behind a later wgmma on the path: before that, the pending group may be `a`'s own."""
    if a.op.name != "nvasync.wgmma":
        return path.ops
    out, later = [], False
    for p in path.ops:
        later = later or _surely_wgmma(p)
        if later or WGMMA_PENDING not in p.op.attributes:
            out.append(p)
    return out


class _Inserter:
    def __init__(self, func):
        self.func = func
        invalidate()
        record_loop_steps(func)

    def run(self):
        self.complete_standalone_loads()
        self.share_acquires()
        self.place_barriers()
        self.place_cluster_exit()
        self.place_cluster_start()
        self.place_mbarrier_init_fences()
        self.place_bulk_waits()

    # --- semaphores acquired by one thread for its group -------------------------------------------
    def share_acquires(self):
        """A wait_flag `for_group` run by one thread (or a subset) of the group reaching its
        branch: a barrier over that group right after the outermost such branch, so the others'
        accesses follow the acquire (release -> acquire -> bar.sync is a causality chain in the
        PTX memory model)."""
        for wait, branch in group_acquires(self.func):
            group = threads_of(branch).role
            siblings = _siblings(branch)
            after = siblings[siblings.index(op_key(branch)) + 1]
            if after.name in BARRIERS and threads_of(after).role == group:
                continue
            reason = f"acquire -> the group's later accesses: {describe(wait)}"
            with ir.InsertionPoint(after), after.location:
                if group is None:
                    mark(nvasync.SyncThreadsOp(), reason)
                else:
                    mark(nvasync.NamedBarrierOp(id=self.barrier_id(group, wait), threads=32 * group[1]), reason)

    # --- standalone TMA loads --------------------------------------------------------------------
    def complete_standalone_loads(self):
        """A TMA load whose mbarrier nobody initialises gets the whole single-use protocol: init
        (count 1, by the issuer, before the load), arrive.expect_tx with the bytes of every box
        loaded on that mbarrier, and a parity-0 wait before the first access of the data.  Loads
        inside loops need a pipeline's phases: their protocol must already be in the IR."""
        found = accesses(self.func)
        inits = {(a.start, a.end) for a in found if a.op.name == "nvasync.mbarrier_init"}
        loads = [a for a in found if a.op.name == "nvasync.tma_load" and a.proxy == "mbarrier"
                 and (a.start, a.end) not in inits]
        groups: dict = {}
        for load in loads:
            groups.setdefault((load.start, load.end), []).append(load)
        for (start, end), group in groups.items():
            first = group[0].op
            if any(p.name == "scf.for" for p in parent_ops(first)):
                first.location.emit_error("this TMA load's mbarrier is never initialised and the load "
                                          "is in a loop: a pipelined load needs its mbarrier protocol "
                                          "(init, expect-tx, parity waits) in the IR")
                raise IssuerNotDominating("standalone TMA load inside a loop")
            view = first.opview
            reason = f"standalone TMA load: {describe(first)}"
            entry_op = chain_top(first)
            with ir.InsertionPoint(entry_op), first.location:
                branch = mark(scf.IfOp(issuer_condition(first, entry_op)), reason)
                with ir.InsertionPoint(branch.then_block):
                    mark(nvasync.MbarrierInitOp(view.barriers, view.stage, count=1), reason)
                    scf.YieldOp([])
            tx_bytes = sum(memref_bytes(a.op.opview.dst.type) for a in group)
            with ir.InsertionPoint(first), first.location:
                mark(nvasync.MbarrierArriveExpectTxOp(view.barriers, view.stage, bytes=tx_bytes), reason)
            self.wait_before_first_use(group, reason)

    def wait_before_first_use(self, group, reason):
        found = accesses(self.func)
        dsts = [a for a in found if a.proxy == "async" and a.is_write and
                any(op_key(a.op) == op_key(g.op) for g in group)]
        users = [b for b in found if b.proxy != "mbarrier" and op_key(b.op) not in [op_key(g.op) for g in group]
                 and any(b.overlaps(d) for d in dsts)]
        if not users:
            return
        view = group[0].op.opview
        path = find_path(group[-1].op, users[0].op)
        if path is None:
            return
        top = threads_of(path.b_side[0][1])
        _, before = insertion_point(path, lambda threads: threads == top)
        with ir.InsertionPoint(before), before.location:
            parity = arith.constant(ir.IntegerType.get_signless(32), 0)
            mark(nvasync.MbarrierTryWaitParityOp(view.barriers, view.stage, parity), reason)

    # --- barriers --------------------------------------------------------------------------------
    def hazards(self):
        found = grouped(accesses(self.func))
        pairs = []
        for a in found:
            for b in found:
                if (a.is_write or b.is_write) and a.overlaps(b) and a is not b:
                    pairs.append((a, b))
        return pairs

    def place_barriers(self):
        order = {}

        def number(op):
            order[op_key(op)] = len(order)      # keyed by the op: hash(op) is structural, clones share it
            return ir.WalkResult.ADVANCE

        self.func.walk(number, ir.WalkOrder.PRE_ORDER)
        # Forward hazards first, then loop-carried ones (whose paths usually cross the barriers
        # placed for the former), each in program order of B: one barrier serves many hazards.
        # Hazards only a cluster barrier orders come first: the CTA's own pairs it covers too
        # (mbarrier init -> its local and its peers' uses: one cluster barrier, no bar.sync).
        pairs = [(a, b) for a, b in self.hazards() if needs_barrier(a, b)]
        self.handoffs = Handoffs(self.func)
        pairs.sort(key=lambda p: (not _needs_cluster(*p), order[op_key(p[0].last)] > order[op_key(p[1].op)],
                                  order[op_key(p[1].op)], -order[op_key(p[0].last)]))
        placed = []
        for a, b in pairs:
            cluster = _needs_cluster(a, b)
            kind = 'WAR' if not a.is_write else 'WAW' if b.is_write else 'RAW'
            if not cluster and _concurrent_roles(a, b):
                self.check_handoff(a, b, kind)
                continue
            path = find_path(a.last, b.op)
            if path is None or _ordering(path, a, b, cluster):
                continue
            reason = f"{kind}: {describe(a.op)} -> {describe(b.op)}"
            if not cluster and a.threads.disjoint(b.threads) \
                    and self.handoffs.arrive(a.last, a.threads, b.op, b.threads) is not None:
                continue        # warps a branch selects, handing the buffer on through an mbarrier
            if a.proxy == "async" and b.proxy == "generic" \
                    and self.handoffs.round_trip(path, a.threads, b.threads) is not None:
                continue        # the next iteration's write, after an mbarrier round trip
            if cluster:
                self.place_cluster_sync(path, b.op, reason)
                continue
            # A barrier names the threads that reach it: whole warps, including A's and B's.
            point = insertion_point(path, lambda t: t.issuer is None and not t.subset
                                    and a.threads.within(t.role) and b.threads.within(t.role))
            if point is None:
                raise PlacementError(b.op, f"no barrier can order the {kind} hazard {describe(a.op)} -> "
                                           f"{describe(b.op)}: every point between them is reached only by "
                                           f"{threads_of(path.b_side[0][1]).describe()}, and a barrier must name "
                                           "the threads reaching it (bar.sync 0: every thread of the CTA; a "
                                           "named barrier: whole warps); move the accesses out of the divergent "
                                           "branch or make its condition select whole warps")
            _, before = point
            role = threads_of(before).role
            with ir.InsertionPoint(before), before.location:
                if role is None:
                    barrier = mark(nvasync.SyncThreadsOp(), reason)
                else:
                    barrier = mark(nvasync.NamedBarrierOp(id=self.barrier_id(role, b.op), threads=32 * role[1]),
                                   reason)
            if a.op.name == "nvasync.wgmma" and _lagging(find_path(a.last, b.op), barrier):
                barrier.operation.attributes[WGMMA_PENDING] = ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 1)
            placed.append(op_key(barrier))
        self.drop_redundant(placed)

    def drop_redundant(self, placed):
        """Forward hazards are served first, so a barrier placed then may end up serving only
        hazards that barriers placed later order too (a `pipelined` loop's last stage wait ->
        the mbarrier inval after the loop, once every step has its own barrier): it goes, so every
        derived barrier is one some hazard needs."""
        covers = []
        for a, b in self.hazards():
            if not needs_barrier(a, b) or _needs_cluster(a, b) or _concurrent_roles(a, b):
                continue
            path = find_path(a.last, b.op)
            if path is not None:
                covers.append(set(_ordering(path, a, b, False)))
        for barrier in placed:
            serves = [c for c in covers if barrier in c]
            if serves and all(len(c) > 1 for c in serves):
                for c in serves:
                    c.discard(barrier)
                barrier.erase()
                invalidate()

    def check_handoff(self, a, b, kind):
        """A and B run in concurrent warp roles: no barrier can order them (one between the roles
        would hold one role until the other ends, a deadlock where it waits on the other); an
        mbarrier handoff must, which the pipeline that owns the buffer writes.  The writer's role
        hands the buffer on; where both sit in loops (the buffer reused), the other hands it back
        too.  A missing handoff is an error at B."""
        reused = all(any(p.name == "scf.for" for p in parent_ops(x)) for x in (a.last, b.op))
        if not (a.is_write or reused) or self.handoffs.arrive(a.last, a.threads, b.op, b.threads) is not None:
            return
        if a.is_write and b.is_write and not reused \
                and self.handoffs.arrive(b.last, b.threads, a.op, a.threads) is not None:
            return                  # one-shot writes of two roles: either may go first
        raise PlacementError(b.op, f"no barrier can order the {kind} hazard {describe(a.op)} -> {describe(b.op)}: "
                                   f"{a.threads.describe()} and {b.threads.describe()} run in concurrent warp roles, "
                                   "and a barrier between the roles would hold one until the other ends (a "
                                   "deadlock where it waits on the other); hand the buffer on with an mbarrier: an "
                                   "arrive after the first access in its role, a wait on it before the second")

    def place_cluster_sync(self, path, where, reason, wait_only: bool = False):
        """A cluster barrier (or its wait half) on `path`, in the kernel's top-level block (every
        thread of every CTA reaches it)."""
        point = insertion_point(path, lambda t: t == Threads(None))
        if point is None or op_key(point[1]).parent.name != "gpu.func":
            raise PlacementError(where, f"no cluster barrier can order {reason}: it must stand in the kernel's "
                                        "top-level block, between the two accesses (move them out of loops and "
                                        "branches)")
        with ir.InsertionPoint(point[1]), point[1].location:
            mark(nvasync.ClusterWaitOp() if wait_only else nvasync.ClusterSyncOp(), reason)

    def peer_stores(self) -> list[Access]:
        return [a for a in accesses(self.func) if a.proxy == "cluster"]

    def peer_accesses(self) -> list[Access]:
        """What reaches a peer CTA's shared memory: distributed stores, remote mbarrier arrivals and
        multicast loads' complete_tx."""
        return [a for a in accesses(self.func) if a.proxy == "cluster" or a.remote]

    def place_cluster_start(self):
        """Before the first store into a peer's shared memory, every CTA of the cluster has started:
        a relaxed arrive first thing, its wait just before that store."""
        stores = self.peer_stores()
        if not stores:
            return
        entry = self.func.regions[0].blocks[0]
        reason = f"peers started before the distributed store {describe(stores[0].op)}"
        with ir.InsertionPoint.at_block_begin(entry), self.func.location:
            arrive = mark(nvasync.ClusterArriveOp(), reason)
        self.place_cluster_sync(find_path(arrive.operation, stores[0].op), stores[0].op, reason, wait_only=True)

    def place_cluster_exit(self):
        """A peer CTA must not exit while this CTA's stores or mbarrier arrivals into its shared
        memory may be in flight: a cluster barrier after the last such access on every path to
        the exit."""
        stores = self.peer_accesses()
        exit_op = self.func.regions[0].blocks[0].operations[-1] if stores else None
        for store in stores:
            path = find_path(store.op, exit_op)
            if path is not None and not any(p.op.name == CLUSTER_SYNC for p in path.ops):
                self.place_cluster_sync(path, store.op, f"distributed store -> kernel exit: {describe(store.op)}")

    def barrier_id(self, role, where) -> int:
        """The id of a named barrier over the warps `role`: the one the kernel's barriers over
        exactly these warps use, else the lowest no other barrier uses (0 is bar.sync 0)."""
        used: dict[int, set] = {}

        def visit(op):
            if op.name == "nvasync.named_barrier":
                used.setdefault(op.attributes["id"].value, set()).add(threads_of(op).role)
            return ir.WalkResult.ADVANCE

        self.func.walk(visit)
        same = [i for i, roles in used.items() if roles == {role}]
        free = [i for i in range(1, 16) if i not in used]
        if not same and not free:
            raise PlacementError(where, "no named barrier id left (1-15 are all used by other warp sets)")
        return (same or free)[0]

    # --- mbarrier initialisation -------------------------------------------------------------------
    def place_mbarrier_init_fences(self):
        """One fence.mbarrier_init per initialising thread, after its last init before any use."""
        mbarrier_ops = [a.op for a in accesses(self.func) if a.proxy == "mbarrier"]
        pending = {}                      # issuer -> last init not yet fenced
        for op in mbarrier_ops:
            who = threads_of(op)
            if op.name == "nvasync.mbarrier_init":
                pending[who] = op
            elif pending:
                for init in pending.values():
                    self.fence_after(init)
                pending.clear()

    def fence_after(self, init):
        ops = _siblings(init)
        following = ops[ops.index(op_key(init)) + 1]
        if following.name == "nvasync.fence_mbarrier_init":
            return
        with ir.InsertionPoint(following), init.location:
            mark(nvasync.FenceMbarrierInitOp(), f"mbarrier init visible to the async proxy: {describe(init)}")

    # --- bulk groups -----------------------------------------------------------------------------
    def place_bulk_waits(self):
        found = accesses(self.func)
        self.handoffs = Handoffs(self.func)
        stores = [a for a in found if a.op.name in ("nvasync.tma_store", "nvasync.tma_reduce")]
        for store in stores:
            self.ensure_commit(store.op)
        # The waits without .read first: one before a release also covers a later smem reuse.
        self.complete_before_release(stores)
        for store in stores:
            for later in found:
                if later.is_write and later.overlaps(store) and op_key(later.op) != op_key(store.op):
                    self.wait_before_release(store, later)
        if stores:
            self.wait_at_exit(stores)

    def complete_before_release(self, stores):
        """TMA store/reduce -> semaphore release: the issuer waits for the writes themselves
        (`wait_group 0` without `.read`, which covers only the smem source) before it releases."""
        releases = []
        self.func.walk(lambda op: releases.append(op) or ir.WalkResult.ADVANCE
                       if op.name in RELEASES else ir.WalkResult.ADVANCE)
        for release in releases:
            covered = [s for s in stores if find_path(s.op, release) is not None]
            if not covered:
                continue
            path = find_path(covered[-1].op, release)
            if any(p.op.name == "nvasync.bulk_wait" and p.issuer == covered[-1].threads.issuer
                   and not ir.BoolAttr(p.op.attributes["read"]).value
                   and ir.IntegerAttr(p.op.attributes["pending"]).value == 0 for p in path.ops):
                continue
            with ir.InsertionPoint(release), release.location:
                mark(nvasync.BulkWaitOp(pending=0, read=False),
                     f"global writes of {describe(covered[-1].op)} complete before {describe(release)}")

    def ensure_commit(self, store):
        ops = _siblings(store)
        index = ops.index(op_key(store))
        for op in ops[index + 1:]:
            if op.name == "nvasync.bulk_commit":
                return
            if op.name in ("nvasync.tma_store", "nvasync.tma_reduce"):
                continue
        last_store = max(i for i, o in enumerate(ops) if o.name in ("nvasync.tma_store", "nvasync.tma_reduce"))
        after = ops[last_store + 1] if last_store + 1 < len(ops) else None
        with (ir.InsertionPoint(after) if after is not None else ir.InsertionPoint(_block_of(store))), \
                store.location:
            mark(nvasync.BulkCommitOp(), f"commit the bulk group of {describe(ops[last_store])}")

    def wait_before_release(self, store: Access, writer: Access):
        # Other warps (a warp role) rewriting it are handed the buffer by an mbarrier: the issuer's
        # wait goes before the arrive that hands it on.
        arrive = self.handoffs.arrive(store.op, store.threads, writer.op, writer.threads) \
            if store.threads.disjoint(writer.threads) else None
        path = find_path(store.op, writer.op if arrive is None else arrive)
        if path is None:
            return
        ops = path.ops
        issuer = store.threads.issuer         # bulk groups are per thread: count only its own
        commit_at = next((i for i, p in enumerate(ops) if p.op.name == "nvasync.bulk_commit"
                          and p.issuer == issuer), None)
        if arrive is not None:
            if commit_at is None:
                return
            release = len(ops)
        elif writer.proxy == "generic":
            releases = [i for i, p in enumerate(ops) if p.op.name in BARRIERS
                        and barrier_orders(p.op, store.threads, writer.threads)]
            if not releases:    # or the arrive opening a round trip to the writers (the wait goes before it)
                trip = self.handoffs.round_trip(path, store.threads, writer.threads)
                releases = [i for i, p in enumerate(ops) if trip is not None and op_key(p.op) == op_key(trip)]
            if not releases or commit_at is None:
                return          # no barrier releases the writers: place_barriers reports via verify
            release = releases[-1]
        else:
            release = len(ops)  # an async overwrite by the issuer itself: wait right before it
        commits = 0           # groups the issuer surely commits after the store's own
        for p in ops[commit_at + 1:release]:
            if p.issuer == issuer and p.op.name == "nvasync.bulk_commit":
                commits += 1
            elif p.issuer == issuer and p.op.name == "nvasync.bulk_wait" \
                    and ir.IntegerAttr(p.op.attributes["pending"]).value <= commits:
                return        # an existing wait already covers the store (one without .read too: stronger)
        pending = commits
        anchor = ops[release].op if release < len(ops) else op_key(writer.op if arrive is None else arrive)
        reason = f"WAR: {describe(store.op)} reads smem -> {describe(writer.op)}"
        if release < len(ops) or arrive is not None and threads_of(arrive) != store.threads:
            self.issuer_wait(anchor, pending, reason, store.op)
        else:
            with ir.InsertionPoint(anchor), anchor.location:
                mark(nvasync.BulkWaitOp(pending=pending, read=True), reason)

    def issuer_wait(self, before, pending, reason, store):
        """`scf.if <issuer> { bulk_wait.read pending }` right before `before` (a barrier)."""
        ops = _siblings(before)
        index = ops.index(op_key(before))
        previous = ops[index - 1] if index else None
        if previous is not None and previous.name == "scf.if" and DERIVED in previous.attributes:
            for op in previous.regions[0].blocks[0].operations:
                if op.name == "nvasync.bulk_wait":
                    current = ir.IntegerAttr(op.attributes["pending"]).value
                    op.attributes["pending"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(32),
                                                                  min(current, pending))
                    return
        with ir.InsertionPoint(before), before.location:
            branch = mark(scf.IfOp(issuer_condition(store, before)), reason)
            with ir.InsertionPoint(branch.then_block):
                mark(nvasync.BulkWaitOp(pending=pending, read=True), reason)
                scf.YieldOp([])

    def wait_at_exit(self, stores):
        """Smem must outlive the TMA stores reading it: a covering wait before the kernel returns,
        unless one already runs on every path (e.g. the no-.read wait before a release)."""
        entry = self.func.regions[0].blocks[0]
        ret = [op_key(o) for o in entry.operations][-1]
        if all(self.waited_before(store, ret) for store in stores):
            return
        self.issuer_wait(ret, 0, "TMA stores read smem until their group completes: wait before exit",
                         stores[-1].op)

    @staticmethod
    def waited_before(store, end) -> bool:
        path = find_path(store.op, end)
        commits = None
        for p in path.ops if path else []:
            if p.issuer != store.threads.issuer:
                continue
            if p.op.name == "nvasync.bulk_commit":
                commits = 0 if commits is None else commits + 1
            elif p.op.name == "nvasync.bulk_wait" and commits is not None \
                    and ir.IntegerAttr(p.op.attributes["pending"]).value <= commits:
                return True
        return False


class Handoffs:
    """A kernel's mbarrier arrives and waits in program order, to tell which arrive hands a buffer
    on from one set of warps to another.  Disjoint warps run concurrently, so that, not a barrier,
    orders them; fuser-verify-syncs checks each handoff's direction and releases,
    fuser-verify-pipelines its phases.  Built before syncs are inserted: the numbering orders the
    ops it saw."""

    def __init__(self, func):
        self.order = {}

        def number(op):
            self.order[op_key(op)] = len(self.order)
            return ir.WalkResult.ADVANCE

        func.walk(number, ir.WalkOrder.PRE_ORDER)
        self.words = [w for w in accesses(func) if w.proxy == "mbarrier"]
        self.relays = mbarrier_relays(func)

    def arrive(self, a_op, a_threads, b_op, b_threads):
        """The arrive that hands what `a_op` accessed on to `b_op`'s warps: an arrive by a's warps
        after a_op on a word that b's threads wait on before b_op, in program order; or None."""
        order = self.order
        waits = {(w.start, w.end) for w in self.words if w.op.name == "nvasync.mbarrier_try_wait_parity"
                 and w.threads.covers(b_threads) and order[op_key(w.op)] < order[op_key(b_op)]}
        return next((w.op for w in self.words if w.op.name == "nvasync.mbarrier_arrive"
                     and (w.threads.within(a_threads.role) or w.threads.covers(a_threads))
                     and order[op_key(w.op)] > order[op_key(a_op)] and (w.start, w.end) in waits), None)

    def round_trip(self, path, a_threads, b_threads):
        """The arrive on a loop-carried `path` that starts a one-word round trip ordering a's access
        before b's (the next iteration's), or None: a's threads arrive on word E after it, a warp
        role's thread relays E to word F (`mbarrier_relays`), and b's threads wait on F before it.
        One word each, so the relay's phases go in step with the loop's iterations: it waits for
        iteration i's arrival before its own arrival for i + 1 (fuser-verify-pipelines checks)."""
        word = {op_key(w.op): (w.start, w.end) for w in self.words if w.end - w.start == 8}
        for n, p in enumerate(path.ops):
            if p.after_backedge or p.op.name != "nvasync.mbarrier_arrive" or op_key(p.op) not in word \
                    or not threads_of(p.op).covers(a_threads):
                continue
            relayed = {f for e, f in self.relays if e == word[op_key(p.op)]}
            if any(q.after_backedge and q.op.name == "nvasync.mbarrier_try_wait_parity"
                   and word.get(op_key(q.op)) in relayed and threads_of(q.op).covers(b_threads)
                   for q in path.ops[n + 1:]):
                return p.op
        return None


def _concurrent_roles(a, b) -> bool:
    """A and B sit in different nvasync.warp_role regions of disjoint warps: they run concurrently."""
    roles = [next((p for p in parent_ops(x) if p.name == "nvasync.warp_role"), None) for x in (a.last, b.op)]
    return all(r is not None for r in roles) and roles[0] != roles[1] and a.threads.disjoint(b.threads)


def _needs_cluster(a, b) -> bool:
    """Only a cluster barrier orders a peer CTA's access: a distributed store, or an mbarrier word
    a peer arrives on (or completes bytes on) -- its init before, its inval after."""
    return "cluster" in (a.proxy, b.proxy) or a.remote or b.remote


def chain_top(op):
    """The entry-block op that holds `op`."""
    return chain(op)[-1][1]


def _siblings(op):
    return [op_key(o) for o in _block_of(op).operations]


class IssuerNotDominating(Exception):
    pass


class PlacementError(Exception):
    """A sync the rules require has no legal place; reported at `op`."""

    def __init__(self, op, message):
        super().__init__(message)
        self.op = op


def issuer_condition(store, before):
    """The guard selecting the thread that issued `store`, usable before `before`.  It must be
    the same SSA value (a second elect_one may elect another lane, and bulk groups are per
    thread), so it has to dominate: schedulers compute the issuer predicate once, up front."""
    for parent in parent_ops(store):
        if parent.name == "scf.if" and elect_op(parent.operands[0]) is not None:
            cond = parent.operands[0]
            defining = op_key(cond.owner)
            for block, inner in chain(before):
                ops = _siblings(inner)
                if any(o == defining for o in ops) and ops.index(defining) < ops.index(op_key(inner)):
                    return cond
            raise IssuerNotDominating(
                f"{describe(store)}: its issue predicate does not dominate {describe(before)}, where "
                "the issuing thread must wait for its bulk group: compute the predicate once, up front")
    raise IssuerNotDominating(f"{describe(store)} is not under an elect_one guard")
