"""The matmul scheduler's kernel: a fusion func + a MatmulSchedule -> kernel IR (gpu + nvasync).

The kernel IR it writes (256 consumer threads; fuser-pipeline-mbarriers adds the producer
warpgroup), for the tiles t = blockIdx.x + i * gridDim.x in grouped order:

    for i in [0, my_tiles):
        (m0, n0) = the tile's origin
        acc = for kt in [0, ceil(K / 64)) iter_args(acc = 0) {nvasync.pipeline = {warp_specialized}}:
            pipeline_load A[m0 : m0+128, 64 kt : +64]     (role "a")
            pipeline_load B[n0 : n0+block_n, 64 kt : +64] (role "b")
            4 x wgmma(A rows [64 wg, +64) k-slice j, B k-slice j, acc)     (wg: the consumer warpgroup)
        per fragment pair: the epilogue (kernel.body on the accumulator and loaded operands)
            -> the output tiles in shared memory, 128-byte swizzled
        elected thread: TMA-store every output box of the tile

The accumulator fragment of m64nNk16 (PTX ISA, "wgmma register fragment"): thread t of a
warpgroup holds rows 16 (t / 32) + (t % 32) / 4 + {0, 8} and columns 8 j + 2 (t % 4) + {0, 1};
element 4 j + 2 h + e is (row + 8 h, column 8 j + 2 (t % 4) + e).  A pair (e = 0, 1) is two
adjacent columns: one load of a full/col operand, one 4- or 8-byte shared-memory store.

Output tiles: per output, block_n / box_cols boxes of [128, box_cols] (one 128-byte row each),
written as TMA's 128-byte swizzle lays them out: the 16-byte chunk c of row r sits at chunk
c ^ (r % 8), so the 8 rows a warp's store instruction covers hit 8 different chunks (no bank
conflicts), and the hardware unswizzles when it stores the box.

Out-of-range rows and columns of a tail tile compute on clamped operand addresses (always in
bounds) and are dropped by the TMA store.  The kernel writes no mbarrier, barrier, fence or wait.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, gpu, memref, scf, vector

from ..dialects import nvasync
from ..passes.unroll_loops import UNROLL_ATTR
from ..kernel import body
from ..kernel.builders import (elected_lane_of_warp0, gep, i32, if_then, index, kernel_arg_type, kernel_func,
                               load_global, memory_type, smem_type, to_i32, to_i64, to_index)
from ..frontend.dtypes import DataType
from .matmul import BLOCK_K, BLOCK_M, CONSUMERS, CONSUMER_REGS, PRODUCER_REGS, MatmulSchedule

WGMMA_K = 16


def build_kernel(func_op, schedule: MatmulSchedule, kernel_name: str, insertion_point):
    """Insert the kernel for fusion `func_op` as `gpu.func @kernel_name` at `insertion_point`
    (inside a gpu.module)."""
    params = schedule.kernel_params()
    kernel = kernel_func(kernel_name, [kernel_arg_type(p) for p in params], CONSUMERS, insertion_point)
    entry = kernel.regions[0].blocks[0]
    with ir.InsertionPoint(entry.operations[0]):
        _KernelBuilder(func_op, schedule, params, list(entry.arguments)).build()
    return kernel


class _KernelBuilder:
    def __init__(self, func_op, schedule: MatmulSchedule, params, args):
        self.func = func_op
        self.s = schedule
        by_tensor = {p["tensor"]: a for p, a in zip(params, args) if "tensor" in p}
        self.args = by_tensor
        self.kinds = {f"input{j}": k for j, k in enumerate(schedule.operands)}
        self.dtypes = {f"input{j}": d for j, d in enumerate(schedule.in_dtypes)}
        self.m, self.n, self.k = (to_index(a) for p, a in zip(params, args) if p["kind"] == "scalar")
        self.a_map = next(by_tensor[t] for t, k in self.kinds.items() if k == "a")
        self.b_map = next(by_tensor[t] for t, k in self.kinds.items() if k == "b")
        self.matmul = next(op for op in func_op.regions[0].blocks[0].operations if op.operation.name == "fusion.matmul")

    # --- shared memory (one stage of A and B: fuser-pipeline-mbarriers makes the stage copies) ---
    def declare_buffers(self):
        s = self.s
        dtype = s.dtype
        itemsize = DataType(dtype).itemsize
        self.a_tile = nvasync.SmemBufferOp(smem_type([BLOCK_M, BLOCK_K], dtype), offset=0).buffer
        offset = BLOCK_M * BLOCK_K * itemsize
        self.b_tile = nvasync.SmemBufferOp(smem_type([s.block_n, BLOCK_K], dtype), offset=offset).buffer
        offset += s.block_n * BLOCK_K * itemsize
        self.out_boxes = []            # per output: its boxes of [BLOCK_M, box_cols]
        for dtype in s.out_dtypes:
            cols = s.out_box_cols(dtype)
            box_bytes = BLOCK_M * cols * DataType(dtype).itemsize
            self.out_boxes.append([nvasync.SmemBufferOp(smem_type([BLOCK_M, cols], dtype),
                                                        offset=offset + b * box_bytes).buffer
                                   for b in range(s.block_n // cols)])
            offset += s.block_n // cols * box_bytes

    # --- tiles -----------------------------------------------------------------------------------
    def tile_origin(self, tile):
        """(m0, n0) as i32 of tile number `tile` in grouped order: groups of `group_m` tile rows,
        walked column by column inside a group (Triton's "grouped ordering")."""
        s = self.s
        t = to_i32(tile)
        tiles_m, tiles_n = to_i32(self.tiles_m), to_i32(self.tiles_n)
        per_group = arith.muli(i32(s.group_m), tiles_n)
        group = arith.divui(t, per_group)
        first_m = arith.muli(group, i32(s.group_m))
        rows = arith.minui(arith.subi(tiles_m, first_m), i32(s.group_m))
        within = arith.remui(t, per_group)
        tm = arith.addi(first_m, arith.remui(within, rows))
        tn = arith.divui(within, rows)
        return arith.muli(tm, i32(BLOCK_M)), arith.muli(tn, i32(s.block_n))

    # --- the main loop -----------------------------------------------------------------------------
    def main_loop(self, m0, n0, wg_row):
        s = self.s
        acc_type = ir.VectorType.get([s.block_n // 2], ir.F32Type.get())
        zero = arith.constant(acc_type, ir.DenseElementsAttr.get_splat(acc_type, ir.FloatAttr.get(ir.F32Type.get(), 0.0)))
        ktiles = arith.ceildivui(self.k, index(BLOCK_K))
        loop = scf.ForOp(index(0), ktiles, index(1), [zero])
        loop.operation.attributes["nvasync.pipeline"] = ir.Attribute.parse(
            f'{{stages = {s.stages} : i64, mode = "warp_specialized", producer_regs = {PRODUCER_REGS} : i64, '
            f'consumer_regs = {CONSUMER_REGS} : i64}}')
        with ir.InsertionPoint(loop.body):
            kx = arith.muli(to_i32(loop.induction_variable), i32(BLOCK_K))
            nvasync.PipelineLoadOp(self.a_map, self.a_tile, [m0, kx], role="a")
            nvasync.PipelineLoadOp(self.b_map, self.b_tile, [n0, kx], role="b")
            acc = loop.inner_iter_args[0]
            for j in range(BLOCK_K // WGMMA_K):
                a = memref.subview(self.a_tile, [wg_row, WGMMA_K * j], [64, WGMMA_K], [1, 1])
                b = memref.subview(self.b_tile, [0, WGMMA_K * j], [s.block_n, WGMMA_K], [1, 1])
                acc = nvasync.WgmmaOp(acc.type, a, b, acc, swizzle=128, accumulate=True).result
            scf.YieldOp([acc])
        return loop.results[0]

    # --- the epilogue ------------------------------------------------------------------------------
    def operand_pair(self, tensor, row, col):
        """The compute-form values of epilogue operand `tensor` at (row, col) and (row, col + 1)
        (global indices, clamped into the tensor)."""
        kind, arg = self.kinds[tensor], self.args[tensor]
        dtype = self.dtypes[tensor]
        if kind == "value":
            value = body.to_compute(arg, dtype)
            return value, value
        itemsize = DataType(dtype).itemsize
        last_row = arith.subi(self.m, index(1))
        row = arith.minui(row, last_row)

        def load(offset, count):
            ty = ir.VectorType.get([count], memory_type(dtype)) if count > 1 else memory_type(dtype)
            loaded = body.to_compute(load_global(gep(arg, to_i64(to_i32(offset)), dtype), ty, count * itemsize), dtype)
            return [vector.extract(loaded, [], [e]) for e in range(count)] if count > 1 else [loaded]

        if kind == "one":
            value = load(index(0), 1)[0]
            return value, value
        if kind == "row":
            value = load(row, 1)[0]
            return value, value
        base = arith.muli(row, self.n) if kind == "full" else index(0)
        if self.s.pairs:
            # N even and col even: clamping to N - 2 keeps the pair inside the row.
            col = arith.minui(col, arith.subi(self.n, index(2)))
            return tuple(load(arith.addi(base, col), 2))
        last_col = arith.subi(self.n, index(1))
        return tuple(load(arith.addi(base, arith.minui(c, last_col)), 1)[0]
                     for c in (col, arith.addi(col, index(1))))

    def epilogue(self, acc, m0, n0, tid, wg_row):
        """Every fragment pair through the fusion body into the output tiles (swizzled).  The
        column groups j of one box of every output run as a loop marked `fuser.unroll`, so the
        sync passes see one pair per box and the lowering unrolls it."""
        s = self.s
        lane = arith.remui(tid, index(32))
        quad = arith.divui(lane, index(4))
        warp_row = arith.muli(arith.remui(arith.divui(tid, index(32)), index(4)), index(16))
        row0 = arith.addi(arith.addi(wg_row, warp_row), quad)          # the tile row of h = 0
        col0 = arith.muli(arith.remui(lane, index(4)), index(2))
        m0, n0 = to_index(m0), to_index(n0)
        groups = min(s.out_box_cols(d) for d in s.out_dtypes) // 8      # column groups per loop
        for chunk in range(s.block_n // 8 // groups):
            # One loop over both row halves h and the chunk's column groups: the pair's store is
            # one op whose index is injective in (thread, iteration), so the sync passes see no
            # hazard between the stores of one tile.
            loop = scf.ForOp(index(0), index(2 * groups), index(1))
            loop.operation.attributes[UNROLL_ATTR] = ir.UnitAttr.get()
            with ir.InsertionPoint(loop.body):
                h = arith.divui(loop.induction_variable, index(groups))
                group = arith.remui(loop.induction_variable, index(groups))
                row = arith.addi(row0, arith.muli(h, index(8)))
                self.pair(acc, chunk * groups, group, h, row, col0, m0, n0, quad)
                scf.YieldOp([])

    def pair(self, acc, first_group: int, group, h, row, col0, m0, n0, quad):
        """Fragment elements 4 j + 2 h + {0, 1} of column group j = first_group + group (tile row
        `row`, columns 8 j + col0 + {0, 1})."""
        s = self.s
        args = list(self.func.regions[0].blocks[0].arguments)
        j = arith.addi(group, index(first_group))
        col_in_tile = arith.addi(arith.muli(j, index(8)), col0)
        global_row, global_col = arith.addi(m0, row), arith.addi(n0, col_in_tile)
        operands = {t: self.operand_pair(t, global_row, global_col)
                    for t, kind in self.kinds.items() if kind not in ("a", "b")}
        first = arith.addi(arith.muli(j, index(4)), arith.muli(h, index(2)))
        results = []
        for e in range(2):
            lanes = [operands[f"input{i}"][e] if f"input{i}" in operands else None for i in range(len(args))]
            element = vector.extract(acc, [arith.addi(first, index(e))], [ir.ShapedType.get_dynamic_size()])
            results.append(body.evaluate(self.func, lanes, {self.matmul.result: element}))
        for o, dtype in enumerate(s.out_dtypes):
            pair = vector.from_elements(ir.VectorType.get([2], results[0][o].type), [results[0][o], results[1][o]])
            self.store_pair(o, dtype, body.to_memory(pair, dtype), row, 8 * first_group,
                            arith.addi(arith.muli(group, index(8)), col0), quad)

    def store_pair(self, o, dtype, pair, row, first_col: int, col, quad):
        """Two adjacent output elements at tile (row, first_col + col) into their swizzled box.
        The box is static: a loop of column groups stays inside one box of every output."""
        cols = self.s.out_box_cols(dtype)
        chunk = 16 // DataType(dtype).itemsize            # elements per 16-byte chunk
        box = self.out_boxes[o][first_col // cols]
        within = arith.addi(index(first_col % cols), col)
        swizzled = arith.xori(within, arith.muli(quad, index(chunk)))    # row % 8 == quad
        vector.store(pair, box, [row, swizzled])

    # --- the kernel --------------------------------------------------------------------------------
    def build(self):
        s = self.s
        self.declare_buffers()
        tid = gpu.thread_id(gpu.Dimension.x)
        issuer = elected_lane_of_warp0(tid)
        block, grid = gpu.block_id(gpu.Dimension.x), gpu.grid_dim(gpu.Dimension.x)
        self.tiles_m = arith.ceildivui(self.m, index(BLOCK_M))
        self.tiles_n = arith.ceildivui(self.n, index(s.block_n))
        num_tiles = arith.muli(self.tiles_m, self.tiles_n)
        wg_row = arith.muli(arith.divui(tid, index(128)), index(64))     # the consumer warpgroup's A rows
        my_tiles = arith.ceildivui(arith.subi(num_tiles, block), grid)
        loop = scf.ForOp(index(0), my_tiles, index(1))
        with ir.InsertionPoint(loop.body):
            m0, n0 = self.tile_origin(arith.addi(block, arith.muli(loop.induction_variable, grid)))
            acc = self.main_loop(m0, n0, wg_row)
            self.epilogue(acc, m0, n0, tid, wg_row)
            with if_then(issuer):
                for o, dtype in enumerate(s.out_dtypes):
                    out_map = self.args[f"output{o}"]
                    cols = s.out_box_cols(dtype)
                    for b, box in enumerate(self.out_boxes[o]):
                        nvasync.TmaStoreOp(out_map, box, [m0, arith.addi(n0, i32(b * cols))])
            scf.YieldOp([])
