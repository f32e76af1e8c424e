"""The strided pointwise scheduler: global memory read and written directly, without TMA.

The registry's first choice for pointwise fusions.  It takes what the TMA scheduler
(`pointwise.py`) cannot: inputs broadcast to the output shape, read in place through stride-0
dims (never expanded on the host); non-contiguous inputs, read by their strides; data pointers of
any alignment.  And on dense tensors it is the faster of the two on the H100: with one CTA per
grid step and 8 elements per thread, as Triton's pointwise kernels, it moved 2.94-3.07 TB/s
against the TMA pipelines' 2.73-3.00 on the benchmark fusions at 2^26-2^27 elements
(tools/bench_pointwise.py), so the TMA scheduler runs only when named.  Decisions are plain
Python (the GPU machine runs them too); the kernel is `pointwise_strided_kernel.py`.

The view.  Every input is read at output indices through its strides in the output's shape
(torch's `expand`: 0 where broadcast).  Output dims of size 1 are dropped and adjacent dims merge
where every input steps through them as through one dim (stride[d] == stride[d+1] * size[d+1],
or both 0), so a dense fusion is one flat dim and `x[M, N] + b[N]` stays [M, N].  The innermost
dim of this collapsed view is a row of `cols` elements.

The work.  A unit is `vector` consecutive elements of one row, a row ceil(cols / vector) units
(the last one partial when `vector` does not divide cols).  A grid step covers `threads x unroll`
units, all their loads issued before any compute.  The grid has one CTA per step (`persistent`
0, the heuristic's choice: the hardware balances many short CTAs; a persistent grid striding over
the steps measured 3-9 % slower) or at most the resident CTAs (`persistent` 1).

Access modes per input, decided from its signature (shape, strides, alignment) and part of the
params, so the artifact cache and `fd.execute`'s launcher cache tell them apart:
  vector  innermost stride 1, data pointer and outer strides aligned to the vector's bytes (at
          most 16): one load per unit, e.g. 8 bf16 in one ld.global.v4.b32;
  splat   innermost stride 0 (broadcast along the row: [M, 1], a 0-d tensor): one scalar load per
          unit, used by every lane;
  gather  anything else (transposed, sliced, misaligned): one scalar load per element;
  value   a scalar input (fd.define_scalar): no memory, its value is a kernel parameter.
Outputs are contiguous: `vector` stores where every row starts aligned (rank 1, or cols *
itemsize a multiple of the vector's bytes), else `scalar`.  Sizes and strides are i32 kernel
scalars, so one kernel serves every shape and stride that keeps the modes.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from ..diagnostics import FusionError
from ..frontend.dtypes import DataType
from . import I32_MAX, FusionSig, TensorSig, is_integer
from .pointwise import pointwise_reason

THREADS = 256
STEP_ELEMENTS = 8               # per thread and grid step (unroll x vector): Triton's pointwise size
VECTOR_BYTES = 16               # the widest global load/store (ld.global.v4.b32)
INPUT_MODES = ("vector", "splat", "gather", "value")
OUTPUT_MODES = ("vector", "scalar")


@dataclass(frozen=True)
class StridedView:
    """The collapsed output view and each input's strides through it (elements; 0: broadcast)."""
    sizes: tuple[int, ...]                           # -1: unknown until launch (fuser-opt)
    strides: tuple[tuple[int | None, ...], ...]      # per input, per dim; None: unknown until launch

    @property
    def rank(self) -> int:
        return len(self.sizes)

    @property
    def cols(self) -> int:
        return self.sizes[-1]


def strided_view(sig: FusionSig) -> StridedView:
    out_shape = sig.outputs[0].shape
    full = [_strides_in_output(t, out_shape) for t in sig.inputs]
    sizes: list[int] = []
    strides: list[list] = [[] for _ in sig.inputs]
    for d, size in enumerate(out_shape):
        if size == 1:
            continue
        if sizes and all(_merges(t, s[-1], f[d], size) for t, s, f in zip(sig.inputs, strides, full)):
            sizes[-1] = -1 if -1 in (sizes[-1], size) else sizes[-1] * size
            for s, f in zip(strides, full):
                s[-1] = f[d]
        else:
            sizes.append(size)
            for s, f in zip(strides, full):
                s.append(f[d])
    if not sizes:                   # a single element: every input is read at index 0
        return StridedView((1,), tuple((0,) for _ in sig.inputs))
    return StridedView(tuple(sizes), tuple(map(tuple, strides)))


def _strides_in_output(t: TensorSig, out_shape) -> list[int | None]:
    """Strides of input `t` read at output indices, right-aligned as torch broadcasts (its
    `t.expand(out_shape).stride()`): 0 in the dims it is broadcast along."""
    own = t.strides if t.strides is not None else _contiguous_strides(t.shape)
    pad = len(out_shape) - len(t.shape)
    return [0 if d < pad or (t.shape[d - pad] == 1 and out_shape[d] != 1) else own[d - pad]
            for d in range(len(out_shape))]


def _contiguous_strides(shape) -> list[int | None]:
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step = None if step is None or size < 0 else step * size
    return strides[::-1]


def _merges(t: TensorSig, outer, inner, inner_size: int) -> bool:
    """Whether input `t` steps through an outer dim (stride `outer`) and the next kept dim
    (`inner`, `inner_size`) as through one dim."""
    if outer == 0 or inner == 0:
        return outer == inner                       # both broadcast, or neither may merge
    if t.strides is None:                           # contiguous: adjacent kept dims always merge
        return True
    return inner_size >= 0 and outer == inner * inner_size


def _itemsize(dtype: str) -> int:
    return DataType(dtype).itemsize


def vector_align(vector: int, dtype: str) -> int:
    """Bytes a `vector`-element access of `dtype` must be aligned to (at most 16: wider vectors
    lower to several 16-byte accesses)."""
    return min(VECTOR_BYTES, vector * _itemsize(dtype))


def input_modes(view: StridedView, j: int, t: TensorSig, vector: int) -> tuple[str, ...]:
    """The modes input `j` may be read in, best first."""
    if t.scalar:
        return ("value",)
    inner, outer = view.strides[j][-1], view.strides[j][:-1]
    align = vector_align(vector, t.dtype.value)
    modes = ("gather",)
    if inner == 0:
        modes = ("splat",) + modes
    if inner == 1 and t.aligned and all(s is not None and s * t.dtype.itemsize % align == 0 for s in outer):
        modes = ("vector",) + modes
    return modes


def output_modes(view: StridedView, dtype: str, vector: int) -> tuple[str, ...]:
    """Outputs are contiguous and 16-byte aligned; every row starts vector-aligned when the view
    is flat or the rows' bytes are a multiple of the vector's."""
    if view.rank == 1 or (view.cols >= 0 and view.cols * _itemsize(dtype) % vector_align(vector, dtype) == 0):
        return ("vector", "scalar")
    return ("scalar",)


def choose_vector(view: StridedView, dtypes) -> int:
    """16 bytes of the narrowest dtype (at most 8 elements).  Short rows that this width does not
    divide get the widest power of two that does, so that no unit is partial; long rows keep the
    full width and take one partial unit per row."""
    widest = min(8, VECTOR_BYTES // min(map(_itemsize, dtypes)))
    cols = view.cols
    if view.rank == 1 or cols <= 0 or cols % widest == 0 or cols >= 8 * widest:
        return widest
    vector = widest
    while cols % vector:
        vector //= 2
    return vector


@dataclass(frozen=True)
class StridedSchedule:
    in_dtypes: tuple[str, ...]
    out_dtypes: tuple[str, ...]
    rank: int                    # dims of the collapsed view
    in_modes: tuple[str, ...]    # per input: vector | splat | gather
    out_modes: tuple[str, ...]   # per output: vector | scalar
    vector: int                  # elements per unit
    unroll: int                  # units per thread per grid step, loaded before any is computed
    threads: int = THREADS
    persistent: int = 1          # 1: at most the resident CTAs stride over the steps; 0: one CTA per step

    @property
    def step_units(self) -> int:
        """Units a CTA covers per grid step."""
        return self.threads * self.unroll

    def scalar_names(self) -> list[str]:
        """The i32 kernel scalars in parameter order: `units`, `cols`, then for rows of several
        dims `chunks` (units per row) and the sizes of dims 1..rank-2 (to unravel a row index),
        then each input's strides, the innermost only in gather mode (vector: 1, splat: 0; a
        value input has none)."""
        names = ["units", "cols"]
        if self.rank > 1:
            names += ["chunks"] + [f"size{d}" for d in range(1, self.rank - 1)]
        for j, mode in enumerate(self.in_modes):
            if mode != "value":
                names += [f"stride{j}_{d}" for d in range(self.rank) if d < self.rank - 1 or mode == "gather"]
        return names

    def kernel_params(self) -> list[dict]:
        """The kernel's parameters in order: per input a global pointer (with the alignment its
        accesses assume) or, in mode value, the value itself (its storage type: f32, i32, i64,
        i8 for Bool); a pointer per output; then the i32 scalars."""
        def pointer(tensor, dtype, mode):
            align = vector_align(self.vector, dtype) if mode == "vector" else _itemsize(dtype)
            return {"kind": "pointer", "tensor": tensor, "dtype": dtype, "align": align}

        def operand(j, dtype, mode):
            return {"kind": "value", "tensor": f"input{j}", "dtype": dtype} if mode == "value" \
                else pointer(f"input{j}", dtype, mode)

        return ([operand(j, d, m) for j, (d, m) in enumerate(zip(self.in_dtypes, self.in_modes))]
                + [pointer(f"output{j}", d, m) for j, (d, m) in enumerate(zip(self.out_dtypes, self.out_modes))]
                + [{"kind": "scalar", "type": "i32", "value": name} for name in self.scalar_names()])

    def to_json(self) -> dict:
        return asdict(self)


_INT_FIELDS = ("rank", "vector", "unroll", "threads", "persistent")
_MODE_FIELDS = {"in_modes": INPUT_MODES, "out_modes": OUTPUT_MODES}


class _PointwiseStrided:
    name = "pointwise_strided"
    signature_facts = ()

    def can_schedule(self, sig: FusionSig) -> str | None:
        """Pointwise fusions whose inputs broadcast to the (one) output shape, torch's way."""
        reason = pointwise_reason(sig)
        if reason:
            return reason
        out_shape = sig.outputs[0].shape
        for j, t in enumerate(sig.inputs):
            pad = len(out_shape) - len(t.shape)
            if pad < 0 or any(a not in (1, -1, b) and b != -1 for a, b in zip(t.shape, out_shape[pad:])):
                return f"input {j} of shape {list(t.shape)} does not broadcast to the output shape {list(out_shape)}"
        return None

    def heuristic(self, sig: FusionSig) -> StridedSchedule:
        view = strided_view(sig)
        in_dtypes, out_dtypes = _dtypes(sig.inputs), _dtypes(sig.outputs)
        vector = choose_vector(view, in_dtypes + out_dtypes)
        in_modes = tuple(input_modes(view, j, t, vector)[0] for j, t in enumerate(sig.inputs))
        out_modes = tuple(output_modes(view, d, vector)[0] for d in out_dtypes)
        unroll = max(1, STEP_ELEMENTS // vector)
        return StridedSchedule(in_dtypes, out_dtypes, view.rank, in_modes, out_modes, vector, unroll, persistent=0)

    def encode(self, params: StridedSchedule) -> dict:
        return {**{k: getattr(params, k) for k in _INT_FIELDS},
                **{k: ",".join(getattr(params, k)) for k in _MODE_FIELDS}}

    def decode(self, sig: FusionSig, fields: dict) -> StridedSchedule:
        fields = {**self.encode(self.heuristic(sig)), **fields}
        missing = [k for k in _INT_FIELDS if not is_integer(fields.get(k))] + \
                  [k for k in _MODE_FIELDS if not isinstance(fields.get(k), str)]
        if missing:
            raise FusionError(f"pointwise_strided schedule needs fields {', '.join(missing)} "
                              f"(integers {', '.join(_INT_FIELDS)}; comma-separated modes {', '.join(_MODE_FIELDS)})")
        modes = {k: tuple(fields[k].split(",")) if fields[k] else () for k in _MODE_FIELDS}
        for k, allowed in _MODE_FIELDS.items():
            bad = [m for m in modes[k] if m not in allowed]
            if bad:
                raise FusionError(f"pointwise_strided {k}: unknown mode(s) {', '.join(bad)} "
                                  f"(have {', '.join(allowed)})")
        in_dtypes, out_dtypes = _dtypes(sig.inputs), _dtypes(sig.outputs)
        if len(modes["in_modes"]) != len(in_dtypes) or len(modes["out_modes"]) != len(out_dtypes):
            raise FusionError(f"pointwise_strided schedule: {len(in_dtypes)} input and {len(out_dtypes)} output "
                              f"modes expected, got in_modes '{fields['in_modes']}', out_modes '{fields['out_modes']}'")
        params = StridedSchedule(in_dtypes, out_dtypes, fields["rank"], modes["in_modes"], modes["out_modes"],
                                 fields["vector"], fields["unroll"], fields["threads"], fields["persistent"])
        if not (1 <= params.rank <= 8 and params.vector in (1, 2, 4, 8) and 1 <= params.unroll <= 8
                and params.threads % 32 == 0 and 32 <= params.threads <= 1024 and params.persistent in (0, 1)):
            raise FusionError(f"pointwise_strided schedule {fields} is out of range (rank 1-8, vector 1/2/4/8, "
                              "unroll 1-8, threads a multiple of 32 up to 1024, persistent 0 or 1)")
        return params

    def build(self, func_op, params: StridedSchedule, kernel_name: str, insertion_point):
        from .pointwise_strided_kernel import build_kernel

        return build_kernel(func_op, params, kernel_name, insertion_point)

    def launch(self, params: StridedSchedule, sig: FusionSig) -> dict:
        """Tile count (CTA grid steps) and every kernel scalar for a concrete signature; an error
        when the params' modes do not fit it (a schedule forced on other tensors)."""
        view = strided_view(sig)
        if view.rank != params.rank:
            raise FusionError(f"pointwise_strided schedule has rank {params.rank}; these tensors collapse to "
                              f"rank {view.rank} (sizes {list(view.sizes)})")
        for j, (t, mode) in enumerate(zip(sig.inputs, params.in_modes)):
            if mode not in input_modes(view, j, t, params.vector):
                raise FusionError(f"input {j} cannot be read in mode '{mode}' (strides {list(view.strides[j])} "
                                  f"in the view {list(view.sizes)}, {'' if t.aligned else 'not '}16-byte aligned)")
        for j, (dtype, mode) in enumerate(zip(params.out_dtypes, params.out_modes)):
            if mode not in output_modes(view, dtype, params.vector):
                raise FusionError(f"output {j} cannot be stored in mode '{mode}': rows of {view.cols} {dtype} "
                                  f"do not start {vector_align(params.vector, dtype)}-byte aligned")
        n = math.prod(sig.outputs[0].shape)
        if n == 0:
            return {"tiles": 0, "scalars": {}}
        cols = view.cols
        chunks = -(-cols // params.vector)
        units = n // cols * chunks
        if n > I32_MAX or units + params.step_units > I32_MAX:
            raise FusionError(f"{n} elements exceed the strided kernel's 32-bit index range")
        values = {"units": units, "cols": cols, "chunks": chunks,
                  **{f"size{d}": size for d, size in enumerate(view.sizes)},
                  **{f"stride{j}_{d}": s for j, strides in enumerate(view.strides) for d, s in enumerate(strides)}}
        return {"tiles": -(-units // params.step_units),
                "scalars": {name: values[name] for name in params.scalar_names()}}

    def meta(self, params: StridedSchedule) -> dict:
        """The artifact's launch recipe."""
        return {"params": params.kernel_params(), "block": [params.threads, 1, 1],
                "grid": "persistent" if params.persistent else "per_tile", "dynamic_smem": 0,
                "schedule": params.to_json()}


def _dtypes(tensors) -> tuple[str, ...]:
    return tuple(t.dtype.value for t in tensors)


SCHEDULER = _PointwiseStrided()
