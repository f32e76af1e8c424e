"""The pointwise scheduler's kernel: a fusion func + a PointwiseSchedule -> kernel IR (gpu + nvasync).

The kernel IR it writes (one CTA per SM slot, persistent over tiles t = blockIdx.x + i * gridDim.x):

    for i in [0, my_tiles) {nvasync.pipeline = {stages, prefetch = stages, mode [, producer_regs, consumer_regs]}}:
        pipeline_load every input box of tile t        (one stage's worth)
        compute in f32: input buffers -> output buffers (the fusion body per lane, kernel.body)
        elected thread: TMA-store the output boxes of tile t

The kernel has `schedule.threads` threads, all of which compute; with mode "warp_specialized"
fuser-pipeline-mbarriers puts these (whole warpgroups) in the consumer role, adds a producer
warpgroup after them and grows `gpu.known_block_size` accordingly.  The elected thread of warp 0
(a consumer in both modes) issues the stores.

It writes no mbarrier, barrier, fence or wait: fuser-pipeline-mbarriers derives the pipeline
(stage buffers, full mbarriers, expect-tx, parities, prologue) and the sync passes derive every
barrier, fence and bulk wait from the hazards (fuser_mlir.backend.pipeline.SCHEDULE_PASSES).
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, gpu, scf, vector

from ..dialects import nvasync
from ..kernel import body
from ..kernel.builders import (elected_lane_of_warp0, i32, if_then, index, memory_type, smem_type,
                               to_i32, to_index)
from .pointwise import PointwiseSchedule


def build_kernel(func_op, schedule: PointwiseSchedule, kernel_name: str, insertion_point):
    """Insert the kernel for fusion `func_op` as `gpu.func @kernel_name` at `insertion_point`
    (inside a gpu.module)."""
    n_tmaps = len(schedule.in_dtypes) + len(schedule.out_dtypes)
    scalars = ["%rows: i32, %cols: i32"] if schedule.rank == 2 else ["%n: i32"]
    params = [f"%tm{i}: !llvm.ptr" for i in range(n_tmaps)] + scalars
    holder = ir.Module.parse(
        f"gpu.module @holder {{ gpu.func @{kernel_name}({', '.join(params)}) kernel attributes "
        f"{{gpu.known_block_size = array<i32: {schedule.threads}, 1, 1>}} {{ gpu.return }} }}")
    kernel = holder.body.operations[0].regions[0].blocks[0].operations[0]
    entry = kernel.regions[0].blocks[0]
    with ir.InsertionPoint(entry.operations[0]):
        _KernelBuilder(func_op, schedule, list(entry.arguments)).build()
    kernel.operation.detach_from_parent()
    insertion_point.insert(kernel.operation)
    return kernel


class _KernelBuilder:
    def __init__(self, func_op, schedule: PointwiseSchedule, args):
        self.func = func_op
        self.s = schedule
        n_in = len(schedule.in_dtypes)
        self.in_maps, self.out_maps = args[:n_in], args[n_in:n_in + len(schedule.out_dtypes)]
        self.dims = [to_index(a) for a in args[n_in + len(schedule.out_dtypes):]]

    # --- buffers (one stage: fuser-pipeline-mbarriers makes the stage copies) ------------------
    def declare_buffers(self):
        s = self.s
        in_offsets, out_offsets, _ = s.layout()

        def views(offset, dtype):
            box_bytes = s.buffer_bytes(dtype) // s.boxes
            boxes = [nvasync.SmemBufferOp(smem_type(s.box_shape, dtype), offset=offset + k * box_bytes).buffer
                     for k in range(s.boxes)]
            flat = nvasync.SmemBufferOp(smem_type([s.tile_elems], dtype), offset=offset).buffer
            return boxes, flat

        self.inputs = [views(off, d) for off, d in zip(in_offsets, s.in_dtypes)]
        self.outputs = [views(off, d) for off, d in zip(out_offsets, s.out_dtypes)]

    # --- tiles ---------------------------------------------------------------------------------
    def tile_grid(self):
        s = self.s
        if s.rank == 2:
            rows, cols = self.dims
            self.tiles_c = arith.ceildivui(cols, index(s.box_cols * s.boxes))
            self.num_tiles = arith.muli(arith.ceildivui(rows, index(s.box_rows)), self.tiles_c)
        else:
            self.num_tiles = arith.ceildivui(self.dims[0], index(s.box_cols * s.boxes))

    def box_coords(self, tile, k):
        """TMA coordinates (outermost first) of box k of `tile`."""
        s = self.s
        tile = to_i32(tile)       # 32-bit: a 64-bit division costs ~30 instructions per tile
        if s.rank == 2:
            tiles_c = to_i32(self.tiles_c)
            row = arith.muli(arith.divui(tile, tiles_c), i32(s.box_rows))
            col = arith.muli(arith.remui(tile, tiles_c), i32(s.box_cols * s.boxes))
            return [row, arith.addi(col, i32(k * s.box_cols))]
        return [arith.addi(arith.muli(tile, i32(s.boxes * s.box_cols)), i32(k * s.box_cols))]

    def issue_loads(self, tile):
        for j, (boxes, _) in enumerate(self.inputs):
            for k, box in enumerate(boxes):
                nvasync.PipelineLoadOp(self.in_maps[j], box, self.box_coords(tile, k))

    def issue_stores(self, tile):
        for j, (boxes, _) in enumerate(self.outputs):
            for k, box in enumerate(boxes):
                nvasync.TmaStoreOp(self.out_maps[j], box, self.box_coords(tile, k))

    # --- compute -------------------------------------------------------------------------------
    def compute(self, tid):
        s = self.s
        step = s.threads * s.vector
        for first in range(0, s.tile_elems, step):
            e = arith.muli(arith.addi(tid, index(first // s.vector)), index(s.vector))
            if s.tile_elems % step:
                with if_then(arith.cmpi(arith.CmpIPredicate.ult, e, index(s.tile_elems))):
                    self.compute_vector(e)
            else:
                self.compute_vector(e)

    def compute_vector(self, e):
        """Load `vector` elements of every input at flat offset `e`, evaluate the fusion body lane
        by lane, store every output."""
        s = self.s
        lanes = []
        for j, dtype in enumerate(s.in_dtypes):
            loaded = vector.load(ir.VectorType.get([s.vector], memory_type(dtype)), self.inputs[j][1], [e])
            loaded = body.to_compute(loaded, dtype)
            lanes.append([vector.extract(loaded, [], [i]) for i in range(s.vector)])
        results = [body.evaluate(self.func, list(lane)) for lane in zip(*lanes)]
        for j, dtype in enumerate(s.out_dtypes):
            element = results[0][j].type
            packed = vector.from_elements(ir.VectorType.get([s.vector], element), [r[j] for r in results])
            vector.store(body.to_memory(packed, dtype), self.outputs[j][1], [e])

    # --- the kernel ------------------------------------------------------------------------------
    def build(self):
        s = self.s
        self.declare_buffers()
        self.tile_grid()
        tid = gpu.thread_id(gpu.Dimension.x)
        block, grid = gpu.block_id(gpu.Dimension.x), gpu.grid_dim(gpu.Dimension.x)
        issuer = elected_lane_of_warp0(tid)
        my_tiles = arith.ceildivui(arith.subi(self.num_tiles, block), grid)
        loop = scf.ForOp(index(0), my_tiles, index(1))
        regs = (f", producer_regs = {s.producer_regs} : i64, consumer_regs = {s.consumer_regs} : i64"
                if s.producer_regs else "")
        loop.operation.attributes["nvasync.pipeline"] = ir.Attribute.parse(
            f'{{stages = {s.stages} : i64, prefetch = {s.stages} : i64, mode = "{s.mode}"{regs}}}')
        with ir.InsertionPoint(loop.body):
            tile = arith.addi(block, arith.muli(loop.induction_variable, grid))
            self.issue_loads(tile)
            self.compute(tid)
            with if_then(issuer):
                self.issue_stores(tile)
            scf.YieldOp([])
