"""A recorded Fusion as fusion-dialect IR (text), and its canonical form for cache keys.

The text is what `compiled.fusion_ir` shows and what fuser-opt reads; the canonical form is plain
JSON so the GPU machine (no MLIR) computes the same cache keys.
"""
from __future__ import annotations

import json
import math
import struct

from .definition import Constant, Fusion, Tensor
from .dtypes import DataType

_OP = {"unary": "fusion.unary", "binary": "fusion.binary", "ternary": "fusion.ternary",
       "cast": "fusion.cast", "broadcast": "fusion.broadcast", "reduce": "fusion.reduce", "var": "fusion.var",
       "matmul": "fusion.matmul"}


def tensor_type(shape, dtype: DataType) -> str:
    dims = "".join(("?" if d < 0 else str(d)) + "x" for d in shape)
    return f"tensor<{dims}{dtype.value}>"


def _broadcast_dims(from_rank: int, to_rank: int) -> str:
    """Right-aligned broadcast (torch's rule) as the `dims` attribute."""
    dims = ", ".join(map(str, range(to_rank - from_rank, to_rank)))
    return f" {{dims = array<i64{': ' + dims if dims else ''}>}}"


def _float_literal(value: float, fmt: str) -> str:
    """An MLIR float literal of width `fmt` ("f": f32, "d": f64) for `value` rounded to that width:
    decimal while finite, the bit pattern for inf and nan (MLIR has no other spelling)."""
    try:
        bits = struct.pack(f">{fmt}", value)
    except OverflowError:             # beyond f32: rounds to infinity, as C++ (and torch) convert
        bits = struct.pack(f">{fmt}", math.copysign(math.inf, value))
    if not math.isfinite(struct.unpack(f">{fmt}", bits)[0]):
        return "0x" + bits.hex().upper()
    text = repr(float(value))
    return text if "." in text else text.replace("e", ".0e")      # MLIR wants 1.0e-05, not 1e-05


def _literal(value, dtype: DataType) -> str:
    """`value` in the compute type of `dtype` (f32 for floating point), as an MLIR literal."""
    if dtype is DataType.Bool:
        return "true" if value else "false"
    return _float_literal(value, "f") if dtype.is_float else str(value)


def _attr(value, dtype: DataType) -> str:
    """A scalar parameter as a typed attribute: f64 for floating-point ops, i64 for integer ones."""
    return f"{_float_literal(value, 'd')} : f64" if dtype.is_float else f"{value} : i64"


def fusion_ir(fd: Fusion, name: str = "fusion", schedule: str | None = None) -> str:
    """The definition as a `func.func` in the fusion dialect, with the API's implicit
    broadcasts and promotions written out as `fusion.broadcast` / `fusion.cast` and its Python
    numbers as `arith.constant`s; scalar inputs (fd.define_scalar) are rank-0 arguments marked
    `{fusion.scalar}` (passed by value); `schedule` is the text of a `fusion.schedule` attribute
    for fuser-schedule."""
    args = ", ".join(f"%{t.name}: {tensor_type(t.shape, t.dtype)}{' {fusion.scalar}' if t.scalar else ''}"
                     for t in fd.inputs)
    results = ", ".join(tensor_type(t.shape, t.dtype) for t in fd.outputs)
    attrs = "fusion.fusion" + (f", fusion.schedule = {schedule}" if schedule else "")
    lines = [f"func.func @{name}({args}) -> ({results}) attributes {{{attrs}}} {{"]
    counter = iter(range(1 << 30))

    def emit(op, operands, result, attrs=""):
        names = ", ".join(f"%{n}" for n, _ in operands)
        types = ", ".join(t for _, t in operands)
        lines.append(f'  %{result[0]} = "{op}"({names}){attrs} : ({types}) -> {result[1]}')
        return result

    def value(t: Tensor):
        return t.name, tensor_type(t.shape, t.dtype)

    def broadcast(v, from_rank, shape, dtype):
        return emit("fusion.broadcast", [v], (f"b{next(counter)}", tensor_type(shape, dtype)),
                    _broadcast_dims(from_rank, len(shape)))

    def constant(c: Constant, shape):
        """A rank-0 tensor of the compute type (f32 keeps a Python float as torch computes with it),
        broadcast to `shape`."""
        v = (f"k{next(counter)}", tensor_type((), c.dtype.compute))
        lines.append(f"  %{v[0]} = arith.constant dense<{_literal(c.value, c.dtype)}> : {v[1]}")
        return broadcast(v, 0, shape, c.dtype.compute) if shape else v

    coerced = {}

    def coerce(t: Tensor, shape, dtype):
        """`t` as a tensor of `shape` and `dtype`, emitting what it takes (once per tensor)."""
        key = (t.name, tuple(shape), dtype)
        if key not in coerced:
            v = value(t)
            if tuple(t.shape) != tuple(shape):
                v = broadcast(v, len(t.shape), shape, t.dtype)
            if dtype != t.dtype:
                v = emit("fusion.cast", [v], (f"c{next(counter)}", tensor_type(shape, dtype)))
            coerced[key] = v
        return coerced[key]

    for node in fd.nodes:
        if node.op == "input":
            continue
        out = (node.out.name, tensor_type(node.out.shape, node.out.dtype))
        shape = node.out.shape
        if node.op in ("unary", "binary", "ternary"):
            operands = [constant(a, shape) if isinstance(a, Constant) else coerce(a, shape, d)
                        for a, d in zip(node.args, node.arg_dtypes)]
            params = "".join(f", {k} = {_attr(v, node.arg_dtypes[-1])}" for k, v in node.attrs.items())
            emit(_OP[node.op], operands, out, f' {{kind = "{node.kind}"{params}}}')
        elif node.op == "cast":
            emit(_OP[node.op], [value(node.args[0])], out)
        elif node.op in ("reduce", "var"):
            attrs = [f'kind = "{node.kind}"'] if node.op == "reduce" else []
            attrs += [f"axes = array<i64: {', '.join(map(str, node.attrs['axes']))}>",
                      f"keepdim = {str(node.attrs['keepdim']).lower()}"]
            if node.op == "var":
                attrs.append(f"correction = {node.attrs['correction']} : i64")
            emit(_OP[node.op], [value(node.args[0])], out, f" {{{', '.join(attrs)}}}")
        elif node.op == "matmul":
            emit(_OP[node.op], [value(a) for a in node.args], out,
                 f" {{transpose_b = {str(node.attrs['transpose_b']).lower()}}}")
        else:   # broadcast
            emit(_OP[node.op], [value(node.args[0])], out, _broadcast_dims(len(node.args[0].shape), len(shape)))
    outs = ", ".join(f"%{t.name}" for t in fd.outputs)
    lines.append(f"  return {outs} : {results}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _arg_key(a: Tensor | Constant):
    return a.index if isinstance(a, Tensor) else [a.value, a.dtype.value]


def canonical(fd: Fusion) -> str:
    """Everything that determines the computation, as stable JSON (constants and scalar
    parameters by value: a different number is a different kernel)."""
    return json.dumps({
        "inputs": [(t.index, list(t.shape), t.dtype.value, t.scalar) for t in fd.inputs],
        "nodes": [(n.op, n.kind, [_arg_key(a) for a in n.args], n.out.index, list(n.out.shape),
                   n.out.dtype.value, n.attrs) for n in fd.nodes if n.op != "input"],
        "outputs": [t.index for t in fd.outputs],
    }, sort_keys=True)
