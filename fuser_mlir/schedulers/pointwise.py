"""The pointwise scheduler: decisions in plain Python (the GPU machine runs this too); the kernel
it builds is `pointwise_kernel.py`.

Every tensor of a pointwise kernel is seen through one 2-D view [rows, cols] of the output shape:
the natural [prod(shape[:-1]), shape[-1]] when its rows are 16-byte multiples for every dtype
(TMA's stride rule), otherwise the flat 1-D view [N].  A tile is `boxes` TMA boxes of
[box_rows, box_cols] elements (box_cols <= 256, TMA's limit); tails fall out of bounds, where TMA
loads zero-fill and stores write nothing.  `stages` input buffers form the load pipeline; each
stage has its own output buffer, so up to `stages - 1` TMA stores stay in flight while later
tiles are computed.

Two pipeline modes (`mode`, a decision like the others; fuser-pipeline-mbarriers derives both):
  * `pipelined`: one elected consumer thread also issues the loads, `stages` tiles ahead;
  * `warp_specialized`: a producer warpgroup (128 threads, one elected lane loading) runs after
    the `threads` consumer threads, which must be whole warpgroups; the pass grows the block to
    threads + 128 and adds empty mbarriers.  Register budgets (`producer_regs`/`consumer_regs`,
    setmaxnreg) are 0 = none by default: a pointwise body needs few registers, and setmaxnreg is
    only honoured with a register cap at entry and one CTA per SM, which would cost the second
    CTA the heuristic aims for.
The heuristic picks DEFAULT_MODE; `schedule={"scheduler": "pointwise", "mode": ...}` the other.
The launch block and dynamic smem of an artifact come from the final kernel IR (the compiler
reads them after the passes), never from these estimates.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from ..diagnostics import FusionError
from ..frontend.dtypes import DataType
from . import I32_MAX, FusionSig, is_integer

POINTWISE_OPS = frozenset({"unary", "binary", "ternary", "cast", "broadcast"})

SMEM_LIMIT = 227 * 1024          # H100 per-block opt-in maximum
SMEM_TARGET = 113 * 1024         # two CTAs per SM: one computes while the other issues
THREADS = 512
VECTOR = 8                       # elements per thread per step (16 B of bf16)
# (tile elements, stages), best first; tried under SMEM_TARGET, then under SMEM_LIMIT.
TILE_CHOICES = ((8192, 4), (4096, 4), (8192, 3), (4096, 3), (8192, 2), (4096, 2), (2048, 4), (2048, 2),
                (1024, 2))
MODES = ("pipelined", "warp_specialized")
DEFAULT_MODE = "pipelined"       # the heuristic's mode (both are benchmarked: tools/bench_pointwise.py)
WARPGROUP = 128                  # the producer warpgroup; consumers come in whole warpgroups too


def _round_up(x: int, m: int) -> int:
    return (x + m - 1) // m * m


@dataclass(frozen=True)
class PointwiseSchedule:
    in_dtypes: tuple[str, ...]
    out_dtypes: tuple[str, ...]
    rank: int                    # 1: flat view [N]; 2: [rows, cols]
    box_rows: int
    box_cols: int
    boxes: int
    stages: int
    vector: int = VECTOR
    mode: str = DEFAULT_MODE
    producer_regs: int = 0       # setmaxnreg budgets (warp_specialized only): 0 = none
    consumer_regs: int = 0

    @property
    def threads(self) -> int:
        """The computing (consumer) threads: up to THREADS, but no more than the tile gives work
        to; whole warpgroups when warp-specialized."""
        unit = WARPGROUP if self.mode == "warp_specialized" else 32
        return min(THREADS, max(unit, self.tile_elems // self.vector // unit * unit))

    @property
    def block_threads(self) -> int:
        """The block as fuser-pipeline-mbarriers leaves it (an estimate: the artifact takes the
        kernel IR's): the consumers, plus the producer warpgroup when warp-specialized."""
        return self.threads + (WARPGROUP if self.mode == "warp_specialized" else 0)

    @property
    def tile_elems(self) -> int:
        return self.box_rows * self.box_cols * self.boxes

    @property
    def box_shape(self) -> list[int]:
        return [self.box_rows, self.box_cols] if self.rank == 2 else [self.box_cols]

    def buffer_bytes(self, dtype: str) -> int:
        return self.tile_elems * DataType(dtype).itemsize

    def layout(self):
        """One stage's buffers (fuser-pipeline-mbarriers copies them per stage): byte offsets
        (input[j], output[j]) and the stage's bytes.  Buffers 1024-aligned."""
        offset, offsets = 0, []
        for dtype in self.in_dtypes + self.out_dtypes:
            offsets.append(offset)
            offset = _round_up(offset + self.buffer_bytes(dtype), 1024)
        n_in = len(self.in_dtypes)
        return offsets[:n_in], offsets[n_in:], offset

    @property
    def smem_bytes(self) -> int:
        """The kernel's shared memory as the pipelining pass lays it out (an estimate, to choose
        tiles: the artifact takes the kernel IR's): `stages` copies of a stage, then the mbarrier
        arrays of `stages` 8-byte barriers at 16-byte offsets: `full` (pipelined), `full` and
        `empty` (warp_specialized, one producer role)."""
        arrays = 2 if self.mode == "warp_specialized" else 1
        return self.stages * self.layout()[2] + (arrays - 1) * _round_up(8 * self.stages, 16) + 8 * self.stages

    def to_json(self) -> dict:
        return {**asdict(self), "threads": self.threads, "block_threads": self.block_threads}


def choose_view_rank(shape, dtypes) -> int:
    """2 ([rows, cols]) when every dtype's rows are 16-byte multiples (TMA's stride rule) and
    wide enough to fill a box; else 1 (the flat view).  A dynamic innermost dim gives 1."""
    cols = shape[-1] if shape else 1
    if len(shape) >= 2 and cols >= 64 and all(cols * DataType(d).itemsize % 16 == 0 for d in dtypes):
        return 2
    return 1


def choose_schedule(in_dtypes, out_dtypes, out_shape, mode: str = DEFAULT_MODE) -> PointwiseSchedule:
    in_bytes = sum(DataType(d).itemsize for d in in_dtypes)
    out_bytes = sum(DataType(d).itemsize for d in out_dtypes)
    rank = choose_view_rank(out_shape, tuple(in_dtypes) + tuple(out_dtypes))
    for budget in (SMEM_TARGET, SMEM_LIMIT):
        for tile, stages in TILE_CHOICES:
            if rank == 2:
                box_cols = min(256, _round_up(out_shape[-1], 16))
                box_rows, boxes = max(1, min(256, tile // box_cols)), 1
            else:
                box_cols, box_rows, boxes = 256, 1, tile // 256
            schedule = PointwiseSchedule(tuple(in_dtypes), tuple(out_dtypes), rank,
                                         box_rows, box_cols, boxes, stages, mode=mode)
            if schedule.smem_bytes <= budget and (tile >= 4096 or budget == SMEM_LIMIT):
                return schedule
    raise FusionError(f"the pointwise scheduler cannot fit {len(in_dtypes)} inputs ({in_bytes} B/elem) "
                      f"and {len(out_dtypes)} outputs ({out_bytes} B/elem) in shared memory")


_DECISIONS = ("rank", "box_rows", "box_cols", "boxes", "stages")        # integers, required
_OPTIONAL = {"mode": DEFAULT_MODE, "producer_regs": 0, "consumer_regs": 0}  # absent: these


class _Pointwise:
    name = "pointwise"
    signature_facts = ()

    def can_schedule(self, sig: FusionSig) -> str | None:
        """Pointwise fusions whose inputs TMA reads as boxes of the output's view: every input
        has the output's shape (no broadcast), is contiguous and 16-byte aligned."""
        reason = pointwise_reason(sig)
        if reason:
            return reason
        out_shape = sig.outputs[0].shape
        for j, t in enumerate(sig.inputs):
            if t.scalar:
                return f"input {j} is a scalar passed by value (fd.define_scalar); TMA reads tensors"
            if not same_shape(t.shape, out_shape):
                return f"input {j} of shape {list(t.shape)} is broadcast to {list(out_shape)}"
            if t.strides is not None:
                return f"input {j} is not contiguous (strides {list(t.strides)})"
            if not t.aligned:
                return f"input {j}'s data pointer is not 16-byte aligned"
        return None

    def heuristic(self, sig: FusionSig) -> PointwiseSchedule:
        return choose_schedule(_dtypes(sig.inputs), _dtypes(sig.outputs), sig.outputs[0].shape)

    def encode(self, params: PointwiseSchedule) -> dict:
        return {k: getattr(params, k) for k in (*_DECISIONS, *_OPTIONAL)}

    def decode(self, sig: FusionSig, fields: dict) -> PointwiseSchedule:
        fields = {**self.encode(self.heuristic(sig)), **fields}
        missing = [k for k in _DECISIONS if not is_integer(fields.get(k))]
        if missing:
            raise FusionError(f"pointwise schedule needs integer fields {', '.join(missing)}")
        optional = {k: fields.get(k, default) for k, default in _OPTIONAL.items()}
        if optional["mode"] not in MODES:
            raise FusionError(f"pointwise schedule mode must be one of {', '.join(MODES)}, got {optional['mode']!r}")
        params = PointwiseSchedule(_dtypes(sig.inputs), _dtypes(sig.outputs), *(fields[k] for k in _DECISIONS),
                                   **optional)
        if params.rank not in (1, 2) or not 1 <= params.box_cols <= 256 or not 1 <= params.box_rows <= 256 \
                or params.boxes < 1 or params.stages < 1:
            raise FusionError(f"pointwise schedule {fields} is outside TMA's limits (rank 1-2, box_rows and "
                              "box_cols in [1, 256], boxes and stages >= 1)")
        if params.rank == 2 and not sig.outputs[0].shape:
            raise FusionError(f"pointwise schedule {fields}: rank 2 views the output as rows of its last dim; "
                              "a 0-d output has none (rank 1)")
        if params.smem_bytes > SMEM_LIMIT:
            raise FusionError(f"pointwise schedule {fields} needs {params.smem_bytes} B of shared memory; "
                              f"a CTA may use {SMEM_LIMIT}")
        check_registers(params)
        return params

    def build(self, func_op, params: PointwiseSchedule, kernel_name: str, insertion_point):
        from .pointwise_kernel import build_kernel

        return build_kernel(func_op, params, kernel_name, insertion_point)

    def launch(self, params: PointwiseSchedule, sig: FusionSig) -> dict:
        """Tile count, the tensors' view (tensor maps) and the kernel scalars for a concrete signature."""
        out_shape = sig.outputs[0].shape
        n = math.prod(out_shape)
        if n > I32_MAX:     # the kernel's element count, rows and columns are i32 scalars
            raise FusionError(f"{n} elements exceed the pointwise (TMA) kernel's 32-bit sizes (at most 2^31 - 1)")
        if params.rank == 2:
            cols = out_shape[-1]
            view = (n // cols, cols)
            tiles = math.ceil(view[0] / params.box_rows) * math.ceil(cols / (params.box_cols * params.boxes))
            scalars = {"rows": view[0], "cols": cols}
        else:
            view = (n,)
            tiles = math.ceil(n / (params.box_cols * params.boxes))
            scalars = {"elements": n}
        views = {f"{kind}{j}": view for kind, dtypes in (("input", params.in_dtypes), ("output", params.out_dtypes))
                 for j in range(len(dtypes))}
        return {"views": views, "tiles": tiles, "scalars": scalars}

    def meta(self, params: PointwiseSchedule) -> dict:
        """The artifact's launch recipe.  "block" and "dynamic_smem" are the schedule's estimates;
        the compiler replaces them with the final kernel IR's (the pipelining pass adds the
        producer warpgroup and the mbarriers)."""
        n_in = len(params.in_dtypes)
        kernel_params = [{"kind": "tensormap", "tensor": f"input{j}" if j < n_in else f"output{j - n_in}",
                          "dtype": d, "box": params.box_shape}
                         for j, d in enumerate(params.in_dtypes + params.out_dtypes)]
        kernel_params += [{"kind": "scalar", "type": "i32", "value": name}
                          for name in (("rows", "cols") if params.rank == 2 else ("elements",))]
        return {"params": kernel_params, "block": [params.block_threads, 1, 1],
                "grid": "persistent",
                "dynamic_smem": params.smem_bytes, "schedule": params.to_json()}


def check_registers(params: PointwiseSchedule) -> None:
    """setmaxnreg budgets: both or neither, warp_specialized only, multiples of 8 in [24, 256]
    (HOPPER.md), and within the SM's 65536 registers (the pass checks this again)."""
    regs = (params.producer_regs, params.consumer_regs)
    if regs == (0, 0):
        return
    if 0 in regs or not isinstance(regs[0], int) or not isinstance(regs[1], int):
        raise FusionError(f"pointwise schedule: give both producer_regs and consumer_regs, or neither (got {regs})")
    if params.mode != "warp_specialized":
        raise FusionError("pointwise schedule: register budgets need mode 'warp_specialized'")
    if any(r % 8 or not 24 <= r <= 256 for r in regs):
        raise FusionError(f"pointwise schedule: register budgets are multiples of 8 in [24, 256], got {regs}")
    total = WARPGROUP * regs[0] + params.threads * regs[1]
    if total > 65536:
        raise FusionError(f"pointwise schedule: {WARPGROUP} x {regs[0]} + {params.threads} x {regs[1]} = {total} "
                          "registers exceed the SM's 65536")


def pointwise_reason(sig: FusionSig) -> str | None:
    """Why `sig` is not a pointwise fusion whose outputs share one shape (None when it is)."""
    others = sig.ops - POINTWISE_OPS
    if others:
        return f"ops {', '.join(sorted(others))} are not pointwise"
    shapes = {o.shape for o in sig.outputs}
    if len(shapes) > 1:
        return f"outputs differ in shape ({', '.join(map(str, sorted(shapes)))})"
    return None


def same_shape(shape, out_shape) -> bool:
    """`shape` is `out_shape`: a dynamic input dim is taken to match; a static 1 against a dynamic
    output dim may broadcast, so it does not."""
    return len(shape) == len(out_shape) and all(
        a == b or a == -1 or (b == -1 and a != 1) for a, b in zip(shape, out_shape))


def _dtypes(tensors) -> tuple[str, ...]:
    return tuple(t.dtype.value for t in tensors)


SCHEDULER = _Pointwise()
