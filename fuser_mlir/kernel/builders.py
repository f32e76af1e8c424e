"""Small builders for kernel IR (call inside an MLIR context and insertion point)."""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, scf

from ..dialects import nvasync

# Element types as they live in memory; bool travels as one byte.
_MEMORY_TYPES = {"f32": ir.F32Type.get, "f16": ir.F16Type.get, "bf16": ir.BF16Type.get,
                 "i1": lambda: ir.IntegerType.get_signless(8), "i64": lambda: ir.IntegerType.get_signless(64)}


def memory_type(dtype: str):
    return _MEMORY_TYPES[dtype]()


def smem_type(shape, dtype: str):
    return ir.MemRefType.get(shape, memory_type(dtype),
                             memory_space=ir.Attribute.parse("#gpu.address_space<workgroup>"))


def index(v: int):
    return arith.constant(ir.IndexType.get(), v)


def i32(v: int):
    return arith.constant(ir.IntegerType.get_signless(32), v)


def to_index(v):
    return arith.index_cast(ir.IndexType.get(), v)


def to_i32(v):
    return arith.index_cast(ir.IntegerType.get_signless(32), v)


class if_then:
    """`with if_then(cond):` builds the then-block of an scf.if with no results."""

    def __init__(self, cond):
        self.op = scf.IfOp(cond)

    def __enter__(self):
        self.ip = ir.InsertionPoint(self.op.then_block)
        self.ip.__enter__()

    def __exit__(self, *exc):
        scf.YieldOp([])
        self.ip.__exit__(*exc)


def elected_lane_of_warp0(tid):
    """One lane of warp 0 (elect.sync inside a warp-uniform test).  Kernel IR computes it once:
    bulk groups are per thread, so every TMA op, commit and wait must run on the same lane."""
    first_warp = arith.cmpi(arith.CmpIPredicate.ult, tid, index(32))
    return arith.andi(first_warp, nvasync.ElectOneOp(ir.IntegerType.get_signless(1)).elected)
