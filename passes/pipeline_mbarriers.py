"""fuser-pipeline-mbarriers: derive the mbarrier pipeline of every loop marked `nvasync.pipeline`.

Rule (mode `pipelined`: one elected thread issues every load, all threads consume), for a loop
`scf.for %i = 0 to %n step 1` with `nvasync.pipeline = {stages = S, prefetch = P, mode}` whose
body issues `nvasync.pipeline_load`s of one stage's worth and consumes them:
  * stage buffers: every smem buffer the body touches gets S copies (stage 0 is the scheduler's,
    stages 1..S-1 follow the last buffer, 1024-byte aligned, in the same relative layout), so a
    stage's loads, its consumers and its outputs never share memory with another stage's; a
    layout over the 227 KiB a CTA may use is an error;
  * one `full` mbarrier per stage after the buffers, initialised by the issuer with count 1: the
    issuer's single `arrive.expect_tx` per stage and phase, announcing the bytes of every box the
    stage loads (whole boxes: out-of-bounds elements are zero-filled and count);
  * prologue: the issuer loads iterations 0..P-1 (each only if < n) into stages 0..P-1;
  * steady state: the loop is unrolled by S so every buffer is static: round r, stage s,
    i = r*S + s, under `i < n`: every thread waits `full[s]` with parity r & 1 (phase r of that
    stage), runs the body on stage s, then the issuer refills stage (s+P) % S with iteration i+P
    when i+P < n.  Trip count 0 runs nothing; n < P prefetches only n iterations;
  * drain: every load issued is waited for (a load exists only for an i < n that is consumed), so
    nothing is in flight at loop exit; the issuer invalidates the barriers after the loop.
Decision: in this mode the issuer is also a consumer, so a stage's reads before its refill are an
ordinary shared-memory WAR hazard that fuser-insert-syncs covers with one barrier (which the
pointwise kernel's TMA store needs anyway); an `empty` mbarrier would add a second wait per stage.
The fence after mbarrier init, its barrier and every other sync are likewise left to the sync
passes.  Mode `warp_specialized` (producer roles in warp_role regions with their own full/empty
pairs, setmaxnreg) is not built yet: it is reported as an error at the loop.

The loads' coordinates may be computed in the body from %i by side-effect-free arith/gpu ops:
that slice is re-evaluated for i + P.  The kernel's issue predicate (the elect_one-based guard of
its other TMA ops) is reused, since bulk groups and mbarrier arrivals are per thread; without one,
`tid < 32 && elect_one` is created at the kernel's entry.

Contract
  in:  gpu.func kernels; pipelined loops as above (no iter_args, constant lower bound 0, step 1,
       pipeline_loads directly in the body), no mbarrier ops of their own.
  out: the loops rewritten with tma_load / mbarrier ops; every op this pass creates for the
       protocol carries `fuser.pipeline = "<its role>"`; no barrier, fence or bulk wait.
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, gpu, scf

from ..dialects import nvasync
from .smem_model import block_dims, elect_op, kernels, memref_bytes

PIPELINE_ATTR = "nvasync.pipeline"
PROTOCOL = "fuser.pipeline"            # marks the protocol ops this pass creates
SMEM_LIMIT = 227 * 1024                # bytes of shared memory one CTA may use (H100 opt-in)
STAGE_ALIGN = 1024                     # 128-byte-swizzled TMA boxes need 1024-byte alignment
MODES = ("pipelined", "warp_specialized")


class PipelineError(Exception):
    def __init__(self, op, message):
        super().__init__(message)
        self.op = op


def run(module_op, pass_) -> None:
    failed = False
    for func in kernels(module_op):
        for loop in _pipelined_loops(func):
            try:
                _Pipeline(func, loop).rewrite()
            except PipelineError as exc:
                exc.op.location.emit_error(f"fuser-pipeline-mbarriers: {exc}")
                failed = True
    if failed:
        pass_.signal_pass_failure()


def _pipelined_loops(func):
    found = []
    func.walk(lambda op: found.append(op) or ir.WalkResult.ADVANCE
              if op.name == "scf.for" and PIPELINE_ATTR in op.attributes else ir.WalkResult.ADVANCE)
    return found


@dataclass(frozen=True)
class Options:
    stages: int
    prefetch: int
    mode: str
    producer_regs: int | None = None     # setmaxnreg budgets (warp_specialized; both or neither)
    consumer_regs: int | None = None

    @staticmethod
    def of(loop) -> "Options":
        fields = {}
        try:
            for named in ir.DictAttr(loop.attributes[PIPELINE_ATTR]):
                attr = named.attr
                fields[named.name] = ir.StringAttr(attr).value if isinstance(attr, ir.StringAttr) \
                    else ir.IntegerAttr(attr).value
        except ValueError:
            raise PipelineError(loop, f"{PIPELINE_ATTR} must be a dictionary of integers and strings") from None
        stages, mode = fields.get("stages"), fields.get("mode", "pipelined")
        prefetch = fields.get("prefetch", stages)
        if not isinstance(stages, int) or not 1 <= stages <= 16:
            raise PipelineError(loop, f"stages must be an integer in [1, 16], got {stages!r}")
        if not isinstance(prefetch, int) or not 1 <= prefetch <= stages:
            raise PipelineError(loop, f"prefetch must be an integer in [1, stages = {stages}], got {prefetch!r}")
        if mode not in MODES:
            raise PipelineError(loop, f"mode must be one of {', '.join(MODES)}, got {mode!r}")
        unknown = set(fields) - {"stages", "prefetch", "mode", "producer_regs", "consumer_regs"}
        if unknown:
            raise PipelineError(loop, f"unknown pipeline option(s) {', '.join(sorted(unknown))}")
        regs = (fields.get("producer_regs"), fields.get("consumer_regs"))
        if (regs[0] is None) != (regs[1] is None):
            raise PipelineError(loop, "give both producer_regs and consumer_regs, or neither")
        for r in regs:
            if r is not None and (not isinstance(r, int) or r % 8 or not 24 <= r <= 256):
                raise PipelineError(loop, f"register budgets are multiples of 8 in [24, 256], got {r!r}")
        if regs[0] is not None and mode != "warp_specialized":
            raise PipelineError(loop, "register budgets need mode 'warp_specialized'")
        return Options(stages, prefetch, mode, *regs)


def _index(v: int):
    return arith.constant(ir.IndexType.get(), v)


def _mark(op, what: str):
    op.operation.attributes[PROTOCOL] = ir.StringAttr.get(what)
    return op


def _then(cond):
    """An scf.if without results; returns its then-block's insertion point (before the yield)."""
    op = scf.IfOp(cond)
    with ir.InsertionPoint(op.then_block):
        yield_ = scf.YieldOp([])
    return ir.InsertionPoint(yield_)


def _parity(r, flip: bool):
    """Phase r's parity as i32 (flipped for producers, whose first wait passes on a fresh barrier)."""
    bit = arith.andi(r, _index(1))
    if flip:
        bit = arith.xori(bit, _index(1))
    return arith.index_cast(ir.IntegerType.get_signless(32), bit)


@contextmanager
def _role(first_warp: int, num_warps: int):
    """Build the body of an `nvasync.warp_role` over warps [first_warp, first_warp + num_warps)."""
    role = nvasync.WarpRoleOp(first_warp=first_warp, num_warps=num_warps)
    block = role.operation.regions[0].blocks.append()
    with ir.InsertionPoint(block):
        yield_ = gpu.YieldOp([])
    with ir.InsertionPoint(yield_):
        yield role


def _is_const(value, expected: int) -> bool:
    owner = value.owner
    if isinstance(value, ir.BlockArgument) or owner.name != "arith.constant":
        return False
    return ir.IntegerAttr(owner.attributes["value"]).value == expected


class _Pipeline:
    def __init__(self, func, loop):
        self.func, self.loop = func, loop
        self.options = Options.of(loop)
        view = loop.opview
        if not _is_const(view.lowerBound, 0) or not _is_const(view.step, 1):
            raise PipelineError(loop, "a pipelined loop must run from 0 with step 1")
        if len(view.initArgs):
            raise PipelineError(loop, "a pipelined loop cannot carry values (iter_args)")
        self.body = view.body
        self.iv = view.induction_variable
        self.loads = [op for op in self.body.operations if op.operation.name == "nvasync.pipeline_load"]
        if not self.loads:
            raise PipelineError(loop, "the loop has no nvasync.pipeline_load directly in its body")
        nested = []
        loop.walk(lambda op: nested.append(op) or ir.WalkResult.ADVANCE
                  if op.name.startswith("nvasync.mbarrier") or op.name == "nvasync.tma_load"
                  or (op.name == "nvasync.pipeline_load" and op.parent != loop) else ir.WalkResult.ADVANCE)
        if nested:
            raise PipelineError(nested[0], "a pipelined loop's loads are nvasync.pipeline_load ops directly in "
                                           "its body, with no mbarrier protocol of their own")

    # --- stage buffers ---------------------------------------------------------------------------
    def stage_buffers(self):
        """{buffer value: [its copy per stage]} for every smem buffer the body touches, and the
        offset just past the last stage (where the mbarriers go)."""
        touched = {}

        def visit(op):
            for value in op.operands:
                owner = value.owner
                if not isinstance(value, ir.BlockArgument) and owner.name == "nvasync.smem_buffer" \
                        and not self._inside_loop(owner):
                    touched[value] = owner
            return ir.WalkResult.ADVANCE

        for op in self.body.operations:
            op.operation.walk(visit)
        everything = []
        self.func.walk(lambda op: everything.append(op) or ir.WalkResult.ADVANCE
                       if op.name == "nvasync.smem_buffer" else ir.WalkResult.ADVANCE)
        span = lambda op: (op.attributes["offset"].value,   # noqa: E731
                           op.attributes["offset"].value + memref_bytes(op.results[0].type))
        lo = min(span(op)[0] for op in touched.values())
        hi = max(span(op)[1] for op in touched.values())
        staged_ops = {op.operation for op in touched.values()}
        for op in everything:
            start, end = span(op)
            if op not in staged_ops and start < hi and end > lo:
                raise PipelineError(op, f"smem buffer [{start}, {end}) overlaps the pipelined loop's buffers "
                                        f"[{lo}, {hi}) without being used by the loop")
        end = _round_up(max(span(op)[1] for op in everything), STAGE_ALIGN)
        stride = _round_up(hi - lo, STAGE_ALIGN)
        copies = {}
        for value, op in touched.items():
            with ir.InsertionPoint(op):
                copies[value] = [value] + [
                    nvasync.SmemBufferOp(value.type, offset=end + (s - 1) * stride + span(op)[0] - lo).buffer
                    for s in range(1, self.options.stages)]
        barriers_at = end + (self.options.stages - 1) * stride
        total = barriers_at + self.barrier_array_bytes() * self.barrier_arrays()
        if total > SMEM_LIMIT:
            raise PipelineError(self.loop, f"{self.options.stages} stages of {hi - lo} bytes need {total} bytes "
                                           f"of shared memory; a CTA may use {SMEM_LIMIT}")
        return copies, barriers_at

    def roles(self) -> dict:
        """Producer role name -> its loads, in order of first appearance."""
        roles: dict = {}
        for load in self.loads:
            roles.setdefault(ir.StringAttr(load.attributes["role"]).value, []).append(load)
        return roles

    def barrier_arrays(self) -> int:
        """`full` only (pipelined), or a full/empty pair per producer role (warp_specialized)."""
        return 1 if self.options.mode == "pipelined" else 2 * len(self.roles())

    def barrier_array_bytes(self) -> int:
        return _round_up(8 * self.options.stages, 16)      # smem buffers sit at 16-byte offsets

    def _inside_loop(self, op) -> bool:
        parent = op.parent
        while parent is not None and parent.name != "gpu.func":
            if parent == self.loop.operation:
                return True
            parent = parent.parent
        return False

    # --- the issuing thread ----------------------------------------------------------------------
    def issuer(self):
        """The kernel's issue predicate: the condition of an scf.if built on elect_one."""
        found = []
        self.func.walk(lambda op: found.append(op.operands[0]) or ir.WalkResult.ADVANCE
                       if op.name == "scf.if" and elect_op(op.operands[0]) is not None else ir.WalkResult.ADVANCE)
        predicates = {hash(v.owner): v for v in found}
        if len(predicates) > 1:
            raise PipelineError(self.loop, "the kernel computes several issue predicates; bulk groups and "
                                           "mbarrier arrivals are per thread, so compute one")
        if predicates:
            return next(iter(predicates.values()))
        entry = self.func.regions[0].blocks[0]
        with ir.InsertionPoint(entry.operations[0]):
            tid = gpu.thread_id(gpu.Dimension.x)
            first_warp = arith.cmpi(arith.CmpIPredicate.ult, tid, _index(32))
            return arith.andi(first_warp, nvasync.ElectOneOp(ir.IntegerType.get_signless(1)).elected)

    # --- the producer slice ------------------------------------------------------------------------
    def producer_slice(self):
        """Body ops (in order) the loads' operands are computed from; all side-effect free."""
        needed, stack = set(), [(v, load) for load in self.loads for v in load.operands]
        body_ops = {op.operation: k for k, op in enumerate(self.body.operations)}
        while stack:
            value, load = stack.pop()
            if isinstance(value, ir.BlockArgument):
                continue
            owner = value.owner
            if owner in body_ops and owner not in needed:
                if len(owner.regions) or not owner.name.startswith(("arith.", "index.", "gpu.")):
                    raise PipelineError(load, f"the load's coordinates depend on '{owner.name}'; they must be "
                                              "computed by side-effect-free arith ops from the loop index")
                needed.add(owner)
                stack.extend((v, load) for v in owner.operands)
        return sorted(needed, key=body_ops.__getitem__)

    def issue(self, iteration, stage: int, copies, full, slice_ops, loads):
        """At the current insertion point: the issuer's expect-tx and `loads` of `iteration` into `stage`."""
        tx = sum(memref_bytes(load.operation.opview.dst.type) for load in loads)
        _mark(nvasync.MbarrierArriveExpectTxOp(full, _index(stage), bytes=tx), "full: arrive.expect_tx")
        mapping = {self.iv: iteration}
        for op in slice_ops:
            clone = op.clone(ip=ir.InsertionPoint.current)
            _remap(clone, mapping)
            for old, new in zip(op.results, clone.results):
                mapping[old] = new
        for load in loads:
            view = load.operation.opview
            coords = [mapping.get(c, c) for c in view.coords]
            nvasync.TmaLoadOp(mapping.get(view.desc, view.desc), copies[view.dst][stage], full, _index(stage), coords)

    # --- the rewrite -------------------------------------------------------------------------------
    def rewrite(self):
        issuer = self.issuer()
        copies, barriers_at = self.stage_buffers()
        slices = self.producer_slice()
        with ir.InsertionPoint(self.loop), self.loop.location:
            arrays = [nvasync.SmemBufferOp(ir.MemRefType.get(
                [self.options.stages], ir.IntegerType.get_signless(64),
                memory_space=ir.Attribute.parse("#gpu.address_space<workgroup>")),
                offset=barriers_at + self.barrier_array_bytes() * k).buffer for k in range(self.barrier_arrays())]
            if self.options.mode == "pipelined":
                self.pipelined(issuer, copies, slices, arrays[0])
            else:
                self.warp_specialized(issuer, copies, slices, arrays)
            with _then(issuer):
                for k, array in enumerate(arrays):
                    name = "full" if k % 2 == 0 else "empty"
                    for s in range(self.options.stages):
                        _mark(nvasync.MbarrierInvalOp(array, _index(s)), f"{name}: inval")
        self.loop.erase()

    def pipelined(self, issuer, copies, slices, full):
        """One elected thread issues, every thread consumes (see the module docstring)."""
        S, P = self.options.stages, self.options.prefetch
        n = self.loop.opview.upperBound
        with _then(issuer):
            for s in range(S):
                _mark(nvasync.MbarrierInitOp(full, _index(s), count=1), "full: init (1 arrival: the issuer)")
        with _then(issuer):
            for k in range(P):
                with _then(arith.cmpi(arith.CmpIPredicate.ult, _index(k), n)):
                    self.issue(_index(k), k, copies, full, slices, self.loads)
        with self.rounds(n) as (r, stage_iterations):
            parity = _parity(r, flip=False)
            for s, i in stage_iterations:
                _mark(nvasync.MbarrierTryWaitParityOp(full, _index(s), parity), "full: wait")
                self.clone_body(i, s, copies)
                with _then(issuer):
                    ahead = arith.addi(i, _index(P))
                    with _then(arith.cmpi(arith.CmpIPredicate.ult, ahead, n)):
                        self.issue(ahead, (s + P) % S, copies, full, slices, self.loads)

    def warp_specialized(self, issuer, copies, slices, arrays):
        """Producer warps (one per role, its elected lane runs it) in a producer warpgroup after
        the consumer warps; each role has its own full/empty pair; consumers wait on the full
        barrier of every role and release each stage with one arrival per warp (a warp sync,
        then its elected lane)."""
        S, opts = self.options.stages, self.options
        n = self.loop.opview.upperBound
        roles = self.roles()
        if len(roles) > 4:
            raise PipelineError(self.loop, f"{len(roles)} producer roles; a producer warpgroup has 4 warps")
        consumers = self.block_threads()
        if consumers % 128:
            raise PipelineError(self.loop, f"warp specialization needs whole consumer warpgroups; the kernel has "
                                           f"{consumers} threads")
        if opts.producer_regs is not None:
            budget = 128 * opts.producer_regs + consumers * opts.consumer_regs
            if budget > 65536:
                raise PipelineError(self.loop, f"register budget {128} x {opts.producer_regs} + {consumers} x "
                                               f"{opts.consumer_regs} = {budget} exceeds the 65536 registers of an SM")
        self.func.attributes["gpu.known_block_size"] = ir.DenseI32ArrayAttr.get([consumers + 128, 1, 1])
        first_producer = consumers // 32
        pairs = {role: (arrays[2 * k], arrays[2 * k + 1]) for k, role in enumerate(roles)}
        with _then(issuer):
            for role, (full, empty) in pairs.items():
                for s in range(S):
                    _mark(nvasync.MbarrierInitOp(full, _index(s), count=1),
                          f"full[{role}]: init (1 arrival: the role's elected lane)")
                    _mark(nvasync.MbarrierInitOp(empty, _index(s), count=consumers // 32),
                          f"empty[{role}]: init ({consumers // 32} arrivals: one per consumer warp)")
        with _role(first_producer, 4):
            if opts.producer_regs is not None:
                nvasync.SetmaxnregOp(regs=opts.producer_regs, action="dec")
            warp = arith.divui(gpu.thread_id(gpu.Dimension.x), _index(32))
            for k, (role, (full, empty)) in enumerate(pairs.items()):
                # One thread runs the role: its elected lane waits for free stages and loads.
                in_warp = arith.cmpi(arith.CmpIPredicate.eq, warp, _index(first_producer + k))
                with _then(arith.andi(in_warp, nvasync.ElectOneOp(ir.IntegerType.get_signless(1)).elected)):
                    with self.rounds(n) as (r, stage_iterations):
                        parity = _parity(r, flip=True)      # the first S waits pass on fresh barriers
                        for s, i in stage_iterations:
                            _mark(nvasync.MbarrierTryWaitParityOp(empty, _index(s), parity), f"empty[{role}]: wait")
                            self.issue(i, s, copies, full, slices, roles[role])
        with _role(0, consumers // 32):
            if opts.consumer_regs is not None:
                nvasync.SetmaxnregOp(regs=opts.consumer_regs, action="inc")
            elected = nvasync.ElectOneOp(ir.IntegerType.get_signless(1)).elected
            with self.rounds(n) as (r, stage_iterations):
                parity = _parity(r, flip=False)
                for s, i in stage_iterations:
                    for role, (full, _) in pairs.items():
                        _mark(nvasync.MbarrierTryWaitParityOp(full, _index(s), parity), f"full[{role}]: wait")
                    self.clone_body(i, s, copies)
                    _mark(nvasync.WarpSyncOp(), "consumer warp: reads done before its release")
                    with _then(elected):
                        for role, (_, empty) in pairs.items():
                            _mark(nvasync.MbarrierArriveOp(empty, _index(s)), f"empty[{role}]: arrive (consumer warp)")

    def block_threads(self) -> int:
        dims = block_dims(self.func)
        if dims is None:
            raise PipelineError(self.func, "warp specialization needs the kernel's gpu.known_block_size")
        return dims[0]

    @contextmanager
    def rounds(self, n):
        """`for r in [0, ceil(n / S))`, its S stages unrolled, each under `r*S + s < n`: yields
        (r, iterator of (s, i)) with the insertion point inside stage s's guard while iterated."""
        S = self.options.stages
        loop = scf.ForOp(_index(0), arith.ceildivui(n, _index(S)), _index(1))
        with ir.InsertionPoint(loop.body):
            r = loop.induction_variable

            def stages():
                for s in range(S):
                    i = arith.addi(arith.muli(r, _index(S)), _index(s))
                    with _then(arith.cmpi(arith.CmpIPredicate.ult, i, n)):
                        yield s, i

            yield r, stages()
            scf.YieldOp([])

    def clone_body(self, i, stage: int, copies):
        mapping = {self.iv: i, **{buffer: per_stage[stage] for buffer, per_stage in copies.items()}}
        for op in self.body.operations:
            if op.operation.name in ("scf.yield", "nvasync.pipeline_load"):
                continue
            clone = op.clone(ip=ir.InsertionPoint.current)
            _remap(clone, mapping)
            for old, new in zip(op.results, clone.results):
                mapping[old] = new


def _remap(op, mapping) -> None:
    """Replace, in `op` and everything nested in it, operands found in `mapping`."""
    def visit(nested):
        for k, value in enumerate(nested.operands):
            if value in mapping:
                nested.operands[k] = mapping[value]
        return ir.WalkResult.ADVANCE

    op.operation.walk(visit)


def _round_up(x: int, m: int) -> int:
    return (x + m - 1) // m * m
