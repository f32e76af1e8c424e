"""A fusion func's body evaluated on one lane: the compute shared by every scheduler.

`evaluate(func_op, arguments)` walks the fusion ops in order and returns the lane values of the
func's results.  Values are in compute form: f32 for floating-point tensors whatever their
storage type (a `cast` rounds through its target type), i1 for booleans.  `to_compute` and
`to_memory` convert loaded and stored vectors between storage and compute form.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

from . import scalar_math
from .builders import memory_type


def dtype_of(value) -> str:
    """Element type name of a fusion tensor value: f32, f16, bf16, i1."""
    return str(ir.RankedTensorType(value.type).element_type)


def evaluate(func_op, arguments: list) -> list:
    """Lane values of the results of fusion `func_op`, given the lane values of its arguments."""
    body = func_op.regions[0].blocks[0]
    values = dict(zip(body.arguments, arguments))
    for op in body.operations:
        name = op.operation.name
        if name == "func.return":
            return [values[v] for v in op.operands]
        if name == "fusion.broadcast":       # the scheduler reads operands at broadcast indices
            values[op.result] = values[op.operands[0]]
        elif name == "fusion.cast":
            values[op.result] = scalar_math.cast(values[op.operands[0]], dtype_of(op.operands[0]),
                                                 dtype_of(op.result))
        else:
            kind = ir.StringAttr(op.attributes["kind"]).value
            values[op.result] = scalar_math.scalar(name.partition(".")[2], kind,
                                                   [values[v] for v in op.operands])
    raise ValueError(f"fusion func {func_op.attributes['sym_name']} has no func.return")


def to_compute(loaded, dtype: str):
    """A loaded scalar or vector of storage type `dtype` in compute form."""
    if dtype == "i1":
        zero = arith.constant(loaded.type, _zero_attr(loaded.type))
        return arith.cmpi(arith.CmpIPredicate.ne, loaded, zero)
    if dtype == "f32":
        return loaded
    return arith.extf(_like(loaded.type, ir.F32Type.get()), loaded)


def to_memory(value, dtype: str):
    """A compute-form scalar or vector as storage type `dtype`."""
    if dtype == "f32":
        return value
    return arith.truncf(_like(value.type, memory_type(dtype)), value)


def _like(ty, element):
    return ir.VectorType.get(ir.VectorType(ty).shape, element) if isinstance(ty, ir.VectorType) else element


def _zero_attr(ty):
    i8 = ir.IntegerType.get_signless(8)
    if isinstance(ty, ir.VectorType):
        return ir.DenseElementsAttr.get_splat(ty, ir.IntegerAttr.get(i8, 0))
    return ir.IntegerAttr.get(i8, 0)
