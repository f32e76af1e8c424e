"""fuser-lower-nvasync: rewrite every nvasync op into NVVM plus upstream gpu/scf/arith/memref/llvm.

Rule: a one-to-one translation; this pass adds no synchronization and drops none (the sync passes
have already decided it).  Each op becomes the PTX listed in `dialects/nvasync.py`.

Contract
  in:  gpu.func kernels holding nvasync ops (verified by fuser-verify-dialects).
  out: no nvasync op remains.  Shared memory is `gpu.dynamic_shared_memory` with `memref.view`s at
       the buffers' byte offsets; the kernel carries `fuser.dynamic_smem_bytes` (the extent of its
       buffers) and `fuser.tensormap_args` (argument indices used as TMA descriptors, which
       fuser-kernel-abi turns into `__grid_constant__` byval params).  A TMA descriptor that is not a
       kernel argument is an error: the ABI passes tensor maps by value.
Conventions: TMA coordinates are given in memref dimension order (outermost first); PTX wants the
innermost first, so they are reversed here.  `mbarrier_try_wait_parity` and `wait_flag` become
retry loops.

Deadlock guard (debug builds): when the module carries `fuser.deadlock_guard_ms = N` (N > 0; set
by the pipeline from TargetOptions.deadlock_guard_ms, or written by hand), every mbarrier wait (and
semaphore wait_flag) is bounded by time, not by a count of tries (a try may suspend for up to its 10 ms hint): the
waiting thread reads %globaltimer (ns) before the first try_wait and after each failed one, and
once more than N ms have passed it prints (gpu.printf, lowered to vprintf by convert-gpu-to-nvvm)
the kernel's name, where the wait is, the mbarrier (its buffer's smem byte offset and the
index/stage operand), the expected parity, its warp role (the enclosing nvasync.warp_role's warps,
else "all"), its block and thread ids, and then traps (`trap;`): the launch fails with the
diagnostic instead of hanging.  Without the attribute the wait stays the plain retry loop.
"""
from __future__ import annotations

import math

from mlir import ir
from mlir.dialects import arith, gpu, llvm, memref, nvvm, scf, vector

from ..diagnostics import file_location
from .smem_model import memref_bytes


TENSORMAP_ARGS = "fuser.tensormap_args"
DYNAMIC_SMEM_BYTES = "fuser.dynamic_smem_bytes"
DEADLOCK_GUARD = "fuser.deadlock_guard_ms"     # module attribute: bound every mbarrier wait (ms)
_TIMEOUT_MESSAGE = "fuser.timeout_message"     # a guarded wait's printf format, until it is lowered
_WAIT_TICKS = 0x989680          # suspend-time hint for mbarrier.try_wait (as CUTLASS uses)
_SWIZZLE_MODE = {128: 1, 64: 2, 32: 3}   # wgmma descriptor bits 62-63


class LoweringError(Exception):
    def __init__(self, op, message):
        super().__init__(message)
        self.location = op.location


def set_deadlock_guard(module, milliseconds: int) -> None:
    """Ask this pass for bounded mbarrier waits (TargetOptions.deadlock_guard_ms)."""
    module.operation.attributes[DEADLOCK_GUARD] = ir.IntegerAttr.get(
        ir.IntegerType.get_signless(64, module.context), milliseconds)


def run(module_op, pass_) -> None:
    errors = []
    attributes = module_op.attributes
    guard_ms = ir.IntegerAttr(attributes[DEADLOCK_GUARD]).value if DEADLOCK_GUARD in attributes else 0
    for func in _gpu_funcs(module_op):
        try:
            _lower_function(func, guard_ms)
        except LoweringError as e:
            errors.append(e)
    _outside_kernels(module_op, errors)
    for e in errors:
        e.location.emit_error(str(e))
    if errors:
        pass_.signal_pass_failure()


def _outside_kernels(module_op, errors) -> None:
    """nvasync ops outside every gpu.func cannot run on a GPU: report them."""
    def visit(op):
        if op.name == "gpu.func":
            return ir.WalkResult.SKIP
        if op.name.startswith("nvasync."):
            errors.append(LoweringError(op, f"'{op.name}' must be inside a gpu.func"))
            return ir.WalkResult.SKIP
        return ir.WalkResult.ADVANCE

    module_op.walk(visit, ir.WalkOrder.PRE_ORDER)


def _gpu_funcs(module_op):
    funcs = []

    def visit(op):
        if op.name == "gpu.func":
            funcs.append(op)
        return ir.WalkResult.ADVANCE

    module_op.walk(visit)
    return funcs


def _lower_function(func, guard_ms: int) -> None:
    ops = []

    def collect(op):   # post-order: a warp_role's body is lowered before the role itself
        if op.name.startswith("nvasync."):
            ops.append(op)
        return ir.WalkResult.ADVANCE

    func.walk(collect, ir.WalkOrder.POST_ORDER)
    if not ops:
        return
    lowering = _FunctionLowering(func, guard_ms)
    for op in ops:    # what a timeout names, read before the smem buffers are lowered
        if guard_ms and op.name in ("nvasync.mbarrier_try_wait_parity", "nvasync.wait_flag"):
            op.attributes[_TIMEOUT_MESSAGE] = ir.StringAttr.get(_timeout_message(func, op, guard_ms))
    for op in ops:
        with op.location, ir.InsertionPoint(op):
            replacement = lowering.lower(op)
        if replacement is not None:
            op.results[0].replace_all_uses_with(replacement)
        op.erase()
    lowering.finish()


def _timeout_message(func, op, guard_ms: int) -> str:
    """The printf format of a guarded wait's timeout: what is known at compile time, with %d for
    the stage and the parity (an mbarrier) or the awaited value (a flag), the block and the
    thread ids (printed at run time)."""
    def literal(text):
        return str(text).replace("%", "%%")

    view = op.opview
    if op.name == "nvasync.wait_flag":
        what = "semaphore wait", "a global flag, awaited value >= %d"
    else:
        owner = view.barriers.owner
        buffer = (f"mbarriers at smem byte offset {owner.attributes['offset'].value}"
                  if getattr(owner, "name", None) == "nvasync.smem_buffer" else "mbarriers of a derived smem view")
        what = "mbarrier wait", f"{buffer}, index %d, expected parity %d"
    role, parent = "all", op.operation.parent
    while parent is not None and parent.name != "gpu.func":
        if parent.name == "nvasync.warp_role":
            first, count = parent.attributes["first_warp"].value, parent.attributes["num_warps"].value
            role = f"warps [{first}, {first + count})"
            break
        parent = parent.parent
    _, line, col = file_location(op.location)
    where = f" at {line}:{col}" if line else ""
    return (f"fuser_mlir deadlock guard: kernel {literal(func.attributes['sym_name'].value)}: "
            f"{what[0]}{literal(where)} timed out after {guard_ms} ms: {what[1]}, "
            f"warp role {role}, block (%d, %d, %d), thread (%d, %d, %d)\n")


class _FunctionLowering:
    def __init__(self, func, guard_ms: int = 0):
        self.func = func
        self.guard_ms = guard_ms
        self.entry = func.regions[0].blocks[0]
        self.args = list(self.entry.arguments)
        self.tensormap_args: set[int] = set()
        self.smem_bytes = 0
        self._smem_base = None

    def finish(self):
        attrs = self.func.attributes
        if self.tensormap_args:
            attrs[TENSORMAP_ARGS] = ir.DenseI32ArrayAttr.get(sorted(self.tensormap_args))
        attrs[DYNAMIC_SMEM_BYTES] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), self.smem_bytes)

    def lower(self, op):
        return getattr(self, "_" + op.name.partition(".")[2])(op.opview)

    # --- helpers ---------------------------------------------------------------------------------
    def smem_base(self):
        if self._smem_base is None:
            with ir.Location.unknown(), ir.InsertionPoint.at_block_begin(self.entry):
                workgroup = ir.Attribute.parse("#gpu.address_space<workgroup>")
                ty = ir.MemRefType.get([ir.ShapedType.get_dynamic_size()], ir.IntegerType.get_signless(8),
                                       memory_space=workgroup)
                self._smem_base = gpu.dynamic_shared_memory(ty)
        return self._smem_base

    @staticmethod
    def index(value: int):
        return arith.constant(ir.IndexType.get(), value)

    @staticmethod
    def i32(value: int):
        return arith.constant(ir.IntegerType.get_signless(32), value)

    def smem_pointer(self, value, element=None):
        """`!llvm.ptr<3>` to the first element of memref `value` (plus `element` elements)."""
        ty = ir.MemRefType(value.type)
        metadata = memref.ExtractStridedMetadataOp(value)
        offset = metadata.results[1]
        if element is not None:
            offset = arith.addi(offset, element)
        elem_bytes = self.index(max(1, ty.element_type.width // 8))
        aligned = memref.extract_aligned_pointer_as_index(metadata.results[0])
        address = arith.addi(aligned, arith.muli(offset, elem_bytes))
        address = arith.index_cast(ir.IntegerType.get_signless(64), address)
        return llvm.inttoptr(ir.Type.parse("!llvm.ptr<3>"), address)

    def descriptor(self, op, value):
        is_kernel = "gpu.kernel" in self.func.attributes
        if not is_kernel or not isinstance(value, ir.BlockArgument) or value.owner != self.entry:
            raise LoweringError(op, "a TMA descriptor must be a kernel argument: tensor maps are "
                                    "passed by value as __grid_constant__ parameters")
        self.tensormap_args.add(value.arg_number)
        return value

    @staticmethod
    def ptx_coords(coords):
        return list(reversed(list(coords)))

    # --- shared memory ----------------------------------------------------------------------------
    def _smem_buffer(self, view):
        ty = ir.MemRefType(view.buffer.type)
        self.smem_bytes = max(self.smem_bytes, view.offset + memref_bytes(ty))
        return memref.view(ty, self.smem_base(), self.index(view.offset), [])

    # --- TMA ------------------------------------------------------------------------------------
    def _tma_load(self, view):
        dst = llvm.addrspacecast(ir.Type.parse("!llvm.ptr<7>"), self.smem_pointer(view.dst))
        bar = self.smem_pointer(view.barriers, view.stage)
        nvvm.CpAsyncBulkTensorGlobalToSharedClusterOp(
            dst, self.descriptor(view, view.desc), self.ptx_coords(view.coords), bar, [])

    def _tma_load_multicast(self, view):
        # This CTA's slice r of the tile: rows [r * rows / ctas, +rows / ctas) of dst, from
        # coordinate 0 (dst's dim 0) advanced as much, delivered to every CTA of the cluster.
        ty = ir.MemRefType(view.dst.type)
        rows = ty.shape[0] // view.ctas
        row_elements = math.prod(ty.shape[1:])
        rank = nvvm.read_ptx_sreg_cluster_ctarank(ir.IntegerType.get_signless(32))
        first_row = arith.muli(rank, self.i32(rows))
        element = arith.muli(arith.index_cast(ir.IndexType.get(), first_row), self.index(row_elements))
        dst = llvm.addrspacecast(ir.Type.parse("!llvm.ptr<7>"), self.smem_pointer(view.dst, element))
        bar = self.smem_pointer(view.barriers, view.stage)
        coords = list(view.coords)
        coords[0] = arith.addi(coords[0], first_row)
        mask = arith.constant(ir.IntegerType.get_signless(16), (1 << view.ctas) - 1)
        nvvm.CpAsyncBulkTensorGlobalToSharedClusterOp(
            dst, self.descriptor(view, view.desc), self.ptx_coords(coords), bar, [], multicastMask=mask)

    def _tma_prefetch(self, view):
        nvvm.CpAsyncBulkTensorPrefetchOp(self.descriptor(view, view.desc), self.ptx_coords(view.coords), [])

    def _tma_store(self, view):
        nvvm.CpAsyncBulkTensorSharedCTAToGlobalOp(
            self.descriptor(view, view.desc), self.smem_pointer(view.src), self.ptx_coords(view.coords))

    def _tma_reduce(self, view):
        kind = ir.Attribute.parse(f"#nvvm.tma_redux_kind<{view.kind}>")
        nvvm.CpAsyncBulkTensorReduceOp(
            self.descriptor(view, view.desc), self.smem_pointer(view.src), kind,
            self.ptx_coords(view.coords))

    def _bulk_commit(self, view):
        nvvm.CpAsyncBulkCommitGroupOp()

    def _bulk_wait(self, view):
        nvvm.CpAsyncBulkWaitGroupOp(view.pending, read=view.read or None)

    # --- mbarriers ------------------------------------------------------------------------------
    def _mbarrier_init(self, view):
        nvvm.MBarrierInitOp(self.smem_pointer(view.barriers, view.stage), self.i32(view.count))

    def _mbarrier_arrive(self, view):
        nvvm.MBarrierArriveOp(ir.IntegerType.get_signless(64), self.smem_pointer(view.barriers, view.stage))

    def _mbarrier_arrive_cluster(self, view):
        # The default .release.cta, as CUTLASS's ClusterBarrier::arrive: what the arrival releases
        # (a stage's reads, complete before it) needs no cluster-scope ordering, and
        # .release.cluster made a 2-CTA multicast GEMM 1.7-2.2x slower on the H100 (4096^3: 316-322
        # us against 181-185; 1024 x 2112 x 7168: 119-125 against 55-57; one probe run).
        remote = nvvm.mapa(ir.Type.parse("!llvm.ptr<7>"), self.smem_pointer(view.barriers, view.stage), view.cta)
        nvvm.MBarrierArriveOp(None, remote)

    def _mbarrier_arrive_expect_tx(self, view):
        nvvm.MBarrierArriveExpectTxOp(None, self.smem_pointer(view.barriers, view.stage),
                                      self.i32(view.bytes))

    def _mbarrier_try_wait_parity(self, view):
        pointer = self.smem_pointer(view.barriers, view.stage)
        if not self.guard_ms:
            nvvm.MBarrierTryWaitParityOp(pointer, view.parity, self.i32(_WAIT_TICKS))
            return
        i1 = ir.IntegerType.get_signless(1)
        self.spin(view, lambda: nvvm.MBarrierTryWaitOp(i1, pointer, view.parity, ticks=self.i32(_WAIT_TICKS)).result,
                  [arith.index_cast(ir.IntegerType.get_signless(32), view.stage), view.parity])

    def spin(self, view, done, printed):
        """`while (!done()) {}`; under the deadlock guard also: once more than guard_ms have
        passed since the first try, print the op's timeout message (with `printed` i32 values,
        then the block and thread ids) and trap."""
        i1, i64 = ir.IntegerType.get_signless(1), ir.IntegerType.get_signless(64)
        if self.guard_ms:
            start = nvvm.read_ptx_sreg_globaltimer(i64)
            limit = arith.constant(i64, self.guard_ms * 1_000_000)
        loop = scf.WhileOp([], [])
        with ir.InsertionPoint(loop.before.blocks.append()):
            waiting = arith.xori(done(), arith.constant(i1, 1))
            if self.guard_ms:
                retry = scf.IfOp(waiting)
                with ir.InsertionPoint(retry.then_block):
                    elapsed = arith.subi(nvvm.read_ptx_sreg_globaltimer(i64), start)
                    timed_out = scf.IfOp(arith.cmpi(arith.CmpIPredicate.ugt, elapsed, limit))
                    with ir.InsertionPoint(timed_out.then_block):
                        self.report_timeout(view, printed)
                        scf.YieldOp([])
                    scf.YieldOp([])
            scf.ConditionOp(waiting, [])
        with ir.InsertionPoint(loop.after.blocks.append()):
            scf.YieldOp([])

    def report_timeout(self, view, printed):
        i32 = ir.IntegerType.get_signless(32)
        ids = [arith.index_cast(i32, op(dim)) for op in (gpu.block_id, gpu.thread_id)
               for dim in (gpu.Dimension.x, gpu.Dimension.y, gpu.Dimension.z)]
        message = ir.StringAttr(view.operation.attributes[_TIMEOUT_MESSAGE]).value
        gpu.printf(message, *printed, *ids)
        llvm.intr_trap()

    def _mbarrier_inval(self, view):
        nvvm.MBarrierInvalOp(self.smem_pointer(view.barriers, view.stage))

    def _release_flag(self, view):
        llvm.inline_asm(None, [view.flag, view.value], "red.release.gpu.global.add.s32 [$0], $1;",
                        "l,r", has_side_effects=True)

    def _wait_flag(self, view):
        i32 = ir.IntegerType.get_signless(32)

        def reached():
            current = llvm.inline_asm(i32, [view.flag], "ld.acquire.gpu.global.b32 $0, [$1];", "=r,l",
                                      has_side_effects=True)
            return arith.cmpi(arith.CmpIPredicate.sge, current, view.value)

        self.spin(view, reached, [view.value])

    def _arrive_flag(self, view):
        return llvm.inline_asm(ir.IntegerType.get_signless(32), [view.flag, view.value],
                               "atom.acq_rel.gpu.global.add.u32 $0, [$1], $2;", "=r,l,r", has_side_effects=True)

    def _reset_flag(self, view):
        llvm.inline_asm(None, [view.flag], "st.relaxed.gpu.global.b32 [$0], 0;", "l", has_side_effects=True)

    # --- fences and barriers --------------------------------------------------------------------
    def _fence_proxy_async(self, view):
        kind, space = {
            "shared::cta": ("async.shared", "cta"),
            "shared::cluster": ("async.shared", "cluster"),
            "global": ("async.global", None),
            "all": ("async", None),
        }[view.space]
        nvvm.FenceProxyOp(ir.Attribute.parse(f"#nvvm.proxy_kind<{kind}>"),
                          space=ir.Attribute.parse(f"#nvvm.shared_space<{space}>") if space else None)

    def _grid_dependency_wait(self, view):
        nvvm.griddepcontrol(nvvm.GridDepActionKind.wait)

    def _launch_dependents(self, view):
        nvvm.griddepcontrol(nvvm.GridDepActionKind.launch_dependents)

    def _fence_mbarrier_init(self, view):
        nvvm.FenceMbarrierInitOp()

    def _sync_threads(self, view):
        nvvm.Barrier0Op()

    # --- clusters -------------------------------------------------------------------------------
    def _cluster_rank(self, view):
        return nvvm.read_ptx_sreg_cluster_ctarank(ir.IntegerType.get_signless(32))

    def _store_peer(self, view):
        local = self.smem_pointer(view.dst, view.index)
        remote = nvvm.mapa(ir.Type.parse("!llvm.ptr<7>"), local, view.peer)
        llvm.store(view.value, remote)

    def _cluster_sync(self, view):
        nvvm.cluster_arrive(aligned=True)
        nvvm.cluster_wait(aligned=True)

    def _cluster_arrive(self, view):
        nvvm.cluster_arrive_relaxed(aligned=True)

    def _cluster_wait(self, view):
        nvvm.cluster_wait(aligned=True)

    def _pipeline_load(self, view):
        raise LoweringError(view.operation, "nvasync.pipeline_load outside a loop that fuser-pipeline-mbarriers "
                                            "rewrote: mark its loop with nvasync.pipeline and run that pass first")

    def _warp_sync(self, view):
        nvvm.bar_warp_sync(self.i32(-1))          # mask: all 32 lanes

    def _named_barrier(self, view):
        nvvm.BarrierOp(None, barrierId=self.i32(view.id), numberOfThreads=self.i32(view.threads))

    def _elect_one(self, view):
        return nvvm.ElectSyncOp(ir.IntegerType.get_signless(1)).result

    # --- wgmma ----------------------------------------------------------------------------------
    def _wgmma_fence(self, view):
        nvvm.WgmmaFenceAlignedOp()

    def _wgmma_commit(self, view):
        nvvm.WgmmaGroupSyncAlignedOp()

    def _wgmma_wait(self, view):
        nvvm.WgmmaWaitGroupSyncOp(view.pending)

    def matrix_descriptor(self, value, swizzle):
        """The 64-bit wgmma smem descriptor (PTX ISA, "matrix descriptor") of an operand in a
        `swizzle`-byte swizzled tile: rows `swizzle` bytes apart, 8-row atoms contiguous.
          bits  0-13  start address >> 4: the operand's first element.  A K-major k-slice (a
                      subview at column 16k) starts 32k bytes into the atom's first row; the
                      hardware applies the swizzle XOR to the final addresses, so only the start
                      moves.  An N-major k-slice (rows 16k..) starts 2 atoms per k-step further;
          bits 16-29  leading-dimension byte offset >> 4: K-major, unused by swizzled layouts (1);
                      N-major (a rank-3 view of column boxes), from one box to the next along N;
          bits 32-45  stride-dimension byte offset >> 4: from one 8-row atom to the next = 8 *
                      swizzle bytes (along M/N when K-major, along K when N-major);
          bits 49-51  base offset: 0, since tiles start on an atom (8 * swizzle bytes: the verifier
                      checks) and a k-slice moves the start by whole atoms or below bit 7;
          bits 62-63  swizzle mode: 1 = 128 B, 2 = 64 B, 3 = 32 B."""
        i64 = ir.IntegerType.get_signless(64)
        ty = ir.MemRefType(value.type)
        address = llvm.ptrtoint(i64, self.smem_pointer(value))
        start = arith.shrui(arith.andi(address, arith.constant(i64, 0x3FFFF)), arith.constant(i64, 4))
        stride_bytes = 8 * swizzle          # 8 rows of one swizzle atom
        leading = ty.get_strides_and_offset()[0][0] * (ty.element_type.width // 8) >> 4 if ty.rank == 3 else 1
        fixed = (leading << 16) | ((stride_bytes >> 4) << 32) | (_SWIZZLE_MODE[swizzle] << 62)
        return arith.ori(start, arith.constant(i64, fixed - (1 << 64) if fixed >= 1 << 63 else fixed))

    def _wgmma(self, view):
        acc_ty = ir.VectorType(view.acc.type)
        count = acc_ty.shape[0]
        f32 = ir.F32Type.get()
        struct = ir.Type.parse("!llvm.struct<(" + ", ".join(["f32"] * count) + ")>")
        packed = llvm.mlir_undef(struct)
        for i in range(count):
            packed = llvm.insertvalue(packed, vector.extract(view.acc, [], [i]), [i])
        elem = str(ir.MemRefType(view.a.type).element_type)
        b_type = ir.MemRefType(view.b.type)
        n_major = b_type.rank == 3               # wgmma's transposed B (imm-trans-b = 1)
        n = b_type.shape[0] * b_type.shape[2] if n_major else b_type.shape[0]
        parse = ir.Attribute.parse
        mma = nvvm.WgmmaMmaAsyncOp(
            struct, packed,
            self.matrix_descriptor(view.a, view.swizzle), self.matrix_descriptor(view.b, view.swizzle),
            parse(f"#nvvm.shape<m = 64, n = {n}, k = 16>"),
            parse(f"#nvvm.wgmma_type<{elem}>"), parse(f"#nvvm.wgmma_type<{elem}>"),
            parse("#nvvm.wgmma_type<f32>"),
            parse(f"#nvvm.wgmma_scale_out<{'one' if view.accumulate else 'zero'}>"),
            parse("#nvvm.wgmma_scale_in<one>"), parse("#nvvm.wgmma_scale_in<one>"),
            parse("#nvvm.mma_layout<row>"), parse(f"#nvvm.mma_layout<{'row' if n_major else 'col'}>"))
        result = arith.constant(acc_ty, ir.DenseElementsAttr.get_splat(acc_ty, ir.FloatAttr.get(f32, 0.0)))
        for i in range(count):
            result = vector.insert(llvm.extractvalue(f32, mma.result, [i]), result, [], [i])
        return result

    # --- registers and warp roles ---------------------------------------------------------------
    def _setmaxnreg(self, view):
        action = "increase" if view.action == "inc" else "decrease"
        nvvm.SetMaxRegisterOp(view.regs, ir.Attribute.parse(f"#nvvm<action {action}>"))

    def _warp_role(self, view):
        warp = arith.divui(gpu.thread_id(gpu.Dimension.x), self.index(32))
        in_role = arith.cmpi(arith.CmpIPredicate.ult, arith.subi(warp, self.index(view.first_warp)),
                             self.index(view.num_warps))
        branch = scf.IfOp(in_role)
        then_block = branch.then_block
        body = view.body.blocks[0]
        for op in list(body.operations):
            if op.name == "gpu.yield":
                continue
            then_block.append(op)
        with ir.InsertionPoint(then_block):
            scf.YieldOp([])
