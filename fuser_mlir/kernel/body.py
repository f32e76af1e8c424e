"""A fusion func's body evaluated on one lane: the compute shared by every scheduler.

`evaluate(func_op, arguments)` walks the fusion ops (and the `arith.constant`s they use) in order
and returns the lane values of the func's results.  Values are in compute form (scalar_math): f32
for floating-point tensors whatever their storage type, i32/i64 for integers, i1 for booleans.
`to_compute` and `to_memory` convert loaded and stored vectors between storage and compute form;
booleans are one byte in memory (0 or 1, as torch.bool).
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

from . import scalar_math
from .builders import memory_type


def dtype_of(value) -> str:
    """Element type name of a fusion tensor value: f32, f16, bf16, i32, i64, i1."""
    return str(ir.RankedTensorType(value.type).element_type)


def _pointwise(op, args):
    attributes = op.attributes
    params = {name: attributes[name].value for name in attributes if name != "kind" and "." not in name}
    return scalar_math.scalar(op.name.partition(".")[2], attributes["kind"].value, args, params)


# How each op of a fusion body gives its lane value from its operands' lane values.
_EVALUATE = {
    "fusion.unary": _pointwise,
    "fusion.binary": _pointwise,
    "fusion.ternary": _pointwise,
    "fusion.broadcast": lambda op, args: args[0],      # the scheduler reads operands at broadcast indices
    "fusion.cast": lambda op, args: scalar_math.cast(args[0], dtype_of(op.operands[0]), dtype_of(op.result)),
    "arith.constant": lambda op, args: scalar_math.constant(op.attributes["value"]),
}


def evaluate(func_op, arguments: list, given: dict | None = None, wanted: list | None = None) -> list:
    """Lane values of the results of fusion `func_op` -- or of the values `wanted`, evaluating only
    the ops before them --, given the lane values of its arguments and of the op results in
    `given` (a matmul's accumulator element: an epilogue; the reductions a kernel computed)."""
    body = func_op.regions[0].blocks[0]
    values = dict(zip(body.arguments, arguments))
    values.update(given or {})
    for op in body.operations:
        if wanted is not None and all(v in values for v in wanted):
            return [values[v] for v in wanted]
        op = op.operation
        if op.name == "func.return":
            return [values[v] for v in op.operands]
        if op.results and op.result in values:
            continue
        if op.name not in _EVALUATE:
            raise ValueError(f"a pointwise body cannot evaluate '{op.name}'")
        values[op.result] = _EVALUATE[op.name](op, [values[v] for v in op.operands])
    raise ValueError(f"fusion func {func_op.attributes['sym_name']} has no func.return")


def to_compute(loaded, dtype: str):
    """A loaded scalar or vector of storage type `dtype` in compute form."""
    if dtype == "i1":
        return arith.cmpi(arith.CmpIPredicate.ne, loaded, _zero(loaded.type))
    if dtype in ("f16", "bf16"):
        return arith.extf(_like(loaded.type, ir.F32Type.get()), loaded)
    return loaded


def to_memory(value, dtype: str):
    """A compute-form scalar or vector as storage type `dtype`."""
    if dtype == "i1":
        return arith.extui(_like(value.type, memory_type(dtype)), value)
    if dtype in ("f16", "bf16"):
        return arith.truncf(_like(value.type, memory_type(dtype)), value)
    return value


def _like(ty, element):
    return ir.VectorType.get(ir.VectorType(ty).shape, element) if isinstance(ty, ir.VectorType) else element


def _zero(ty):
    i8 = ir.IntegerType.get_signless(8)
    if isinstance(ty, ir.VectorType):
        return arith.constant(ty, ir.DenseElementsAttr.get_splat(ty, ir.IntegerAttr.get(i8, 0)))
    return arith.constant(ty, ir.IntegerAttr.get(i8, 0))
