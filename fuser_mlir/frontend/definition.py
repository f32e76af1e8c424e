"""Recording a fusion (nvFuser-like): `Fusion` is a list of `Node`s over `Tensor`s.

Recording imports no MLIR.  Which kinds of op exist and which element types each takes are the
fusion dialect's tables (`dialects/fusion.py`); here they meet torch's rules: type promotion
(with Python numbers, `dtypes.result_type`), true division of integers, logical ops on any dtype.
Python numbers are operands like tensors and become `Constant`s of the type their op computes in.
Compiling and running live in `fuser_mlir.api`, which builds on this; nothing here knows about
schedulers or the runtime.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..diagnostics import FusionError
from ..dialects.fusion import (ALL_DTYPES, BINARY_KINDS, BOOL_DTYPES, FLOAT_DTYPES, KINDS, NUMERIC_DTYPES,
                               REDUCE_KINDS, UNARY_KINDS)
from .dtypes import FINITE_MAX, INT_RANGE, DataType, result_type


@dataclass(eq=False)
class Tensor:
    index: int
    shape: tuple[int, ...]     # -1: dynamic
    dtype: DataType
    name: str
    scalar: bool = False       # an input given as a Python number at each call (fd.define_scalar)

    def __repr__(self):
        if self.scalar:
            return f"{self.name}:{self.dtype.value}"
        dims = ", ".join("?" if d < 0 else str(d) for d in self.shape)
        return f"{self.name}[{dims}]:{self.dtype.value}"


@dataclass(frozen=True)
class Constant:
    """A Python number used as an operand, converted to the dtype its op computes in."""
    value: bool | int | float
    dtype: DataType
    shape = ()                 # broadcasts to anything

    @property
    def name(self) -> str:
        return repr(self.value)

    def __repr__(self):
        return f"{self.value!r}:{self.dtype.value}"


@dataclass
class Node:
    op: str                    # "input" | "unary" | "binary" | "ternary" | "cast" | "broadcast" | "reduce"
                               # | "var" | "matmul"
    kind: str                  # e.g. "relu", "add", "where"; "" for input/cast/broadcast
    args: tuple[Tensor | Constant, ...]
    out: Tensor
    attrs: dict = field(default_factory=dict)        # scalar parameters (clamp's bounds, ...)
    arg_dtypes: tuple[DataType, ...] = ()             # what each arg is converted to first


# What fd.define_scalar takes: the Python number types, as kernel parameters of these types.
SCALAR_INPUT_DTYPES = (DataType.Float, DataType.Int32, DataType.Int64, DataType.Bool)
# The API's names: every kind of the dialect; clamp and nan_to_num take their parameters as keywords.
UNARY = tuple(k for k, spec in UNARY_KINDS.items() if not spec.attrs)
BINARY = tuple(BINARY_KINDS)
# What torch does where the promoted dtype is not one the kind computes in (others are errors).
_CONVERT = {"div": DataType.Float,                 # integers: true division
            "logical_not": DataType.Bool, "logical_and": DataType.Bool, "logical_or": DataType.Bool}
_DESCRIBE = {FLOAT_DTYPES: "floating-point", NUMERIC_DTYPES: "numeric (floating-point or integer)",
             BOOL_DTYPES: "Bool", ALL_DTYPES: "any"}


def _broadcast_shapes(*operands) -> tuple[int, ...]:
    """Right-aligned broadcast of the operands' shapes; dynamic dims (-1) must match each other or 1."""
    rank = max(len(o.shape) for o in operands)
    out = []
    for i in range(1, rank + 1):
        dims = [o.shape[-i] if i <= len(o.shape) else 1 for o in operands]
        sizes = {d for d in dims if d != 1}
        if len(sizes) > 1:
            shown = " vs ".join(str(d) for d in dims)
            raise FusionError(f"shapes of {' and '.join(map(repr, operands))} do not broadcast (dim -{i}: {shown})")
        out.append(sizes.pop() if sizes else 1)
    return tuple(reversed(out))


def reduced_shape(shape, axes, keepdim: bool) -> tuple[int, ...]:
    """`shape` reduced over `axes`: without them, or with them as size 1 (keepdim)."""
    return tuple(1 if i in axes else d for i, d in enumerate(shape) if keepdim or i not in axes)


def _constant(value, dtype: DataType, tensor: Tensor | None) -> Constant:
    """`value` converted to `dtype`, as torch converts a Python number for an op of that dtype."""
    if dtype is DataType.Bool:
        return Constant(bool(value), dtype)
    lo, hi = INT_RANGE.get(dtype, (-2 ** 1024, 2 ** 1024))       # floats: any int a double holds
    if isinstance(value, int) and not lo <= value <= hi:
        raise FusionError(f"{value} does not fit {dtype.name}"
                          + (f", the dtype of {tensor!r}" if tensor is not None else ""))
    return Constant(float(value) if dtype.is_float else int(value), dtype)


class _Ops:
    """`fd.ops.<name>(...)`: each records one node and returns its result tensor.  Operands of
    binary and ternary ops are tensors of this fusion or Python numbers."""

    def __init__(self, fd: "Fusion"):
        self._fd = fd

    def __getattr__(self, name):
        if name in UNARY:
            return lambda x: self._fd._pointwise("unary", name, (x,))
        if name in BINARY:
            return lambda x, y: self._fd._pointwise("binary", name, (x, y))
        raise AttributeError(f"fd.ops has no op '{name}'")

    def where(self, cond, x, y):
        return self._fd._pointwise("ternary", "where", (cond, x, y))

    def clamp(self, x, min=None, max=None):
        """torch.clamp with Python-number bounds: min(max(x, min), max)."""
        bounds = {k: v for k, v in (("min", min), ("max", max)) if v is not None}
        if not bounds:
            raise FusionError(f"clamp of {x!r} needs min or max")
        return self._fd._pointwise("unary", "clamp", (x,), bounds)

    def nan_to_num(self, x, nan=0.0, posinf=None, neginf=None):
        """torch.nan_to_num: infinities default to the largest finite values of x's dtype."""
        limit = FINITE_MAX.get(getattr(x, "dtype", None), 0.0)
        values = {"nan": nan, "posinf": limit if posinf is None else posinf,
                  "neginf": -limit if neginf is None else neginf}
        return self._fd._pointwise("unary", "nan_to_num", (x,), values, attrs_promote=False)

    def cast(self, x, dtype):
        return self._fd._cast(x, dtype)

    def broadcast(self, x, shape):
        return self._fd._broadcast(x, tuple(shape))

    def sum(self, x, dims=None, keepdim=False):
        """torch.sum over `dims` (an int, a sequence, or None: every dim); integer and Bool tensors
        sum in Int64, as torch does."""
        return self._fd._reduce("sum", x, dims, keepdim)

    def max(self, x, dims=None, keepdim=False):
        """torch.amax: the largest value over `dims` (NaN if any is NaN)."""
        return self._fd._reduce("max", x, dims, keepdim)

    def min(self, x, dims=None, keepdim=False):
        """torch.amin: the smallest value over `dims` (NaN if any is NaN)."""
        return self._fd._reduce("min", x, dims, keepdim)

    def mean(self, x, dims=None, keepdim=False):
        """torch.mean over `dims` of a floating-point tensor."""
        return self._fd._reduce("mean", x, dims, keepdim)

    def var(self, x, dims=None, correction=1, keepdim=False):
        """torch.var over `dims` of a floating-point tensor: count - correction divides the sum of
        squared deviations (1: the unbiased estimate, torch's default; 0: LayerNorm's)."""
        return self._fd._reduce("var", x, dims, keepdim, correction)

    def matmul(self, a, b):
        """torch.matmul of a [.., M, K] and b [K, N] (bf16 or f16, accumulating in f32): [.., M, N]
        of a's dtype."""
        return self._fd._matmul(a, b, transpose_b=False)

    def linear(self, x, w, bias=None):
        """torch.nn.functional.linear: x [.., M, K] times w [N, K] transposed, plus bias [N]."""
        y = self._fd._matmul(x, w, transpose_b=True)
        return y if bias is None else self._fd._pointwise("binary", "add", (y, bias))


class Fusion:
    """A fusion being recorded: `with Fusion() as fd:` ... `fd.add_output(t)`."""

    def __init__(self):
        self.nodes: list[Node] = []
        self.inputs: list[Tensor] = []
        self.outputs: list[Tensor] = []
        self.ops = _Ops(self)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if exc[0] is None and not self.outputs:
            raise FusionError("a fusion needs at least one output (fd.add_output)")
        return False

    # --- recording -------------------------------------------------------------------------------
    def _new(self, shape, dtype, prefix="t") -> Tensor:
        index = sum(1 for _ in self._all_tensors())
        return Tensor(index, tuple(shape), dtype, f"{prefix}{index}")

    def _all_tensors(self):
        for node in self.nodes:
            yield node.out

    def _check(self, *tensors):
        for t in tensors:
            if not isinstance(t, Tensor) or all(t is not n.out for n in self.nodes):
                raise FusionError(f"{t!r} is not a tensor of this fusion definition")

    def define_tensor(self, shape, dtype: DataType = DataType.Float) -> Tensor:
        if not isinstance(dtype, DataType):
            raise FusionError(f"unsupported dtype {dtype!r}: use fuser_mlir.DataType")
        if any(not isinstance(d, int) or d < -1 or d == 0 for d in shape):
            raise FusionError(f"shape {list(shape)}: dims are positive sizes or -1 (dynamic)")
        return self._input(self._new(shape, dtype, prefix="in"))

    def _input(self, t: Tensor) -> Tensor:
        self.nodes.append(Node("input", "", (), t))
        self.inputs.append(t)
        return t

    def define_scalar(self, dtype: DataType = DataType.Float) -> Tensor:
        """An input given as a Python number at each call (`fd.execute([x, 0.5])`): a kernel
        parameter, so a new value does not recompile.  It takes part in ops like a 0-d tensor."""
        if dtype not in SCALAR_INPUT_DTYPES:
            raise FusionError(f"unsupported scalar dtype {dtype!r}: define_scalar takes "
                              f"{', '.join(d.name for d in SCALAR_INPUT_DTYPES)}")
        t = self._new((), dtype, prefix="s")
        t.scalar = True
        return self._input(t)

    def _pointwise(self, op: str, kind: str, operands, attrs=None, attrs_promote=True):
        """Record a unary/binary/ternary node: its value operands (and scalar parameters `attrs`,
        unless `attrs_promote` is false) promoted by torch's rules to the dtype the kind computes
        in; Python numbers become constants."""
        spec = KINDS[op][kind]
        attrs = attrs or {}
        cond, operands = (operands[:1], operands[1:]) if spec.condition else ((), operands)
        self._check(*cond)
        if cond and cond[0].dtype is not DataType.Bool:
            raise FusionError(f"{kind} takes a Bool condition, got {cond[0]!r}")
        self._check(*[a for a in operands if isinstance(a, Tensor)])
        # Scalar inputs (fd.define_scalar) promote like the Python numbers they are given as.
        tensors = [a for a in operands if isinstance(a, Tensor) and not a.scalar]
        scalars = [a for a in operands if isinstance(a, Tensor) and a.scalar]
        numbers = [a for a in operands if not isinstance(a, Tensor)]
        for a in numbers + list(attrs.values()):
            if not isinstance(a, (int, float)):
                raise FusionError(f"{kind}: {a!r} is neither a tensor of this fusion definition nor a Python number")
        if not tensors and not cond:
            raise FusionError(f"{kind} needs a tensor operand, got only Python numbers "
                              f"{numbers}{f' and scalar inputs {scalars}' if scalars else ''}")
        dtype = result_type([t.dtype for t in tensors], numbers + list(attrs.values()) * attrs_promote,
                            [t.dtype for t in scalars])
        if dtype.value not in spec.dtypes:
            dtype = _CONVERT.get(kind, dtype)
        if dtype.value not in spec.dtypes:
            culprit = next((t for t in tensors if t.dtype.value not in spec.dtypes), tensors[0])
            raise FusionError(f"{kind} takes {_DESCRIBE[spec.dtypes]} tensors, got {culprit!r}; "
                              "cast it first (fd.ops.cast)")
        first = tensors[0] if tensors else None
        args = tuple(a if isinstance(a, Tensor) else _constant(a, dtype, first) for a in operands)
        params = {k: _constant(v, dtype, first).value for k, v in attrs.items()}
        out = self._new(_broadcast_shapes(*cond, *args), DataType.Bool if spec.predicate else dtype)
        # A scalar input converts to the op's compute type, as torch converts a Python number.
        arg_dtypes = (DataType.Bool,) * len(cond) + tuple(dtype.compute if isinstance(a, Tensor) and a.scalar
                                                          else dtype for a in args)
        self.nodes.append(Node(op, kind, (*cond, *args), out, params, arg_dtypes))
        return out

    def _cast(self, x, dtype):
        self._check(x)
        if not isinstance(dtype, DataType):
            raise FusionError(f"cast of {x!r}: unsupported target dtype {dtype!r}")
        out = self._new(x.shape, dtype)
        self.nodes.append(Node("cast", "", (x,), out))
        return out

    def _broadcast(self, x, shape):
        self._check(x)
        if any(not isinstance(d, int) or isinstance(d, bool) or d < -1 for d in shape):
            raise FusionError(f"cannot broadcast {x!r} to {list(shape)}: the shape takes sizes (ints >= 0, "
                              "or -1 for a dynamic size)")
        try:
            if _broadcast_shapes(x, Tensor(-1, shape, x.dtype, "target")) != shape:
                raise FusionError("")
        except FusionError:
            raise FusionError(f"cannot broadcast {x!r} to {list(shape)}") from None
        out = self._new(shape, x.dtype)
        self.nodes.append(Node("broadcast", "", (x,), out))
        return out

    def _reduce(self, kind: str, x, dims, keepdim: bool, correction: int | None = None):
        """Record a reduction (`fusion.reduce` of `kind`, or `fusion.var` with `correction`) over
        `dims` (torch's: negative counts from the end; None: all), with torch's result dtype."""
        self._check(x)
        rank = len(x.shape)
        if rank == 0:
            raise FusionError(f"{kind} of {x!r}: reduce a tensor of rank 1 or more")
        given = range(rank) if dims is None else [dims] if isinstance(dims, int) else \
            list(dims) if isinstance(dims, (list, tuple, range)) else None
        if not given or any(not isinstance(d, int) or not -rank <= d < rank for d in given):
            raise FusionError(f"{kind} of {x!r}: dims {dims!r} must be ints in [{-rank}, {rank})")
        axes = tuple(sorted({d % rank for d in given}))
        if len(axes) != len(given):
            raise FusionError(f"{kind} of {x!r}: dims {list(given)} repeat a dim")
        if not isinstance(keepdim, bool):
            raise FusionError(f"{kind} of {x!r}: keepdim must be True or False, got {keepdim!r}")
        allowed = FLOAT_DTYPES if kind == "var" else REDUCE_KINDS[kind]
        if kind == "sum" and not x.dtype.is_float:
            x = self._cast(x, DataType.Int64)              # torch sums integers and Bools in int64
        elif x.dtype.value not in allowed:
            raise FusionError(f"{kind} takes {_DESCRIBE[allowed]} tensors, got {x!r}; cast it first (fd.ops.cast)")
        if correction is not None and (not isinstance(correction, int) or isinstance(correction, bool)
                                       or correction < 0):
            raise FusionError(f"var of {x!r}: correction must be an int >= 0, got {correction!r}")
        out = self._new(reduced_shape(x.shape, axes, keepdim), x.dtype)
        if kind == "var":
            self.nodes.append(Node("var", "", (x,), out, {"axes": axes, "keepdim": keepdim, "correction": correction}))
        else:
            self.nodes.append(Node("reduce", kind, (x,), out, {"axes": axes, "keepdim": keepdim}))
        return out

    def _matmul(self, a, b, transpose_b: bool):
        self._check(a, b)
        if a.dtype is not b.dtype or a.dtype not in (DataType.BFloat16, DataType.Half):
            raise FusionError(f"matmul takes two bf16 or two f16 tensors, got {a!r} and {b!r}; cast them first")
        b_dims = "[N, K]" if transpose_b else "[K, N]"
        if len(a.shape) < 2 or len(b.shape) != 2:
            raise FusionError(f"matmul takes a [.., M, K] and b {b_dims}, got {a!r} and {b!r}")
        k, n = (b.shape[1], b.shape[0]) if transpose_b else b.shape
        if -1 not in (k, a.shape[-1]) and k != a.shape[-1]:
            raise FusionError(f"matmul: contraction sizes differ: K = {a.shape[-1]} in {a!r}, {k} in {b!r} {b_dims}")
        out = self._new((*a.shape[:-1], n), a.dtype)
        self.nodes.append(Node("matmul", "", (a, b), out, {"transpose_b": transpose_b}))
        return out

    def add_output(self, t: Tensor):
        self._check(t)
        if t in self.inputs:
            raise FusionError(f"{t!r} is an input; outputs must be computed")
        self.outputs.append(t)
