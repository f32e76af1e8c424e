"""Schedulers: each turns one kind of fusion into kernel IR, behind one interface.

A scheduler is a module-level object with
  - `name`;
  - `can_schedule(sig) -> str | None`: None when it takes the fusion, else why not;
  - `heuristic(sig) -> Params`: plain Python (the GPU machine runs it to size launches), from the
    fusion's signature with concrete shapes (the API) or static/dynamic ones (fuser-opt);
  - `params_from_attr(sig, attr)` / `params_attr(params)`: the params as the `fusion.schedule`
    attribute a fusion func carries into `fuser-schedule`;
  - `build(func_op, params, insertion_point)`: the kernel (a `gpu.func`), MLIR only here;
  - `launch(params, sig)`: the launch recipe the runtime follows (kernel params, block, smem).
`pick` asks each registered scheduler in turn, as nvFuser's registry does.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..diagnostics import FusionError
from ..frontend.dtypes import DataType


@dataclass(frozen=True)
class TensorSig:
    shape: tuple[int, ...]      # -1: dynamic (unknown until launch)
    dtype: DataType


@dataclass(frozen=True)
class FusionSig:
    """What schedulers decide from: the fusion ops used and the inputs' and outputs' types."""
    ops: frozenset[str]         # fusion op names without the dialect prefix: "unary", "reduce", ...
    inputs: tuple[TensorSig, ...]
    outputs: tuple[TensorSig, ...]


def registry():
    from . import pointwise

    return (pointwise.SCHEDULER,)


def by_name(name: str):
    for scheduler in registry():
        if scheduler.name == name:
            return scheduler
    raise FusionError(f"no scheduler named '{name}' (have: {', '.join(s.name for s in registry())})")


def pick(sig: FusionSig):
    """The first scheduler that takes `sig`; else an error listing each one's reason."""
    reasons = []
    for scheduler in registry():
        reason = scheduler.can_schedule(sig)
        if reason is None:
            return scheduler
        reasons.append(f"{scheduler.name}: {reason}")
    raise FusionError("no scheduler can compile this fusion (" + "; ".join(reasons) + ")")
