"""The scalar math of pointwise bodies and epilogues: one fusion op on one lane.

Floating-point values compute in f32 whatever their storage type (a `cast` rounds through its
target type); booleans are i1.  Transcendentals and division carry `afn`: they lower to
ex2.approx / div.approx-based sequences (as Triton's and Inductor's do) instead of IEEE-exact
ones, which made compute-heavy fusions compute-bound on the H100.  Errors stay within a few ulp.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, math

from .builders import memory_type


def _afn():
    return ir.Attribute.parse("#arith.fastmath<afn>")


def _f32(v: float):
    return arith.constant(ir.F32Type.get(), v)


def _div(a, b):
    return arith.divf(a, b, fastmath=_afn())


def _exp(x):
    return math.exp(x, fastmath=_afn())


def _sigmoid(x):
    return _div(_f32(1.0), arith.addf(_f32(1.0), _exp(arith.negf(x))))


UNARY = {
    "neg": arith.negf,
    "abs": math.absf,
    "exp": _exp,
    "log": lambda x: math.log(x, fastmath=_afn()),
    "sqrt": math.sqrt,
    "rsqrt": math.rsqrt,
    "tanh": lambda x: math.tanh(x, fastmath=_afn()),
    "sigmoid": _sigmoid,
    "relu": lambda x: arith.maximumf(x, _f32(0.0)),
    "gelu": lambda x: arith.mulf(arith.mulf(_f32(0.5), x),
                                 arith.addf(_f32(1.0), math.erf(arith.mulf(x, _f32(0.7071067811865476))))),
    "silu": lambda x: arith.mulf(x, _sigmoid(x)),
}
BINARY = {
    "add": arith.addf, "sub": arith.subf, "mul": arith.mulf, "div": _div,
    "maximum": arith.maximumf, "minimum": arith.minimumf,
}
TERNARY = {
    "where": arith.select,
    "fma": lambda a, x, y: math.fma(a, x, y),
}


def cast(value, from_dtype: str, to_dtype: str):
    """A compute-form value of fusion type `from_dtype` converted to `to_dtype`, in compute form."""
    if to_dtype == "f32" or from_dtype == to_dtype:
        return value
    return arith.extf(ir.F32Type.get(), arith.truncf(memory_type(to_dtype), value))


def scalar(op: str, kind: str, args):
    """The lane value of fusion op `op` (`unary`, `binary`, `ternary`) of `kind` on `args`."""
    table = {"unary": UNARY, "binary": BINARY, "ternary": TERNARY}[op]
    return table[kind](*args)
