"""The `fusion` dialect: what to compute, with no notion of threads or memory.

A fusion is a `func.func` marked `fusion.fusion`: its arguments are the input tensors, its
`func.return` operands the outputs.  Tensors are builtin ranked tensors (`?` for dynamic dims) of
f32, f16 or bf16 (`i1` for the condition of `where`).  Pointwise ops keep one type for operands
and result (the Python API inserts casts for promotion); `cast`, `broadcast`, `reduce` and
`matmul` change types and shapes as their verifiers below state.
"""
from __future__ import annotations

from .opdef import Attr, OpDef, Operand, make_opviews

DIALECT = "fusion"
FUSION_ATTR = "fusion.fusion"   # unit attribute on the func.func that holds a fusion
SCHEDULE_ATTR = "fusion.schedule"   # optional: the scheduler and its decisions (fuser-schedule)

UNARY_KINDS = ("neg", "abs", "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "relu", "gelu", "silu")
BINARY_KINDS = ("add", "sub", "mul", "div", "maximum", "minimum")
TERNARY_KINDS = ("where", "fma")
REDUCE_KINDS = ("sum", "max", "min")
FLOAT_DTYPES = ("f32", "f16", "bf16")

_T = Operand("x", "tensor")
OPS = [
    OpDef("unary", f"Pointwise unary op; kind: {', '.join(UNARY_KINDS)}.",
          operands=(_T,), results=(Operand("result", "tensor", same_as="x"),), attrs=(Attr("kind", "str"),)),
    OpDef("binary", f"Pointwise binary op on equal types; kind: {', '.join(BINARY_KINDS)}.",
          operands=(Operand("lhs", "tensor"), Operand("rhs", "tensor", same_as="lhs")),
          results=(Operand("result", "tensor", same_as="lhs"),), attrs=(Attr("kind", "str"),)),
    OpDef("ternary", "Pointwise ternary op: where(cond: i1, x, y) or fma(a, x, y) = a * x + y.",
          operands=(Operand("first", "tensor"), Operand("x", "tensor"), Operand("y", "tensor", same_as="x")),
          results=(Operand("result", "tensor", same_as="x"),), attrs=(Attr("kind", "str"),)),
    OpDef("cast", "Convert the element type; same shape.",
          operands=(_T,), results=(Operand("result", "tensor"),)),
    OpDef("broadcast", "Broadcast to the result shape; input dim i becomes result dim dims[i] "
          "(size 1 or equal); other result dims are new.",
          operands=(_T,), results=(Operand("result", "tensor"),), attrs=(Attr("dims", "i64s"),)),
    OpDef("reduce", f"Reduce over `axes`; kind: {', '.join(REDUCE_KINDS)}; keepdim keeps them as size 1.",
          operands=(_T,), results=(Operand("result", "tensor"),),
          attrs=(Attr("kind", "str"), Attr("axes", "i64s"), Attr("keepdim", "bool", False))),
    OpDef("matmul", "[.., M, K] x [K, N] -> [.., M, N], accumulating in f32.",
          operands=(Operand("a", "tensor"), Operand("b", "tensor")), results=(Operand("result", "tensor"),)),
]


def verify_op(op) -> list[str]:
    op = op.operation
    check = _CHECKS.get(op.name.partition(".")[2])
    return check(op.opview) if check else []


def _dtype_errors(value, name, allowed=FLOAT_DTYPES):
    from mlir import ir

    ty = value.type
    if not isinstance(ty, ir.RankedTensorType):
        return [f"'{name}' must be a ranked tensor, got {ty}"]
    if str(ty.element_type) not in allowed:
        return [f"'{name}' has element type {ty.element_type}; supported: {', '.join(allowed)}"]
    return []


def _kind(view, kinds):
    return [] if view.kind in kinds else [f"kind must be one of {', '.join(kinds)}, got '{view.kind}'"]


def _dims_compatible(a: int, b: int) -> bool:
    from mlir import ir

    dynamic = ir.ShapedType.get_dynamic_size()
    return a == b or a == dynamic or b == dynamic


def _check_ternary(view):
    errors = _kind(view, TERNARY_KINDS) + _dtype_errors(view.x, "x")
    allowed = ("i1",) if view.kind == "where" else FLOAT_DTYPES
    errors += _dtype_errors(view.first, "first", allowed)
    if not errors and view.kind == "fma" and view.first.type != view.x.type:
        errors.append(f"fma operands must have one type, got {view.first.type} and {view.x.type}")
    if not errors:
        cond, x = view.first.type, view.x.type
        if cond.rank != x.rank or not all(map(_dims_compatible, cond.shape, x.shape)):
            errors.append(f"'first' has shape {cond} but x has {x}")
    return errors


def _check_cast(view):
    errors = _dtype_errors(view.x, "x") + _dtype_errors(view.result, "result")
    if not errors and view.x.type.shape != view.result.type.shape:
        errors.append(f"cast keeps the shape: {view.x.type} -> {view.result.type}")
    return errors


def _check_broadcast(view):
    errors = _dtype_errors(view.x, "x")
    if errors:
        return errors
    src, dst, dims = view.x.type, view.result.type, view.dims
    if src.element_type != dst.element_type:
        errors.append(f"broadcast keeps the element type: {src} -> {dst}")
    if len(dims) != src.rank:
        return errors + [f"dims has {len(dims)} entries for an input of rank {src.rank}"]
    if any(b <= a for a, b in zip(dims, dims[1:])) or any(d < 0 or d >= dst.rank for d in dims):
        return errors + [f"dims {dims} must increase strictly within the result rank {dst.rank}"]
    for i, d in enumerate(dims):
        if src.shape[i] != 1 and not _dims_compatible(src.shape[i], dst.shape[d]):
            errors.append(f"input dim {i} (size {src.shape[i]}) cannot broadcast to result dim {d} "
                          f"(size {dst.shape[d]})")
    return errors


def _check_reduce(view):
    errors = _kind(view, REDUCE_KINDS) + _dtype_errors(view.x, "x")
    if errors:
        return errors
    src, dst, axes = view.x.type, view.result.type, view.axes
    if not axes or len(set(axes)) != len(axes) or any(a < 0 or a >= src.rank for a in axes):
        return [f"axes {axes} must be distinct and within the input rank {src.rank}"]
    expected = [1 if i in axes else s for i, s in enumerate(src.shape)] if view.keepdim else \
        [s for i, s in enumerate(src.shape) if i not in axes]
    if len(expected) != dst.rank or not all(map(_dims_compatible, expected, dst.shape)):
        errors.append(f"reducing {src} over {axes} (keepdim={view.keepdim}) cannot give {dst}")
    if src.element_type != dst.element_type:
        errors.append(f"reduce keeps the element type: {src} -> {dst}")
    return errors


def _check_matmul(view):
    errors = _dtype_errors(view.a, "a") + _dtype_errors(view.b, "b")
    if errors:
        return errors
    a, b, out = view.a.type, view.b.type, view.result.type
    if a.element_type != b.element_type or out.element_type != a.element_type:
        errors.append(f"matmul operands and result share one element type, got {a}, {b} -> {out}")
    if a.rank < 2 or b.rank != 2:
        return errors + [f"matmul takes a [.., M, K] and b [K, N], got {a} and {b}"]
    if not _dims_compatible(a.shape[-1], b.shape[0]):
        errors.append(f"contraction sizes differ: K = {a.shape[-1]} in a, {b.shape[0]} in b")
    expected = list(a.shape[:-1]) + [b.shape[1]]
    if out.rank != len(expected) or not all(map(_dims_compatible, expected, out.shape)):
        errors.append(f"matmul of {a} and {b} cannot give {out}")
    return errors


_CHECKS = {
    "unary": lambda v: _kind(v, UNARY_KINDS) + _dtype_errors(v.x, "x"),
    "binary": lambda v: _kind(v, BINARY_KINDS) + _dtype_errors(v.lhs, "lhs"),
    "ternary": _check_ternary,
    "cast": _check_cast,
    "broadcast": _check_broadcast,
    "reduce": _check_reduce,
    "matmul": _check_matmul,
}


def register_python_classes(namespace: dict) -> None:
    make_opviews(DIALECT, OPS, namespace)
