"""The `fusion` dialect: what to compute, with no notion of threads or memory.

A fusion is a `func.func` marked `fusion.fusion`: its arguments are the input tensors, its
`func.return` operands the outputs.  Tensors are builtin ranked tensors (`?` for dynamic dims) of
f32, f16, bf16, i32, i64 or i1 (bool).  Each kind of pointwise op states the element types it
takes and whether it gives i1 (`KINDS`); its value operands share the result's shape and element
type (the Python API inserts casts and broadcasts for promotion), with one exception: every
floating-point value computes in f32, so an f32 operand may feed an f16 or bf16 op and enters it
unrounded.  That is how constants keep the precision torch computes Python numbers in: a constant
is an `arith.constant` rank-0 tensor, f32 for floating-point ops, broadcast by `fusion.broadcast`.
Scalar parameters of unary ops (clamp's bounds, nan_to_num's replacements) are attributes: f64,
or i64 for integer ops.  `cast`, `broadcast`, the reductions (`reduce`, `var`) and `matmul` change
types and shapes as their verifiers below state.
"""
from __future__ import annotations

from dataclasses import dataclass

from .opdef import Attr, OpDef, Operand, make_opviews

DIALECT = "fusion"
FUSION_ATTR = "fusion.fusion"   # unit attribute on the func.func that holds a fusion
SCHEDULE_ATTR = "fusion.schedule"   # optional: the scheduler and its decisions (fuser-schedule)
SCALAR_ARG = "fusion.scalar"          # a rank-0 argument passed by value (a kernel parameter)

FLOAT_DTYPES = ("f32", "f16", "bf16")
INT_DTYPES = ("i32", "i64")
NUMERIC_DTYPES = FLOAT_DTYPES + INT_DTYPES
BOOL_DTYPES = ("i1",)
ALL_DTYPES = NUMERIC_DTYPES + BOOL_DTYPES
HALF_DTYPES = ("f16", "bf16")     # compute in f32: an f32 operand may feed them


@dataclass(frozen=True)
class Kind:
    """What one kind of pointwise op takes and gives."""
    dtypes: tuple[str, ...]          # element types of its value operands
    predicate: bool = False          # the result is i1 (else the value operands' type)
    attrs: tuple[str, ...] = ()      # scalar parameters (f64 attributes; i64 for integer ops)
    required_attrs: int = 0          # how many of `attrs` must be given
    condition: bool = False          # the first operand is an i1 condition (where), not a value


_FLOAT_MATH = ("exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "gelu", "silu", "erf", "reciprocal", "sin",
               "cos", "log1p", "expm1")
UNARY_KINDS = {
    **dict.fromkeys(("neg", "abs", "relu", "sign", "floor", "ceil", "round"), Kind(NUMERIC_DTYPES)),
    **dict.fromkeys(_FLOAT_MATH, Kind(FLOAT_DTYPES)),
    **dict.fromkeys(("isnan", "isinf"), Kind(FLOAT_DTYPES, predicate=True)),
    "logical_not": Kind(BOOL_DTYPES),
    "clamp": Kind(NUMERIC_DTYPES, attrs=("min", "max"), required_attrs=1),
    "nan_to_num": Kind(FLOAT_DTYPES, attrs=("nan", "posinf", "neginf"), required_attrs=3),
}
BINARY_KINDS = {
    **dict.fromkeys(("add", "sub", "mul", "maximum", "minimum"), Kind(NUMERIC_DTYPES)),
    **dict.fromkeys(("div", "pow"), Kind(FLOAT_DTYPES)),
    **dict.fromkeys(("eq", "ne", "lt", "le", "gt", "ge"), Kind(ALL_DTYPES, predicate=True)),
    **dict.fromkeys(("logical_and", "logical_or"), Kind(BOOL_DTYPES)),
}
TERNARY_KINDS = {"where": Kind(ALL_DTYPES, condition=True), "fma": Kind(FLOAT_DTYPES)}
KINDS = {"unary": UNARY_KINDS, "binary": BINARY_KINDS, "ternary": TERNARY_KINDS}
# Reductions keep the element type; each kind takes these (the API casts integer and Bool sums to
# i64 first, as torch sums them).  mean divides by the count of reduced elements.
REDUCE_KINDS = {"sum": NUMERIC_DTYPES, "max": ALL_DTYPES, "min": ALL_DTYPES, "mean": FLOAT_DTYPES}

_T = Operand("x", "tensor")
_KIND = (Attr("kind", "str"),)
OPS = [
    OpDef("unary", f"Pointwise unary op; kind: {', '.join(UNARY_KINDS)}.",
          operands=(_T,), results=(Operand("result", "tensor"),), attrs=_KIND),
    OpDef("binary", f"Pointwise binary op; kind: {', '.join(BINARY_KINDS)}.",
          operands=(Operand("lhs", "tensor"), Operand("rhs", "tensor")), results=(Operand("result", "tensor"),),
          attrs=_KIND),
    OpDef("ternary", "Pointwise ternary op: where(cond: i1, x, y) or fma(a, x, y) = a * x + y.",
          operands=(Operand("first", "tensor"), Operand("x", "tensor"), Operand("y", "tensor")),
          results=(Operand("result", "tensor"),), attrs=_KIND),
    OpDef("cast", "Convert the element type; same shape.",
          operands=(_T,), results=(Operand("result", "tensor"),)),
    OpDef("broadcast", "Broadcast to the result shape; input dim i becomes result dim dims[i] "
          "(size 1 or equal); other result dims are new.",
          operands=(_T,), results=(Operand("result", "tensor"),), attrs=(Attr("dims", "i64s"),)),
    OpDef("reduce", f"Reduce over `axes`; kind: {', '.join(REDUCE_KINDS)}; keepdim keeps them as size 1.",
          operands=(_T,), results=(Operand("result", "tensor"),),
          attrs=(Attr("kind", "str"), Attr("axes", "i64s"), Attr("keepdim", "bool", False))),
    OpDef("var", "Variance over `axes` (torch.var): the mean squared deviation from the mean, with "
          "count - correction dividing; keepdim keeps the axes as size 1.",
          operands=(_T,), results=(Operand("result", "tensor"),),
          attrs=(Attr("axes", "i64s"), Attr("keepdim", "bool", False), Attr("correction", "i64", 1))),
    OpDef("matmul", "[.., M, K] x [K, N] -> [.., M, N] (b given as [N, K] with transpose_b, as "
          "torch.nn.functional.linear's weight), accumulating in f32.",
          operands=(Operand("a", "tensor"), Operand("b", "tensor")), results=(Operand("result", "tensor"),),
          attrs=(Attr("transpose_b", "bool", False),)),
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


def _kind_errors(kind: str, kinds) -> list[str]:
    return [] if kind in kinds else [f"kind must be one of {', '.join(kinds)}, got '{kind}'"]


def _dims_compatible(a: int, b: int) -> bool:
    from mlir import ir

    dynamic = ir.ShapedType.get_dynamic_size()
    return a == b or a == dynamic or b == dynamic


def _feeds(operand: str, op_type: str) -> bool:
    """An operand of element type `operand` may feed an op of type `op_type`."""
    return operand == op_type or (operand == "f32" and op_type in HALF_DTYPES)


def _check_pointwise(view):
    """A unary, binary or ternary op: its kind, the types of its operands and result, its attributes."""
    kinds = KINDS[view.operation.name.partition(".")[2]]
    errors = _kind_errors(view.kind, kinds)
    kind = kinds.get(view.kind, Kind(ALL_DTYPES))     # an unknown kind: still report unsupported types
    values = list(zip((o.name for o in view.OPDEF.operands), view.operation.operands))
    if kind.condition:
        (name, cond), values = values[0], values[1:]
        errors += _dtype_errors(cond, name, BOOL_DTYPES)
    for name, value in values:
        errors += _dtype_errors(value, name, kind.dtypes)
    if errors:
        return errors
    errors = _dtype_errors(view.result, "result", BOOL_DTYPES if kind.predicate else kind.dtypes)
    if errors:
        return errors
    result = view.result.type
    types = [str(v.type.element_type) for _, v in values]
    # The op's type: the result's, or for a predicate its operands' (f32 feeding f16 or bf16 aside).
    op_type = next((t for t in types if t != "f32"), "f32") if kind.predicate else str(result.element_type)
    for (name, value), ty in zip(values, types):
        if value.type.shape != result.shape:
            errors.append(f"'{name}' has shape {value.type} but the result is {result}")
        elif not _feeds(ty, op_type):
            errors.append(f"'{name}' has element type {ty} in an op of type {op_type} (value operands "
                          "have the op's type; an f32 operand may also feed an f16 or bf16 op)")
    if kind.condition:
        cond, x = view.first.type, view.x.type
        if cond.rank != x.rank or not all(map(_dims_compatible, cond.shape, x.shape)):
            errors.append(f"'first' has shape {cond} but x has {x}")
    return errors + _attr_errors(view, kind, op_type)


def _attr_errors(view, kind: Kind, op_type: str) -> list[str]:
    """The scalar parameters: known names, enough of them, f64 (i64 within range for integer ops)."""
    from mlir import ir

    attributes = view.operation.attributes
    given = {name: attributes[name] for name in attributes if name != "kind" and "." not in name}
    takes = f" ('{view.kind}' takes {', '.join(kind.attrs)})" if kind.attrs else ""
    errors = [f"unknown attribute '{name}'{takes}" for name in given if name not in kind.attrs]
    present = [a for a in kind.attrs if a in given]
    if len(present) < kind.required_attrs:
        need = "the attributes" if kind.required_attrs == len(kind.attrs) else "at least one of the attributes"
        errors.append(f"'{view.kind}' needs {need} {', '.join(kind.attrs)}")
    for name in present:
        attr = given[name]
        if op_type in INT_DTYPES:
            bits = int(op_type[1:])
            if not (isinstance(attr, ir.IntegerAttr) and str(attr.type) == "i64"):
                errors.append(f"'{name}' must be an i64 attribute (the op is {op_type}), got {attr}")
            elif not -2 ** (bits - 1) <= attr.value < 2 ** (bits - 1):
                errors.append(f"'{name}' = {attr.value} does not fit {op_type}")
        elif not (isinstance(attr, ir.FloatAttr) and str(attr.type) == "f64"):
            errors.append(f"'{name}' must be an f64 attribute (the op is {op_type}), got {attr}")
    return errors


def _check_cast(view):
    errors = _dtype_errors(view.x, "x", ALL_DTYPES) + _dtype_errors(view.result, "result", ALL_DTYPES)
    if not errors and view.x.type.shape != view.result.type.shape:
        errors.append(f"cast keeps the shape: {view.x.type} -> {view.result.type}")
    return errors


def _check_broadcast(view):
    errors = _dtype_errors(view.x, "x", ALL_DTYPES)
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
    errors = _kind_errors(view.kind, REDUCE_KINDS)
    return errors or _dtype_errors(view.x, "x", REDUCE_KINDS[view.kind]) or _reduced_shape_errors(view)


def _check_var(view):
    errors = _dtype_errors(view.x, "x")
    if not errors and view.correction < 0:
        errors.append(f"correction must be >= 0, got {view.correction}")
    return errors or _reduced_shape_errors(view)


def _reduced_shape_errors(view):
    """A reduction's result: the input without `axes` (size 1 with keepdim), of its element type."""
    errors = []
    src, dst, axes = view.x.type, view.result.type, view.axes
    if not axes or len(set(axes)) != len(axes) or any(a < 0 or a >= src.rank for a in axes):
        return [f"axes {axes} must be distinct and within the input rank {src.rank}"]
    expected = [1 if i in axes else s for i, s in enumerate(src.shape)] if view.keepdim else \
        [s for i, s in enumerate(src.shape) if i not in axes]
    if len(expected) != dst.rank or not all(map(_dims_compatible, expected, dst.shape)):
        errors.append(f"reducing {src} over {axes} (keepdim={view.keepdim}) cannot give {dst}")
    if src.element_type != dst.element_type:
        errors.append(f"a reduction keeps the element type: {src} -> {dst}")
    return errors


def _check_matmul(view):
    errors = _dtype_errors(view.a, "a") + _dtype_errors(view.b, "b")
    if errors:
        return errors
    a, b, out = view.a.type, view.b.type, view.result.type
    if a.element_type != b.element_type or out.element_type != a.element_type:
        errors.append(f"matmul operands and result share one element type, got {a}, {b} -> {out}")
    b_dims = "[N, K]" if view.transpose_b else "[K, N]"
    if a.rank < 2 or b.rank != 2:
        return errors + [f"matmul takes a [.., M, K] and b {b_dims}, got {a} and {b}"]
    k_b, n = (b.shape[1], b.shape[0]) if view.transpose_b else (b.shape[0], b.shape[1])
    if not _dims_compatible(a.shape[-1], k_b):
        errors.append(f"contraction sizes differ: K = {a.shape[-1]} in a, {k_b} in b {b_dims}")
    expected = list(a.shape[:-1]) + [n]
    if out.rank != len(expected) or not all(map(_dims_compatible, expected, out.shape)):
        errors.append(f"matmul of {a} and {b} cannot give {out}")
    return errors


_CHECKS = {
    "unary": _check_pointwise,
    "binary": _check_pointwise,
    "ternary": _check_pointwise,
    "cast": _check_cast,
    "broadcast": _check_broadcast,
    "reduce": _check_reduce,
    "var": _check_var,
    "matmul": _check_matmul,
}


def register_python_classes(namespace: dict) -> None:
    make_opviews(DIALECT, OPS, namespace)
