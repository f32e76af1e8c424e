"""Scheduling decisions for a pointwise fusion, in plain Python (the GPU machine runs this too).

Every tensor of a pointwise kernel is seen through one 2-D view [rows, cols] of the output shape:
the natural [prod(shape[:-1]), shape[-1]] when its rows are 16-byte multiples for every dtype
(TMA's stride rule), otherwise the flat 1-D view [N].  A tile is `boxes` TMA boxes of
[box_rows, box_cols] elements (box_cols <= 256, TMA's limit); tails fall out of bounds, where TMA
loads zero-fill and stores write nothing.  `stages` input buffers form the load pipeline; each
stage has its own output buffer, so up to `stages - 1` TMA stores stay in flight while later
tiles are computed.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from .api import DataType, FusionDefinition, FusionError

SMEM_LIMIT = 227 * 1024          # H100 per-block opt-in maximum
SMEM_TARGET = 113 * 1024         # two CTAs per SM: one computes while the other issues
DATA_START = 1024                # mbarriers live below; data buffers start 1024-B aligned
THREADS = 512
VECTOR = 8                       # elements per thread per step (16 B of bf16)
# (tile elements, stages), best first; tried under SMEM_TARGET, then under SMEM_LIMIT.
TILE_CHOICES = ((8192, 4), (4096, 4), (8192, 3), (4096, 3), (8192, 2), (4096, 2), (2048, 4), (2048, 2),
                (1024, 2))


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

    @property
    def threads(self) -> int:
        """Up to THREADS, but no more than the tile gives work to."""
        return min(THREADS, max(32, self.tile_elems // self.vector // 32 * 32))

    @property
    def tile_elems(self) -> int:
        return self.box_rows * self.box_cols * self.boxes

    @property
    def box_shape(self) -> list[int]:
        return [self.box_rows, self.box_cols] if self.rank == 2 else [self.box_cols]

    def buffer_bytes(self, dtype: str) -> int:
        return self.tile_elems * DataType(dtype).itemsize

    def layout(self):
        """Byte offsets: (input[stage][j], output[stage][j], total bytes).  Buffers 1024-aligned."""
        offset = DATA_START
        inputs = [[0] * len(self.in_dtypes) for _ in range(self.stages)]
        outputs = [[0] * len(self.out_dtypes) for _ in range(self.stages)]
        for table, dtypes in ((inputs, self.in_dtypes), (outputs, self.out_dtypes)):
            for row in table:
                for j, dtype in enumerate(dtypes):
                    row[j] = offset
                    offset = _round_up(offset + self.buffer_bytes(dtype), 1024)
        return inputs, outputs, offset

    @property
    def smem_bytes(self) -> int:
        return self.layout()[2]

    def to_json(self) -> dict:
        return {**asdict(self), "threads": self.threads}


def view_2d(shape, dtypes) -> tuple[int, ...]:
    """The [rows, cols] (or [N]) view of a contiguous tensor of `shape` for these dtypes."""
    n = math.prod(shape)
    cols = shape[-1] if shape else 1
    if len(shape) >= 2 and cols >= 64 and all(cols * DataType(d).itemsize % 16 == 0 for d in dtypes):
        return (n // cols, cols)
    return (n,)


def choose_schedule(in_dtypes, out_dtypes, view) -> PointwiseSchedule:
    in_bytes = sum(DataType(d).itemsize for d in in_dtypes)
    out_bytes = sum(DataType(d).itemsize for d in out_dtypes)
    for budget in (SMEM_TARGET, SMEM_LIMIT):
        for tile, stages in TILE_CHOICES:
            if len(view) == 2:
                box_cols = min(256, _round_up(view[1], 16))
                box_rows, boxes = max(1, min(256, tile // box_cols)), 1
            else:
                box_cols, box_rows, boxes = 256, 1, tile // 256
            schedule = PointwiseSchedule(tuple(in_dtypes), tuple(out_dtypes), len(view),
                                         box_rows, box_cols, boxes, stages)
            if schedule.smem_bytes <= budget and (tile >= 4096 or budget == SMEM_LIMIT):
                return schedule
    raise FusionError(f"the pointwise scheduler cannot fit {len(in_dtypes)} inputs ({in_bytes} B/elem) "
                      f"and {len(out_dtypes)} outputs ({out_bytes} B/elem) in shared memory")


# --- binding a definition to concrete inputs --------------------------------------------------------

@dataclass(frozen=True)
class InputSpec:
    shape: tuple[int, ...]
    dtype: DataType


def bind_shapes(fd: FusionDefinition, specs: list[InputSpec]) -> dict[int, tuple[int, ...]]:
    """Concrete shape of every tensor (by index), checking inputs against their definitions."""
    if len(specs) != len(fd.inputs):
        raise FusionError(f"the fusion takes {len(fd.inputs)} inputs, got {len(specs)}")
    shapes: dict[int, tuple[int, ...]] = {}
    for t, spec in zip(fd.inputs, specs):
        if spec.dtype != t.dtype:
            raise FusionError(f"input {t!r}: expected dtype {t.dtype.name}, got {spec.dtype.name}")
        if len(spec.shape) != len(t.shape) or any(d >= 0 and d != s for d, s in zip(t.shape, spec.shape)):
            raise FusionError(f"input {t!r}: expected shape {list(t.shape)} (-1: any), got {list(spec.shape)}")
        if any(s == 0 for s in spec.shape):
            raise FusionError(f"input {t!r}: empty tensors (shape {list(spec.shape)}) are not supported")
        shapes[t.index] = tuple(spec.shape)
    for node in fd.nodes:
        if node.op == "input":
            continue
        arg_shapes = [shapes[a.index] for a in node.args]
        if node.op == "broadcast":
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
