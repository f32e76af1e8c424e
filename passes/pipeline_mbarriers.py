"""fuser-pipeline-mbarriers: derive the mbarrier pipeline of every loop marked `nvasync.pipeline`.

Rule.  A pipelined loop `scf.for %i = 0 to %n step 1` with
`nvasync.pipeline = {stages = S, prefetch = P, mode, producer_regs, consumer_regs}` issues, in its
body, `nvasync.pipeline_load`s of one stage's worth (each of a producer `role`) and consumes them;
it may carry values (a wgmma accumulator) and may sit in scf.for loops (a persistent tile loop).
  * stage buffers: every smem buffer the body touches gets S copies (stage 0 is the scheduler's,
    stages 1..S-1 follow the last buffer, 1024-byte aligned, in the same relative layout), so a
    stage's loads, its consumers and its outputs never share memory with another stage's; a
    layout over the 227 KiB a CTA may use is an error.  A buffer the kernel also uses outside
    the loop (a tile written after one run of the loop and read in the next run's body) is one
    memory for every stage: not copied, so the uses outside see what the body wrote; its hazards
    are the sync passes'.  A load into such a buffer is an error (the stages would share it);
  * global iteration count: the loop's iterations are numbered across every execution of it by
    the thread, g = g0 + i, where g0 (how many it ran before) is 0 at the kernel's top level and
    otherwise carried through every enclosing loop as an extra iter_arg, advanced by n after the
    loop.  Iteration g uses stage g % S in its phase g / S: phases carry across tiles, never reset;
  * steady state: rounds r in [g0 / S, ceil((g0 + n) / S)), each unrolling the S stages so every
    buffer is static: stage s runs iteration i = r*S + s - g0 when 0 <= i < n.  Waiting for data
    is a wait on the stage's `full` barrier with parity r & 1, right before the first op of the
    body that touches memory the stage's loads write (work before it, an inner loop, overlaps the
    loads); a producer waiting for a free stage waits on `empty` with parity (r & 1) ^ 1 (the
    first round passes on fresh barriers);
  * expect-tx: one `arrive.expect_tx` per producer role, stage and phase, announcing the bytes of
    every box the role loads into the stage (whole boxes: out-of-bounds elements are zero-filled
    and count); `full` barriers are initialised with count 1 (that arrival);
  * `pipelined` (one elected issuer, every thread consumes): one `full` array; before the loop
    the issuer loads iterations 0..P-1 (those < n), each into its stage (g0 + k) % S; stage s of
    the steady state then refills stage (s + P) % S with iteration i + P when i + P < n.  Every
    load issued is consumed, so nothing is in flight at loop exit.  Decision: the issuer is also
    a consumer, so a stage's reads before its refill are an ordinary shared-memory WAR hazard
    that fuser-insert-syncs covers with one barrier; an `empty` mbarrier would add a wait.  The
    refill in step i is of the stage step i + P - S read: when P < S (the matmul's P = S - 1: the
    step before's) the barrier after wgmma reads lets step i's group stay in flight
    (`wgmma.wait_group 1`, fuser-insert-syncs); when P = S (the default) it waits for it;
  * `warp_specialized`: a producer warpgroup after the consumer warps (the block grows by 128
    threads); each role has its own full/empty pair and one warp, whose elected lane runs the
    role's loads in a copy of the loop nest that keeps only what the loads and trip counts need
    (pure ops; anything else is an error).  Consumer warps run the loop nest and the rest of the
    kernel; they wait on the `full` barrier of every role, run the body, then release the stage
    with one arrival per warp on every role's `empty` barrier (`empty` initialised with the
    number of consumer warps): a warp sync orders the warp's reads, then its elected lane
    arrives.  setmaxnreg moves registers from the producers (dec) to the consumers (inc), the
    budget checked against what the launch holds (the SM's 65536 over the block's threads, in
    multiples of 8 each: 168 x 384 = 64512): an inc takes only registers a dec gave back, and
    waits for them (a hang on the H100 with 96 x 128 + 208 x 256 = 65536).  A consumer's release
    after asynchronous reads (wgmma) is ordered by fuser-flush-wgmma, which sees the arrival as a
    release.  Decision: a stage is
    released in its own iteration, after its wgmma group retires (`wait_group 0`), not one
    iteration later behind `wait_group 1` (CUTLASS's way, which keeps a group in flight across
    steps): on the H100 (plain GEMM 4096^3, 8192^3, 4096 x 10240 x 8192, Nsight Compute) the
    late release ran 0.5-1 % faster with clocks locked and the same at boost clocks (4096^3:
    179.6-180.8 us against 178.6-180.5), the other consumer warpgroup's wgmma filling the wait.
    Nor for skinny kernels, whose one consumer warpgroup has no other to fill it: a racy PTX
    edit (`wait_group 1` before each release, so the last group still runs; H200, the heuristic's
    kernels of the 12 skinny rows, cold, fastest of 5, two alternating runs) bounds what a late
    release could give at 0.3-0.5 us (128 x 2112 x 7168 17.6 -> 17.2, 16 x 2112 x 7168 15.2 ->
    14.9), the other rows within +-0.6 us either way; on a 3-stage ring the race corrupted results;
  * multicast (warp_specialized, `cluster = C` CTAs per cluster, the kernel's nvvm.cluster_dim,
    and `multicast = "role,..."`): the named roles' tiles are shared by the cluster's CTAs, which
    run the same loop nest in lockstep.  Their loads become `tma_load_multicast` (each CTA loads
    its 1/C slice into every CTA, so each CTA's `full` still receives the whole tile's bytes and
    its own expect-tx announces them); a stage of such a role is free only when the consumers of
    every CTA have released it, so its `empty` counts C x the consumer warps and each consumer
    warp's release also arrives, remotely, on the `empty` of each other CTA (rank + d) % C.
    Decision: every CTA's producer waits on its own `empty` (CUTLASS's scheme), not one leader
    for the cluster: no CTA's loads wait on another's producer.  The cluster barriers that make
    the inits visible to the peers and keep a CTA alive while peers still reach its barriers are
    fuser-insert-syncs' (remote mbarrier uses);
  * a pipelined loop around another (a persistent tile loop whose body loads a tile's epilogue
    operands once, around the K loop that streams A and B) runs mode `pipelined` with one stage:
    its loads, issued by the kernel's issuer, refill the single stage with iteration i + 1 at the
    end of iteration i, and one stage copies no buffer (S copies would duplicate the inner loop's
    ring).  Its consumers wait after the inner loop, where they first touch the data.  Loops are
    rewritten outermost first; when the inner one is warp-specialized, the outer protocol moves
    into the consumer role with the rest of the loop nest;
  * `trailing` (one stage, a loop from 0 with step 1 at the kernel's top level directly around a
    warp-specialized loop): its loads, one role of their own, are issued by the inner loop's first
    producer in its copy of the nest, right after it issued iteration t's inner loads -- the stages
    ahead of the consumers -- so they land as the consumers finish the inner loop, not while it
    starts.  A full/empty pair of single mbarriers, phase t: the producer waits on `empty` (parity
    (t & 1) ^ 1), then arrive.expect_tx and the loads on `full`; every consumer thread waits on
    `full` (parity t & 1) right before the body's first access of the loaded buffers and arrives on
    `empty` at the end of the body (so no warp sync is needed; the sync passes order the accesses
    before it, e.g. a TMA store's `wait_group.read`).  Not one arrival a warp: with the matmul's
    store warp, each consumer warp's release joining its handover's elected lane (and the store
    warp's one lane, not 32) ran within 0.2 % of this (H200, Nsight Compute, two alternating rounds:
    residual add and silu(y) * gate at 4096^3 and 8192 x 10240 x 8192).  Decision: measured against
    `pipelined` (the issuer loading iteration t + 1's tile as iteration t ends, while the next inner
    loop starts; H100, the matmul scheduler's full epilogue operands, Nsight Compute, two rounds
    each): 1.8-2.4 % faster at 4096^3 and 0.2-0.6 % at 8192 x 10240 x 8192.  Nor earlier: issued
    before the last 2 or 6 iterations' inner loads (a probe, same method, another machine): the same
    or slower on every row, up to 1.5 % (8192 x 10240 x 8192: 0.4-0.9 %).  Nor spread: each load
    (the residual's four 16 KB boxes) on a full/empty word of its own, issued at evenly spaced inner
    iterations over the loop's whole, last half or last quarter (a probe, not committed; H200,
    Nsight Compute, three launches): residual add at 4096^3 188.0-192.7 us against 189.0-190.5, at
    8192 x 10240 x 8192 1827.7-1840.2 against 1791.5-1805.1 -- the loads' timing is not what they
    cost.  An offload whose body uses the loaded buffers (a TMA store of them) hands them back too:
    its threads also arrive on the trailing `empty` after the body (the count grows by them), so the
    next loads wait for its store as well;
  * offload (warp_specialized, an `nvasync.offload {warps = W}` directly in the body of the one
    loop around the pipelined loop, a tile loop at the kernel's top level from 0 with step 1):
    its body runs on W idle warps of the producer warpgroup (after the roles' warps), in a copy
    of the tile loop keeping the pure ops the body uses, its block argument the thread's index in
    those warps; what the body computes from that index alone (its issue predicate) is computed
    once before the loop.  Per tile t the smem the body uses is handed over through a full/empty
    pair of single mbarriers, phase t: where the offload op stood, each consumer warp arrives on
    `full` (a warp sync, then one lane), and every consumer thread waits on `empty` (parity
    (t & 1) ^ 1) before its first access of that smem in the tile (past the trailing loads, which
    are the producer's); every offload thread waits on `full` (parity t & 1) before the body and
    arrives on `empty` after it.  The sync passes order the rest by the handoffs (a TMA store's
    `wait_group.read` before its thread's `empty` arrival, every writer's proxy fence before its
    warp's sync).  Decision: one arrival a consumer warp, not one a thread -- the matmul's store
    warp (matmul_kernel.py) ran residual add 1.4 % / 0.9 % faster than its kernel without one at
    4096^3 / 8192 x 10240 x 8192 this way, 0.9 % / 0.4 % with 256 arrivals (H200, Nsight Compute,
    three launches, one run each);
  * the issuer initialises the barriers before the loop nest and invalidates them after it
    (after the roles in warp_specialized mode).
The loads' coordinates may be computed in the body from %i (and outside it from enclosing loop
indices) by side-effect-free arith/index/gpu ops: that slice is re-evaluated for the iteration
loaded.  The kernel's issue predicate (the elect_one-based guard of its other TMA ops, computed
in the kernel's entry block) is reused, since bulk groups and mbarrier arrivals are per thread;
without one, `tid < 32 && elect_one` is created at the kernel's entry.

Contract
  in:  gpu.func kernels; pipelined loops as above (constant lower bound 0, step 1,
       pipeline_loads directly in the body, whose coordinates do not depend on carried values),
       nested only in scf.for loops (and a one-stage `pipelined` or `trailing` loop around them),
       no mbarrier ops of their own; nvasync.offload ops only as above; in warp_specialized mode
       one such loop per kernel and a `gpu.known_block_size` of whole consumer warpgroups; with
       multicast roles, trip counts equal in every CTA of the cluster (fuser-verify-pipelines
       checks they come from cluster-uniform values) and descriptors whose box is 1/C of the
       role's smem tiles (dim 0).
  out: the loops rewritten with tma_load / mbarrier ops; every op this pass creates for the
       protocol carries `fuser.pipeline = "<its role>"`; no barrier, fence or bulk wait; no
       pipeline_load left (one outside a pipelined loop is an error).
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, gpu, scf

from ..dialects import nvasync
from .smem_model import block_dims, cluster_size, elect_op, kernels, memref_bytes
from .unroll_loops import clone_with

PIPELINE_ATTR = "nvasync.pipeline"
OFFLOAD = "nvasync.offload"
PROTOCOL = "fuser.pipeline"            # marks the protocol ops this pass creates
SMEM_LIMIT = 227 * 1024                # bytes of shared memory one CTA may use (H100 opt-in)
STAGE_ALIGN = 1024                     # 128-byte-swizzled TMA boxes need 1024-byte alignment
MODES = ("pipelined", "warp_specialized", "trailing")


class PipelineError(Exception):
    def __init__(self, op, message):
        super().__init__(message)
        self.op = op


def run(module_op, pass_) -> None:
    failed = False
    for func in kernels(module_op):
        # Outermost first: rewriting a loop replaces (clones) the loops nested in it, so the next
        # one is looked up again.
        while (loop := _first_pipelined_loop(func)) is not None:
            try:
                _Pipeline(func, loop).rewrite()
            except PipelineError as exc:
                exc.op.location.emit_error(f"fuser-pipeline-mbarriers: {exc}")
                failed = True
                del loop.attributes[PIPELINE_ATTR]      # reported: go on with the others
                if exc.op.operation != loop and _pipelined(exc.op.operation):     # a trailing loop around it
                    del exc.op.operation.attributes[PIPELINE_ATTR]
        for loop in _trailing_loops(func):             # not taken over by a warp-specialized loop
            loop.location.emit_error("fuser-pipeline-mbarriers: a 'trailing' pipelined loop's loads are issued by "
                                     "the producer of a warp-specialized loop directly in its body; it has none")
            failed = True
        if not failed:      # every pipelined loop rewritten: a load left over is in none
            for load in _ops_named(func, "nvasync.pipeline_load"):
                load.location.emit_error("fuser-pipeline-mbarriers: an nvasync.pipeline_load outside any loop marked "
                                         f"{PIPELINE_ATTR}: no pipeline derives its barriers")
                failed = True
    if failed:
        pass_.signal_pass_failure()


def _ops_named(root, name: str) -> list:
    found = []
    root.walk(lambda op: found.append(op) or ir.WalkResult.ADVANCE if op.name == name else ir.WalkResult.ADVANCE)
    return found


def _first_pipelined_loop(root):
    """The outermost-first pipelined loop inside `root` (not `root` itself), or None; a
    `trailing` loop is rewritten with the warp-specialized loop in it, so the search goes inside."""
    found = []

    def visit(op):
        if op != root and _pipelined(op) and not _trailing(op):
            found.append(op)
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    root.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found[0] if found else None


def _pipelined(op) -> bool:
    return op.name == "scf.for" and PIPELINE_ATTR in op.attributes


def _trailing(op) -> bool:
    if not _pipelined(op):
        return False
    try:
        return ir.StringAttr(ir.DictAttr(op.attributes[PIPELINE_ATTR])["mode"]).value == "trailing"
    except (KeyError, ValueError):      # no mode, or malformed: Options.of reports it
        return False


def _trailing_loops(root) -> list:
    found = []
    root.walk(lambda op: found.append(op) or ir.WalkResult.ADVANCE if _trailing(op) else ir.WalkResult.ADVANCE)
    return found


@dataclass(frozen=True)
class Options:
    stages: int
    prefetch: int
    mode: str
    producer_regs: int | None = None     # setmaxnreg budgets (warp_specialized; both or neither)
    consumer_regs: int | None = None
    cluster: int = 1                     # CTAs per cluster sharing the multicast roles' tiles
    multicast: tuple = ()                # roles whose loads are multicast over the cluster

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
        unknown = set(fields) - {"stages", "prefetch", "mode", "producer_regs", "consumer_regs", "cluster", "multicast"}
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
        cluster = fields.get("cluster", 1)
        multicast = fields.get("multicast", "")
        if not isinstance(cluster, int) or not 1 <= cluster <= 16 or not isinstance(multicast, str):
            raise PipelineError(loop, f"cluster must be an integer in [1, 16] and multicast a string of role names, "
                                      f"got {cluster!r} and {multicast!r}")
        roles = tuple(r for r in multicast.split(",") if r)
        if bool(roles) != (cluster > 1):
            raise PipelineError(loop, "multicast roles need cluster > 1, and a cluster needs multicast roles")
        if roles and mode != "warp_specialized":
            raise PipelineError(loop, "multicast needs mode 'warp_specialized' (its stages are released through "
                                      "empty barriers)")
        return Options(stages, prefetch, mode, *regs, cluster, roles)


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
        self.body = view.body
        self.iv = view.induction_variable
        self.n = view.upperBound
        self.loads = [op for op in self.body.operations if op.operation.name == "nvasync.pipeline_load"]
        if not self.loads:
            raise PipelineError(loop, "the loop has no nvasync.pipeline_load directly in its body")
        nested = []
        loop.walk(lambda op: nested.append(op) or ir.WalkResult.ADVANCE
                  if op.name.startswith("nvasync.mbarrier") or op.name == "nvasync.tma_load"
                  or (op.name == "nvasync.pipeline_load" and op.parent != loop and not _pipelined(op.parent))
                  else ir.WalkResult.ADVANCE)
        if nested:
            raise PipelineError(nested[0], "a pipelined loop's loads are nvasync.pipeline_load ops directly in "
                                           "its body (or in a pipelined loop nested in it), with no mbarrier "
                                           "protocol of their own")
        if _first_pipelined_loop(loop) is not None and (self.options.mode != "pipelined" or self.options.stages != 1):
            raise PipelineError(loop, "a pipelined loop around another runs mode 'pipelined' or 'trailing' with "
                                      "stages = 1 (loads once per iteration, e.g. per output tile, while the "
                                      "inner loop streams)")
        self.nest = self.enclosing_loops()
        self.offloads = self.find_offloads() if self.options.mode == "warp_specialized" else []
        self.trailing_loads = self.find_trailing_loads()
        self.trailing_roles = [ir.StringAttr(load.attributes["role"]).value for load in self.trailing_loads[:1]]

    def enclosing_loops(self) -> list:
        """The scf.for loops around the pipelined loop, innermost first."""
        loops, parent = [], self.loop.parent
        while parent.name != "gpu.func":
            if parent.name != "scf.for":
                raise PipelineError(self.loop, f"a pipelined loop may be nested in scf.for loops only, not in "
                                               f"'{parent.name}': its phases are counted per run of the loop")
            loops.append(parent)
            parent = parent.parent
        return loops

    def find_offloads(self) -> list:
        """The kernel's nvasync.offload ops: each directly in the body of the one loop around the
        pipelined loop (a persistent tile loop at the kernel's top level, from 0 with step 1, whose
        iteration numbers the handoffs' phases)."""
        found = []
        self.func.walk(lambda op: found.append(op) or ir.WalkResult.ADVANCE
                       if op.name == OFFLOAD else ir.WalkResult.ADVANCE)
        tile = self.nest[0] if len(self.nest) == 1 else None
        for op in found:
            if tile is None or op.parent != tile or not _is_const(tile.opview.lowerBound, 0) \
                    or not _is_const(tile.opview.step, 1):
                raise PipelineError(op, "an nvasync.offload runs in the body of the one loop (from 0, step 1) "
                                        "around the warp-specialized loop, at the kernel's top level")
        return found

    def find_trailing_loads(self) -> list:
        """The loads of a `trailing` loop directly around this one (issued by this loop's first
        producer once it has issued an iteration's loads of this loop), or []."""
        if not self.nest or not _trailing(self.nest[0]):
            return []
        tile = self.nest[0]
        options = Options.of(tile)
        if self.options.mode != "warp_specialized" or options.stages != 1:
            raise PipelineError(tile, "a 'trailing' pipelined loop has stages = 1 and directly holds a "
                                      "warp_specialized loop, whose first producer issues its loads")
        if len(self.nest) > 1:
            raise PipelineError(tile, "a 'trailing' loop runs at the kernel's top level: its iterations number "
                                      "the phases of its handoff")
        if not _is_const(tile.opview.lowerBound, 0) or not _is_const(tile.opview.step, 1):
            raise PipelineError(tile, "a pipelined loop must run from 0 with step 1")
        loads = [op for op in tile.opview.body.operations if op.operation.name == "nvasync.pipeline_load"]
        roles = {ir.StringAttr(load.attributes["role"]).value for load in loads}
        if len(roles) != 1 or roles & set(self.roles()):
            raise PipelineError(tile, "a 'trailing' loop's loads are one role of their own, not the inner loop's; "
                                      f"got {', '.join(sorted(roles)) or 'none'}")
        return loads

    # --- stage buffers ---------------------------------------------------------------------------
    def stage_buffers(self):
        """{buffer value: [its copy per stage]} for every smem buffer the body touches, and the
        offset just past the last stage (where the mbarriers go)."""
        touched, views = {}, []

        def visit(op):
            for value in op.operands:
                owner = value.owner
                if isinstance(value, ir.BlockArgument) or _inside(owner, self.loop):
                    continue
                if owner.name == "nvasync.smem_buffer":
                    touched[value] = owner
                elif _is_smem(value.type):
                    views.append(owner)
            return ir.WalkResult.ADVANCE

        for op in self.body.operations:
            op.operation.walk(visit)
        if views:       # a view made outside the loop would be the same memory in every stage
            raise PipelineError(views[0], f"'{views[0].name}' makes a view of shared memory outside the "
                                          "pipelined loop that the loop uses; make it inside the loop, so each "
                                          "stage gets its own")
        # A buffer the kernel also uses outside the loop is one memory for every stage: copies
        # would hide what the body wrote from the uses outside (stage 0's copy is the only one they see).
        for value in [v for v in touched if _used_outside(v, self.loop)]:
            if any(load.operands[1] == value for load in self.loads):
                raise PipelineError(touched[value], "a pipelined loop's load writes an smem buffer the kernel "
                                                    "also uses outside the loop; each stage needs its own")
            del touched[value]
        unstaged = next((load for load in self.loads if load.operands[1] not in touched), None)
        if unstaged is not None:        # e.g. a buffer made in the body: one memory, remade each iteration
            raise PipelineError(unstaged, "a pipelined loop's load writes an smem buffer that is not an "
                                          "nvasync.smem_buffer made before the loop; each stage needs its own copy")
        everything = []
        self.func.walk(lambda op: everything.append(op) or ir.WalkResult.ADVANCE
                       if op.name == "nvasync.smem_buffer" else ir.WalkResult.ADVANCE)
        lo = min(_byte_range(op)[0] for op in touched.values())
        hi = max(_byte_range(op)[1] for op in touched.values())
        staged_ops = {op.operation for op in touched.values()}
        for op in everything:
            start, end = _byte_range(op)
            if op not in staged_ops and start < hi and end > lo:
                raise PipelineError(op, f"smem buffer [{start}, {end}) overlaps the pipelined loop's buffers "
                                        f"[{lo}, {hi}) without being used by the loop")
        end = _round_up(max(_byte_range(op)[1] for op in everything), STAGE_ALIGN)
        stride = _round_up(hi - lo, STAGE_ALIGN)
        copies = {}
        for value, op in touched.items():
            with ir.InsertionPoint(op):
                copies[value] = [value] + [
                    nvasync.SmemBufferOp(value.type, offset=end + (s - 1) * stride + _byte_range(op)[0] - lo).buffer
                    for s in range(1, self.options.stages)]
        barriers_at = end + (self.options.stages - 1) * stride
        total = barriers_at + sum(self.barrier_array_bytes())
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

    def barrier_layout(self) -> list[tuple[str, int]]:
        """(name, words used) of each mbarrier array, in shared-memory order: `full` (pipelined), or
        a full/empty pair per producer role (a word per stage), per offload and for a trailing
        loop's role (one word each: its handoff) (warp_specialized)."""
        S = self.options.stages
        if self.options.mode == "pipelined":
            return [("full", S)]
        owners = [(role, S) for role in self.roles()] + [(name, 1) for name in [*self.offload_names(),
                                                                                 *self.trailing_roles]]
        return [(f"{kind}[{owner}]", words) for owner, words in owners for kind in ("full", "empty")]

    def barrier_array_bytes(self) -> list[int]:
        """Each mbarrier array's bytes, in barrier_layout's order (smem buffers sit at 16-byte offsets)."""
        return [_round_up(8 * words, 16) for _, words in self.barrier_layout()]

    # --- the issuing thread ----------------------------------------------------------------------
    def issuer(self):
        """The kernel's issue predicate: the condition of an scf.if built on elect_one."""
        found = []

        def visit(op):
            if op.name == OFFLOAD:          # an offload's own issuer: its warps' business
                return ir.WalkResult.SKIP
            if op.name == "scf.if" and elect_op(op.operands[0]) is not None:
                found.append(op.operands[0])
            return ir.WalkResult.ADVANCE

        self.func.walk(visit, ir.WalkOrder.PRE_ORDER)
        predicates = {v.owner: v for v in found}
        if len(predicates) > 1:
            raise PipelineError(self.loop, "the kernel computes several issue predicates; bulk groups and "
                                           "mbarrier arrivals are per thread, so compute one")
        entry = self.func.regions[0].blocks[0]
        if predicates:
            predicate = next(iter(predicates.values()))
            if predicate.owner.parent != self.func:
                raise PipelineError(predicate.owner, "compute the kernel's issue predicate in its entry block: the "
                                                     "issuer initialises the pipeline's barriers before the loops")
            return predicate
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
                if value.owner == self.body and value != self.iv:
                    raise PipelineError(load, "the load's coordinates depend on a value the loop carries; "
                                              "producers run ahead of the consumers that compute it")
                continue
            owner = value.owner
            if owner in body_ops and owner not in needed:
                _require_pure(owner, load)
                needed.add(owner)
                stack.extend((v, load) for v in owner.operands)
        return sorted(needed, key=body_ops.__getitem__)

    def issue(self, iteration, stage: int, copies, full, slice_ops, loads, outer=None, name="full"):
        """At the current insertion point: one role's expect-tx and `loads` of `iteration` into
        `stage`; `outer` maps values of the loop nest to the producer's copies of them."""
        tx = sum(memref_bytes(load.operation.opview.dst.type) for load in loads)
        _mark(nvasync.MbarrierArriveExpectTxOp(full, _index(stage), bytes=tx), f"{name}: arrive.expect_tx")
        mapping = {**(outer or {}), self.iv: iteration}
        for op in slice_ops:
            clone_with(op, mapping)
        for load in loads:
            view = load.operation.opview
            coords = [mapping.get(c, c) for c in view.coords]
            operands = (mapping.get(view.desc, view.desc), copies[view.dst][stage], full, _index(stage), coords)
            if view.role in self.options.multicast:
                nvasync.TmaLoadMulticastOp(*operands, ctas=self.options.cluster)
            else:
                nvasync.TmaLoadOp(*operands)

    # --- the global iteration count ------------------------------------------------------------------
    def thread_counter(self):
        """g0, the iterations of this loop the thread ran before (None: 0, at the kernel's top
        level): an extra iter_arg of every enclosing loop, advanced by n after the loop."""
        child = placeholder = g0 = None
        for level, enclosing in enumerate(self.nest):
            with ir.InsertionPoint(enclosing), enclosing.location:
                init = _index(0)            # the parent's counter replaces it; the outermost keeps 0
            rebuilt = _with_iter_arg(enclosing, init)
            before = rebuilt.inner_iter_args[-1]
            if child is None:
                g0 = before
                with ir.InsertionPoint(self.loop), self.loop.location:
                    after = arith.addi(before, self.n)
            else:
                placeholder.replace_all_uses_with(before)
                placeholder.owner.erase()
                after = child.results[-1]
            _append_yield(rebuilt, after)
            self.nest[level] = rebuilt.operation
            child, placeholder = rebuilt, init
        return g0

    # --- the rewrite -------------------------------------------------------------------------------
    def rewrite(self):
        issuer = self.issuer()
        copies, barriers_at = self.stage_buffers()
        slices = self.producer_slice()
        g0 = self.thread_counter()
        unit = self.nest[-1] if self.nest else self.loop.operation
        offsets = [barriers_at + sum(self.barrier_array_bytes()[:k]) for k in range(len(self.barrier_layout()))]
        with ir.InsertionPoint(unit), self.loop.location:
            arrays = [nvasync.SmemBufferOp(ir.MemRefType.get(
                [words], ir.IntegerType.get_signless(64),
                memory_space=ir.Attribute.parse("#gpu.address_space<workgroup>")),
                offset=offset).buffer for (_, words), offset in zip(self.barrier_layout(), offsets)]
        if self.options.mode == "pipelined":
            last = self.pipelined(issuer, copies, slices, arrays[0], g0, unit)
        else:
            last = self.warp_specialized(issuer, copies, slices, arrays, g0, unit)
        with ir.InsertionPoint.after(last), self.loop.location, _then(issuer):
            for (name, words), array in zip(self.barrier_layout(), arrays):
                for s in range(words):
                    _mark(nvasync.MbarrierInvalOp(array, _index(s)), f"{name}: inval")
        self.loop.erase()

    def offload_names(self) -> list[str]:
        return [f"offload{k}" for k in range(len(self.offloads))]

    def init_barriers(self, issuer, unit, counts: dict):
        """Before the loop nest, the issuer initialises (name, array) -> (count, what arrives)."""
        words = dict(self.barrier_layout())
        with ir.InsertionPoint(unit), self.loop.location, _then(issuer):
            for (name, array), (count, who) in counts.items():
                for s in range(words[name]):
                    _mark(nvasync.MbarrierInitOp(array, _index(s), count=count), f"{name}: init ({who})")

    def pipelined(self, issuer, copies, slices, full, g0, unit):
        """One elected thread issues, every thread consumes (see the module docstring)."""
        S, P, n = self.options.stages, self.options.prefetch, self.n
        self.init_barriers(issuer, unit, {("full", full): (1, "1 arrival: the issuer")})
        with ir.InsertionPoint(self.loop), self.loop.location:
            with _then(issuer):
                for s in range(S):
                    # the prologue iteration k that lands in stage s: (g0 + k) % S == s
                    if g0 is None:
                        if s >= P:
                            continue
                        k, wanted = _index(s), arith.cmpi(arith.CmpIPredicate.ult, _index(s), n)
                    else:
                        k = arith.remui(arith.subi(_index(s + S), arith.remui(g0, _index(S))), _index(S))
                        wanted = arith.andi(arith.cmpi(arith.CmpIPredicate.ult, k, _index(P)),
                                            arith.cmpi(arith.CmpIPredicate.ult, k, n))
                    with _then(wanted):
                        self.issue(k, s, copies, full, slices, self.loads)

            def stage(r, s, i, values):
                out = self.clone_body(i, s, copies, values, lambda: _mark(nvasync.MbarrierTryWaitParityOp(
                    full, _index(s), _parity(r, flip=False)), "full: wait"))
                with _then(issuer):
                    ahead = arith.addi(i, _index(P))
                    with _then(arith.cmpi(arith.CmpIPredicate.ult, ahead, n)):
                        self.issue(ahead, (s + P) % S, copies, full, slices, self.loads)
                return out

            self.replace_loop(self.rounds(g0, list(self.loop.opview.initArgs), stage))
        return unit

    def warp_specialized(self, issuer, copies, slices, arrays, g0, unit):
        """Producer warps (one per role, its elected lane runs it) in a producer warpgroup after
        the consumer warps; each role has its own full/empty pair; consumers wait on the full
        barrier of every role and release each stage with one arrival per warp (a warp sync,
        then its elected lane)."""
        S, opts = self.options.stages, self.options
        roles = self.roles()
        offload_warps = [ir.IntegerAttr(op.attributes["warps"]).value for op in self.offloads]
        if len(roles) + sum(offload_warps) > 4:
            raise PipelineError(self.loop, f"{len(roles)} producer roles and {sum(offload_warps)} offload warps; a "
                                           "producer warpgroup has 4 warps")
        consumers = self.block_threads()
        if consumers % 128:
            raise PipelineError(self.loop, f"warp specialization needs whole consumer warpgroups; the kernel has "
                                           f"{consumers} threads")
        if opts.producer_regs is not None:
            # setmaxnreg.inc takes only registers a dec in the CTA gave back: the budget is what
            # the launch allocated, the SM's 65536 over the threads in multiples of 8 (at most 255
            # a thread, so 248).
            threads = consumers + 128
            launched = threads * min(65536 // threads // 8 * 8, 248)
            budget = 128 * opts.producer_regs + consumers * opts.consumer_regs
            if budget > launched:
                raise PipelineError(self.loop, f"register budget {128} x {opts.producer_regs} + {consumers} x "
                                               f"{opts.consumer_regs} = {budget} exceeds the {launched} registers "
                                               f"a launch of {threads} threads holds ({launched // threads} each): "
                                               "setmaxnreg.inc would wait forever")
        self.func.attributes["gpu.known_block_size"] = ir.DenseI32ArrayAttr.get([consumers + 128, 1, 1])
        first_producer = consumers // 32
        pairs = {role: (arrays[2 * k], arrays[2 * k + 1]) for k, role in enumerate(roles)}
        multicast = self.multicast_roles(roles)
        counts = {}
        for role, (full, empty) in pairs.items():
            counts[(f"full[{role}]", full)] = (1, "1 arrival: the role's elected lane")
            ctas = opts.cluster if role in multicast else 1
            who = f"one per consumer warp of each of the cluster's {ctas} CTAs" if ctas > 1 else "one per consumer warp"
            counts[(f"empty[{role}]", empty)] = (ctas * consumers // 32, f"{ctas * consumers // 32} arrivals: {who}")
        handoffs = [(arrays[2 * (len(roles) + k)], arrays[2 * (len(roles) + k) + 1]) for k in range(len(self.offloads))]
        for name, warps, (full, empty) in zip(self.offload_names(), offload_warps, handoffs):
            counts[(f"full[{name}]", full)] = (consumers // 32, f"{consumers // 32} arrivals: one per consumer warp")
            counts[(f"empty[{name}]", empty)] = (32 * warps, f"{32 * warps} arrivals: every thread of the offload")
        trailing, returns = None, [None] * len(self.offloads)
        if self.trailing_roles:
            name, k = self.trailing_roles[0], 2 * (len(roles) + len(self.offloads))
            trailing = (name, arrays[k], arrays[k + 1])
            counts[(f"full[{name}]", arrays[k])] = (1, f"1 arrival: role {next(iter(roles))}'s elected lane")
            # An offload that uses the trailing buffers (a TMA store of them) hands them back too.
            loaded = [_byte_range(load.operation.opview.dst.owner) for load in self.trailing_loads]
            returns = [(name, arrays[k + 1]) if _touches(op, loaded) else None for op in self.offloads]
            also = sum(32 * warps for warps, back in zip(offload_warps, returns) if back)
            who = f"every consumer thread{' and every thread of the offload' if also else ''}"
            counts[(f"empty[{name}]", arrays[k + 1])] = (consumers + also, f"{consumers + also} arrivals: {who}")
        self.init_barriers(issuer, unit, counts)
        keep = self.producer_needs(unit)
        with ir.InsertionPoint(unit), self.loop.location:
            with _role(first_producer, 4):
                if opts.producer_regs is not None:
                    nvasync.SetmaxnregOp(regs=opts.producer_regs, action="dec")
                warp = arith.divui(gpu.thread_id(gpu.Dimension.x), _index(32))
                for k, (role, (full, empty)) in enumerate(pairs.items()):
                    # One thread runs the role: its elected lane waits for free stages and loads.
                    in_warp = arith.cmpi(arith.CmpIPredicate.eq, warp, _index(first_producer + k))
                    with _then(arith.andi(in_warp, nvasync.ElectOneOp(ir.IntegerType.get_signless(1)).elected)):
                        self.producer_nest(len(self.nest) - 1, {}, keep, g0, full, empty, copies, slices,
                                           roles[role], role, trailing if k == 0 else None)
                first = first_producer + len(roles)
                for op, name, warps, handoff, back in zip(self.offloads, self.offload_names(), offload_warps, handoffs,
                                                          returns):
                    in_warps = arith.andi(arith.cmpi(arith.CmpIPredicate.uge, warp, _index(first)),
                                          arith.cmpi(arith.CmpIPredicate.ult, warp, _index(first + warps)))
                    with _then(in_warps):
                        self.offload_nest(op, name, handoff, 32 * first, back)
                    first += warps
            consumer_role = nvasync.WarpRoleOp(first_warp=0, num_warps=consumers // 32)
            block = consumer_role.operation.regions[0].blocks.append()
            with ir.InsertionPoint(block):
                if opts.consumer_regs is not None:
                    nvasync.SetmaxnregOp(regs=opts.consumer_regs, action="inc")
                elected = nvasync.ElectOneOp(ir.IntegerType.get_signless(1)).elected
                i32 = ir.IntegerType.get_signless(32)
                rank = nvasync.ClusterRankOp(i32).rank if multicast else None
                peers = [arith.remui(arith.addi(rank, arith.constant(i32, d)), arith.constant(i32, opts.cluster))
                         for d in range(1, opts.cluster)] if multicast else []
        # The consumers run the loop nest and the rest of the kernel.
        kernel_block = self.func.regions[0].blocks[0]
        rest = list(kernel_block.operations)
        rest = rest[[op.operation for op in rest].index(unit):-1]
        for op in rest:
            block.append(op.operation)
        with ir.InsertionPoint(block):
            gpu.YieldOp([])

        def stage(r, s, i, values):
            def wait():
                for role, (full, _) in pairs.items():
                    _mark(nvasync.MbarrierTryWaitParityOp(full, _index(s), _parity(r, flip=False)),
                          f"full[{role}]: wait")
            out = self.clone_body(i, s, copies, values, wait)
            _mark(nvasync.WarpSyncOp(), "consumer warp: reads done before its release")
            with _then(elected):
                for role, (_, empty) in pairs.items():
                    _mark(nvasync.MbarrierArriveOp(empty, _index(s)), f"empty[{role}]: arrive (consumer warp)")
                    for peer in peers if role in multicast else []:
                        _mark(nvasync.MbarrierArriveClusterOp(empty, _index(s), peer),
                              f"empty[{role}]: arrive on a peer CTA's (consumer warp)")
            return out

        with ir.InsertionPoint(self.loop), self.loop.location:
            self.replace_loop(self.rounds(g0, list(self.loop.opview.initArgs), stage))
        for op, name, handoff in zip(self.offloads, self.offload_names(), handoffs):
            self.hand_over(op, name, handoff)
        if trailing is not None:
            self.consume_trailing(*trailing)
        return consumer_role.operation

    # --- a trailing loop's loads -----------------------------------------------------------------------
    def issue_trailing(self, tile, mapping, trailing):
        """The first producer, after issuing tile iteration `tile`'s inner loads: it waits until the
        consumers handed the trailing buffers back (`empty`, parity (tile & 1) ^ 1) and loads them
        (`full`, phase tile)."""
        name, full, empty = trailing
        _mark(nvasync.MbarrierTryWaitParityOp(empty, _index(0), _parity(tile, flip=True)), f"empty[{name}]: wait")
        single = {load.operation.opview.dst: [load.operation.opview.dst] for load in self.trailing_loads}
        self.issue(tile, 0, single, full, [], self.trailing_loads, mapping, f"full[{name}]")

    def consume_trailing(self, name, full, empty):
        """The consumers' side of a trailing loop: its loads go (the first producer issues them);
        every consumer thread waits on `full` (parity tile & 1) right before the tile body's first
        access of the loaded buffers, and arrives on `empty` at the end of the body."""
        tile = self.nest[0].opview
        ranges = [_byte_range(load.operation.opview.dst.owner) for load in self.trailing_loads]
        for load in self.trailing_loads:
            load.operation.erase()
        ops = list(tile.body.operations)
        first = next(o for o in ops if o.operation.name == "scf.yield" or _touches(o, ranges))
        with ir.InsertionPoint(first), self.nest[0].location:
            _mark(nvasync.MbarrierTryWaitParityOp(full, _index(0), _parity(tile.induction_variable, flip=False)),
                  f"full[{name}]: wait")
        with ir.InsertionPoint(ops[-1]), self.nest[0].location:
            _mark(nvasync.MbarrierArriveOp(empty, _index(0)), f"empty[{name}]: arrive (consumer thread)")
        del self.nest[0].attributes[PIPELINE_ATTR]

    # --- offloads ------------------------------------------------------------------------------------
    def offload_nest(self, op, name, handoff, first_thread: int, back=None):
        """The offload's warps: a copy of the loop around it that, per iteration, waits until the
        consumers hand the smem over (`full`), runs the body, and hands it back (`empty`, every
        thread's arrival, after whatever the body waited for) -- and, where it uses a trailing
        loop's buffers (`back`: that loop's name and `empty`), to the trailing loads too."""
        full, empty = handoff
        tile = self.nest[0].opview
        body = op.regions[0].blocks[0]
        # What the body computes from the thread alone (its issue predicate: elect_one on its first
        # warp) is computed once, before the loop, where it dominates every sync derived for it.
        thread = body.arguments[0]
        mapping = {thread: arith.subi(gpu.thread_id(gpu.Dimension.x), _index(first_thread))}
        invariant = {thread}

        def per_thread(value) -> bool:      # the same in every iteration of the tile loop
            if isinstance(value, ir.BlockArgument):
                return value == thread
            return value in invariant or not _inside(value.owner, self.nest[0])

        for inner in list(body.operations)[:-1]:
            kind = inner.operation.name
            if not inner.operation.regions and (kind.startswith(("arith.", "index.")) or kind == "nvasync.elect_one") \
                    and all(per_thread(v) for v in inner.operands):
                clone_with(inner.operation, mapping)
                invariant.update(inner.results)
        loop = scf.ForOp(tile.lowerBound, tile.upperBound, tile.step)
        mapping[tile.induction_variable] = loop.induction_variable
        with ir.InsertionPoint(loop.body):
            for needed in self.offload_slice(op):
                clone_with(needed, mapping)
            _mark(nvasync.MbarrierTryWaitParityOp(full, _index(0), _parity(loop.induction_variable, flip=False)),
                  f"full[{name}]: wait")
            for inner in list(body.operations)[:-1]:
                if not any(r in invariant for r in inner.results):
                    clone_with(inner.operation, mapping)
            _mark(nvasync.MbarrierArriveOp(empty, _index(0)), f"empty[{name}]: arrive (offload thread)")
            if back is not None:
                _mark(nvasync.MbarrierArriveOp(back[1], _index(0)), f"empty[{back[0]}]: arrive (offload thread)")
            scf.YieldOp([])

    def offload_slice(self, op) -> list:
        """The ops of the tile loop's body (in order) the offload's body uses values of: what its
        copy of the loop recomputes; side-effect free."""
        tile_body = self.nest[0].opview.body
        order = {o.operation: k for k, o in enumerate(tile_body.operations)}
        needed, stack = set(), []
        op.walk(lambda o: stack.extend(o.operands) or ir.WalkResult.ADVANCE)
        while stack:
            value = stack.pop()
            if isinstance(value, ir.BlockArgument):
                continue
            owner = value.owner.operation
            if owner in order and owner not in needed:
                _require_pure(owner, op)
                needed.add(owner)
                stack.extend(owner.operands)
        return sorted(needed, key=order.__getitem__)

    def hand_over(self, op, name, handoff):
        """The consumers' side: before their first access of smem the offload uses, in the tile
        loop's body, they wait until the offload handed it back (`empty`, the first round passes on
        the fresh barrier); in place of the offload op, each consumer warp arrives on `full` (a warp
        sync, then one lane)."""
        full, empty = handoff
        ranges = []
        op.walk(lambda o: ranges.extend(_byte_range(v.owner) for v in o.operands if not isinstance(v, ir.BlockArgument)
                                        and v.owner.name == "nvasync.smem_buffer") or ir.WalkResult.ADVANCE)
        tile = self.nest[0].opview
        first = next(o for o in tile.body.operations if o.operation == op.operation
                     or o.operation.name != "nvasync.pipeline_load" and _touches(o, ranges))
        with ir.InsertionPoint(first), op.location:
            _mark(nvasync.MbarrierTryWaitParityOp(empty, _index(0), _parity(tile.induction_variable, flip=True)),
                  f"empty[{name}]: wait")
        with ir.InsertionPoint(op), op.location:
            _mark(nvasync.WarpSyncOp(), "consumer warp: accesses done before its handover")
            with _then(nvasync.ElectOneOp(ir.IntegerType.get_signless(1)).elected):
                _mark(nvasync.MbarrierArriveOp(full, _index(0)), f"full[{name}]: arrive (consumer warp)")
        op.erase()

    def multicast_roles(self, roles) -> set:
        """The roles whose loads are multicast, checked against the loop's roles and the kernel's
        cluster size."""
        opts = self.options
        unknown = [r for r in opts.multicast if r not in roles]
        if unknown:
            raise PipelineError(self.loop, f"multicast role(s) {', '.join(unknown)} load nothing in this loop")
        if opts.multicast and opts.cluster != cluster_size(self.func):
            raise PipelineError(self.loop, f"the pipeline multicasts over {opts.cluster} CTAs, but the kernel "
                                           f"launches in clusters of {cluster_size(self.func)} (nvvm.cluster_dim)")
        return set(opts.multicast)

    def producer_needs(self, unit) -> set:
        """The ops inside the loop nest (outside the pipelined loop) a producer's copy of the
        nest needs: what computes the loops' bounds, the counter and the loads' operands."""
        roots = [self.n]
        for loop in self.nest:
            view = loop.opview
            terminator = list(view.body.operations)[-1]
            roots += [view.lowerBound, view.upperBound, view.step, view.initArgs[-1], terminator.operands[-1]]
        for op in [*self.producer_slice(), *self.loads, *self.trailing_loads]:
            roots += [v for v in op.operands]
        needed, stack = set(), list(roots)
        nest_ops = set(self.nest)
        while stack:
            value = stack.pop()
            if isinstance(value, ir.BlockArgument):
                continue
            owner = value.owner
            if owner.operation in nest_ops or owner.operation in needed or _inside(owner, self.loop) \
                    or not _inside(owner, unit):
                continue
            _require_pure(owner, self.loop)
            needed.add(owner.operation)
            stack.extend(owner.operands)
        return needed

    def producer_nest(self, level, mapping, keep, g0, full, empty, copies, slices, loads, role, trailing=None):
        """A producer's copy of the loop nest around the pipelined loop (levels outermost first):
        the loops, their counters and the ops in `keep`; at the bottom, the role's rounds, and
        after them a trailing loop's loads (`trailing`: its name and barriers)."""
        if level < 0:
            def stage(r, s, i, values):
                _mark(nvasync.MbarrierTryWaitParityOp(empty, _index(s), _parity(r, flip=True)),
                      f"empty[{role}]: wait")
                self.issue(i, s, copies, full, slices, loads, mapping, f"full[{role}]")
                return []
            self.rounds(mapping.get(g0, g0) if g0 is not None else None, [], stage, mapping.get(self.n, self.n))
            return
        view = self.nest[level].opview
        m = lambda v: mapping.get(v, v)     # noqa: E731
        loop = scf.ForOp(m(view.lowerBound), m(view.upperBound), m(view.step), [m(view.initArgs[-1])])
        mapping[view.induction_variable] = loop.induction_variable
        mapping[view.inner_iter_args[-1]] = loop.inner_iter_args[0]
        inner = self.nest[level - 1] if level else self.loop.operation
        with ir.InsertionPoint(loop.body):
            for op in view.body.operations:
                if op.operation == inner:
                    self.producer_nest(level - 1, mapping, keep, g0, full, empty, copies, slices, loads, role)
                    if trailing is not None and level == 0:
                        self.issue_trailing(loop.induction_variable, mapping, trailing)
                elif op.operation in keep:
                    clone_with(op.operation, mapping)
            scf.YieldOp([m(list(view.body.operations)[-1].operands[-1])])
        mapping[self.nest[level].results[-1]] = loop.results[0]

    def block_threads(self) -> int:
        dims = block_dims(self.func)
        if dims is None:
            raise PipelineError(self.func, "warp specialization needs the kernel's gpu.known_block_size")
        return dims[0]

    def rounds(self, g0, carried, stage, n=None):
        """The steady state: `for r in [g0 / S, ceil((g0 + n) / S))` with its S stages unrolled,
        stage s running iteration i = r*S + s - g0 when 0 <= i < n as
        `stage(r, s, i, values) -> values` (the values carried, in and out).  Returns the values
        carried out of the last round."""
        S, n = self.options.stages, n if n is not None else self.n
        end = n if g0 is None else arith.addi(g0, n)
        begin = _index(0) if g0 is None else arith.divui(g0, _index(S))
        loop = scf.ForOp(begin, arith.ceildivui(end, _index(S)), _index(1), carried)
        with ir.InsertionPoint(loop.body):
            r, values = loop.induction_variable, list(loop.inner_iter_args)
            for s in range(S):
                g = arith.addi(arith.muli(r, _index(S)), _index(s))
                i = g if g0 is None else arith.subi(g, g0)
                if S == 1:          # every round runs its one stage (g0 <= r < g0 + n): no guard,
                    values = stage(r, s, i, values)       # so loops nested in the body stay in scf.for
                    continue
                wanted = arith.cmpi(arith.CmpIPredicate.ult, g, end)
                if g0 is not None:
                    wanted = arith.andi(wanted, arith.cmpi(arith.CmpIPredicate.uge, g, g0))
                guard = scf.IfOp(wanted, [v.type for v in values], has_else=bool(values))
                with ir.InsertionPoint(guard.then_block):
                    scf.YieldOp(stage(r, s, i, values))
                if values:
                    with ir.InsertionPoint(guard.else_block):
                        scf.YieldOp(values)
                values = list(guard.results)
            scf.YieldOp(values)
        return list(loop.results)

    def replace_loop(self, results):
        for old, new in zip(self.loop.results, results):
            old.replace_all_uses_with(new)

    def clone_body(self, i, stage: int, copies, values, wait):
        """The body for iteration i on `stage`'s buffers, carried values in; returns those out.
        `wait()` builds the consumers' wait for the stage's data, right before the first op that
        touches memory the loads write (so work before it, an inner loop, overlaps the loads)."""
        mapping = {self.iv: i, **{buffer: per_stage[stage] for buffer, per_stage in copies.items()},
                   **dict(zip(self.loop.opview.inner_iter_args, values))}
        loaded = [_byte_range(load.operation.opview.dst.owner) for load in self.loads]
        for op in self.body.operations:
            if op.operation.name == "nvasync.pipeline_load":
                continue
            if wait is not None and (op.operation.name == "scf.yield" or _touches(op, loaded)):
                wait()
                wait = None
            if op.operation.name == "scf.yield":
                return [mapping.get(v, v) for v in op.operands]
            clone_with(op, mapping)
        return []


def _byte_range(buffer_op) -> tuple[int, int]:
    start = buffer_op.attributes["offset"].value
    return start, start + memref_bytes(buffer_op.results[0].type)


def _touches(op, ranges) -> bool:
    """`op` (or an op nested in it) uses a shared-memory buffer overlapping one of `ranges`."""
    def overlaps(value):
        if isinstance(value, ir.BlockArgument) or value.owner.name != "nvasync.smem_buffer":
            return False
        start, end = _byte_range(value.owner)
        return any(start < e and s < end for s, e in ranges)

    hit = []
    op.operation.walk(lambda o: hit.append(o) or ir.WalkResult.INTERRUPT if any(overlaps(v) for v in o.operands)
                      else ir.WalkResult.ADVANCE)
    return bool(hit)


def _used_outside(value, loop) -> bool:
    """Whether an op outside `loop` uses `value`."""
    for use in value.uses:
        user = use.owner
        if not _inside(user, loop) and user != loop.operation:
            return True
    return False


def _inside(op, ancestor) -> bool:
    parent = op.parent
    while parent is not None and parent.name != "gpu.func":
        if parent == ancestor:
            return True
        parent = parent.parent
    return False


def _is_smem(ty) -> bool:
    return isinstance(ty, ir.MemRefType) and ty.memory_space is not None \
        and "workgroup" in str(ty.memory_space)


def _require_pure(op, where) -> None:
    if len(op.regions) or not op.name.startswith(("arith.", "index.", "gpu.")):
        raise PipelineError(where, f"the loads' coordinates or trip counts depend on '{op.name}'; producers "
                                   "recompute them, so they must come from side-effect-free arith ops")


def _with_iter_arg(loop, init):
    """`loop` rebuilt with one more carried value (initialised to `init`; its body moved over,
    still yielding the old values: see _append_yield)."""
    view = loop.opview
    with ir.InsertionPoint(loop), loop.location:
        rebuilt = scf.ForOp(view.lowerBound, view.upperBound, view.step, [*view.initArgs, init])
    for name in loop.attributes:
        rebuilt.operation.attributes[name] = loop.attributes[name]
    view.induction_variable.replace_all_uses_with(rebuilt.induction_variable)
    for old, new in zip(view.inner_iter_args, rebuilt.inner_iter_args):
        old.replace_all_uses_with(new)
    for op in list(view.body.operations):
        rebuilt.body.append(op.operation)
    for old, new in zip(loop.results, rebuilt.results):
        old.replace_all_uses_with(new)
    loop.erase()
    return rebuilt


def _append_yield(loop, value) -> None:
    old = list(loop.body.operations)[-1]
    with ir.InsertionPoint(old), old.location:
        scf.YieldOp([*old.operands, value])
    old.erase()


def _round_up(x: int, m: int) -> int:
    return (x + m - 1) // m * m
