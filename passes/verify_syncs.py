"""fuser-verify-syncs: an independent check that every shared-memory hazard is synchronized.

It shares the facts of `smem_model` (what each op reads and writes, which threads run it) but none
of the insertion passes' reasoning: it unrolls every scf.for twice into one abstract trace
(iteration 0 then 1, so loop-carried hazards appear as ordinary pairs; an scf.if's then and else
branches one after the other, and a pair from the two branches of one execution is no pair), and
for each pair of conflicting accesses A -> B in the trace asks whether the syncs the rules require
appear between them and *surely run* whenever A and B do.  A sync surely runs when each of its guards (an
enclosing loop iteration, a uniform scf.if) is also a guard of A or B, or is implied by one
(`r*S + s < n` holds when `r*S + s' < n` does for s <= s').  Sync ops under an elect_one guard
run on the issuing thread only.

Rules checked (../shared/HOPPER.md): generic<->generic by other threads: a barrier over both, or,
between disjoint warps (warp roles run concurrently), an mbarrier handoff in the protocol's order
-- the access of the earlier iteration first (each warp set's i-th use pairs with the other's
i-th), in one iteration the write: an arrive by the first access's warps after it (a warp sync
first where one lane arrives for its warp), a wait on that word by the second's threads before
it; a generic write handed to another role's async proxy is fenced (`fence.proxy.async`) before
the arrive (before the warp sync where one lane arrives for its warp), and a TMA store's issuer
waits `wait_group.read` before handing its smem back;
generic write -> async read: a `fence.proxy.async` covering the CTA's shared memory (.shared::cta,
.shared::cluster -- the cluster's shared memory includes the CTA's -- or the bare form) run by
every writer, then a barrier;
generic access -> TMA load overwrite: a barrier; TMA store/reduce -> later write: the issuer's
commit, `wait_group.read N` covering it (or a wait without .read: stronger), then a barrier or,
into a later loop iteration, a one-word mbarrier round trip (`_round_trip`); TMA store/reduce ->
semaphore release: `wait_group N` *without* .read covering it, on the releasing
thread (release_flag, arrive_flag);
a semaphore acquired for a group (`for_group`) by a subset of it: a barrier over the group right
after the divergent branch holding the acquire (checked structurally); acquire (wait_flag,
arrive_flag) -> TMA
store/reduce by that thread: `fence.proxy.async.global` (or the bare form) in between; mbarriers initialised before
use and every TMA load announced by an arrive.expect_tx; TMA load -> use: an mbarrier wait on
the load's barrier and stage, or threads that waited there handing it on to the user's threads
by an mbarrier (`_relayed_load`); mbarrier use by other threads -> inval: a barrier; an access by one warp role -> another role's
TMA load overwriting it (roles run concurrently): the accessing warp's release (a warp sync
before one lane's arrive; after a wgmma, the wait retiring its group), an mbarrier arrive, and
the loading thread's wait on that mbarrier before the load;
mbarrier init -> use: `fence.mbarrier_init` and, for other
threads, a barrier -- a cluster barrier where peer CTAs use the word too (a remote arrive, a
multicast load), as between those uses and the word's inval or the kernel's exit; TMA stores ->
kernel exit: a covering `wait_group.read`; a store into a peer CTA's shared memory (`store_peer`)
<-> any access of that buffer, and -> kernel exit: a cluster barrier (`cluster_sync`, every
thread of the cluster, in the kernel's top-level block) -- but not between the executions of one
such store (a loop's) by one thread or at a thread-indexed place, taken (not proven: the index
is only checked to depend on the thread) to give each thread places of its own, and each sender
its own slots by contract, as fuser-insert-syncs assumes; a kernel holding `grid_dependency_wait`
(launched to overlap the kernel before it in the stream): that one wait in its top-level block,
no global access before it.

Barriers: a barrier counts only where it names exactly the threads that reach it (smem_model
`barrier_problem`), and orders A before B only when those include A's and B's threads.  Each
barrier that does not is an error of its own: a `sync_threads` (bar.sync 0) under a condition
or warp role that is not block-uniform (a hang), a `named_barrier` reached by a set that is not
whole warps or whose thread count differs from the threads reaching it, and one named barrier
id used for two sets of warps.  Fences and mbarrier waits count only when run by every thread of
the access they serve.

Every violation is an error naming both operations; the pass fails (fuser-opt exits 1).
Contract: any kernel IR in; unchanged out.
"""
from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from fuser_mlir.diagnostics import file_location

from .smem_model import (ACQUIRES, CLUSTER_BARRIERS, CLUSTER_SYNC, FENCE_SPACES_COVERING_CTA_SMEM, RELEASES,
                         TMA_LOADS, Access, accesses, accumulator_readers, barrier_orders, barrier_problem, block_key,
                         byte_range, first_global_access, group_acquires, is_divergent, linear, mbarrier_relays,
                         op_key, reset_memo, same_thread_mapping, structural_key, threads_of)

BARRIER_OPS = ("nvasync.sync_threads", "nvasync.named_barrier", *CLUSTER_BARRIERS)
GRID_DEPENDENCY_WAIT = "nvasync.grid_dependency_wait"


@dataclass
class Event:
    op: object
    access: Access | None
    guards: tuple          # ((kind, key, instance), ...): loop iterations and uniform scf.ifs
    iterations: dict       # loop body hash -> iteration (0/1) in which this event runs
    issuer: bool


def run(module_op, pass_) -> None:
    reset_memo()
    failed = False

    def visit(op):
        nonlocal failed
        if op.name == "gpu.func":
            for a, b, message in verify_function(op):
                # One error per problem, at its second op, naming both (a remark would trip an
                # LLVM assertion in the bindings' error capture).
                op_key(b).location.emit_error(message)
                failed = True
            return ir.WalkResult.SKIP
        return ir.WalkResult.ADVANCE

    module_op.walk(visit, ir.WalkOrder.PRE_ORDER)
    if failed:
        pass_.signal_pass_failure()


# --- the previous kernel in the stream --------------------------------------------------------------

def _check_grid_dependency(func) -> list:
    """A kernel holding `grid_dependency_wait` is launched as a programmatic dependent (it may run
    while the kernel before it does): its one wait sits in the kernel's top-level block (every
    thread runs it) and no op before it there may access global memory."""
    body = list(func.regions[0].blocks[0].operations)
    waits = []
    func.walk(lambda op: waits.append(op_key(op)) or ir.WalkResult.ADVANCE
              if op.name == GRID_DEPENDENCY_WAIT else ir.WalkResult.ADVANCE)
    if not waits:
        return []
    if len(waits) > 1 or waits[0] not in [op_key(op) for op in body]:
        return [(waits[0], waits[-1], "a kernel launched as a programmatic dependent needs exactly one "
                                      f"{GRID_DEPENDENCY_WAIT}, in its top-level block: every thread waits")]
    for op in body:
        if op_key(op) == waits[0]:
            return []
        early = first_global_access(op)
        if early is not None:
            return [(early, waits[0], f"{_name(early)} may access global memory before {GRID_DEPENDENCY_WAIT}: "
                                      "the previous kernel in the stream may still be running")]
    return []


# --- the trace ------------------------------------------------------------------------------------

def build_trace(func) -> list[Event]:
    by_op = {}
    for acc in accesses(func):
        by_op.setdefault(op_key(acc.op), []).append(acc)
    trace: list[Event] = []
    steps: dict = {}
    readers = {op_key(r) for _, r in accumulator_readers(func)}

    def walk_block(block, guards, iterations):
        for op in block.operations:
            op = op_key(op)
            issuer = _issuer(op)
            for acc in by_op.get(op, []):
                trace.append(Event(op, acc, guards, iterations, issuer))
            if not by_op.get(op) and op in readers:
                trace.append(Event(op, None, guards, iterations, issuer))   # an accumulator reader
            if op.name.startswith("nvasync.") and op.name not in ("nvasync.smem_buffer", "nvasync.warp_role") \
                    and op not in by_op:
                trace.append(Event(op, None, guards, iterations, issuer))   # a sync op
            if op.name == "scf.for":
                body = op.regions[0].blocks[0]
                step = linear(op.operands[2])
                key = block_key(body)
                steps[key] = step[2] if step and step[0] is None else None
                for k in (0, 1):
                    walk_block(body, guards + (("loop", key, k),), {**iterations, key: k})
            elif op.name == "scf.if":
                cond = op.operands[0]
                # A branch taken in one iteration may not be in the next: the guard names the
                # iterations, unless a linear condition lets _guard_holds compare them.
                taken = ("iterations", tuple(iterations.items()))     # outermost loop first
                guard = () if is_divergent(cond) else (("if", op, _instance(cond, iterations) or taken),)
                walk_block(op.regions[0].blocks[0], guards + guard, iterations)
                if len(op.regions) > 1 and len(op.regions[1].blocks):
                    walk_block(op.regions[1].blocks[0], guards + (("else", op, taken),), iterations)
            elif op.name == "nvasync.warp_role":
                walk_block(op.regions[0].blocks[0], guards, iterations)

    walk_block(func.regions[0].blocks[0], (), {})
    relays = mbarrier_relays(func)
    for e in trace:
        e.steps, e.relays = steps, relays
    return trace


def _issuer(op):
    return threads_of(op).issuer


def _instance(cond, iterations):
    """A uniform guard's value as (linear form with the iteration folded in, bound) when known."""
    if isinstance(cond, ir.BlockArgument) or op_key(cond.owner).name != "arith.cmpi":
        return None
    owner = op_key(cond.owner)
    if ir.IntegerAttr(owner.attributes["predicate"]).value not in (2, 6):
        return None
    lin = linear(owner.operands[0])
    if lin is None:
        return None
    return (lin, iterations.get(lin[0], 0), structural_key(owner.operands[1]))


def _guard_holds(guard, given, steps) -> bool:
    """Does `guard` hold whenever every guard in `given` holds?"""
    if guard in given:
        return True
    kind, key, inst = guard
    if kind != "if" or inst[0] == "iterations":
        return False
    (iv, coeff, const), k, bound = inst
    for other in given:
        if other[0] != "if" or other[2][0] == "iterations":
            continue
        (iv2, coeff2, const2), k2, bound2 = other[2]
        step = steps.get(iv) if iv is not None else 0
        if iv != iv2 or coeff != coeff2 or bound != bound2 or step is None or coeff < 0:
            continue
        if coeff * step * k + const <= coeff * step * k2 + const2:
            return True
    return False


def _surely(e: Event, a: Event, b: Event) -> bool:
    given = set(a.guards) | set(b.guards)
    return all(_guard_holds(g, given, e.steps) for g in e.guards)


# --- the rules ------------------------------------------------------------------------------------

def verify_function(func):
    """[(op, op, message)]: every hazard not synchronized, every barrier that does not name the
    threads reaching it."""
    reset_memo()
    _words.clear()
    trace = build_trace(func)
    problems = []
    for i, a in enumerate(trace):
        if a.access is None:
            continue
        for j in range(i + 1, len(trace)):
            b = trace[j]
            if b.access is None or op_key(a.op) == op_key(b.op) and a.iterations == b.iterations:
                continue
            if not (a.access.is_write or b.access.is_write) or not a.access.overlaps(b.access) or _exclusive(a, b):
                continue            # (the trace walks an scf.if's two branches one after the other)
            message, at = _check_pair(trace, i, j), (a.op, b.op)
            if message and _handoff_pair(a.access, b.access):      # disjoint warps: or an mbarrier handoff
                order = _goes_first(a, b)
                first, second = (i, j) if order is not False else (j, i)
                handoff = _released(trace, first, second)
                if handoff is not None and order is None:           # either order will do
                    handoff = _released(trace, j, i) and handoff
                f, g = trace[first], trace[second]
                message, at = handoff, (f.op, g.op)
                if handoff == NO_HANDOFF:
                    message = (f"{f.access.threads.describe()} and {g.access.threads.describe()} ordered neither by a "
                               f"barrier over both nor by an mbarrier handoff (an arrive after the first access, a "
                               f"wait on it before the second): {_name(f.op)} -> {_name(g.op)}")
            if message:
                problems.append((*at, message))
    problems += _check_exit(trace)
    problems += _check_cluster_phases(trace)
    problems += _check_releases(trace)
    problems += _check_acquires(trace)
    problems += _check_group_acquires(func)
    problems += _check_mbarrier_protocol(trace)
    problems += _check_wgmma(trace, func)
    problems += _check_cross_role(trace)
    problems += _check_grid_dependency(func)
    unique, seen = [], set()
    for a, b, m in problems:
        key = (op_key(a), op_key(b), m.split(":")[0])
        if key not in seen:
            seen.add(key)
            unique.append((a, b, f"unsynchronized hazard: {m}"))
    return _check_barriers(func) + unique


def _between(trace, i, j, pred):
    return [e for e in trace[i + 1:j] if pred(e) and _surely(e, trace[i], trace[j])]


def _name(op) -> str:
    _, line, col = file_location(op_key(op).location)
    return f"'{op_key(op).name}' at {line}:{col}" if line else f"'{op_key(op).name}'"


def _barrier_covers(e: Event, a: Access, b: Access) -> bool:
    return e.op.name in BARRIER_OPS and barrier_orders(e.op, a.threads, b.threads)


def _check_barriers(func):
    """Every barrier names exactly the threads that reach it (`barrier_problem`), and each named
    barrier id stands for one set of warps in the kernel (two sets sharing an id would count
    each other's arrivals)."""
    problems, first_use = [], {}

    def visit(op):
        if op.name in BARRIER_OPS:
            problem = barrier_problem(op)
            if problem:
                problems.append((op, op, f"barrier not reached by exactly the threads it names: {problem}"))
            elif op.name == "nvasync.named_barrier":
                bar_id, role = op.attributes["id"].value, threads_of(op).role
                other = first_use.setdefault(bar_id, (op, role))
                if other[1] != role:
                    problems.append((other[0], op, f"named barrier id {bar_id} synchronizes "
                                                   f"{threads_of(op).describe()} here but "
                                                   f"{threads_of(other[0]).describe()} at {_name(other[0])}: "
                                                   "one id must stand for one set of warps"))
        return ir.WalkResult.ADVANCE

    func.walk(visit, ir.WalkOrder.PRE_ORDER)
    return problems


def _check_pair(trace, i, j):
    a, b = trace[i], trace[j]
    A, B = a.access, b.access
    names = f"{_name(a.op)} -> {_name(b.op)}"
    single_thread = A.threads == B.threads and A.threads.issuer
    barrier = lambda: _between(trace, i, j, lambda e: _barrier_covers(e, A, B))  # noqa: E731

    if "cluster" in (A.proxy, B.proxy):      # a peer CTA's store: only a cluster barrier orders it
        if A.proxy == B.proxy == "cluster" and op_key(a.op) == op_key(b.op) \
                and (A.threads.issuer or is_divergent(op_key(a.op).opview.index)):
            return None         # one store's executions, each thread its own places (each sender its slots)
        if _between(trace, i, j, lambda e: e.op.name == CLUSTER_SYNC and barrier_problem(e.op) is None):
            return None
        return f"shared memory stored by a peer CTA (store_peer) and accessed without a cluster barrier: {names}"
    if A.proxy == "mbarrier" or B.proxy == "mbarrier":
        # A peer CTA's use of the word (remote arrive, multicast complete_tx): only a cluster barrier.
        remote = A.remote or B.remote
        ordered = (lambda: _between(trace, i, j, lambda e: e.op.name == CLUSTER_SYNC  # noqa: E731
                                    and barrier_problem(e.op) is None)) if remote else barrier
        what = "cluster barrier" if remote else "barrier"      # a peer CTA's use: the cluster's
        if A.proxy == B.proxy == "mbarrier" and op_key(a.op).name == "nvasync.mbarrier_init" \
                and op_key(b.op).name != "nvasync.mbarrier_init":
            fences = _between(trace, i, j, lambda e: e.op.name == "nvasync.fence_mbarrier_init")
            if not fences:
                return f"mbarrier init not fenced (fence.mbarrier_init) before its use: {names}"
            if not ordered():
                return f"mbarrier init not followed by a {what} before its use: {names}"
        if A.proxy == B.proxy == "mbarrier" and op_key(b.op).name == "nvasync.mbarrier_inval" \
                and op_key(a.op).name not in ("nvasync.mbarrier_init", "nvasync.mbarrier_inval") \
                and (remote or not single_thread) and not ordered():
            return f"mbarrier invalidated while other threads may still use it (no {what}): {names}"
        return None
    if A.proxy == "generic" and B.proxy == "generic":
        if same_thread_mapping(A, B) or single_thread or barrier():
            return None
        return f"generic smem accesses by different threads without a barrier: {names}"
    if A.proxy == "generic" and B.proxy == "async":
        if not B.is_write:           # generic write -> async read
            fences = _between(trace, i, j, lambda e: e.op.name == "nvasync.fence_proxy_async"
                              and e.op.attributes["space"].value in FENCE_SPACES_COVERING_CTA_SMEM
                              and threads_of(e.op).covers(A.threads))
            if not fences:
                return f"generic writes read by the async proxy without fence.proxy.async: {names}"
            k = trace.index(fences[0])
            if not single_thread and not _between(trace, k, j, lambda e: _barrier_covers(e, A, B)):
                return f"no barrier between the proxy fence and the async reader: {names}"
            return None
        if single_thread or barrier():
            return None
        return f"TMA load overwrites smem other threads accessed, without a barrier: {names}"
    if A.proxy == "async" and A.is_write:            # TMA load -> use
        if B.is_write and B.proxy == "async":
            return None
        waits = _between(trace, i, j, lambda e: e.op.name == "nvasync.mbarrier_try_wait_parity"
                         and _same_mbarrier(e.op, a.op) and threads_of(e.op).covers(B.threads))
        return None if waits or _relayed_load(trace, i, j) else f"TMA load used without waiting on its mbarrier: {names}"
    if A.proxy == "async" and not A.is_write and B.is_write:
        if op_key(a.op).name == "nvasync.wgmma":
            return _check_group_done(trace, i, j, names, "nvasync.wgmma_commit", "nvasync.wgmma_wait",
                                     lambda e: not e.issuer and _barrier_covers(e, A, B))
        return _check_bulk_release(trace, i, j, names, A, B, single_thread)
    return None


def _relayed_load(trace, i, j) -> bool:
    """TMA load trace[i] -> its use trace[j] by threads that do not wait on the load's mbarrier:
    ordered when threads that waited on it then hand it on to trace[j]'s threads -- after their
    wait, an arrive (by some of them) on an mbarrier that trace[j]'s threads wait on before the use
    (acquire, release, acquire: happens-before is transitive).  Phases are fuser-verify-pipelines'."""
    a, b = trace[i], trace[j]
    wait = "nvasync.mbarrier_try_wait_parity"
    acquires = [e for e in trace[:j] if e.op.name == wait and threads_of(e.op).covers(b.access.threads)
                and _surely(e, b, b)]
    for k, w in enumerate(trace):
        if w.op.name != wait or not _same_mbarrier(w.op, a.op):
            continue
        waiting = threads_of(w.op)
        if any(e.op.name == "nvasync.mbarrier_arrive" and waiting.covers(threads_of(e.op)) and _surely(e, w, w)
               and any(_same_mbarrier(x.op, e.op) for x in acquires) for e in trace[k + 1:]):
            return True
    return False


def _check_group_done(trace, i, j, names, commit_name, wait_name, then=None, before=None):
    """A's group is committed, then a wait with pending <= later commits runs, then `then`;
    `before` names what B does to A's data, for the messages."""
    reading = then is None and before is None
    before = before or ("its accumulator is read" if then is None else "its operand is rewritten")
    a, b = trace[i], trace[j]
    commits = None
    for k in range(i + 1, j):
        e = trace[k]
        if not _surely(e, a, b):
            continue
        if e.op.name == commit_name:
            commits = 0 if commits is None else commits + 1
        elif e.op.name == wait_name and commits is not None \
                and ir.IntegerAttr(e.op.attributes["pending"]).value <= commits:
            if then is None or _between(trace, k, j, then):
                return None
            return f"the wgmma wait is not followed by a barrier releasing the buffer: {names}"
    if commits is None:
        return f"wgmma not committed (wgmma.commit_group) before {'its result is read' if reading else before}: {names}"
    return f"no wgmma.wait_group covering the wgmma before {before}: {names}"


def _check_wgmma(trace, func):
    """Accumulator readers after a flush; a wgmma.fence opening every group."""
    problems = []
    pairs = {(op_key(w), op_key(r)) for w, r in accumulator_readers(func)}
    seen_fence = False
    for i, e in enumerate(trace):
        name = e.op.name
        if name == "nvasync.wgmma_fence":
            seen_fence = True
        elif name in ("nvasync.wgmma_commit", "nvasync.wgmma_wait"):
            seen_fence = False
        elif name == "nvasync.wgmma" and e.access is not None and not e.access.is_write:
            if not seen_fence:
                problems.append((e.op, e.op, f"wgmma without a wgmma.fence opening its group: {_name(e.op)}"))
            for j in range(i + 1, len(trace)):
                r = trace[j]
                if (op_key(e.op), op_key(r.op)) in pairs:
                    message = _check_group_done(trace, i, j, f"{_name(e.op)} -> {_name(r.op)}",
                                                "nvasync.wgmma_commit", "nvasync.wgmma_wait")
                    if message:
                        problems.append((e.op, r.op, message))
                    break
    return problems


def _check_cross_role(trace):
    """Warp roles run concurrently: an access by one role and another role's TMA load that
    overwrites it are ordered only by an mbarrier release -> acquire.  After the access, its
    warp releases (a warp sync when one elected lane arrives for the warp, and after a wgmma the
    wait retiring its group), then arrives on an mbarrier; before the load, the loading thread
    waits on that mbarrier (same array and stage).  Phases are fuser-verify-pipelines' concern."""
    problems = []
    loads = [j for j, e in enumerate(trace) if e.access is not None and op_key(e.op).name in TMA_LOADS]
    for i, a in enumerate(trace):
        if a.access is None or a.access.threads.role is None:
            continue
        for j in loads:
            b = trace[j]
            if a.access.threads.disjoint(b.access.threads) and a.access.overlaps(b.access):
                message = _released(trace, i, j)
                if message == NO_HANDOFF:
                    message = (f"{a.access.threads.describe()} and {b.access.threads.describe()} (another warp "
                               f"role) overwriting it are not ordered by an mbarrier arrive after the access and "
                               f"a wait on it before the TMA load: {_name(a.op)} -> {_name(b.op)}")
                if message:
                    problems.append((a.op, b.op, message))
    return problems


NO_HANDOFF = "no mbarrier hands the buffer on"


def _handoff_pair(A: Access, B: Access) -> bool:
    """Accesses of disjoint warps that an mbarrier handoff may order instead of a barrier (warp
    roles run concurrently: no barrier can stand between them): generic accesses and async reads
    (a TMA load's own rules are `_check_pair`'s and `_check_cross_role`'s)."""
    return A.threads.disjoint(B.threads) and all(
        x.proxy == "generic" or x.proxy == "async" and not x.is_write for x in (A, B))


def _goes_first(a: Event, b: Event):
    """Which of two handed-on accesses the protocol orders first: the one of the earlier iteration
    of the loops enclosing both (each warp set's i-th use pairs with the other's i-th, as in a
    pipeline), in the same iteration the write (a buffer is handed on once written).  True: a,
    False: b, None: either (two writes of one iteration)."""
    va, vb = ([k for kind, _, k in e.guards if kind == "loop"] for e in (a, b))
    n = min(len(va), len(vb))
    if va[:n] != vb[:n]:
        return va[:n] < vb[:n]
    return a.access.is_write if a.access.is_write != b.access.is_write else None


def _released(trace, i, j):
    """Is trace[i]'s access handed on to trace[j]'s (other warps) through an mbarrier: after it,
    its warps release it (a warp sync when one elected lane arrives for the warp; after a wgmma,
    the wait retiring its group; after a TMA store, the issuer's `wait_group.read` covering it;
    generic writes the async proxy reads next, `fence.proxy.async` by the writers) and arrive on
    an mbarrier on which trace[j]'s threads wait before their access?  None when so, NO_HANDOFF
    when no arrive and wait pair up, else what is missing.  Phases are fuser-verify-pipelines'."""
    a, b = trace[i], trace[j]
    A, B = a.access, b.access
    names = f"{_name(a.op)} -> {_name(b.op)}"
    acquires = [e for e in trace[:j] if e.op.name == "nvasync.mbarrier_try_wait_parity"
                and threads_of(e.op).covers(B.threads) and _surely(e, b, b)]
    for k in range(i + 1, len(trace)):
        e = trace[k]
        arriving = threads_of(e.op)
        if not (e.op.name == "nvasync.mbarrier_arrive" and (arriving.within(A.threads.role) or arriving.covers(A.threads))
                and _surely(e, a, a) and any(_same_mbarrier(w.op, e.op) for w in acquires)):
            continue
        if not arriving.covers(A.threads) and not _between(trace, i, k, lambda x: x.op.name == "nvasync.warp_sync"):
            return f"a warp's accesses released by one lane's mbarrier arrive without a warp sync before it: {names}"
        if op_key(a.op).name == "nvasync.wgmma":
            return _check_group_done(trace, i, k, names, "nvasync.wgmma_commit", "nvasync.wgmma_wait",
                                     before="the mbarrier arrive releasing its operands")
        if op_key(a.op).name in ("nvasync.tma_store", "nvasync.tma_reduce") \
                and _bulk_wait_covering(trace, i, e, k, read=True) is None:
            return f"smem handed on before the TMA store finished reading it (no covering wait_group.read): {names}"
        # One lane arriving for its warp: every writer's fence comes before the warp sync.
        syncs = [] if arriving.covers(A.threads) else \
            [n for n in range(i + 1, k) if trace[n].op.name == "nvasync.warp_sync" and _surely(trace[n], a, e)]
        if A.proxy == "generic" and A.is_write and B.proxy == "async" and not _between(
                trace, i, syncs[-1] if syncs else k, lambda x: x.op.name == "nvasync.fence_proxy_async"
                and x.op.attributes["space"].value in FENCE_SPACES_COVERING_CTA_SMEM
                and threads_of(x.op).covers(A.threads)):
            return f"generic writes handed to the async proxy without fence.proxy.async before the arrive: {names}"
        return None
    return NO_HANDOFF


def _same_mbarrier(a, b) -> bool:
    """Whether ops `a` and `b` (mbarrier ops, TMA loads) name the same mbarrier word."""
    return _mbarrier_word(a) == _mbarrier_word(b)


_words: dict = {}       # id(op) -> (op, its word): memoized per run (the trace's ops live through it)


def _mbarrier_word(op) -> tuple:
    """(the mbarrier array's byte range, a structural key of the stage index) of `op`."""
    found = _words.get(id(op))
    if found is None or found[0] is not op:
        view = op.opview
        found = _words[id(op)] = (op, (byte_range(view.barriers), structural_key(view.stage)))
    return found[1]


def _check_bulk_release(trace, i, j, names, A, B, single_thread):
    """TMA store -> rewrite of its smem: a covering `wait_group.read` on the storing thread, then
    (for other threads' writes) a barrier before the writers."""
    issuer = A.threads.issuer               # bulk groups are per thread
    if not _between(trace, i, j, lambda e: e.issuer == issuer and e.op.name == "nvasync.bulk_commit"):
        return f"TMA store never committed before its smem is rewritten: {names}"
    k = _bulk_wait_covering(trace, i, trace[j], j, read=True)
    if k is None:
        return f"smem rewritten before the TMA store finished reading it (no covering wait_group.read): {names}"
    if (B.proxy == "async" and B.threads.issuer) or single_thread \
            or _between(trace, k, j, lambda x: _barrier_covers(x, A, B)) or _round_trip(trace, k, j, A, B):
        return None
    return (f"the wait for the TMA store's smem reads is not followed by a barrier (or an mbarrier round trip "
            f"into the next iteration): {names}")


def _round_trip(trace, i, j, A: Access, B: Access) -> bool:
    """A generic write trace[j] of a later loop iteration than trace[i] (a TMA store's covering
    wait), ordered by a one-word mbarrier round trip in between: A's threads arrive on word E, a
    thread relays E to word F (`mbarrier_relays`: waits on E, then arrives on F), and B's threads
    wait on F.  With one word each, the relay's phases go in step with the loop's iterations
    (fuser-verify-pipelines checks them)."""
    if B.proxy != "generic":
        return False
    a, b = trace[i], trace[j]
    between = [(k, e) for k, e in enumerate(trace[i + 1:j], i + 1) if e.access is not None
               and e.access.proxy == "mbarrier" and e.access.end - e.access.start == 8 and _surely(e, a, b)]
    for k, arrive in between:
        if arrive.op.name != "nvasync.mbarrier_arrive" or not threads_of(arrive.op).covers(A.threads):
            continue
        word = (arrive.access.start, arrive.access.end)
        if any(e.op.name == "nvasync.mbarrier_try_wait_parity" and threads_of(e.op).covers(B.threads)
               and (word, (e.access.start, e.access.end)) in a.relays and _later_iteration(arrive, e)
               for n, e in between if n > k):
            return True
    return False


def _later_iteration(a: Event, b: Event) -> bool:
    """b runs in a later iteration of a loop enclosing both than a does."""
    loops_a, loops_b = ([(key, k) for kind, key, k in e.guards if kind == "loop"] for e in (a, b))
    for (key_a, k_a), (key_b, k_b) in zip(loops_a, loops_b):
        if key_a != key_b:
            return False
        if k_a != k_b:
            return k_a < k_b
    return False


def _check_mbarrier_protocol(trace):
    """Every mbarrier is initialised before use; every TMA load's phase was announced by an
    arrive.expect_tx on its mbarrier (the nearest earlier op on that word that is not a load)."""
    problems = []
    words = [(k, e) for k, e in enumerate(trace) if e.access is not None and e.access.proxy == "mbarrier"]
    for n, (k, e) in enumerate(words):
        if e.op.name == "nvasync.mbarrier_init":
            continue
        earlier = [x for _, x in words[:n] if x.access.overlaps(e.access)]
        if not any(x.op.name == "nvasync.mbarrier_init" for x in earlier):
            problems.append((e.op, e.op, f"mbarrier used before it is initialised: {_name(e.op)}"))
        elif e.op.name in TMA_LOADS:
            previous = next((x for x in reversed(earlier) if x.op.name not in TMA_LOADS), None)
            if previous is None or previous.op.name != "nvasync.mbarrier_arrive_expect_tx":
                problems.append((e.op, e.op, f"TMA load without an arrive.expect_tx on its mbarrier: {_name(e.op)}"))
    return problems


def _bulk_wait_covering(trace, i, until, stop, read):
    """Index of the first wait, on the TMA store trace[i]'s own thread and surely before `until`
    (scanning trace[i+1:stop]), that covers the store's committed bulk group -- read False: one
    without `.read` (the global writes complete); read True: either (a wait without .read
    completes the smem reads too).  None when there is none."""
    a = trace[i]
    commits = None          # None: the store's own group is not committed yet
    for k in range(i + 1, stop):
        e = trace[k]
        if e.issuer != a.access.threads.issuer or not _surely(e, a, until):
            continue
        if e.op.name == "nvasync.bulk_commit":
            commits = 0 if commits is None else commits + 1
        elif e.op.name == "nvasync.bulk_wait" and commits is not None \
                and (read or not ir.BoolAttr(e.op.attributes["read"]).value) \
                and ir.IntegerAttr(e.op.attributes["pending"]).value <= commits:
            return k
    return None


def _stores(trace):
    return [(i, a) for i, a in enumerate(trace)
            if a.access is not None and a.op.name in ("nvasync.tma_store", "nvasync.tma_reduce")]


def _check_releases(trace):
    """TMA store/reduce -> semaphore release: a `wait_group` without .read covering the store runs
    on the releasing thread in between."""
    problems = []
    for j, r in enumerate(trace):
        if r.op.name not in RELEASES:
            continue
        for i, a in _stores(trace[:j]):
            if r.issuer != a.access.threads.issuer or _bulk_wait_covering(trace, i, r, j, read=False) is None:
                problems.append((a.op, r.op, "semaphore released before the TMA store's global writes "
                                             f"completed (needs wait_group without .read): {_name(a.op)} -> {_name(r.op)}"))
    return problems


def _check_acquires(trace):
    """Acquire -> a TMA store/reduce by one of the acquiring threads: a `fence.proxy.async` of
    global memory (.global or the bare form) on that thread in between."""
    problems = []
    for i, w in enumerate(trace):
        if w.op.name not in ACQUIRES:
            continue
        for j, a in _stores(trace[i + 1:]):
            j += i + 1
            if not threads_of(w.op).covers(a.access.threads) or _exclusive(w, a):
                continue
            if not _between(trace, i, j, lambda e: e.op.name == "nvasync.fence_proxy_async"
                            and e.op.attributes["space"].value in ("global", "all")
                            and threads_of(e.op).covers(a.access.threads)):
                problems.append((w.op, a.op, "async-proxy global writes after an acquire without "
                                             f"fence.proxy.async.global: {_name(w.op)} -> {_name(a.op)}"))
    return problems


def _check_group_acquires(func):
    """An acquire `for_group` run by a subset of its group: the first op after the outermost
    divergent branch or loop holding it (smem_model.divergence_root) that the whole group runs --
    past branches only a subset takes, e.g. the issuer's bulk waits -- is a barrier over exactly
    the threads reaching that branch.  Structural, not per access: what the group reads after the
    acquire is global memory, which the trace does not model."""
    problems = []
    for wait, root in group_acquires(func):
        siblings = [op_key(o) for o in op_key(root).block.operations]
        later = siblings[siblings.index(op_key(root)) + 1:]
        after = next(o for o in later if not _subset_branch(o))
        if not (after.name in BARRIER_OPS and barrier_problem(after) is None
                and threads_of(after) == threads_of(root)):
            problems.append((wait, after, f"a semaphore acquired by {threads_of(wait).describe()} for its group "
                                          f"is not followed by a barrier over {threads_of(root).describe()} right "
                                          f"after the branch holding it: {_name(wait)} -> {_name(after)}"))
    return problems


def _subset_branch(op) -> bool:
    """An scf.if without an else branch whose then branch only a subset of its threads takes."""
    if op.name != "scf.if" or op.regions[1].blocks:
        return False
    inside = list(op.regions[0].blocks[0].operations)
    return bool(inside) and (threads_of(inside[0]).issuer is not None or threads_of(inside[0]).subset)


def _exclusive(a: Event, b: Event) -> bool:
    """a and b sit in the two branches of one execution of one scf.if: never both run."""
    for i, guard in enumerate(a.guards):
        if guard[0] in ("if", "else"):
            other = ("else" if guard[0] == "if" else "if", guard[1])
            for j, g in enumerate(b.guards):
                if (g[0], g[1]) == other and a.guards[:i] == b.guards[:j]:
                    return True
    return False


def _check_cluster_phases(trace):
    """Cluster barrier halves alternate (arrive, wait; a whole cluster_sync only between phases, no
    arrive left open at exit), and a completed phase precedes the first store into a peer's
    shared memory: only then has every CTA of the cluster started."""
    problems, pending, phases = [], None, 0
    for e in trace:
        name = e.op.name
        if name == "nvasync.cluster_arrive":
            if pending is not None:
                problems.append((pending.op, e.op, "a cluster barrier arrives twice without a wait"))
            pending = e
        elif name == "nvasync.cluster_wait":
            if pending is None:
                problems.append((e.op, e.op, f"cluster wait with no arrive before it: {_name(e.op)}"))
            pending, phases = None, phases + 1
        elif name == CLUSTER_SYNC:
            if pending is not None:
                problems.append((pending.op, e.op, "a cluster barrier (cluster_sync) while an arrive waits "
                                                   f"for its wait: {_name(pending.op)} -> {_name(e.op)}"))
            phases += 1
        elif e.access is not None and e.access.proxy == "cluster" and phases == 0:
            problems.append((e.op, e.op, "a store into a peer CTA's shared memory before a cluster barrier "
                                         f"has shown that every CTA of the cluster started: {_name(e.op)}"))
    if pending is not None:
        problems.append((pending.op, pending.op, f"cluster arrive never waited for: {_name(pending.op)}"))
    return problems


def _check_exit(trace):
    """Each TMA store's group is committed and covered by a wait before the kernel exits; each
    store into a peer CTA's shared memory is followed by a cluster barrier (the peer must not exit
    before it lands)."""
    problems = []
    for i, a in enumerate(trace):
        if a.access is not None and (a.access.proxy == "cluster" or a.access.remote) and not any(
                e.op.name == CLUSTER_SYNC and barrier_problem(e.op) is None for e in trace[i + 1:]):
            what = "a store into" if a.access.proxy == "cluster" else "an mbarrier arrival or multicast load into"
            problems.append((a.op, a.op, f"{what} a peer CTA's shared memory may land after the peer exits "
                                         f"(no cluster barrier after it): {_name(a.op)}"))
    for i, a in _stores(trace):
        end = Event(a.op, None, (), {}, True)
        end.steps = a.steps
        if _bulk_wait_covering(trace, i, end, len(trace), read=True) is None:
            problems.append((a.op, a.op, "TMA store may still read smem at kernel exit "
                                         f"(no covering commit + wait_group): {_name(a.op)}"))
    return problems
