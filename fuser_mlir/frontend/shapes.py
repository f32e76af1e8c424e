"""Concrete shapes of every tensor of a recorded fusion, from the shapes of its inputs."""
from __future__ import annotations

from ..diagnostics import FusionError
from .definition import Constant, Fusion, reduced_shape
from .dtypes import DataType


def bind_shapes(fd: Fusion, specs: list[tuple[tuple[int, ...], DataType]]) -> dict[int, tuple[int, ...]]:
    """Concrete shape of every tensor (by index) from (shape, dtype) per input, checked against
    the definition.  Zero-size inputs are allowed: their fusion computes nothing."""
    if len(specs) != len(fd.inputs):
        raise FusionError(f"the fusion takes {len(fd.inputs)} inputs, got {len(specs)}")
    shapes: dict[int, tuple[int, ...]] = {}
    for t, (shape, dtype) in zip(fd.inputs, specs):
        if dtype != t.dtype:
            raise FusionError(f"input {t!r}: expected dtype {t.dtype.name}, got {dtype.name}")
        if len(shape) != len(t.shape) or any(d >= 0 and d != s for d, s in zip(t.shape, shape)):
            raise FusionError(f"input {t!r}: expected shape {list(t.shape)} (-1: any), got {list(shape)}")
        shapes[t.index] = tuple(shape)
    for node in fd.nodes:
        if node.op == "input":
            continue
        arg_shapes = [a.shape if isinstance(a, Constant) else shapes[a.index] for a in node.args]
        if node.op == "matmul":
            shape = _matmul_shape(node, *arg_shapes)
        elif node.op in ("reduce", "var"):
            shape = reduced_shape(arg_shapes[0], node.attrs["axes"], node.attrs["keepdim"])
        elif node.op == "broadcast":
            shape = tuple(s if s >= 0 else a for s, a in zip(node.out.shape, _right_align(arg_shapes[0], len(node.out.shape))))
        else:
            shape = _broadcast_concrete(node, arg_shapes)
        shapes[node.out.index] = shape
    return shapes


def _right_align(shape, rank):
    return (1,) * (rank - len(shape)) + tuple(shape)


def _broadcast_concrete(node, arg_shapes):
    rank = max(len(s) for s in arg_shapes)
    out = []
    for dims in zip(*(_right_align(s, rank) for s in arg_shapes)):
        sizes = {d for d in dims if d != 1}
        if len(sizes) > 1:
            names = ", ".join(f"{a.name}{list(s)}" for a, s in zip(node.args, arg_shapes))
            raise FusionError(f"{node.kind or node.op}: shapes do not broadcast: {names}")
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def _matmul_shape(node, a, b):
    k, n = (b[1], b[0]) if node.attrs["transpose_b"] else b
    if a[-1] != k:
        raise FusionError(f"matmul: contraction sizes differ: K = {a[-1]} in {node.args[0].name}{list(a)}, "
                          f"{k} in {node.args[1].name}{list(b)}")
    return (*a[:-1], n)
