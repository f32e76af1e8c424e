"""A recorded Fusion as fusion-dialect IR (text), and its canonical form for cache keys.

The text is what `compiled.fusion_ir` shows and what fuser-opt reads; the canonical form is plain
JSON so the GPU machine (no MLIR) computes the same cache keys.
"""
from __future__ import annotations

import json

from .definition import Fusion, Tensor

_OP = {"unary": "fusion.unary", "binary": "fusion.binary", "ternary": "fusion.ternary",
       "cast": "fusion.cast", "broadcast": "fusion.broadcast"}


def tensor_type(t: Tensor) -> str:
    dims = "".join(("?" if d < 0 else str(d)) + "x" for d in t.shape)
    return f"tensor<{dims}{t.dtype.value}>"


def _broadcast_dims(from_rank: int, to_rank: int) -> str:
    """Right-aligned broadcast (torch's rule) as the `dims` attribute."""
    return f" {{dims = array<i64: {', '.join(map(str, range(to_rank - from_rank, to_rank)))}>}}"


def fusion_ir(fd: Fusion, name: str = "fusion", schedule: str | None = None) -> str:
    """The definition as a `func.func` in the fusion dialect, with the API's implicit
    broadcasts and promotions written out as `fusion.broadcast` / `fusion.cast`; `schedule`
    is the text of a `fusion.schedule` attribute for fuser-schedule."""
    args = ", ".join(f"%{t.name}: {tensor_type(t)}" for t in fd.inputs)
    results = ", ".join(tensor_type(t) for t in fd.outputs)
    attrs = "fusion.fusion" + (f", fusion.schedule = {schedule}" if schedule else "")
    lines = [f"func.func @{name}({args}) -> ({results}) attributes {{{attrs}}} {{"]
    counter = iter(range(1 << 30))

    def emit(op, operands, result, attrs=""):
        names = ", ".join(f"%{n}" for n, _ in operands)
        types = ", ".join(t for _, t in operands)
        lines.append(f'  %{result[0]} = "{op}"({names}){attrs} : ({types}) -> {result[1]}')
        return result

    def coerce(t: Tensor, shape, dtype):
        """`t` as a tensor of `shape` and `dtype` (dtype None: keep), emitting what it takes."""
        value = (t.name, tensor_type(t))
        if tuple(t.shape) != tuple(shape):
            value = emit("fusion.broadcast", [value], (f"b{next(counter)}", tensor_type(Tensor(-1, shape, t.dtype, ""))),
                         _broadcast_dims(len(t.shape), len(shape)))
        if dtype is not None and dtype != t.dtype:
            value = emit("fusion.cast", [value], (f"c{next(counter)}", tensor_type(Tensor(-1, shape, dtype, ""))))
        return value

    for node in fd.nodes:
        if node.op == "input":
            continue
        out = (node.out.name, tensor_type(node.out))
        shape, dtype = node.out.shape, node.out.dtype
        if node.op in ("unary", "binary"):
            emit(_OP[node.op], [coerce(a, shape, dtype) for a in node.args], out, f' {{kind = "{node.kind}"}}')
        elif node.op == "ternary":
            cond, x, y = node.args
            emit(_OP[node.op], [coerce(cond, shape, None), coerce(x, shape, dtype), coerce(y, shape, dtype)],
                 out, f' {{kind = "{node.kind}"}}')
        elif node.op == "cast":
            emit(_OP[node.op], [(node.args[0].name, tensor_type(node.args[0]))], out)
        else:   # broadcast
            emit(_OP[node.op], [(node.args[0].name, tensor_type(node.args[0]))], out,
                 _broadcast_dims(len(node.args[0].shape), len(shape)))
    outs = ", ".join(f"%{t.name}" for t in fd.outputs)
    lines.append(f"  return {outs} : {results}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def canonical(fd: Fusion) -> str:
    """Everything that determines the computation, as stable JSON."""
    return json.dumps({
        "inputs": [(t.index, list(t.shape), t.dtype.value) for t in fd.inputs],
        "nodes": [(n.op, n.kind, [a.index for a in n.args], n.out.index, list(n.out.shape),
                   n.out.dtype.value) for n in fd.nodes if n.op != "input"],
        "outputs": [t.index for t in fd.outputs],
    }, sort_keys=True)
