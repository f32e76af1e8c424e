"""The row-reduction scheduler's kernel: a fusion func + a RowReductionSchedule -> kernel IR.

    row = block id x rows_per_cta + t / group (group = threads / rows_per_cta; rows past the last
    are computed on the last row and not stored), or block id / cluster; thread t holds units
    u_k = t % group + k * group (k < units) of `vector` columns, from column rank x the CTA's
    capacity in a cluster
    load every full input's units at row * N + col (a unit past the row's end reads the row's
    last unit and is masked out; past the L1 where `stream`), held in registers or stored to
    smem at [unit][thread] (`hold` smem: each pass loads them back), and every cols input's units
    at col
    per reduction, in program order:
        its operand per lane (kernel.body.evaluate, the earlier reductions given), folded over the
        thread's valid lanes (a tree), the warp (gpu.shuffle xor 16, 8, 4, 2, 1) and the row's
        warps: lane 0 of each warp stores into the reduction's smem slot, lane w of every warp
        loads the partial of its row's warp w (the others the identity) and the warp folds them by
        shuffles again (kernel.folds; a var reuses a mean of the same value); in a cluster, thread
        p < cluster stores the CTA's total into slot [rank] of CTA p's smem (nvasync.store_peer)
        and every thread folds the cluster's slots in rank order
    every output per lane: full outputs by vector stores of the valid units (the cols inputs of
    unit k + lookahead - 1 loaded before unit k's stores), row outputs by the row's first thread
    (of the cluster's rank 0).

The barrier between a slot's stores and its loads is not written here: fuser-insert-syncs
derives it (a generic write -> generic read hazard between threads), and the cluster barrier
between the peers' stores and the loads of the cluster's slots.  Every reduction has its
own slot and a CTA reduces one row, so no slot is written twice.  Rows held in smem need no
barrier: every thread loads only the elements it stored (the pass sees the same index).
"""
from __future__ import annotations


from mlir import ir
from mlir.dialects import arith, gpu, memref, vector

from ..dialects import nvasync
from ..frontend.dtypes import DataType
from ..kernel import body, folds
from ..kernel.builders import (build_kernel_with, gep, i32, if_then, index, lanes, load_global, memory_type, pack,
                               smem_type, store_global, to_i32, to_i64, to_index)
from .pointwise_strided_kernel import check_right_aligned
from .row_reduction import RowReductionSchedule



def build_kernel(func_op, schedule: RowReductionSchedule, kernel_name: str, insertion_point):
    """Insert the kernel for fusion `func_op` as `gpu.func @kernel_name` at `insertion_point`."""
    check_right_aligned(func_op)
    return build_kernel_with(_KernelBuilder, func_op, schedule, kernel_name, schedule.threads, insertion_point,
                             min_ctas=schedule.ctas_per_sm, cluster=schedule.cluster)


class _KernelBuilder:
    def __init__(self, func_op, schedule: RowReductionSchedule, params, args):
        self.func = func_op
        self.s = schedule
        self.pointers = {p["tensor"]: a for p, a in zip(params, args) if p["kind"] == "pointer"}
        self.align = {p["tensor"]: p["align"] for p in params if p["kind"] == "pointer"}
        self.values = {p["tensor"]: body.to_compute(a, p["dtype"]) for p, a in zip(params, args) if p["kind"] == "value"}
        scalars = [a for p, a in zip(params, args) if p["kind"] == "scalar"]
        self.cols = scalars[0]
        self.rows = scalars[1] if schedule.rows_per_cta > 1 else None
        self.smem_end = 0

    def build(self):
        s = self.s
        self.tid = to_i32(gpu.thread_id(gpu.Dimension.x))
        block = to_i32(gpu.block_id(gpu.Dimension.x))
        self.rank = None
        if s.cluster > 1:
            self.rank = nvasync.ClusterRankOp(ir.IntegerType.get_signless(32)).rank
            self.row, self.position, self.row_ok = arith.divui(block, i32(s.cluster)), self.tid, None
        elif s.rows_per_cta == 1:
            self.row, self.position, self.row_ok = block, self.tid, None
        else:   # the rows past the last compute on the last row and store nothing
            row = arith.addi(arith.muli(block, i32(s.rows_per_cta)), arith.divui(self.tid, i32(s.group)))
            self.row_ok = arith.cmpi(arith.CmpIPredicate.slt, row, self.rows)
            self.row = arith.minsi(row, arith.subi(self.rows, i32(1)))
            self.position = arith.remui(self.tid, i32(s.group))
        self.row_start = arith.muli(to_i64(self.row), to_i64(self.cols))
        self.held_at = to_index(arith.muli(self.tid, i32(s.vector)))
        last = arith.subi(self.cols, i32(s.vector))
        first = i32(0) if self.rank is None else arith.muli(self.rank, i32(s.capacity // s.cluster))
        self.columns, self.valid = [], []
        for k in range(s.units):
            col = arith.addi(first, arith.muli(arith.addi(self.position, i32(k * s.group)), i32(s.vector)))
            self.valid.append(arith.cmpi(arith.CmpIPredicate.slt, col, self.cols))
            self.columns.append(arith.minsi(col, last))
        # Full inputs are loaded once and stay on chip (`hold`); cols inputs (a norm's weights: small,
        # cached) are loaded again by each stage that uses them, so they are not live across the
        # reductions (measured: a LayerNorm of 32K-element rows spilled with its weights resident).
        self.full = {j: self.hold_in_smem(j) if s.hold == "smem" else self.load(j)
                     for j, kind in enumerate(s.in_kinds) if kind == "full"}
        given, means = {}, {}            # means: by the value averaged (a var reuses its mean)
        for op in self.func.regions[0].blocks[0].operations:
            name = op.operation.name
            if name == "fusion.reduce":
                kind = op.attributes["kind"].value
                if kind == "mean" and op.operands[0] in means:
                    given[op.result] = means[op.operands[0]]
                    continue
                total = self.row_fold(kind, self.lanes_of(op.operands[0], given))
                given[op.result] = arith.divf(total, self.count()) if kind == "mean" else total
                if kind == "mean":
                    means[op.operands[0]] = given[op.result]
            elif name == "fusion.var":
                given[op.result] = self.variance(op, given, means)
        self.store_outputs(given)

    # --- loads and stores ------------------------------------------------------------------------
    def load(self, j: int, columns=None) -> list:
        """Input j's lanes at the units starting at `columns` (default: all of the thread's):
        [unit][lane] in compute form."""
        s, dtype = self.s, self.s.in_dtypes[j]
        columns = self.columns if columns is None else columns
        if s.in_kinds[j] == "value":
            return [[self.values[f"input{j}"]] * s.vector for _ in columns]
        return [lanes(body.to_compute(self.load_unit(j, col), dtype)) for col in columns]

    def load_unit(self, j: int, col) -> object:
        """Input j's unit starting at column `col` as loaded: a vector in memory form."""
        s, kind, dtype = self.s, self.s.in_kinds[j], self.s.in_dtypes[j]
        offset = arith.addi(self.row_start, to_i64(col)) if kind == "full" else to_i64(col)
        return load_global(gep(self.pointers[f"input{j}"], offset, dtype),
                           ir.VectorType.get([s.vector], memory_type(dtype)), self.align[f"input{j}"],
                           l1=not (s.stream and kind == "full"))

    def hold_in_smem(self, j: int) -> list:
        """Load full input j's units and store them into shared memory, a buffer per unit indexed
        by the thread (each thread reads back only what it wrote: no barrier); the smem views, to
        load from."""
        dtype = self.s.in_dtypes[j]
        views = []
        for vec in [self.load_unit(j, col) for col in self.columns]:     # every load before the first store
            view = nvasync.SmemBufferOp(smem_type([self.s.threads * self.s.vector], dtype), offset=self.smem_end).buffer
            self.smem_end += -(-self.s.threads * self.s.vector * DataType(dtype).itemsize // 16) * 16
            vector.store(vec, view, [self.held_at])
            views.append(view)
        return views

    def full_unit(self, j: int, k: int) -> list:
        """Full input j's lanes of the thread's unit k, in compute form: held so in registers, or
        loaded back from smem."""
        if self.s.hold != "smem":
            return self.full[j][k]
        dtype = self.s.in_dtypes[j]
        held = vector.load(ir.VectorType.get([self.s.vector], memory_type(dtype)), self.full[j][k], [self.held_at])
        return lanes(body.to_compute(held, dtype))

    def lane_args(self, k: int, cols_units=None) -> list:
        """The fusion's arguments for each lane of unit k, in compute form: [lane][argument];
        cols inputs from `cols_units` (input -> lanes) where given, else loaded here."""
        s = self.s
        units = [self.full_unit(j, k) if kind == "full" else
                 cols_units[j] if kind == "cols" and cols_units is not None else self.load(j, [self.columns[k]])[0]
                 for j, kind in enumerate(s.in_kinds)]
        return [[unit[i] for unit in units] for i in range(s.vector)]

    def cols_units(self, k: int) -> dict:
        """Every cols input's lanes of unit k: {input: lanes}."""
        return {j: self.load(j, [self.columns[k]])[0] for j, kind in enumerate(self.s.in_kinds) if kind == "cols"}

    def store_outputs(self, given):
        s = self.s
        ahead = {}      # cols inputs loaded `lookahead` units before their stores (not held back by them)
        for k, (col, valid) in enumerate(zip(self.columns, self.valid)):
            for u in range(k, min(k + s.lookahead, s.units)):
                if u not in ahead:
                    ahead[u] = self.cols_units(u)
            results = [body.evaluate(self.func, args, given) for args in self.lane_args(k, ahead.pop(k))]
            full = [j for j, kind in enumerate(s.out_kinds) if kind == "full"]
            if full:
                with if_then(self.stored(valid)):
                    offset = arith.addi(self.row_start, to_i64(col))
                    for j in full:
                        dtype = s.out_dtypes[j]
                        store_global(body.to_memory(pack([r[j] for r in results]), dtype),
                                     gep(self.pointers[f"output{j}"], offset, dtype), self.align[f"output{j}"])
            rows = [j for j, kind in enumerate(s.out_kinds) if kind == "row"]
            if k == 0 and rows:               # the row's first thread's first unit is in every row
                first = arith.cmpi(arith.CmpIPredicate.eq, self.position, i32(0))
                if self.rank is not None:
                    first = arith.andi(first, arith.cmpi(arith.CmpIPredicate.eq, self.rank, i32(0)))
                with if_then(self.stored(first)):
                    for j in rows:
                        dtype = s.out_dtypes[j]
                        store_global(body.to_memory(results[0][j], dtype),
                                     gep(self.pointers[f"output{j}"], to_i64(self.row), dtype), DataType(dtype).itemsize)

    def stored(self, condition):
        """`condition` and, where a CTA holds several rows, this thread's row is one of the data's."""
        return condition if self.row_ok is None else arith.andi(condition, self.row_ok)

    # --- reductions ------------------------------------------------------------------------------
    def lanes_of(self, value, given) -> list:
        """[(lane value, valid)] of fusion value `value` over the thread's lanes."""
        return [(body.evaluate(self.func, args, given, wanted=[value])[0], valid)
                for k, valid in enumerate(self.valid) for args in self.lane_args(k)]

    def count(self):
        return arith.sitofp(ir.F32Type.get(), self.cols)

    def variance(self, op, given, means):
        """Two-pass: the mean (a mean of the same value already folded is reused), then the squared
        deviations' sum over max(N - correction, 0)."""
        values = self.lanes_of(op.operands[0], given)
        if op.operands[0] not in means:
            means[op.operands[0]] = arith.divf(self.row_fold("sum", values), self.count())
        mean = means[op.operands[0]]
        deviations = []
        for v, valid in values:
            d = arith.subf(v, mean)
            deviations.append((arith.mulf(d, d), valid))
        correction = ir.IntegerAttr(op.attributes["correction"]).value
        divisor = arith.maxsi(arith.subi(self.cols, i32(correction)), i32(0))
        return arith.divf(self.row_fold("sum", deviations), arith.sitofp(ir.F32Type.get(), divisor))

    def row_fold(self, kind: str, values):
        """The row's `kind` fold of every thread's (value, valid) lanes, in every thread: a tree
        over the thread's lanes, then the CTA (kernel.folds)."""
        s = self.s
        lanes = [arith.select(valid, v, folds.identity(kind)) for v, valid in values]
        total = folds.block_fold(kind, folds.tree(kind, lanes), self.tid, s.threads, self.smem_end, s.group)
        self.smem_end += folds.slot_bytes(s.threads)
        if s.cluster == 1:
            return total
        # The cluster's CTA totals: each in slot [rank] of every CTA, folded in rank order.
        slots = nvasync.SmemBufferOp(smem_type([s.cluster], "f32"), offset=self.smem_end).buffer
        self.smem_end += -(-4 * s.cluster // 16) * 16
        with if_then(arith.cmpi(arith.CmpIPredicate.ult, self.tid, i32(s.cluster))):
            nvasync.StorePeerOp(total, slots, self.tid, to_index(self.rank))
        return folds.tree(kind, [memref.load(slots, [index(r)]) for r in range(s.cluster)])
