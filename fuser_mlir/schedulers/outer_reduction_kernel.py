"""The outer-reduction scheduler's kernel: a fusion func + an OuterReductionSchedule -> kernel IR.

    thread t = (ty, tx): tx = t % tx_count across a strip, ty = t / tx_count down its rows
    for each work unit u of this CTA (persistent: u = block, block + grid, ..):
        strip = u / splits, split = u % splits; this thread's columns col .. col + vector
        (full: the flat view's); its split's rows [begin, end) = ceil(rows / splits)-sized
        acc[quantity][lane] = identity; for rows begin + ty, + ty_count, .. (unroll at a time):
            load every full input's vector at (row, col), evaluate each reduction's operand per
            lane (kernel.body), fold it into acc (var: d = v - K and d^2, K the operand at row 0)
        last split (split == splits - 1) of several: split_k_wait, then fold the other splits'
            workspace slots ty, ty + ty_count, .. into acc (in split order; full: slots t,
            t + threads, .., into lane 0)
        combine: threads of a warp with the same columns fold by shuffles, each group (warp or
            ty row) stores its partial into red[group][tx][quantity][lane], and out[quantity][column]
            = the fold of red[0..groups) at (column, quantity) in group order; full: the W column
            totals then fold over the CTA (kernel.folds), into every thread
        not the last split: the elected thread marks split_k_store(out[q] -> workspace slot
            (split, q)), mode slots (full: thread q writes total q into `partial`, one box)
        else the epilogue: threads of ty 0 read their columns' totals, finish mean and var, evaluate
            the fusion's outputs per lane and store them (full: thread 0)

Written here: no barrier, fence, wait, semaphore access or bulk group.  fuser-insert-syncs
derives the barriers around `red` and `out` (also between units: the next unit's writes after
this unit's reads and TMA stores), fuser-tma-reduce-store the store and release of the slots and
the wait and reset of the semaphore, fuser-insert-proxy-fences the proxy fences.
"""
from __future__ import annotations

from contextlib import nullcontext

from mlir import ir
from mlir.dialects import arith, gpu, memref, scf, vector

from ..diagnostics import FusionError
from ..dialects import nvasync
from ..kernel import body, folds
from ..kernel.builders import (build_kernel_with, elected_lane_of_warp0, gep, i32, i64, if_then, if_then_else, index, lanes,
                               load_global, memory_type, pack, smem_type, store_global, to_i32, to_i64, to_index)
from .outer_reduction import SLOT_REGISTERS, VECTOR_BYTES, OuterReductionSchedule, _round_up
from .pointwise_strided_kernel import check_right_aligned

_REDUCTIONS = ("fusion.reduce", "fusion.var")
_ALIGN = 128                     # TMA store sources start on 128-byte boundaries


def build_kernel(func_op, schedule: OuterReductionSchedule, kernel_name: str, insertion_point, min_ctas: int):
    """Insert the kernel for fusion `func_op` as `gpu.func @kernel_name` at `insertion_point`,
    `min_ctas` CTAs resident per SM."""
    check_right_aligned(func_op)
    return build_kernel_with(_KernelBuilder, func_op, schedule, kernel_name, schedule.threads, insertion_point,
                             min_ctas)


def _uses_reduction(value) -> bool:
    """Whether fusion value `value` is computed from a reduction's result."""
    stack = [value]
    while stack:
        owner = stack.pop().owner
        if isinstance(owner, ir.Block):
            continue
        op = owner.operation
        if op.name in _REDUCTIONS:
            return True
        stack.extend(op.operands)
    return False


class _KernelBuilder:
    def __init__(self, func_op, schedule: OuterReductionSchedule, params, args):
        self.func, self.s = func_op, schedule
        self.pointers, self.align, self.values, self.scratch, self.scalars = {}, {}, {}, {}, {}
        for p, a in zip(params, args):
            if "scratch" in p:
                self.scratch[p["scratch"], p["kind"]] = a
            elif p["kind"] == "pointer":
                self.pointers[p["tensor"]], self.align[p["tensor"]] = a, p["align"]
            elif p["kind"] == "value":
                self.values[p["tensor"]] = body.to_compute(a, p["dtype"])
            else:
                self.scalars[p["value"]] = a
        # The reductions in program order, each with its quantities' positions in acc.
        self.reductions, q = [], 0
        for op in func_op.regions[0].blocks[0].operations:
            if op.operation.name in _REDUCTIONS:
                if _uses_reduction(op.operands[0]):
                    raise FusionError("outer_reduction: a reduction over leading dims reduces a value computed from "
                                      "another reduction's result (that needs the result broadcast back over the "
                                      "reduced rows: a second pass, not scheduled yet)")
                kind = op.attributes["kind"].value if op.operation.name == "fusion.reduce" else "var"
                width = 2 if kind == "var" else 1
                self.reductions.append((op, kind, list(range(q, q + width))))
                q += width
        self.fold_kinds = [kind for _, kind, qs in self.reductions for _ in qs]     # per quantity

    # --- loads ---------------------------------------------------------------------------------
    def lane_args(self, offset, kept_offset) -> list:
        """The fusion's arguments per lane, in compute form ([lane][argument]): full inputs' vectors
        at element `offset` (i64; None in the epilogue: they are not read there), kept inputs' at
        `kept_offset` (full reductions: their one element)."""
        s, f32 = self.s, ir.F32Type.get()
        units = []
        for j, (kind, dtype) in enumerate(zip(s.in_kinds, s.in_dtypes)):
            name = f"input{j}"
            if kind == "value":
                units.append([self.values[name]] * s.vector)
            elif kind == "full" and offset is None:
                units.append([arith.constant(f32, 0.0)] * s.vector)     # unused: outputs are reduced values
            elif kind == "kept" and s.full:
                one = load_global(gep(self.pointers[name], to_i64(i32(0)), dtype), memory_type(dtype), self.align[name])
                units.append([body.to_compute(one, dtype)] * s.vector)
            else:
                at = offset if kind == "full" else kept_offset
                loaded = load_global(gep(self.pointers[name], at, dtype),
                                     ir.VectorType.get([s.vector], memory_type(dtype)), self.align[name])
                units.append(lanes(body.to_compute(loaded, dtype)))
        return [[unit[i] for unit in units] for i in range(s.vector)]

    def operands(self, args) -> list:
        """Per reduction, its operand's lane values ([reduction][lane])."""
        wanted = [op.operands[0] for op, _, _ in self.reductions]
        per_lane = [body.evaluate(self.func, lane, wanted=wanted) for lane in args]
        return [[values[r] for values in per_lane] for r in range(len(self.reductions))]

    # --- the kernel ------------------------------------------------------------------------------
    def build(self):
        s = self.s
        tid_index = gpu.thread_id(gpu.Dimension.x)
        self.tid = to_i32(tid_index)
        self.issuer = elected_lane_of_warp0(tid_index)
        self.tx = arith.andi(self.tid, i32(s.tx - 1))
        self.ty = arith.divui(self.tid, i32(s.tx))
        self.declare_buffers()
        rows, cols = self.scalars["rows"], self.scalars["cols"]
        strips = i32(1) if s.full else arith.ceildivui(cols, i32(s.width))
        units = arith.muli(strips, i32(s.splits))
        block, grid = to_i32(gpu.block_id(gpu.Dimension.x)), to_i32(gpu.grid_dim(gpu.Dimension.x))
        mine = arith.ceildivui(arith.maxsi(arith.subi(units, block), i32(0)), grid)
        loop = scf.ForOp(index(0), to_index(mine), index(1))
        with ir.InsertionPoint(loop.body):
            unit = arith.addi(block, arith.muli(to_i32(loop.induction_variable), grid))
            self.unit(arith.divui(unit, i32(s.splits)), arith.remui(unit, i32(s.splits)), strips, rows, cols)
            scf.YieldOp([])

    def declare_buffers(self):
        s = self.s
        q = s.quantities
        self.red = nvasync.SmemBufferOp(smem_type([s.groups, q * s.width], "f32"), offset=0).buffer
        boxes_at = _round_up(s.groups * q * s.width * 4, _ALIGN)
        box_bytes = _round_up(s.width * 4, _ALIGN)
        self.boxes = [nvasync.SmemBufferOp(smem_type([1, s.width], "f32"), offset=boxes_at + k * box_bytes).buffer
                      for k in range(q)]
        self.slots_offset = boxes_at + q * box_bytes           # a full reduction's CTA-fold slots
        if s.full and s.splits > 1:                             # its quantities' totals, one box
            at = _round_up(self.slots_offset + q * folds.slot_bytes(s.threads), _ALIGN)
            self.partial = nvasync.SmemBufferOp(smem_type([1, s.slot_width], "f32"), offset=at).buffer

    def unit(self, strip, split, strips, rows, cols):
        s = self.s
        col = arith.addi(arith.muli(strip, i32(s.width)), arith.muli(self.tx, i32(s.vector)))
        if s.full:
            col_ok, kept_at = None, None
        else:       # a strip's columns past the end load the last vector (masked by col_ok)
            col_ok = arith.cmpi(arith.CmpIPredicate.slt, col, cols)
            kept_at = to_i64(arith.minsi(col, arith.subi(cols, i32(s.vector))))
        chunk = arith.ceildivui(rows, i32(s.splits))
        begin = arith.minsi(arith.muli(split, chunk), rows)
        end = arith.minsi(arith.addi(begin, chunk), rows)
        shift = self.shift(kept_at)
        acc = self.fold_rows(begin, end, rows, cols, col, col_ok, kept_at, shift)
        if s.splits == 1:
            self.epilogue(col_ok, col, kept_at, self.combine(acc))
            return
        flag = gep(self.scratch["flags", "pointer"], to_i64(strip), "i32")
        last = arith.cmpi(arith.CmpIPredicate.eq, split, i32(s.splits - 1))
        acc = self.fold_slots(last, flag, acc, strip, strips)
        totals = self.combine(acc)
        if s.full:
            self.write_partial(totals)
        finish, rest = if_then_else(last)
        with finish:
            self.epilogue(col_ok, col, kept_at, totals)
        with rest:
            with if_then(self.issuer):      # one run of marks: fuser-tma-reduce-store's unit
                workspace = self.scratch["workspace", "tensormap"]
                if s.full:
                    nvasync.SplitKStoreOp(workspace, self.partial, flag, split, [split, i32(0)], mode="slots")
                    return
                pitch = arith.muli(strips, i32(s.width))
                columns = [arith.addi(arith.muli(i32(k), pitch), arith.muli(strip, i32(s.width)))
                           for k in range(len(self.boxes))]
                for box, column in zip(self.boxes, columns):     # consecutive marks: one run
                    nvasync.SplitKStoreOp(workspace, box, flag, split, [split, column], mode="slots")

    def row_offset(self, row, col, kept_at, rows, cols):
        """(element offset of (row, col) in the [rows, cols] view, i64; whether it is in the data).
        Rows past the end read row 0 and flat offsets past the end read element 0 (masked)."""
        s = self.s
        if s.full:
            flat = arith.addi(arith.muli(to_i64(row), to_i64(i32(s.width))), to_i64(col))
            inside = arith.cmpi(arith.CmpIPredicate.slt, flat, self.scalars["count"])
            return arith.select(inside, flat, to_i64(i32(0))), inside
        row = arith.select(arith.cmpi(arith.CmpIPredicate.slt, row, rows), row, i32(0))
        return arith.addi(arith.muli(to_i64(row), to_i64(cols)), kept_at), None

    def shift(self, kept_at):
        """Per var, K per lane: its operand at row 0 (full reductions: at element 0, every lane)."""
        if not any(kind == "var" for _, kind, _ in self.reductions):
            return {}
        s = self.s
        values = self.operands(self.lane_args(to_i64(i32(0)) if s.full else kept_at, kept_at))
        return {r: [v[0]] * s.vector if s.full else v
                for r, ((_, kind, _), v) in enumerate(zip(self.reductions, values)) if kind == "var"}

    def strided(self, start, end, step: int, unroll: int, acc, visit) -> list:
        """acc ([quantity][lane]) through visit(row, ok, acc) -> acc for rows start, start + step,
        .. below `end`, `unroll` rows a loop step (ok: row < end; the rows past it are visited too,
        to be masked), so a thread has `unroll` loads in flight."""
        loop = scf.ForOp(start, arith.maxsi(end, start), i32(step * unroll), [v for q in acc for v in q])
        with ir.InsertionPoint(loop.body):
            acc = self.unflatten(list(loop.inner_iter_args))
            for k in range(unroll):
                row = arith.addi(loop.induction_variable, i32(k * step))
                acc = visit(row, arith.cmpi(arith.CmpIPredicate.slt, row, end), acc)
            scf.YieldOp([v for q in acc for v in q])
        return self.unflatten(list(loop.results))

    def fold_rows(self, begin, end, rows, cols, col, col_ok, kept_at, shift) -> list:
        """acc[quantity][lane]: this thread's rows of [begin, end) folded."""
        s = self.s

        def visit(row, ok, acc):
            offset, inside = self.row_offset(row, col, kept_at, rows, cols)
            for extra in (inside, col_ok):
                ok = ok if extra is None else arith.andi(ok, extra)
            values = self.operands(self.lane_args(offset, kept_at))
            for r, (_, kind, qs) in enumerate(self.reductions):
                for lane in range(s.vector):
                    v = values[r][lane]
                    if kind == "var":
                        d = arith.subf(v, shift[r][lane])
                        contributions = [d, arith.mulf(d, d)]
                    else:
                        contributions = [v]
                    for q, c in zip(qs, contributions):
                        kept = arith.select(ok, c, folds.identity(self.fold_kinds[q]))
                        acc[q][lane] = folds.FOLD[self.fold_kinds[q]](acc[q][lane], kept)
            return acc

        inits = [[folds.identity(kind)] * s.vector for kind in self.fold_kinds]
        return self.strided(arith.addi(begin, self.ty), end, s.threads // s.tx, s.unroll, inits, visit)

    def unflatten(self, flat) -> list:
        v = self.s.vector
        return [flat[q * v:(q + 1) * v] for q in range(self.s.quantities)]

    def fold_slots(self, last, flag, acc, strip, strips) -> list:
        """The last split waits for the others and folds their workspace slots into acc, in split
        order: slots ty, ty + ty_count, .. at its columns (full: slots t, t + threads, .., their
        totals into lane 0); the other splits keep acc."""
        s = self.s
        f32 = ir.F32Type.get()
        flat = [v for q in acc for v in q]
        branch = scf.IfOp(last, [f32] * len(flat), has_else=True)
        with ir.InsertionPoint(branch.then_block):
            nvasync.SplitKWaitOp(flag, self.issuer, splits=s.splits)
            if s.full:
                start, step, width, pitch = self.tid, s.threads, 1, i32(1)
                columns, row_length = i32(0), i32(s.slot_width)
            else:
                start, step, width, pitch = self.ty, s.threads // s.tx, s.vector, arith.muli(strips, i32(s.width))
                columns = arith.addi(arith.muli(strip, i32(s.width)), arith.muli(self.tx, i32(s.vector)))
                row_length = arith.muli(pitch, i32(s.quantities))
            loaded = ir.VectorType.get([width], f32)

            def visit(slot, ok, held):
                slot = arith.select(ok, slot, i32(0))       # past the last: slot 0, masked
                base = arith.addi(arith.muli(to_i64(slot), to_i64(row_length)), to_i64(columns))
                for q, kind in enumerate(self.fold_kinds):
                    at = arith.addi(base, to_i64(arith.muli(i32(q), pitch)))
                    values = lanes(load_global(gep(self.scratch["workspace", "pointer"], at, "f32"), loaded,
                                               min(VECTOR_BYTES, 4 * width)))
                    held[q] = [folds.FOLD[kind](a, arith.select(ok, b, folds.identity(kind)))
                               for a, b in zip(held[q], values)] + held[q][width:]
                return held

            unroll = max(1, SLOT_REGISTERS // (s.quantities * width))
            scf.YieldOp([v for q in self.strided(start, i32(s.splits - 1), step, unroll, acc, visit) for v in q])
        with ir.InsertionPoint(branch.else_block):
            scf.YieldOp(flat)
        return self.unflatten(list(branch.results))

    def combine(self, acc):
        """out[q][column] = the fold of every thread's acc over the CTA, in a fixed order: threads
        of one warp holding the same columns (tx < 32) fold by xor shuffles first, then each group
        (a warp, or a ty row where tx >= 32) stores its partial into red and the groups fold in
        order.  A full reduction's W column totals then fold over the CTA: its quantities' totals,
        in every thread, are returned (None otherwise)."""
        s = self.s
        for offset in (o for o in (1, 2, 4, 8, 16) if o >= s.tx):
            acc = [[folds.FOLD[kind](v, gpu.shuffle(v, i32(offset), i32(folds.WARP), gpu.ShuffleMode.XOR)[0])
                    for v in values] for kind, values in zip(self.fold_kinds, acc)]
        group = arith.divui(self.tid, i32(max(s.tx, folds.WARP)))
        writer = arith.cmpi(arith.CmpIPredicate.ult, arith.andi(self.tid, i32(folds.WARP - 1)), i32(s.tx)) \
            if s.tx < folds.WARP else None
        # One store per thread (red[group][tx][quantity][lane]): its accesses never overlap another
        # thread's, which the sync analysis sees; one store per quantity it could not tell apart.
        with if_then(writer) if writer is not None else nullcontext():
            vector.store(pack([v for values in acc for v in values]), self.red,
                         [to_index(group), to_index(arith.muli(self.tx, i32(s.quantities * s.vector)))])
        for first in range(0, s.width, s.threads):
            column = arith.addi(self.tid, i32(first))
            inside = arith.cmpi(arith.CmpIPredicate.slt, column, i32(s.width)) if first + s.threads > s.width else None
            with if_then(inside) if inside is not None else nullcontext():
                unit = arith.muli(arith.divui(column, i32(s.vector)), i32(s.quantities * s.vector))
                lane = arith.remui(column, i32(s.vector))
                for q, kind in enumerate(self.fold_kinds):
                    at = to_index(arith.addi(arith.addi(unit, i32(q * s.vector)), lane))
                    parts = [memref.load(self.red, [index(g), at]) for g in range(s.groups)]
                    total = parts[0]
                    for part in parts[1:]:
                        total = folds.FOLD[kind](total, part)
                    memref.store(total, self.boxes[q], [index(0), to_index(column)])   # one buffer each: disjoint
        if not s.full:
            return None
        totals = []
        inside = arith.cmpi(arith.CmpIPredicate.slt, self.tid, i32(s.width))
        for q, kind in enumerate(self.fold_kinds):
            value = memref.load(self.boxes[q], [index(0), to_index(arith.minui(self.tid, i32(s.width - 1)))])
            value = arith.select(inside, value, folds.identity(kind))
            totals.append(folds.block_fold(kind, value, self.tid, s.threads,
                                           self.slots_offset + q * folds.slot_bytes(s.threads)))
        return totals

    def write_partial(self, totals):
        """A full reduction's totals into `partial` for the workspace: thread q writes quantity q
        (one store per thread, the padding 0)."""
        value = arith.constant(ir.F32Type.get(), 0.0)
        for q in reversed(range(len(totals))):
            value = arith.select(arith.cmpi(arith.CmpIPredicate.eq, self.tid, i32(q)), totals[q], value)
        with if_then(arith.cmpi(arith.CmpIPredicate.ult, self.tid, i32(self.s.slot_width))):
            memref.store(value, self.partial, [index(0), to_index(self.tid)])

    def epilogue(self, col_ok, col, kept_at, totals):
        """The results: per lane from out (columns of ty 0's threads) or, for a full reduction, the
        CTA's `totals` by thread 0; the outputs evaluated and stored."""
        s = self.s
        if s.full:
            with if_then(arith.cmpi(arith.CmpIPredicate.eq, self.tid, i32(0))):
                self.store_results([[t] for t in totals], None, to_i64(i32(0)), 1)
            return
        with if_then(arith.cmpi(arith.CmpIPredicate.ult, self.tid, i32(s.tx))):
            at = [to_index(arith.muli(self.tx, i32(s.vector)))]
            totals = [lanes(vector.load(ir.VectorType.get([s.vector], ir.F32Type.get()), self.boxes[q], [index(0)] + at))
                      for q in range(s.quantities)]
            with if_then(col_ok):
                self.store_results(totals, kept_at, to_i64(col), s.vector)

    def store_results(self, totals, kept_at, out_offset, width: int):
        """Finish each reduction from its totals, evaluate the outputs on `width` lanes, store them at
        element `out_offset` of each output."""
        s = self.s
        f32 = ir.F32Type.get()
        count = arith.sitofp(f32, self.scalars["count"])
        given = [{} for _ in range(width)]
        for r, (op, kind, qs) in enumerate(self.reductions):
            for lane in range(width):
                first = totals[qs[0]][lane]
                if kind == "mean":
                    first = arith.divf(first, count)
                elif kind == "var":
                    # sum d^2 - (sum d)^2 / n over max(n - correction, 0), d = v - K (K cancels)
                    squares = arith.subf(totals[qs[1]][lane], arith.divf(arith.mulf(first, first), count))
                    correction = ir.IntegerAttr(op.attributes["correction"]).value
                    divisor = arith.maxsi(arith.subi(self.scalars["count"], i64(correction)), i64(0))
                    first = arith.divf(squares, arith.sitofp(f32, divisor))
                given[lane][op.result] = first
        args = self.lane_args(None, kept_at)
        results = [body.evaluate(self.func, args[lane], given[lane]) for lane in range(width)]
        for j, dtype in enumerate(s.out_dtypes):
            values = [r[j] for r in results]
            value = pack(values) if width > 1 else values[0]
            store_global(body.to_memory(value, dtype), gep(self.pointers[f"output{j}"], out_offset, dtype),
                         self.align[f"output{j}"])
