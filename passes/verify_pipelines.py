"""fuser-verify-pipelines: an independent check of every kernel's mbarrier protocol, by execution.

Rule: for every trip count 0..2S+1 of each pipelined loop (S: the most stages any barrier array
has; in a loop nest, e.g. a persistent tile loop around a pipelined K loop, every combination in
which the other trip count is 0..3, so idle tails and phases carried across tiles are covered),
the protocol the kernel would run is executed on an abstract machine and must
  * initialise every mbarrier before any thread uses it, and not use one after `inval`, nor
    invalidate one another thread still uses;
  * bring exactly the init count of arrivals to every phase (more is an error at once; fewer
    leaves a phase open, which is an error at exit or a deadlock when someone waits on it);
  * announce with `arrive.expect_tx` exactly the bytes the phase's TMA loads deliver (whole boxes);
  * let every waiter observe each phase of a barrier it waits on, one after the other: a wait
    whose parity skips a phase (a waiter two phases behind aliases parity) or re-observes one is
    an error; so is finishing with a phase of TMA data unobserved by a thread that waits on that
    barrier, or by every thread;
  * never deadlock: some thread can always move until every thread has finished.
The machine runs one representative thread per class: per warp, its elected lane and one lane
that is not elected (classes whose protocol traces are identical merge into one that stands for
all their threads), so "the issuer", each role's warps and "every other thread" are executed.
CTA barriers are rendezvous of the classes they cover: `sync_threads` every class, a
`named_barrier` those of the warps reaching it (its warp role's, or those a warp-selecting branch
takes: smem_model.threads_of); `warp_sync` one of the classes sharing a warp.  Schedules: round
robin, and for each class one where it always runs first and one where it always runs last, which
is where lagging waiters and early uses show.
A kernel launched in clusters of C CTAs (`nvvm.cluster_dim`) runs C copies of every class, one
per CTA rank (`cluster_rank` evaluates to it), each with its own mbarriers: a remote arrival
(`mbarrier_arrive_cluster`) lands on the word of the CTA it names, a multicast load
(`tma_load_multicast`) delivers its bytes to the word of every CTA, and `cluster_sync` is a
rendezvous of every class of every CTA.  A remote use of a CTA whose threads have all finished is
an error (the CTA has exited).  Trip parameters are bound alike in every CTA of a cluster, which
holds only for values the same in all of them: the protocol may depend on `gpu.cluster_id` but
not on `gpu.block_id`, which is reported.

The protocol's control flow may depend only on constants, loop indices, integers carried by
loops, the thread's identity (`thread_id`, `elect_one`) and uniform values (kernel arguments,
block ids, and what is computed from them); such a uniform value that bounds a loop or decides a
branch around protocol ops is a *trip parameter*, bound in turn to every trip count explored; a
value computed from one trip parameter alone, however often it uses it (`n - n / 2`), is decided
by that parameter.
A branch on a uniform condition that no trip parameter decides (a split-K tile's last split) makes
the condition itself a parameter, explored both ways -- also when it depends on a value read from
shared memory at constant indices (one thread handing its group a count: every thread reads the
same write); both its sides are searched for parameters.  At most 3 trip parameters and 2 such
conditions are explored.  The copies of a value that warp roles compute in their own loop nests
(fuser-pipeline-mbarriers clones what trip counts need) are one parameter.  Anything else the
protocol depends on is reported as undecidable, and so is a loop around it whose step is below 1
or whose trip count (a constant) passes MAX_TRIPS.  It shares no code with fuser-pipeline-mbarriers.

Contract: any kernel IR in (after fuser-pipeline-mbarriers; syncs optional); unchanged out.  Each
violation is an error at the op concerned, naming the trip count and the thread class; the pass
fails.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from mlir import ir

from .smem_model import block_dims, cluster_size, is_smem, kernels, memref_bytes, reset_memo, threads_of

PROTOCOL_OPS = ("nvasync.mbarrier_init", "nvasync.mbarrier_arrive", "nvasync.mbarrier_arrive_expect_tx",
                "nvasync.mbarrier_try_wait_parity", "nvasync.mbarrier_inval", "nvasync.tma_load",
                "nvasync.mbarrier_arrive_cluster", "nvasync.tma_load_multicast",
                "nvasync.sync_threads", "nvasync.named_barrier", "nvasync.warp_sync", "nvasync.cluster_sync")
MBARRIER_PROTOCOL = 8   # PROTOCOL_OPS[:8] touch mbarriers
CLUSTER = -2            # the barrier "id" of a cluster_sync event
WARP_SYNC = -1          # the barrier "id" of a warp_sync event
MAX_EXPLORED_PARAMETERS = 3     # integer trip parameters (trip counts 0..2S+1 each) ...
MAX_EXPLORED_BRANCHES = 2       # ... and branch conditions (both ways each)
MAX_TRIPS = 1 << 16     # iterations of one loop run by the interpreter (a constant trip count beyond: undecidable)
NESTED_TRIPS = 3        # with two trip parameters, all but one stay within 0..3 (the traces grow as their product)


class ProtocolError(Exception):
    def __init__(self, op, message):
        super().__init__(message)
        self.op = op


class Undecidable(Exception):
    """Raised while evaluating a value that depends on a uniform value not bound yet."""


def run(module_op, pass_) -> None:
    failed = False
    for func in kernels(module_op):
        for op, message in verify_function(func):
            op.location.emit_error(f"fuser-verify-pipelines: {message}")
            failed = True
    if failed:
        pass_.signal_pass_failure()


def verify_function(func) -> list[tuple[object, str]]:
    """(op, message) for the first violation found per explored trip count, deduplicated."""
    _contains.clear()
    _steps_of.clear()
    _forms.clear()
    reset_memo()        # threads_of's facts are keyed by op pointers
    _operands_of.clear()
    if not _contains_protocol(func, mbarriers_only=True):
        return []
    problems, seen = [], set()
    try:
        explorations = list(_explorations(func))
    except ProtocolError as exc:
        return [(exc.op, str(exc))]
    for classes, bindings, label in explorations:
        try:
            traces = _merged({c: _Interpreter(func, c, bindings).trace() for c in classes})
            for schedule in _schedules(list(traces)):
                _Machine(traces, schedule, label).run()
        except ProtocolError as exc:
            key = (exc.op, str(exc).split(" (trip")[0])
            if key not in seen:
                seen.add(key)
                problems.append((exc.op, str(exc)))
    return problems


# --- thread classes and trip parameters ----------------------------------------------------------

@dataclass(frozen=True)
class ThreadClass:
    tid: int
    elected: bool
    threads: int            # how many threads of the CTA this class stands for
    name: str
    warps: frozenset = frozenset()   # the warps its threads belong to
    cta: int = 0            # its CTA's rank in the cluster


def _thread_classes(func) -> tuple[ThreadClass, ...]:
    """Per warp of the block: its elected lane and its other lanes (warp roles and elect_one
    make these the only distinctions the protocol can draw)."""
    block = (block_dims(func) or (32,))[0]
    ctas = cluster_size(func)
    classes = []
    for cta in range(ctas):
        where = f" of CTA {cta}" if ctas > 1 else ""
        for warp in range(max(1, block // 32)):
            warps = frozenset([warp])
            classes.append(ThreadClass(warp * 32, True, 1, f"elected lane of warp {warp}{where}", warps, cta))
            classes.append(ThreadClass(warp * 32 + 1, False, min(31, block - warp * 32 - 1),
                                       f"other lanes of warp {warp}{where}", warps, cta))
    return tuple(c for c in classes if c.threads > 0)


def _merged(traces: dict) -> dict:
    """Classes with the same protocol trace behave alike: one class standing for all their threads."""
    groups: dict = {}
    for cls, events in traces.items():
        key = (cls.cta, tuple((e.kind, e.op, e.barrier, e.value, e.ctas) for e in events))
        groups.setdefault(key, []).append(cls)
    merged = {}
    for members in groups.values():
        first = members[0]
        name = first.name if len(members) == 1 else f"{first.name} (+{len(members) - 1} alike)"
        merged[ThreadClass(first.tid, first.elected, sum(c.threads for c in members), name,
                           frozenset().union(*(c.warps for c in members)), first.cta)] = traces[first]
    return merged


def _explorations(func):
    """(classes, trip-parameter bindings, label) to run: every trip count 0..2S+1 per parameter."""
    classes = _thread_classes(func)
    found = [f for c in classes for f in _Interpreter(func, c, {}).free_parameters()]
    counted = {_parameter_key(p) for p, condition in found if condition is None}
    parameters: dict = {}        # a parameter's key -> the values computing it (one per warp role's copy)
    for p, condition in found:
        if condition is not None and _parameter_key(p) not in counted:
            p = condition               # a branch on what no loop counts: explored both ways
        copies = parameters.setdefault(_parameter_key(p), [])
        if p not in copies:
            copies.append(p)
    branches = [_is_condition(copies[0]) for copies in parameters.values()]
    if len(branches) - sum(branches) > MAX_EXPLORED_PARAMETERS or sum(branches) > MAX_EXPLORED_BRANCHES:
        raise ProtocolError(func, f"the protocol depends on {len(branches) - sum(branches)} uniform values and "
                                  f"{sum(branches)} uniform branch conditions; at most {MAX_EXPLORED_PARAMETERS} "
                                  f"and {MAX_EXPLORED_BRANCHES} are explored")
    counts = range(0, 2 * _max_stages(func) + 2)
    ranges = [(0, 1) if branch else counts for branch in branches]
    for values in itertools.product(*ranges):
        if sum(v > NESTED_TRIPS for v in values) <= 1:
            bindings = {copy: v for copies, v in zip(parameters.values(), values) for copy in copies}
            yield classes, bindings, "trip count " + "/".join(map(str, values))


def _is_condition(value) -> bool:
    return isinstance(value.type, ir.IntegerType) and ir.IntegerType(value.type).width == 1


def _parameter_key(value, depth=0):
    """Equal for values computed the same way from the same kernel arguments, block ids and loop
    indices: the copies of a trip count that warp roles compute in their own loop nests are one
    parameter.  A loop's index is known by the loop's bounds."""
    if isinstance(value, ir.BlockArgument):
        loop = value.owner.owner
        if loop.name == "scf.for" and value.arg_number == 0 and depth < 12:
            return ("iv",) + tuple(_parameter_key(v, depth + 1) for v in loop.operands[:3])
        return ("arg", value.owner, value.arg_number)
    op = value.owner
    if depth >= 12 or op.regions or not op.name.startswith(("arith.", "gpu.", "index.")):
        return ("value", value)
    attributes = tuple(sorted((op.attributes[i].name, str(op.attributes[i].attr)) for i in range(len(op.attributes))))
    return (op.name, attributes, tuple(_parameter_key(v, depth + 1) for v in op.operands))


def _max_stages(func) -> int:
    """The most stages any mbarrier array has: the size of the arrays mbarrier_init initialises
    (an i64 data tile is no barrier array)."""
    stages = [1]
    func.walk(lambda op: stages.append(ir.MemRefType(op.operands[0].type).shape[0]) or ir.WalkResult.ADVANCE
              if op.name == "nvasync.mbarrier_init" else ir.WalkResult.ADVANCE)
    return max(stages)


_contains: dict = {}


def _contains_protocol(op, mbarriers_only=False) -> bool:
    """Memoized per run, keyed by the op itself (verify_function clears it)."""
    key = (op, mbarriers_only)
    if key not in _contains:
        names = PROTOCOL_OPS[:MBARRIER_PROTOCOL] if mbarriers_only else PROTOCOL_OPS
        found = []
        op.walk(lambda o: found.append(o) or ir.WalkResult.INTERRUPT if o.name in names else ir.WalkResult.ADVANCE)
        _contains[key] = bool(found)
    return _contains[key]


_steps_of: dict = {}


def _steps(block) -> list:
    """The ops of `block` the interpreter runs, as (kind, op, what it needs read from the IR
    once): protocol ops and ops with regions that hold some (the rest cannot emit events).
    Memoized per run, like _contains."""
    if block not in _steps_of:
        _steps_of[block] = [_step(op.operation) for op in block.operations
                            if op.operation.name in PROTOCOL_OPS or (len(op.operation.regions)
                                                                     and _contains_protocol(op.operation))]
    return _steps_of[block]


def _step(op) -> tuple:
    name = op.name
    if name in PROTOCOL_OPS:
        return "emit", op, None
    if name == "scf.if":
        return "if", op, (op.operands[0], [list(region.blocks) for region in op.regions])
    if name == "scf.for":
        view = op.opview
        integers = lambda values: [v if _is_integer(v) else None for v in values]  # noqa: E731  (None: not tracked)
        return "for", op, (view.lowerBound, view.upperBound, view.step, integers(view.initArgs),
                           view.induction_variable, list(view.inner_iter_args), view.body,
                           integers(list(view.body.operations)[-1].operands), list(op.results))
    if name == "nvasync.warp_role":
        return "role", op, (op.attributes["first_warp"].value, op.attributes["num_warps"].value, op.regions[0].blocks[0])
    return "unmodelled", op, None


def _is_integer(value) -> bool:
    return isinstance(value.type, (ir.IndexType, ir.IntegerType))


# --- the interpreter: one thread class's protocol events -----------------------------------------

@dataclass(frozen=True)
class Event:
    kind: str          # init | arrive | load | wait | inval | barrier
    op: object
    barrier: int = 0   # byte address of the mbarrier (or the barrier id for `barrier`)
    value: int = 0     # init: count; arrive: tx bytes; load: bytes; wait: parity; barrier: threads
    ctas: tuple = ()   # the CTAs whose mbarrier word it reaches (): the thread's own
    role: tuple | None = None   # a named barrier's warp role: (first warp, warps); None: the CTA's


_ARITH = {
    "arith.addi": lambda a, b: a + b, "arith.subi": lambda a, b: a - b, "arith.muli": lambda a, b: a * b,
    "arith.divui": lambda a, b: a // b, "arith.remui": lambda a, b: a % b, "arith.divsi": lambda a, b: int(a / b),
    "arith.remsi": lambda a, b: a - int(a / b) * b, "arith.ceildivui": lambda a, b: -(-a // b),
    "arith.ceildivsi": lambda a, b: -(-a // b), "arith.floordivsi": lambda a, b: a // b,
    "arith.andi": lambda a, b: a & b, "arith.ori": lambda a, b: a | b, "arith.xori": lambda a, b: a ^ b,
    "arith.maxui": max, "arith.minui": min, "arith.maxsi": max, "arith.minsi": min,
    "arith.shli": lambda a, b: a << b, "arith.shrui": lambda a, b: a >> b,
}
_CMP = {0: lambda a, b: a == b, 1: lambda a, b: a != b, 2: lambda a, b: a < b, 3: lambda a, b: a <= b,
        4: lambda a, b: a > b, 5: lambda a, b: a >= b, 6: lambda a, b: a < b, 7: lambda a, b: a <= b,
        8: lambda a, b: a > b, 9: lambda a, b: a >= b}
_CASTS = ("arith.index_cast", "arith.index_castui", "arith.extui", "arith.extsi", "arith.trunci")
_UNIFORM_SOURCES = ("gpu.block_id", "gpu.grid_dim", "gpu.block_dim", "gpu.cluster_id")


# Memoized per run: how each value is computed (`_form`), each mbarrier op's operands (by the op's id:
# the op objects `_steps` keeps).
_forms: dict = {}
_operands_of: dict = {}
_IDENTITY = {"gpu.thread_id": "thread", "nvasync.elect_one": "elected", "nvasync.cluster_rank": "rank"}


def _form(value) -> tuple:
    """(kind, payload) of how `value` is computed, read once from the IR: ("compute", (fn, operand
    values)), ("constant", n), ("branch", (condition, the value each region of an scf.if yields)),
    the thread's identity ("thread", "elected", "rank"), "block" (a block id), "undecidable" (a
    kernel argument, a uniform source, a carried value the loop did not make known, a handed-on
    load), or "unknown" (payload: the op)."""
    if isinstance(value, ir.BlockArgument):
        return "undecidable", None
    op = value.owner
    name = op.name
    if name == "arith.constant":
        attr = op.attributes["value"]
        return "constant", int(ir.BoolAttr(attr).value) if isinstance(attr, ir.BoolAttr) else ir.IntegerAttr(attr).value
    if name in _IDENTITY:
        return _IDENTITY[name], None
    if name == "gpu.block_id":
        return "block", op
    if name == "scf.for" or name in _UNIFORM_SOURCES or _handed_on(op):
        return "undecidable", None
    operands = list(op.operands)
    if name in _ARITH:
        return "compute", (_ARITH[name], operands)
    if name in _CASTS:
        return "compute", (lambda a: a, operands)
    if name == "arith.cmpi":
        compare = _CMP[ir.IntegerAttr(op.attributes["predicate"]).value]
        return "compute", (lambda a, b: int(compare(a, b)), operands)
    if name == "arith.select":
        return "compute", (lambda c, a, b: a if c else b, operands)
    if name == "scf.if" and _is_integer(value):     # the value the taken region yields
        k = value.result_number
        return "branch", (operands[0], [list(region.blocks[0].operations)[-1].operands[k] for region in op.regions])
    return "unknown", op


def _handed_on(op) -> bool:
    """A load of shared memory at constant indices: what one thread handed its group there."""
    return op.name == "memref.load" and is_smem(op.operands[0]) and all(
        not isinstance(v, ir.BlockArgument) and v.owner.name == "arith.constant" for v in op.operands[1:])


class _Interpreter:
    def __init__(self, func, thread: ThreadClass, bindings: dict):
        self.func, self.thread, self.bindings = func, thread, bindings
        self.ctas = cluster_size(func)
        self.ivs: dict = {}
        self.events: list[Event] = []
        self.free: list = []
        self.collecting = False

    def free_parameters(self) -> list:
        """The uniform values the protocol's control flow depends on, each as (the trip parameter
        behind it, the branch condition when it was found deciding an scf.if, else None)."""
        self.collecting = True
        self.run_block(self.func.regions[0].blocks[0])
        return self.free

    def trace(self) -> list[Event]:
        self.run_block(self.func.regions[0].blocks[0])
        return self.events

    # values
    def eval(self, value) -> int:
        if value in self.bindings:
            return self.bindings[value]
        if value in self.ivs:
            return self.ivs[value]
        form = _forms.get(value)
        if form is None:
            form = _forms[value] = _form(value)
        kind, payload = form
        if kind == "compute":
            fn, operands = payload
            return fn(*[self.eval(v) for v in operands])
        if kind == "branch":
            condition, yielded = payload
            return self.eval(yielded[0 if self.eval(condition) else 1])
        if kind == "constant":
            return payload
        if kind == "thread":
            return self.thread.tid
        if kind == "elected":
            return int(self.thread.elected)
        if kind == "rank":
            return self.thread.cta
        if kind == "block" and self.ctas > 1:
            raise ProtocolError(payload, "the mbarrier protocol of a cluster kernel depends on gpu.block_id, which "
                                         "differs between the CTAs of a cluster: derive it from gpu.cluster_id")
        if kind in ("undecidable", "block"):
            raise Undecidable()
        for v in payload.operands:             # an undecidable operand is reported as such first
            self.eval(v)
        raise ProtocolError(payload, f"the mbarrier protocol depends on '{payload.name}', which this check "
                                     "cannot evaluate")

    def known(self, value):
        """The integer `value` holds, or None (`value` None, or not decidable here): loop-carried
        integers (a global iteration count) are tracked; `_step` passes None for the others, which
        are not the protocol's."""
        if value is None:
            return None
        try:
            return self.eval(value)
        except (Undecidable, ProtocolError):
            return None

    def bind(self, values, known) -> None:
        for value, v in zip(values, known):
            if v is None:
                self.ivs.pop(value, None)
            else:
                self.ivs[value] = v

    def decide(self, value, branch: bool = False) -> int:
        try:
            return self.eval(value)
        except Undecidable:
            if not self.collecting:
                raise ProtocolError(value.owner if not isinstance(value, ir.BlockArgument) else self.func,
                                    "the mbarrier protocol depends on a value this check cannot decide") from None
            parameter, condition = self.parameter(value), (value if branch else None)
            if not any(p == parameter and (c is None if condition is None else c is not None and c == condition)
                       for p, c in self.free):
                self.free.append((parameter, condition))
            return 1                            # explore on; the parameter is bound later

    def parameter(self, value):
        """The trip parameter behind an undecidable value: descend through ops that combine one
        undecidable operand with decidable ones (`ceildiv(n, S)`, `i < n`), or several computed
        from the same parameter (`n - n / 2`), down to a value that is a leaf or combines several
        unknowns (`n = ceildiv(tiles - block, grid)`)."""
        while not isinstance(value, ir.BlockArgument) and value.owner.name not in _UNIFORM_SOURCES \
                and not _handed_on(value.owner):
            unknown = []
            for operand in value.owner.operands:
                try:
                    self.eval(operand)
                except Undecidable:
                    unknown.append(operand)
            if len(unknown) > 1:
                behind = [self.parameter(v) for v in unknown]
                if len({_parameter_key(p) for p in behind}) == 1:
                    return behind[0]
            if len(unknown) != 1:
                break
            value = unknown[0]
        return value

    # control flow
    def run_block(self, block) -> None:
        for step in _steps(block):
            self.run_op(*step)

    def run_op(self, kind, op, needs) -> None:
        if kind == "emit":
            self.emit(op)
        elif kind == "if":
            condition, regions = needs
            taken = self.decide(condition, branch=True)
            # Collecting, a branch that no value decides yet is explored both ways: each side may
            # hold protocol that depends on values of its own.
            for region in ((0, 1) if self.collecting and self.known(condition) is None else (0 if taken else 1,)):
                for block in regions[region]:
                    self.run_block(block)
        elif kind == "for":
            lower, upper, step, inits, iv, iter_args, body, yielded, results = needs
            lower, upper, step = self.decide(lower), self.decide(upper), self.decide(step)
            if step < 1 or len(range(lower, upper, step)) > MAX_TRIPS:
                raise ProtocolError(op, f"a loop of step {step} from {lower} to {upper} around mbarrier protocol: "
                                        f"this check runs loops of a positive step and at most {MAX_TRIPS} iterations")
            carried = [self.known(v) for v in inits]
            for i in range(lower, upper, step) if not self.collecting else [lower]:
                self.ivs[iv] = i
                self.bind(iter_args, carried)
                self.run_block(body)
                carried = [self.known(v) for v in yielded]
            self.bind(results, carried)
        elif kind == "role":
            first, count, block = needs
            if first <= self.thread.tid // 32 < first + count:
                self.run_block(block)
        else:
            raise ProtocolError(op, f"mbarrier protocol inside '{op.name}', which this check does not model")

    def emit(self, op) -> None:
        name = op.name
        if name == "nvasync.sync_threads":
            self.events.append(Event("barrier", op, 0, 0))
            return
        if name == "nvasync.named_barrier":     # its warps: the warp role's, or a warp-selecting branch's
            self.events.append(Event("barrier", op, op.attributes["id"].value, op.attributes["threads"].value, (),
                                     threads_of(op).role))
            return
        if name == "nvasync.warp_sync":
            self.events.append(Event("barrier", op, WARP_SYNC, 0))
            return
        if name == "nvasync.cluster_sync":
            self.events.append(Event("barrier", op, CLUSTER, 0))
            return
        if id(op) not in _operands_of:
            _operands_of[id(op)] = _mbarrier_operands(op)
        start, stage, fields = _operands_of[id(op)]
        address = start + 8 * self.decide(stage)
        if name == "nvasync.mbarrier_init":
            self.events.append(Event("init", op, address, fields["count"]))
        elif name == "nvasync.mbarrier_arrive":
            self.events.append(Event("arrive", op, address, 0))
        elif name == "nvasync.mbarrier_arrive_cluster":
            cta = self.decide(fields["cta"])
            if not 0 <= cta < self.ctas:
                raise ProtocolError(op, f"remote arrive on CTA {cta} of a cluster of {self.ctas}")
            self.events.append(Event("arrive", op, address, 0, (cta,)))
        elif name == "nvasync.mbarrier_arrive_expect_tx":
            self.events.append(Event("arrive", op, address, fields["bytes"]))
        elif name == "nvasync.mbarrier_try_wait_parity":
            self.events.append(Event("wait", op, address, self.decide(fields["parity"]) & 1))
        elif name == "nvasync.mbarrier_inval":
            self.events.append(Event("inval", op, address, 0))
        elif name == "nvasync.tma_load":
            self.events.append(Event("load", op, address, fields["dst_bytes"]))
        elif name == "nvasync.tma_load_multicast":
            if fields["ctas"] != self.ctas:
                raise ProtocolError(op, f"a multicast over {fields['ctas']} CTAs in a cluster of {self.ctas}")
            # Every CTA's dst fills (each CTA's slice reaches all): dst's bytes on every CTA's word,
            # 1/ctas of them from this thread's slice.
            self.events.append(Event("load", op, address, fields["dst_bytes"] // self.ctas, tuple(range(self.ctas))))


def _mbarrier_operands(op) -> tuple:
    """(the mbarrier array's byte offset, the stage value, {operand or attribute: value}) of an
    mbarrier-protocol op, read from the IR once (the opview's accessors are slow)."""
    view = op.opview
    barriers = view.barriers
    if isinstance(barriers, ir.BlockArgument) or barriers.owner.name != "nvasync.smem_buffer":
        raise ProtocolError(op, "the mbarrier array must be an nvasync.smem_buffer")
    name = op.name
    fields = {}
    if name == "nvasync.mbarrier_init":
        fields["count"] = view.count
    elif name == "nvasync.mbarrier_arrive_cluster":
        fields["cta"] = view.cta
    elif name == "nvasync.mbarrier_arrive_expect_tx":
        fields["bytes"] = view.bytes
    elif name == "nvasync.mbarrier_try_wait_parity":
        fields["parity"] = view.parity
    elif name in ("nvasync.tma_load", "nvasync.tma_load_multicast"):
        fields["dst_bytes"] = memref_bytes(view.dst.type)
        if name == "nvasync.tma_load_multicast":
            fields["ctas"] = view.ctas
    return barriers.owner.attributes["offset"].value, view.stage, fields


# --- the abstract machine ------------------------------------------------------------------------

@dataclass
class Barrier:
    count: int
    pending: int
    announced: int = 0      # expect-tx bytes of the open phase
    delivered: int = 0      # bytes its TMA loads delivered (complete_tx)
    completed: int = 0      # phases completed so far
    valid: bool = True
    carries_data: bool = False   # some phase had TMA bytes: its waiters consume every phase
    open_op: object = None  # the op that last touched the open phase (for messages)


@dataclass(eq=False)
class _Thread:
    cls: ThreadClass
    events: list
    pc: int = 0
    held: bool = False                              # at a CTA barrier, until all members arrive
    observed: dict = field(default_factory=dict)    # mbarrier -> last phase observed

    def __post_init__(self):
        self.length = len(self.events)
        # per event, the mbarrier words (CTA, byte address) it reaches
        self.words = [[(cta, e.barrier) for cta in (e.ctas or (self.cls.cta,))] for e in self.events]

    @property
    def done(self) -> bool:
        return self.pc >= self.length


def _schedules(classes):
    yield "round robin", None
    for c in classes:
        yield f"{c.name} first", [c] + [o for o in classes if o != c]
        yield f"{c.name} last", [o for o in classes if o != c] + [c]


class _Machine:
    def __init__(self, traces: dict, schedule, label: str):
        self.threads = [_Thread(c, events) for c, events in traces.items()]
        self.order_name, order = schedule
        if order is not None:
            self.threads.sort(key=lambda t: order.index(t.cls))
        self.label = label
        self.barriers: dict[tuple, Barrier] = {}      # (CTA, byte address) -> its state
        self.at_cta_barrier: dict = {}                 # (barrier id, members) -> threads held there
        self.rendezvous: dict = {}                     # memo of `members`: its key -> (members, names)

    def fail(self, op, thread, message):
        raise ProtocolError(op, f"{message} ({self.label}, {thread.cls.name}, schedule: {self.order_name})")

    def run(self) -> None:
        turn = 0
        threads, round_robin = self.threads, self.order_name == "round robin"
        while True:
            runnable = [t for t in threads if t.pc < t.length and self.can_step(t)]
            if not runnable:
                if all(t.done for t in threads):
                    break
                self.deadlock()
            thread = runnable[turn % len(runnable)] if round_robin else runnable[0]
            turn += 1
            self.step(thread)
        self.at_exit()

    def can_step(self, thread) -> bool:
        if thread.held:
            return False
        event = thread.events[thread.pc]
        if event.kind == "wait":
            state = self.barriers.get(thread.words[thread.pc][0])
            return state is None or not state.valid or (state.completed & 1) != event.value
        return True

    def members(self, event, cls) -> tuple:
        """(members, their names) of a barrier: the classes it waits for -- every class of the
        cluster (cluster_sync), all of the CTA's (bar.sync 0), those of the named barrier's warp
        role, or those sharing a warp with `cls` (warp_sync)."""
        if event.barrier == WARP_SYNC:
            key = (WARP_SYNC, cls)
        elif event.barrier == CLUSTER:
            key = (CLUSTER,)
        else:
            key = (cls.cta, event.role if event.value else None)
        if key not in self.rendezvous:
            members = self.find_members(event, cls)
            self.rendezvous[key] = (members, frozenset(c.name for c in members))
        return self.rendezvous[key]

    def find_members(self, event, cls) -> set:
        if event.barrier == CLUSTER:
            return {t.cls for t in self.threads}
        classes = {t.cls for t in self.threads if t.cls.cta == cls.cta}
        if event.barrier == WARP_SYNC:     # classes chained by shared warps (merged classes span several)
            members, warps = {cls}, set(cls.warps)
            while True:
                more = {c for c in classes if c.warps & warps} - members
                if not more:
                    return members
                members |= more
                warps |= set().union(*(c.warps for c in more))
        if not event.value or event.role is None:
            return classes
        first, count = event.role
        return {c for c in classes if first <= c.tid // 32 < first + count}

    def state_of(self, thread, event, word) -> Barrier:
        cta, address = word
        where = f"the mbarrier at byte {address}" + (f" of CTA {cta}" if event.ctas else "")
        if cta != thread.cls.cta and all(t.done for t in self.threads if t.cls.cta == cta):
            self.fail(event.op, thread, f"{where} is reached after CTA {cta} exited")
        state = self.barriers.get(word)
        if state is None:
            self.fail(event.op, thread, f"{where} used before it is initialised")
        if not state.valid:
            what = "invalidated twice" if event.kind == "inval" else "used after mbarrier.inval"
            self.fail(event.op, thread, f"{where} {what}")
        return state

    def step(self, thread) -> None:
        event = thread.events[thread.pc]
        kind = event.kind
        if kind == "barrier":
            members, names = self.members(event, thread.cls)
            key = (event.barrier, names)
            held = self.at_cta_barrier.setdefault(key, [])
            held.append(thread)
            if {t.cls for t in held} >= members:
                for t in held:
                    t.held, t.pc = False, t.pc + 1
                self.at_cta_barrier[key] = []
            else:
                thread.held = True
            return
        words = thread.words[thread.pc]
        thread.pc += 1
        if kind == "init":
            word = words[0]
            state = self.barriers.get(word)
            if state is not None and state.valid:
                self.fail(event.op, thread, f"mbarrier at byte {event.barrier} initialised twice")
            self.barriers[word] = Barrier(event.value, event.value)
            return
        for word in words:
            state = self.state_of(thread, event, word)
            if kind == "arrive":
                state.pending -= thread.cls.threads
                state.announced += event.value
                state.carries_data |= event.value > 0
                state.open_op = event.op
                if state.pending < 0:
                    self.fail(event.op, thread, f"more arrivals than the init count {state.count} in phase "
                                                f"{state.completed} of the mbarrier at byte {word[1]}"
                                                + (f" of CTA {word[0]}" if event.ctas else ""))
                self.complete(state)
            elif kind == "load":
                state.delivered += event.value
                state.carries_data = True
                state.open_op = event.op
                self.complete(state)
            elif kind == "wait":
                self.observe(thread, event, state, word)
            elif kind == "inval":
                users = [t for t in self.threads if t is not thread and
                         any(word in t.words[k] and t.events[k].kind not in ("barrier", "inval")
                             for k in range(t.pc, t.length))]
                if users:
                    self.fail(event.op, thread, f"mbarrier at byte {event.barrier} invalidated while "
                                                f"{users[0].cls.name} may still use it")
                state.valid = False

    def observe(self, thread, event, state: Barrier, word) -> None:
        """The wait passed: parity P passes once the phase count's parity differs from P, so it
        observes phase completed - 1 (phase -1: a fresh barrier, the first wait of a producer)."""
        phase = state.completed - 1
        last = thread.observed.get(word)
        allowed = (-1, 0) if last is None else (last + 1,)
        if phase not in allowed:
            self.fail(event.op, thread, f"wait with parity {event.value} observes phase {phase} of the mbarrier "
                                        f"at byte {event.barrier}, expected phase {allowed[-1]}: the waiter "
                                        "skipped or re-observed a phase (parity aliasing)")
        thread.observed[word] = phase

    @staticmethod
    def complete(state: Barrier) -> None:
        if state.pending == 0 and state.announced == state.delivered:
            state.completed += 1
            state.pending, state.announced, state.delivered = state.count, 0, 0

    def deadlock(self):
        blocked = [t for t in self.threads if not t.done]
        thread = next((t for t in blocked if not t.held), blocked[0])
        event = thread.events[thread.pc]
        if event.kind == "wait":
            state = self.barriers[thread.words[thread.pc][0]]
            if state.pending == 0:
                detail = (f"; every arrival is in, but expect-tx announces {state.announced} bytes and "
                          f"the loads deliver {state.delivered}")
            else:
                detail = f"; {state.count - state.pending} of {state.count} arrivals"
            what = f"waits for parity {event.value} of the mbarrier at byte {event.barrier}{detail}"
        else:
            what = f"waits at {'a cluster' if event.barrier == CLUSTER else 'CTA'} barrier {event.barrier}, " \
                   "which other threads never reach"
        others = ", ".join(t.cls.name for t in blocked if t is not thread) or "no other thread"
        self.fail(event.op, thread, f"deadlock: {thread.cls.name} {what}; also unfinished: {others}")

    def at_exit(self) -> None:
        for (cta, address), state in self.barriers.items():
            if state.pending != state.count:
                self.fail(state.open_op, self.threads[0],
                          f"phase {state.completed} of the mbarrier at byte {address} is left open at exit: "
                          f"{state.count - state.pending} of {state.count} arrivals")
            if state.announced != state.delivered:
                self.fail(state.open_op, self.threads[0],
                          f"phase {state.completed} of the mbarrier at byte {address}: expect-tx announces "
                          f"{state.announced} bytes, the loads deliver {state.delivered}")
            if state.carries_data and state.completed and \
                    not any((cta, address) in t.observed for t in self.threads):
                self.fail(state.open_op or self.threads[0].events[-1].op, self.threads[0],
                          f"TMA loads complete {state.completed} phase(s) of the mbarrier at byte {address}, "
                          "but no thread waits on it")
        for thread in self.threads:
            for word, last in thread.observed.items():
                state = self.barriers[word]
                if state.carries_data and last != state.completed - 1:
                    self.fail(thread.events[-1].op, thread,
                              f"{thread.cls.name} observed phases of the mbarrier at byte {word[1]} up to {last}, "
                              f"but {state.completed} completed: a wait is missing")
