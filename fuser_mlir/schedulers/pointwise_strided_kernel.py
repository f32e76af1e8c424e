"""The strided pointwise scheduler's kernel: a fusion func + a StridedSchedule -> kernel IR.

Unit u (`vector` elements of one row of the collapsed view) is row u / chunks, columns from
(u % chunks) * vector.  The kernel IR it writes (a grid over units: persistent, or one CTA per
step, when the loop runs once):

    for step in [0, ceil((units - block * T) / (grid * T))):           T = threads * unroll
        u_k = (block + step * grid) * T + k * threads + tid,  k < unroll  (coalesced in k)
        if every u_k is a whole unit (in range, not past its row's end):
            load every input of every u_k (vector / splat / gather), then per u_k: the fusion
            body per lane (kernel.body.evaluate), store every output (vector or scalar)
        else:                                                  (row tails, the grid's last step)
            for k < unroll, if u_k < units: lanes past the row's end read the row's last element
            and store nothing

Global memory: one `!llvm.ptr<1>` argument per tensor, addressed by llvm.getelementptr with i64
element offsets (strides may reach past 2^31 elements); indices are i32.  The kernel has no
shared memory, so the sync passes find no hazard and insert nothing.
"""
from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, gpu

from ..diagnostics import FusionError
from ..frontend.dtypes import DataType
from ..kernel import body
from ..kernel.builders import (build_kernel_with, for_range, gep, i32, i64, if_then, if_then_else, lanes, load_global,
                               memory_type, pack, store_global, to_i32, to_i64)
from .pointwise_strided import StridedSchedule


def build_kernel(func_op, schedule: StridedSchedule, kernel_name: str, insertion_point):
    """Insert the kernel for fusion `func_op` as `gpu.func @kernel_name` at `insertion_point`
    (inside a gpu.module)."""
    check_right_aligned(func_op)
    return build_kernel_with(_KernelBuilder, func_op, schedule, kernel_name, schedule.threads, insertion_point)


def check_right_aligned(func_op) -> None:
    """The kernel reads inputs through strides right-aligned to the output (torch's broadcast,
    which the API writes); a `fusion.broadcast` placing a non-unit dim elsewhere is refused."""
    for op in func_op.regions[0].blocks[0].operations:
        if op.operation.name != "fusion.broadcast":
            continue
        src, dst = ir.RankedTensorType(op.operands[0].type), ir.RankedTensorType(op.result.type)
        dims = list(ir.DenseI64ArrayAttr(op.attributes["dims"]))
        if any(d != i + dst.rank - src.rank for i, d in enumerate(dims) if src.shape[i] != 1):
            raise FusionError(f"pointwise_strided broadcasts right-aligned (torch's rule); {src} -> {dst} "
                              f"with dims {dims} is not")


@dataclass
class _Unit:
    """Where unit `u` lives: its first column, each input's row offset (i64 elements) and the
    outputs' offset of its first element (i32: outputs are contiguous)."""
    u: object
    col: object
    row_offsets: list
    out_offset: object


class _KernelBuilder:
    def __init__(self, func_op, schedule: StridedSchedule, params, args):
        self.func = func_op
        self.s = schedule
        self.pointers = {p["tensor"]: a for p, a in zip(params, args) if p["kind"] == "pointer"}
        self.align = {p["tensor"]: p["align"] for p in params if p["kind"] == "pointer"}   # of vector accesses
        self.scalars = {p["value"]: a for p, a in zip(params, args) if p["kind"] == "scalar"}
        self.values = {p["tensor"]: body.to_compute(a, p["dtype"]) for p, a in zip(params, args) if p["kind"] == "value"}

    def build(self):
        s = self.s
        self.strides = {name: to_i64(v) for name, v in self.scalars.items() if name.startswith("stride")}
        self.units, self.cols = self.scalars["units"], self.scalars["cols"]
        tid = to_i32(gpu.thread_id(gpu.Dimension.x))
        block, grid = to_i32(gpu.block_id(gpu.Dimension.x)), to_i32(gpu.grid_dim(gpu.Dimension.x))
        first = arith.muli(block, i32(s.step_units))
        stride = arith.muli(grid, i32(s.step_units))
        with for_range(i32(0), arith.ceildivsi(arith.subi(self.units, first), stride)) as step:
            base = arith.addi(arith.addi(first, arith.muli(step, stride)), tid)
            units = [self.unit(arith.addi(base, i32(k * s.threads))) for k in range(s.unroll)]
            whole = None
            for unit in units:
                in_range = arith.cmpi(arith.CmpIPredicate.slt, unit.u, self.units)
                in_row = arith.cmpi(arith.CmpIPredicate.sle, arith.addi(unit.col, i32(s.vector)), self.cols)
                ok = arith.andi(in_range, in_row)
                whole = ok if whole is None else arith.andi(whole, ok)
            then, otherwise = if_then_else(whole)
            with then:
                self.whole_units(units)
            with otherwise:
                self.partial_units(base)

    # --- indexing ------------------------------------------------------------------------------
    def unit(self, u) -> _Unit:
        s = self.s
        if s.rank == 1:
            row, chunk = None, u
        else:
            chunks = self.scalars["chunks"]
            row = arith.divui(u, chunks)
            chunk = arith.subi(u, arith.muli(row, chunks))
        col = arith.muli(chunk, i32(s.vector))
        index = self.unravel(row)
        row_offsets = []
        for j in range(len(s.in_dtypes)):
            if s.in_modes[j] == "value":
                row_offsets.append(None)
                continue
            offset = i64(0)
            for d, i in enumerate(index):
                offset = arith.addi(offset, arith.muli(to_i64(i), self.strides[f"stride{j}_{d}"]))
            row_offsets.append(offset)
        out_offset = col if row is None else arith.addi(arith.muli(row, self.cols), col)
        return _Unit(u, col, row_offsets, out_offset)

    def unravel(self, row) -> list:
        """Indices of dims 0..rank-2 of `row` (none for a flat view)."""
        if row is None:
            return []
        index = []
        for d in range(self.s.rank - 2, 0, -1):
            size = self.scalars[f"size{d}"]
            quotient = arith.divui(row, size)
            index.append(arith.subi(row, arith.muli(quotient, size)))
            row = quotient
        return [row] + index[::-1]

    def element(self, j: int, unit: _Unit, col):
        """Offset (i64) of input j's element at column `col` (i32) of `unit`'s row."""
        mode = self.s.in_modes[j]
        if mode == "splat":
            return unit.row_offsets[j]
        column = to_i64(col)
        if mode == "gather":
            column = arith.muli(column, self.strides[f"stride{j}_{self.s.rank - 1}"])
        return arith.addi(unit.row_offsets[j], column)

    # --- loads ---------------------------------------------------------------------------------
    def load_scalar(self, j: int, offset):
        dtype = self.s.in_dtypes[j]
        loaded = load_global(gep(self.pointers[f"input{j}"], offset, dtype), memory_type(dtype),
                             DataType(dtype).itemsize)
        return body.to_compute(loaded, dtype)

    def load_unit(self, j: int, unit: _Unit) -> list:
        """Input j's lanes of a whole unit, in compute form."""
        s, dtype, mode = self.s, self.s.in_dtypes[j], self.s.in_modes[j]
        if mode == "vector":
            address = gep(self.pointers[f"input{j}"], self.element(j, unit, unit.col), dtype)
            loaded = load_global(address, ir.VectorType.get([s.vector], memory_type(dtype)), self.align[f"input{j}"])
            return lanes(body.to_compute(loaded, dtype))
        if mode == "splat":
            return [self.load_scalar(j, unit.row_offsets[j])] * s.vector
        if mode == "value":
            return [self.values[f"input{j}"]] * s.vector
        return [self.load_scalar(j, self.element(j, unit, arith.addi(unit.col, i32(i)))) for i in range(s.vector)]

    def load_partial(self, j: int, unit: _Unit) -> list:
        """Input j's lanes of a partial unit: lanes past the row's end read its last element."""
        s = self.s
        if s.in_modes[j] == "splat":
            return [self.load_scalar(j, unit.row_offsets[j])] * s.vector
        if s.in_modes[j] == "value":
            return [self.values[f"input{j}"]] * s.vector
        last = arith.subi(self.cols, i32(1))
        return [self.load_scalar(j, self.element(j, unit, arith.minsi(arith.addi(unit.col, i32(i)), last)))
                for i in range(s.vector)]

    # --- compute and store ---------------------------------------------------------------------
    def evaluate(self, inputs: list) -> list:
        """Per lane, the fusion's outputs: results[lane][output]."""
        return [body.evaluate(self.func, [lane_values[i] for lane_values in inputs]) for i in range(self.s.vector)]

    def store_scalar(self, j: int, value, offset) -> None:
        dtype = self.s.out_dtypes[j]
        store_global(body.to_memory(value, dtype), gep(self.pointers[f"output{j}"], to_i64(offset), dtype),
                     DataType(dtype).itemsize)

    def whole_units(self, units: list) -> None:
        s = self.s
        loaded = [[self.load_unit(j, unit) for j in range(len(s.in_dtypes))] for unit in units]
        for unit, inputs in zip(units, loaded):
            results = self.evaluate(inputs)
            for j, (dtype, mode) in enumerate(zip(s.out_dtypes, s.out_modes)):
                if mode == "vector":
                    address = gep(self.pointers[f"output{j}"], to_i64(unit.out_offset), dtype)
                    store_global(body.to_memory(pack([r[j] for r in results]), dtype), address,
                                 self.align[f"output{j}"])
                else:
                    for i, r in enumerate(results):
                        self.store_scalar(j, r[j], arith.addi(unit.out_offset, i32(i)))

    def partial_units(self, base) -> None:
        s = self.s
        with for_range(i32(0), i32(s.unroll)) as k:
            unit = self.unit(arith.addi(base, arith.muli(k, i32(s.threads))))
            with if_then(arith.cmpi(arith.CmpIPredicate.slt, unit.u, self.units)):
                results = self.evaluate([self.load_partial(j, unit) for j in range(len(s.in_dtypes))])
                for i, r in enumerate(results):
                    with if_then(arith.cmpi(arith.CmpIPredicate.slt, arith.addi(unit.col, i32(i)), self.cols)):
                        for j in range(len(s.out_dtypes)):
                            self.store_scalar(j, r[j], arith.addi(unit.out_offset, i32(i)))
