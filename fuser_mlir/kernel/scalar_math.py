"""The scalar math of pointwise bodies and epilogues: one fusion op on one lane.

Values are in compute form: f32 for every floating-point type (a `cast` rounds through its target
type), i32 or i64 for integers (integer arithmetic, wrapping as torch's does), i1 for booleans.
Each kind has one form per category of its value operands (float, int, bool); the fusion dialect's
verifier admits only the pairs that exist here.

Transcendentals and division carry `afn` where the approximate form stays within a few ulp of f32:
exp, log, tanh and division lower to ex2.approx / lg2.approx / div.approx-based sequences (as
Triton's and Inductor's do), which made compute-heavy fusions compute-bound on the H100; sigmoid
(and silu) on the flush-to-zero ex2 and rcp approximations (`_sigmoid`).  The others use
libdevice's precise forms: sin and cos (the approximation has no range reduction: its error grows
with |x|), pow (the fast form is exp2(y * log2(x)), NaN for negative bases), erf, log1p and expm1
(which exist for their accuracy near 0).
"""
from __future__ import annotations

import math as pymath
from functools import partial

from mlir import ir
from mlir.dialects import arith, llvm, math, nvvm

from .builders import memory_type

_FLOAT, _INT, _BOOL = "float", "int", "bool"
_CATEGORY = {"f32": _FLOAT, "f16": _FLOAT, "bf16": _FLOAT, "i32": _INT, "i64": _INT, "i1": _BOOL}


def _afn():
    return ir.Attribute.parse("#arith.fastmath<afn>")


def _f32(v: float):
    return arith.constant(ir.F32Type.get(), float(v))


def _like(x, v):
    """The constant `v` of x's type."""
    return arith.constant(x.type, v)


def _div(a, b):
    return arith.divf(a, b, fastmath=_afn())


def _exp(x):
    return math.exp(x, fastmath=_afn())


def _sigmoid(x):
    """1 / (1 + 2^(-x log2 e)) on the flush-to-zero forms of ex2.approx and rcp.approx: one MUFU
    op each, where the IEEE-denormal forms add a range check and two rescalings apiece (in a
    matmul's silu epilogue, 14 instructions an element against 6).  The flush costs nothing
    in range: 1 + 2^y >= 1, so only a sigmoid below 2^-126 (x < -87.3) reads 0 for a denormal."""
    f32 = ir.F32Type.get()
    power = llvm.call_intrinsic(f32, "llvm.nvvm.ex2.approx.ftz.f", [arith.mulf(x, _f32(-pymath.log2(pymath.e)))],
                                [], [])
    return nvvm.rcp_approx_ftz_f(f32, arith.addf(_f32(1.0), power))


def _float_sign(x):
    """torch's (0 < x) - (x < 0): 0 for NaN and for both zeros."""
    zero = _f32(0.0)
    above = arith.uitofp(x.type, arith.cmpf(arith.CmpFPredicate.OGT, x, zero))
    below = arith.uitofp(x.type, arith.cmpf(arith.CmpFPredicate.OLT, x, zero))
    return arith.subf(above, below)


def _int_sign(x):
    zero = _like(x, 0)
    above = arith.extui(x.type, arith.cmpi(arith.CmpIPredicate.sgt, x, zero))
    below = arith.extui(x.type, arith.cmpi(arith.CmpIPredicate.slt, x, zero))
    return arith.subi(above, below)


def _clamp(maximum, minimum):
    """torch.clamp: min(max(x, min), max), either bound optional."""
    def clamp(x, min=None, max=None):
        if min is not None:
            x = maximum(x, _like(x, min))
        if max is not None:
            x = minimum(x, _like(x, max))
        return x
    return clamp


def _nan_to_num(x, nan, posinf, neginf):
    inf = _f32(pymath.inf)
    x = arith.select(arith.cmpf(arith.CmpFPredicate.OEQ, x, inf), _f32(posinf), x)
    x = arith.select(arith.cmpf(arith.CmpFPredicate.OEQ, x, arith.negf(inf)), _f32(neginf), x)
    return arith.select(arith.cmpf(arith.CmpFPredicate.UNO, x, x), _f32(nan), x)


def _identity(x):
    return x


UNARY = {
    _FLOAT: {
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
        "erf": math.erf,
        "reciprocal": lambda x: _div(_f32(1.0), x),
        "sin": math.sin,
        "cos": math.cos,
        "log1p": math.log1p,
        "expm1": math.expm1,
        "floor": math.floor,
        "ceil": math.ceil,
        "round": math.roundeven,          # torch.round: half to even
        "sign": _float_sign,
        "isnan": lambda x: arith.cmpf(arith.CmpFPredicate.UNO, x, x),
        "isinf": lambda x: arith.cmpf(arith.CmpFPredicate.OEQ, math.absf(x), _f32(pymath.inf)),
        "clamp": _clamp(arith.maximumf, arith.minimumf),     # NaN in x or a bound gives NaN, as torch
        "nan_to_num": _nan_to_num,
    },
    _INT: {
        "neg": lambda x: arith.subi(_like(x, 0), x),
        "abs": lambda x: arith.maxsi(x, arith.subi(_like(x, 0), x)),     # math.absi has no i64 lowering
        "relu": lambda x: arith.maxsi(x, _like(x, 0)),
        "sign": _int_sign,
        "floor": _identity, "ceil": _identity, "round": _identity,
        "clamp": _clamp(arith.maxsi, arith.minsi),
    },
    _BOOL: {
        "logical_not": lambda x: arith.xori(x, _like(x, 1)),
    },
}
BINARY = {
    _FLOAT: {"add": arith.addf, "sub": arith.subf, "mul": arith.mulf, "div": _div, "pow": math.powf,
             "maximum": arith.maximumf, "minimum": arith.minimumf},
    _INT: {"add": arith.addi, "sub": arith.subi, "mul": arith.muli, "maximum": arith.maxsi, "minimum": arith.minsi},
    _BOOL: {"logical_and": arith.andi, "logical_or": arith.ori},
}
# Comparisons, predicates per category: floats ordered (NaN compares false) except ne, ints
# signed, bools unsigned (false < true).
_PREDICATES = {"eq": ("OEQ", "eq", "eq"), "ne": ("UNE", "ne", "ne"), "lt": ("OLT", "slt", "ult"),
               "le": ("OLE", "sle", "ule"), "gt": ("OGT", "sgt", "ugt"), "ge": ("OGE", "sge", "uge")}
_COMPARE = ((_FLOAT, arith.cmpf, arith.CmpFPredicate), (_INT, arith.cmpi, arith.CmpIPredicate),
            (_BOOL, arith.cmpi, arith.CmpIPredicate))
for _column, (_category, _compare, _predicate) in enumerate(_COMPARE):
    BINARY[_category].update({kind: partial(_compare, getattr(_predicate, names[_column]))
                              for kind, names in _PREDICATES.items()})
TERNARY = {
    _FLOAT: {"where": arith.select, "fma": math.fma},
    _INT: {"where": arith.select},
    _BOOL: {"where": arith.select},
}
_MATH = {"unary": UNARY, "binary": BINARY, "ternary": TERNARY}


def scalar(op: str, kind: str, args, attrs=None):
    """The lane value of fusion op `op` (`unary`, `binary`, `ternary`) of `kind` on `args`, with
    its scalar parameters `attrs` (clamp's bounds, nan_to_num's replacements)."""
    category = _CATEGORY[str(args[-1].type)]          # where's condition comes first
    fn = _MATH[op][category].get(kind)
    if fn is None:
        raise ValueError(f"fusion.{op} '{kind}' has no {category} form")
    return fn(*args, **(attrs or {}))


def compute_type(dtype: str):
    """The MLIR type values of fusion type `dtype` compute in."""
    return ir.F32Type.get() if _CATEGORY[dtype] == _FLOAT else ir.IntegerType.get_signless(int(dtype[1:]))


def _resize(x, ty):
    width, target = ir.IntegerType(x.type).width, ir.IntegerType(ty).width
    return x if width == target else (arith.extsi if target > width else arith.trunci)(ty, x)


# Conversions between categories, as torch's casts: float -> int truncates toward zero, anything
# -> bool is `!= 0` (NaN is true), bool -> number is 0 or 1.
_CONVERT = {
    (_FLOAT, _FLOAT): lambda x, ty: x,
    (_FLOAT, _INT): lambda x, ty: arith.fptosi(ty, x),
    (_FLOAT, _BOOL): lambda x, ty: arith.cmpf(arith.CmpFPredicate.UNE, x, _f32(0.0)),
    (_INT, _FLOAT): lambda x, ty: arith.sitofp(ty, x),
    (_INT, _INT): _resize,
    (_INT, _BOOL): lambda x, ty: arith.cmpi(arith.CmpIPredicate.ne, x, _like(x, 0)),
    (_BOOL, _FLOAT): lambda x, ty: arith.uitofp(ty, x),
    (_BOOL, _INT): lambda x, ty: arith.extui(ty, x),
}


def cast(value, from_dtype: str, to_dtype: str):
    """A compute-form value of fusion type `from_dtype` converted to `to_dtype`, in compute form."""
    if from_dtype == to_dtype:
        return value
    converted = _CONVERT[_CATEGORY[from_dtype], _CATEGORY[to_dtype]](value, compute_type(to_dtype))
    if to_dtype in ("f16", "bf16"):           # round through the target type
        return arith.extf(ir.F32Type.get(), arith.truncf(memory_type(to_dtype), converted))
    return converted


def constant(attr):
    """The compute-form value of a splat elements attribute (a fusion constant)."""
    attr = ir.DenseElementsAttr(attr)
    if not attr.is_splat:
        raise ValueError(f"fusion constants are splat tensors, got {attr}")
    dtype = str(attr.type.element_type)
    return arith.constant(compute_type(dtype), attr.get_splat_value().value)
