"""Schedulers: each turns one kind of fusion into kernel IR, behind one interface.

A scheduler is a module-level object with
  - `name`;
  - `can_schedule(sig) -> str | None`: None when it takes the fusion, else why not;
  - `heuristic(sig) -> Params`: plain Python (the GPU machine runs it to size launches), from the
    fusion's signature with concrete shapes (the API) or static/dynamic ones (fuser-opt);
  - `encode(params) -> dict` / `decode(sig, fields) -> Params`: the decisions as the
    `fusion.schedule` attribute's fields (ints and strings), which also key the artifact cache;
    `decode` takes some of them (a user's override) and fills the rest by the heuristic;
  - `signature_facts`: the encode fields that record how the API read the inputs (kinds,
    layouts), for fusion IR whose `?` sizes or missing strides hide them; `schedule=` through
    the API may not give them (the API reads them from the tensors);
  - `build(func_op, params, kernel_name, insertion_point)`: the kernel (a `gpu.func`), MLIR only here;
  - `launch(params, sig) -> {"tiles", "scalars", ...}`: for a concrete signature, the number of
    CTA tiles (0: nothing to launch) and the value of every scalar kernel parameter by name;
  - `meta(params)`: the artifact's launch recipe: the kernel parameters in order (kinds
    tensormap, pointer, scalar), block, grid rule, dynamic smem.
`pick` asks each registered scheduler in turn, as nvFuser's registry does: the strided pointwise
scheduler first (every pointwise fusion: direct vector loads, measured faster than the TMA
pipelines on dense tensors, see pointwise_strided.py), then the matmul scheduler (one matmul and
its epilogue), then the outer-reduction scheduler (reductions of leading dims or of every dim,
to the kept dims), then the row-reduction scheduler (reductions of the innermost dim).  The TMA
pointwise scheduler runs when named (`schedule={"scheduler": "pointwise"}` or a `fusion.schedule`
attribute).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from ..diagnostics import FusionError
from ..frontend.dtypes import DataType

I32_MAX = 2 ** 31 - 1       # the largest size an i32 kernel scalar holds


@dataclass(frozen=True)
class DeviceSig:
    """The GPU heuristics decide for: its SM count (waves of tiles, rounds of CTAs; launches size
    persistent grids by the device's own count) and its DRAM bandwidth in GB/s (how many CTAs
    must stream to reach it: matmul.py's skinny split-K)."""
    name: str
    sms: int
    dram_gbps: int


# Targets by name, as the CUDA driver reports them (memory clock x bus width x 2).
TARGETS = {"h100": DeviceSig("NVIDIA H100 80GB HBM3", 132, 3352), "h200": DeviceSig("NVIDIA H200", 132, 4814)}
TARGET_ENV = "FUSER_MLIR_DEVICE"
DEFAULT_TARGET = "h100"


def target_device() -> DeviceSig:
    """The device a fusion is scheduled for when no input is on a GPU (fd.compile on meta
    tensors, fuser-opt): $FUSER_MLIR_DEVICE names one of TARGETS, else the H100.  Inputs on a GPU
    are scheduled for that GPU (compiler.input_signature), so artifacts built here for the
    device the kernels will run on are the ones its heuristics pick there."""
    name = os.environ.get(TARGET_ENV, "").strip().lower() or DEFAULT_TARGET
    if name not in TARGETS:
        raise FusionError(f"{TARGET_ENV}={name!r}: expected one of {', '.join(TARGETS)} (the GPU that "
                          "kernels compiled off the GPU are scheduled for)")
    return TARGETS[name]


@dataclass(frozen=True)
class TensorSig:
    """One tensor as schedulers see it.  `strides` (elements, torch's `stride()`) is None for a
    contiguous row-major tensor, which is every tensor fuser-opt sees; `aligned`: its data pointer
    is 16-byte aligned (TMA's rule and the width of a vector load)."""
    shape: tuple[int, ...]      # -1: dynamic (unknown until launch)
    dtype: DataType
    strides: tuple[int, ...] | None = None
    aligned: bool = True
    scalar: bool = False        # a rank-0 input passed by value (a kernel parameter), not in memory


@dataclass(frozen=True)
class MatmulSig:
    """A fusion's matmul as schedulers see it: which inputs are its operands (None when an
    operand is computed inside the fusion) and whether b is given as [N, K]."""
    a: int | None
    b: int | None
    transpose_b: bool


@dataclass(frozen=True)
class ReduceSig:
    """A fusion's reduction (`fusion.reduce` or `fusion.var`) as schedulers see it: the shape it
    reduces (-1: dynamic), over which axes, whether they stay as size 1, and its kind (sum, mean,
    max, min or var)."""
    shape: tuple[int, ...]
    axes: tuple[int, ...]
    keepdim: bool
    kind: str


@dataclass(frozen=True)
class FusionSig:
    """What schedulers decide from: the fusion ops used, the inputs' and outputs' types, and the
    GPU."""
    ops: frozenset[str]         # fusion op names without the dialect prefix: "unary", "reduce", ...
    inputs: tuple[TensorSig, ...]
    outputs: tuple[TensorSig, ...]
    matmuls: tuple[MatmulSig, ...] = ()
    reductions: tuple[ReduceSig, ...] = ()
    device: DeviceSig = field(default_factory=target_device)


def registry():
    from . import matmul, outer_reduction, pointwise, pointwise_strided, row_reduction

    return (pointwise_strided.SCHEDULER, matmul.SCHEDULER, outer_reduction.SCHEDULER, row_reduction.SCHEDULER,
            pointwise.SCHEDULER)


def by_name(name: str):
    for scheduler in registry():
        if scheduler.name == name:
            return scheduler
    raise FusionError(f"no scheduler named '{name}' (have: {', '.join(s.name for s in registry())})")


def named(name: str, sig: FusionSig):
    """The scheduler called `name`, after checking that it takes `sig`."""
    scheduler = by_name(name)
    reason = scheduler.can_schedule(sig)
    if reason:
        raise FusionError(f"scheduler '{scheduler.name}' cannot take this fusion: {reason}")
    return scheduler


def pick(sig: FusionSig):
    """The first scheduler that takes `sig`; else an error listing each one's reason."""
    reasons = []
    for scheduler in registry():
        reason = scheduler.can_schedule(sig)
        if reason is None:
            return scheduler
        reasons.append(f"{scheduler.name}: {reason}")
    raise FusionError("no scheduler can compile this fusion (" + "; ".join(reasons) + ")")


def is_integer(value) -> bool:
    """A schedule's integer decision: an int, not a bool (Python's bools are ints; the schedule
    attribute would carry it as `true`)."""
    return isinstance(value, int) and not isinstance(value, bool)


def contradicted_kinds(what: str, tensors, given, derived) -> str | None:
    """Why a schedule's `given` kinds (one per tensor, how the kernel reads or writes it) are
    wrong, or None: a kind is given for fusion IR whose `?` sizes hide it, and must be the
    `derived` one wherever the tensor's shape is known."""
    wrong = [f"{j}: {g} (its shape {list(t.shape)} makes it {d})"
             for j, (t, g, d) in enumerate(zip(tensors, given, derived)) if -1 not in t.shape and g != d]
    return f"{what} contradict the tensors' shapes at {'; '.join(wrong)}" if wrong else None
