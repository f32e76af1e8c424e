"""The pointwise scheduler's kernel: fusion nodes + a PointwiseSchedule -> kernel IR (gpu + nvasync).

Shape of the kernel (one CTA per SM slot, persistent over tiles t = blockIdx.x + i * gridDim.x):

    init full[s] (one elected thread), fence.mbarrier_init, barrier
    elected: TMA-load the first `stages` tiles, each stage completing on full[s]
    for each round r, for each stage s (unrolled, so every smem buffer is static):
        wait full[s] (parity r & 1); compute in f32: input[s] -> output[s]
        elected: TMA-store output[s], refill input[s] with tile i + stages

No barrier, fence or bulk wait is written here: the sync passes derive them from the hazards
(fuser_mlir.pipeline.SYNC_PASSES).  The mbarrier protocol (init, expect-tx, parity waits) is
the pipeline itself and stays.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, gpu, math, scf, vector

from .api import DataType, FusionDefinition, Node
from .dialects import nvasync
from .schedule import PointwiseSchedule

KERNEL_NAME = "pointwise"
MODULE_NAME = "kernels"


def mlir_type(dtype: str):
    return {"f32": ir.F32Type.get(), "f16": ir.F16Type.get(), "bf16": ir.BF16Type.get(),
            "i1": ir.IntegerType.get_signless(8),          # bool travels as one byte
            "i64": ir.IntegerType.get_signless(64)}[dtype]


def _smem(shape, dtype: str):
    return ir.MemRefType.get(shape, mlir_type(dtype),
                             memory_space=ir.Attribute.parse("#gpu.address_space<workgroup>"))


def build_kernel_module(fd: FusionDefinition, schedule: PointwiseSchedule):
    """A module with one gpu.module holding the pointwise kernel; call inside a context."""
    n_tmaps = len(schedule.in_dtypes) + len(schedule.out_dtypes)
    scalars = ["%rows: i32, %cols: i32"] if schedule.rank == 2 else ["%n: i32"]
    params = [f"%tm{i}: !llvm.ptr" for i in range(n_tmaps)] + scalars
    module = ir.Module.parse(
        f"module attributes {{gpu.container_module}} {{ gpu.module @{MODULE_NAME} {{"
        f"  gpu.func @{KERNEL_NAME}({', '.join(params)}) kernel attributes "
        f"{{gpu.known_block_size = array<i32: {schedule.threads}, 1, 1>}} {{ gpu.return }} }} }}")
    func = module.body.operations[0].regions[0].blocks[0].operations[0]
    entry = func.regions[0].blocks[0]
    with ir.InsertionPoint(entry.operations[0]):
        _KernelBuilder(fd, schedule, list(entry.arguments)).build()
    return module


def _index(v):
    return arith.constant(ir.IndexType.get(), v)


def _i32(v):
    return arith.constant(ir.IntegerType.get_signless(32), v)


def _to_index(v):
    return arith.index_cast(ir.IndexType.get(), v)


def _to_i32(v):
    return arith.index_cast(ir.IntegerType.get_signless(32), v)


def _if(cond):
    """`with _if(c):` builds the then-block of an scf.if with no results."""
    op = scf.IfOp(cond)

    class _Then:
        def __enter__(self):
            self.ip = ir.InsertionPoint(op.then_block)
            self.ip.__enter__()

        def __exit__(self, *exc):
            scf.YieldOp([])
            self.ip.__exit__(*exc)

    return _Then()


class _KernelBuilder:
    def __init__(self, fd, schedule: PointwiseSchedule, args):
        self.fd, self.s = fd, schedule
        n_in = len(schedule.in_dtypes)
        self.in_maps, self.out_maps = args[:n_in], args[n_in:n_in + len(schedule.out_dtypes)]
        self.dims = [_to_index(a) for a in args[n_in + len(schedule.out_dtypes):]]

    # --- buffers -------------------------------------------------------------------------------
    def declare_buffers(self):
        s = self.s
        in_offsets, out_offsets, _ = s.layout()
        self.full = nvasync.SmemBufferOp(_smem([s.stages], "i64"), offset=0).buffer

        def views(offset, dtype):
            box_bytes = s.buffer_bytes(dtype) // s.boxes
            boxes = [nvasync.SmemBufferOp(_smem(s.box_shape, dtype), offset=offset + k * box_bytes).buffer
                     for k in range(s.boxes)]
            flat = nvasync.SmemBufferOp(_smem([s.tile_elems], dtype), offset=offset).buffer
            return boxes, flat

        self.inputs = [[views(off, d) for off, d in zip(row, s.in_dtypes)] for row in in_offsets]
        self.outputs = [[views(off, d) for off, d in zip(row, s.out_dtypes)] for row in out_offsets]

    # --- tiles ---------------------------------------------------------------------------------
    def tile_grid(self):
        s = self.s
        if s.rank == 2:
            rows, cols = self.dims
            self.tiles_c = arith.ceildivui(cols, _index(s.box_cols * s.boxes))
            self.num_tiles = arith.muli(arith.ceildivui(rows, _index(s.box_rows)), self.tiles_c)
        else:
            self.num_tiles = arith.ceildivui(self.dims[0], _index(s.box_cols * s.boxes))

    def box_coords(self, tile, k):
        """TMA coordinates (outermost first) of box k of `tile`."""
        s = self.s
        tile = _to_i32(tile)       # 32-bit: a 64-bit division costs ~30 instructions per tile
        if s.rank == 2:
            tiles_c = _to_i32(self.tiles_c)
            row = arith.muli(arith.divui(tile, tiles_c), _i32(s.box_rows))
            col = arith.muli(arith.remui(tile, tiles_c), _i32(s.box_cols * s.boxes))
            return [row, arith.addi(col, _i32(k * s.box_cols))]
        return [arith.addi(arith.muli(tile, _i32(s.boxes * s.box_cols)), _i32(k * s.box_cols))]

    def issue_loads(self, stage, tile):
        s = self.s
        tx_bytes = sum(s.buffer_bytes(d) for d in s.in_dtypes)
        stage_index = _index(stage)
        nvasync.MbarrierArriveExpectTxOp(self.full, stage_index, bytes=tx_bytes)
        for j, (boxes, _) in enumerate(self.inputs[stage]):
            for k, box in enumerate(boxes):
                nvasync.TmaLoadOp(self.in_maps[j], box, self.full, stage_index, self.box_coords(tile, k))

    def issue_stores(self, stage, tile):
        for j, (boxes, _) in enumerate(self.outputs[stage]):
            for k, box in enumerate(boxes):
                nvasync.TmaStoreOp(self.out_maps[j], box, self.box_coords(tile, k))

    # --- compute -------------------------------------------------------------------------------
    def compute(self, stage, tid):
        s = self.s
        step = s.threads * s.vector
        for first in range(0, s.tile_elems, step):
            e = arith.muli(arith.addi(tid, _index(first // s.vector)), _index(s.vector))
            if s.tile_elems % step:
                with _if(arith.cmpi(arith.CmpIPredicate.ult, e, _index(s.tile_elems))):
                    self.compute_vector(stage, e)
            else:
                self.compute_vector(stage, e)

    def compute_vector(self, stage, e):
        s, f32 = self.s, ir.F32Type.get()
        values = {}
        for j, t in enumerate(self.fd.inputs):
            flat = self.inputs[stage][j][1]
            loaded = vector.load(ir.VectorType.get([s.vector], mlir_type(s.in_dtypes[j])), flat, [e])
            if t.dtype is DataType.Bool:
                zero = arith.constant(loaded.type, ir.DenseElementsAttr.get_splat(
                    loaded.type, ir.IntegerAttr.get(ir.IntegerType.get_signless(8), 0)))
                loaded = arith.cmpi(arith.CmpIPredicate.ne, loaded, zero)
            elif t.dtype is not DataType.Float:
                loaded = arith.extf(ir.VectorType.get([s.vector], f32), loaded)
            values[t.index] = [vector.extract(loaded, [], [i]) for i in range(s.vector)]
        for node in self.fd.nodes:
            if node.op != "input":
                args = [values[a.index] for a in node.args]
                values[node.out.index] = [_scalar(node, *lane) for lane in zip(*args)]
        for j, t in enumerate(self.fd.outputs):
            dtype = s.out_dtypes[j]
            result = vector.from_elements(ir.VectorType.get([s.vector], f32), values[t.index])
            if dtype != "f32":
                result = arith.truncf(ir.VectorType.get([s.vector], mlir_type(dtype)), result)
            vector.store(result, self.outputs[stage][j][1], [e])

    # --- the kernel ------------------------------------------------------------------------------
    def build(self):
        s = self.s
        self.declare_buffers()
        self.tile_grid()
        tid = gpu.thread_id(gpu.Dimension.x)
        block, grid = gpu.block_id(gpu.Dimension.x), gpu.grid_dim(gpu.Dimension.x)
        # One elected lane of warp 0 issues all TMA; the warp test is warp-uniform.
        # The issuing thread, chosen once: bulk groups are per thread, so every TMA op, commit
        # and wait of this kernel must run on the same lane.
        issuer = _elected(arith.cmpi(arith.CmpIPredicate.ult, tid, _index(32)))
        with _if(issuer):
            for stage in range(s.stages):
                nvasync.MbarrierInitOp(self.full, _index(stage), count=1)
        with _if(issuer):
            for stage in range(s.stages):
                tile = arith.addi(block, arith.muli(_index(stage), grid))
                with _if(arith.cmpi(arith.CmpIPredicate.ult, tile, self.num_tiles)):
                    self.issue_loads(stage, tile)
        my_tiles = arith.ceildivui(arith.subi(self.num_tiles, block), grid)
        rounds = arith.ceildivui(my_tiles, _index(s.stages))
        loop = scf.ForOp(_index(0), rounds, _index(1))
        with ir.InsertionPoint(loop.body):
            r = loop.induction_variable
            parity = _to_i32(arith.andi(r, _index(1)))
            for stage in range(s.stages):
                i = arith.addi(arith.muli(r, _index(s.stages)), _index(stage))
                with _if(arith.cmpi(arith.CmpIPredicate.ult, i, my_tiles)):
                    tile = arith.addi(block, arith.muli(i, grid))
                    nvasync.MbarrierTryWaitParityOp(self.full, _index(stage), parity)
                    self.compute(stage, tid)
                    with _if(issuer):
                        self.issue_stores(stage, tile)
                        next_i = arith.addi(i, _index(s.stages))
                        with _if(arith.cmpi(arith.CmpIPredicate.ult, next_i, my_tiles)):
                            self.issue_loads(stage, arith.addi(block, arith.muli(next_i, grid)))
            scf.YieldOp([])


def _elected(first_warp):
    """One lane of warp 0 (elect.sync inside a warp-uniform test): the thread that issues TMA."""
    return arith.andi(first_warp, nvasync.ElectOneOp(ir.IntegerType.get_signless(1)).elected)


# --- scalar f32 math for one lane ---------------------------------------------------------------------
# Transcendentals and division carry `afn`: they lower to ex2.approx / div.approx-based sequences
# (as Triton's and Inductor's do) instead of IEEE-exact ones, which made compute-heavy fusions
# compute-bound on the H100 (measured: 2.25 TB/s -> see README).  Errors stay within a few ulp.

def _afn():
    return ir.Attribute.parse("#arith.fastmath<afn>")


def _f32(v: float):
    return arith.constant(ir.F32Type.get(), v)


def _div(a, b):
    return arith.divf(a, b, fastmath=_afn())


def _exp(x):
    return math.exp(x, fastmath=_afn())


def _sigmoid(x):
    return _div(_f32(1.0), arith.addf(_f32(1.0), _exp(arith.negf(x))))


_UNARY = {
    "neg": arith.negf,
    "abs": math.absf,
    "exp": _exp,
    "log": lambda x: math.log(x, fastmath=_afn()),
    "sqrt": math.sqrt,
    "rsqrt": math.rsqrt,
    "tanh": lambda x: math.tanh(x, fastmath=_afn()),
    "sigmoid": _sigmoid,
    "relu": lambda x: arith.maximumf(x, _f32(0.0)),
    "gelu": lambda x: arith.mulf(arith.mulf(_f32(0.5), x),
                                 arith.addf(_f32(1.0), math.erf(arith.mulf(x, _f32(0.7071067811865476))))),
    "silu": lambda x: arith.mulf(x, _sigmoid(x)),
}
_BINARY = {
    "add": arith.addf, "sub": arith.subf, "mul": arith.mulf, "div": _div,
    "maximum": arith.maximumf, "minimum": arith.minimumf,
}


def _scalar(node: Node, *args):
    if node.op == "unary":
        return _UNARY[node.kind](*args)
    if node.op == "binary":
        return _BINARY[node.kind](*args)
    if node.op == "ternary":
        return arith.select(*args)
    if node.op == "cast":
        if node.out.dtype is DataType.Float:
            return args[0]
        return arith.extf(ir.F32Type.get(), arith.truncf(mlir_type(node.out.dtype.value), args[0]))
    if node.op == "broadcast":      # inputs arrive broadcast to the output shape (see compiler.py)
        return args[0]
    raise NotImplementedError(node.op)
