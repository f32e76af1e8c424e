"""Recording a fusion (nvFuser-like): `Fusion` is a list of `Node`s over `Tensor`s.

Recording imports no MLIR.  Type promotion follows torch (the wider float wins); every op computes
in f32 and rounds to its result dtype.  Compiling and running live in `fuser_mlir.api`, which
builds on this; nothing here knows about schedulers or the runtime.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..diagnostics import FusionError
from .dtypes import DataType, promote


@dataclass(eq=False)
class Tensor:
    index: int
    shape: tuple[int, ...]     # -1: dynamic
    dtype: DataType
    name: str

    def __repr__(self):
        dims = ", ".join("?" if d < 0 else str(d) for d in self.shape)
        return f"{self.name}[{dims}]:{self.dtype.value}"


@dataclass
class Node:
    op: str                    # "input" | "unary" | "binary" | "ternary" | "cast" | "broadcast"
    kind: str                  # e.g. "relu", "add", "where"; "" for input/cast/broadcast
    args: tuple[Tensor, ...]
    out: Tensor
    attrs: dict = field(default_factory=dict)


UNARY = ("neg", "abs", "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "relu", "gelu", "silu")
BINARY = ("add", "sub", "mul", "div", "maximum", "minimum")


def _broadcast_shapes(a: Tensor, b: Tensor) -> tuple[int, ...]:
    """Right-aligned broadcast of two shapes; dynamic dims (-1) must match each other or 1."""
    ra, rb = list(reversed(a.shape)), list(reversed(b.shape))
    out = []
    for i in range(max(len(ra), len(rb))):
        da = ra[i] if i < len(ra) else 1
        db = rb[i] if i < len(rb) else 1
        if da == db or db == 1:
            out.append(da)
        elif da == 1:
            out.append(db)
        else:
            raise FusionError(f"shapes of {a!r} and {b!r} do not broadcast (dim -{i + 1}: {da} vs {db})")
    return tuple(reversed(out))


class _Ops:
    """`fd.ops.<name>(...)`: each records one node and returns its result tensor."""

    def __init__(self, fd: "Fusion"):
        self._fd = fd

    def __getattr__(self, name):
        if name in UNARY:
            return lambda x: self._fd._unary(name, x)
        if name in BINARY:
            return lambda x, y: self._fd._binary(name, x, y)
        raise AttributeError(f"fd.ops has no op '{name}'")

    def where(self, cond, x, y):
        return self._fd._where(cond, x, y)

    def cast(self, x, dtype):
        return self._fd._cast(x, dtype)

    def broadcast(self, x, shape):
        return self._fd._broadcast(x, tuple(shape))


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
        t = self._new(shape, dtype, prefix="in")
        self.nodes.append(Node("input", "", (), t))
        self.inputs.append(t)
        return t

    def _float(self, t: Tensor, what: str):
        if not t.dtype.is_float:
            raise FusionError(f"{what} takes floating-point tensors, got {t!r}")

    def _unary(self, kind, x):
        self._check(x)
        self._float(x, kind)
        out = self._new(x.shape, x.dtype)
        self.nodes.append(Node("unary", kind, (x,), out))
        return out

    def _binary(self, kind, x, y):
        self._check(x, y)
        self._float(x, kind), self._float(y, kind)
        out = self._new(_broadcast_shapes(x, y), promote(x.dtype, y.dtype))
        self.nodes.append(Node("binary", kind, (x, y), out))
        return out

    def _where(self, cond, x, y):
        self._check(cond, x, y)
        if cond.dtype is not DataType.Bool:
            raise FusionError(f"where takes a Bool condition, got {cond!r}")
        self._float(x, "where"), self._float(y, "where")
        values = Tensor(-1, _broadcast_shapes(x, y), x.dtype, f"broadcast({x.name}, {y.name})")
        out = self._new(_broadcast_shapes(cond, values), promote(x.dtype, y.dtype))
        self.nodes.append(Node("ternary", "where", (cond, x, y), out))
        return out

    def _cast(self, x, dtype):
        self._check(x)
        if not isinstance(dtype, DataType) or not dtype.is_float:
            raise FusionError(f"cast of {x!r}: unsupported target dtype {dtype!r}")
        out = self._new(x.shape, dtype)
        self.nodes.append(Node("cast", "", (x,), out))
        return out

    def _broadcast(self, x, shape):
        self._check(x)
        try:
            if _broadcast_shapes(x, Tensor(-1, shape, x.dtype, "target")) != shape:
                raise FusionError("")
        except FusionError:
            raise FusionError(f"cannot broadcast {x!r} to {list(shape)}") from None
        out = self._new(shape, x.dtype)
        self.nodes.append(Node("broadcast", "", (x,), out))
        return out

    def add_output(self, t: Tensor):
        self._check(t)
        if t in self.inputs:
            raise FusionError(f"{t!r} is an input; outputs must be computed")
        self.outputs.append(t)
