"""The outer-reduction scheduler: fusions that reduce leading dims (column sums, `x.amax(0)`,
statistics over a batch) or every dim (a loss's sum, a global max), in one kernel whose CTAs
split the reduced rows and combine their partials deterministically.  Decisions in plain Python
(the GPU machine runs them too); the kernel is `outer_reduction_kernel.py`.

What it takes.  Every `fusion.reduce` / `fusion.var` reduces the leading axes 0..k-1 of one shape
S: the data is a [M, N] matrix (M = the reduced dims' product, N = the kept ones') reduced over
its rows.  Reducing every dim (k = rank, or N = 1) is a *full* reduction: the data is then viewed
as [ceil(E / W), W] rows of W = `tx` x `vector` elements (E = S's element count) and the W column
totals fold into one at the end.  Inputs are, against S: `full` (shape S, contiguous, 16-byte
aligned), `kept` (the kept dims S[k:], leading 1s allowed: read per column, e.g. a bias added
before or after the reduction) or `value` (a scalar input).  Outputs have the kept shape (with
or without keepdim's 1s).  A reduction's operand may not use another reduction's result (that
needs the result broadcast back over the reduced rows: a second pass); floating-point tensors
only.

The work.  `threads` threads form a [ty, tx] grid: tx threads across a strip of W = tx x vector
columns, threads/tx rows at a time, `unroll` rows per thread in flight.  A strip's M rows are cut
into `splits` contiguous row ranges; strip x split is a work unit, a strip's splits adjacent
(unit = strip * splits + split) so their partials meet in L2; the grid is persistent.  Each
thread folds its rows into per-column f32 accumulators (var: the shifted sums of d = v - K and
d^2, K the operand at row 0, so var = (sum d^2 - (sum d)^2 / n) / max(n - correction, 0) keeps
its precision for data far from 0); the CTA folds the ty rows through shared memory in a fixed
order (a full reduction then folds the W column totals over the CTA).  With splits > 1 every
split but the last stores its partial ([quantities, W]; a full reduction's: its quantities'
totals) into a workspace slot of its own (`nvasync.split_k_store`, mode slots: fuser-tma-reduce-store writes
the TMA store and the semaphore release, the sync passes the fences and waits); the last split
waits for them (`nvasync.split_k_wait`), folds the slots in split order into its own partial and
runs the epilogue: same inputs, same result bits on every launch.  Workspace and per-strip
semaphores are the runtime's (launch "scratch"), left as found.

The heuristic.  vector: 16 bytes of the narrowest full input, halved until it divides N (full: E);
threads 256, as many CTAs resident on each SM (at most 4) as a register estimate allows (the
kernel asks ptxas for them: 4 CTAs cap a thread at 64 registers); tx: enough threads for the strip's N columns, at most 256 f32 columns (a TMA box row)
and at least 16 bytes of f32 (W >= 4); unroll 4; splits: as many as half a round of the
resident CTAs holds (strips x splits <= CTAs per SM x the device's SMs / 2; a full reduction: a whole round),
each split at least 4 x unroll rows a thread (a full reduction's: 2 x unroll).  Measured on the
H100 (bf16 sums):
- a second round of a few units doubles their time: at 32768 x 8192 (32 strips) 17 splits (544
  units for 528 CTAs) ran 2.52 TB/s, 16 splits 2.93;
- half a round against a whole one: 4096 x 4096 3.23 against 2.95 TB/s, 32768 x 1024 2.37
  against 2.21, 4096 x 1024 (32 splits, the rows' bound) 1.32 against 1.02-1.19, 4096 x 8192
  2.45 against 2.39, level (within 1 %) at 32768 x 4096, 32768 x 8192, 4096 and 32768 x 32768;
- a full reduction of 32768 x 1024 ran 2.46 TB/s in a whole round, 1.53 in a half;
- unroll 8 against 4 (one run, 3 samples each): column sums 1-1.4 % faster at 32768 x 32768,
  32768 x 8192 and 4096 x 32768 (3.08 against 3.04 TB/s at the first), full sums 14-18 % slower;
  unroll 2: column sums 10 % slower, full sums 0.5-2 % slower but 1 % faster at 4096 x 32768.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace

from ..diagnostics import FusionError
from ..frontend.dtypes import DataType
from . import I32_MAX, FusionSig, TensorSig, contradicted_kinds, is_integer
from .row_reduction import VECTOR_BYTES, _dims_match, inputs_problem, reduction_problem, reductions_listed

THREADS = 256
UNROLL = 4
BOX_COLUMNS = 256          # f32 columns of a workspace box (a TMA box dim holds at most 256)
REGISTER_CAPS = ((4, 64), (3, 80), (2, 128), (1, 255))     # CTAs per SM: a thread's registers
BASE_REGISTERS = 32        # a thread's indices, addresses and loop state besides its data
SLOT_REGISTERS = 16        # workspace values the last split has in flight (it unrolls its slot loop to them)
MAX_SPLITS = 1024
IN_KINDS = ("full", "kept", "value")


@dataclass(frozen=True)
class OuterReductionSchedule:
    in_dtypes: tuple[str, ...]
    out_dtypes: tuple[str, ...]
    in_kinds: tuple[str, ...]    # per input: full | kept | value
    kinds: tuple[str, ...]       # per reduction, in program order: sum | mean | max | min | var
    full: bool                   # every dim reduced: the W column totals fold into one
    vector: int                  # elements per load
    threads: int
    tx: int                      # threads across a strip
    unroll: int                  # rows a thread loads per step
    splits: int

    @property
    def width(self) -> int:
        """W, the columns of a strip."""
        return self.tx * self.vector

    @property
    def quantities(self) -> int:
        """f32 partials per column: one per reduction, two for a var (the shifted sums)."""
        return sum(2 if k == "var" else 1 for k in self.kinds)

    @property
    def slot_width(self) -> int:
        """f32 columns of one workspace box: a strip's W, or a full reduction's quantities (padded
        to the 16 bytes a TMA box row needs)."""
        return _round_up(self.quantities, 4) if self.full else self.width

    @property
    def groups(self) -> int:
        """Partials per column left after the warps' shuffles (the CTA combine folds them)."""
        return self.threads // max(self.tx, 32)

    @property
    def ctas_per_sm(self) -> int:
        """CTAs an SM holds, from an estimate of a thread's registers: BASE_REGISTERS and, with a
        margin, the largest of its phases' values: the row loop's accumulators, var shifts and
        `unroll` loads of each full input; the slot fold's accumulators and SLOT_REGISTERS loads;
        the combine's loads of every group's partials.  The kernel asks ptxas for these CTAs, so
        the estimate must not be short (a spilled accumulator costs more than a CTA less)."""
        loads = sum(-(-self.vector * DataType(d).itemsize // 4)
                    for d, kind in zip(self.in_dtypes, self.in_kinds) if kind == "full")
        acc = self.quantities * self.vector
        phases = (acc + self.vector * self.kinds.count("var") + self.unroll * loads,
                  acc + SLOT_REGISTERS, self.groups * self.quantities)
        registers = BASE_REGISTERS + max(phases) * 5 // 4
        return next(ctas for ctas, cap in REGISTER_CAPS if registers <= cap or ctas == 1)

    def slots(self, strips: int) -> tuple[int, int]:
        """The workspace's shape: a row (slot) per split of [quantity][strip][W] f32 (full: the
        quantities' totals)."""
        return self.splits, self.slot_width if self.full else self.quantities * strips * self.width

    def kernel_params(self) -> list[dict]:
        """Per input a global pointer (aligned to the vector's bytes; a full reduction's kept
        inputs and outputs, one element, to their own) or a scalar input's value; a pointer per
        output; with splits, the workspace (a tensor map of [1, slot_width] f32 boxes and a
        pointer) and the strips' semaphores; then the i32 scalars `rows`, `cols` (the [rows, cols]
        view) and the i64 `count` (elements each result folds: a full reduction's may pass 2^31)."""
        def pointer(tensor, dtype, kind):
            vectors = kind == "full" or not self.full        # a full reduction's kept tensors: one element
            align = min(VECTOR_BYTES, self.vector * DataType(dtype).itemsize) if vectors else DataType(dtype).itemsize
            return {"kind": "pointer", "tensor": tensor, "dtype": dtype, "align": align}

        params = ([{"kind": "value", "tensor": f"input{j}", "dtype": d} if k == "value" else pointer(f"input{j}", d, k)
                   for j, (d, k) in enumerate(zip(self.in_dtypes, self.in_kinds))]
                  + [pointer(f"output{j}", d, "kept") for j, d in enumerate(self.out_dtypes)])
        if self.splits > 1:
            params += [{"kind": "tensormap", "scratch": "workspace", "dtype": "f32", "box": [1, self.slot_width],
                        "swizzle": 0},
                       {"kind": "pointer", "scratch": "workspace", "dtype": "f32", "align": 16},
                       {"kind": "pointer", "scratch": "flags", "dtype": "i32", "align": 4}]
        return params + [{"kind": "scalar", "type": "i32", "value": name} for name in ("rows", "cols")] + \
            [{"kind": "scalar", "type": "i64", "value": "count"}]

    def to_json(self) -> dict:
        return asdict(self)


def reduced_dims(sig: FusionSig) -> tuple[tuple[int, ...], int] | None:
    """(S, k): every reduction reduces axes 0..k-1 of shape S; None when they do not agree or the
    axes are not a leading run."""
    shapes = {r.shape for r in sig.reductions}
    axes = {r.axes for r in sig.reductions}
    if len(shapes) != 1 or len(axes) != 1:
        return None
    shape, axes = shapes.pop(), axes.pop()
    if axes != tuple(range(len(axes))):
        return None
    return shape, len(axes)


def _round_up(n: int, to: int) -> int:
    return -(-n // to) * to


def _product(dims) -> int:
    return -1 if -1 in dims else math.prod(dims)


def _strip_ones(shape) -> tuple:
    shape = tuple(shape)
    while shape and shape[0] == 1:
        shape = shape[1:]
    return shape


def input_kind(t: TensorSig, shape, k: int) -> str | None:
    if t.scalar:
        return "value"
    if _dims_match(t.shape, shape):
        return "full"
    if _dims_match(_strip_ones(t.shape), _strip_ones(shape[k:])):
        return "kept"
    return None


def is_full(shape, k: int) -> bool:
    return k == len(shape) or _product(shape[k:]) == 1


class _OuterReduction:
    name = "outer_reduction"
    signature_facts = ("in_kinds",)

    def can_schedule(self, sig: FusionSig) -> str | None:
        problem = reduction_problem(sig)
        if problem:
            return problem
        found = reduced_dims(sig)
        if found is None:
            return f"every reduction must reduce the same leading dims of one shape, got {reductions_listed(sig)}"
        shape, k = found
        problem = inputs_problem(sig, lambda t: input_kind(t, shape, k),
                                 f"the reduced shape {list(shape)}, the kept dims {list(shape[k:])} nor a scalar")
        if problem:
            return problem
        for j, t in enumerate(sig.outputs):
            if not _dims_match(_strip_ones(t.shape), _strip_ones(shape[k:])):
                return (f"output {j} of shape {list(t.shape)} is not the kept dims {list(shape[k:])}: a reduction over "
                        f"leading dims cannot broadcast its result back over them in one pass")
        return None

    def heuristic(self, sig: FusionSig) -> OuterReductionSchedule:
        shape, k = reduced_dims(sig)
        full = is_full(shape, k)
        in_kinds = tuple(input_kind(t, shape, k) for t in sig.inputs)
        loaded = [t.dtype.value for t, kind in zip(sig.inputs, in_kinds) if kind == "full"] or ["f32"]
        vector = VECTOR_BYTES // min(DataType(d).itemsize for d in loaded)
        divided = _product(shape) if full else _product(shape[k:])
        while vector > 1 and divided > 0 and divided % vector:
            vector //= 2
        if full:
            tx = BOX_COLUMNS // vector
        else:
            n = divided if divided > 0 else BOX_COLUMNS
            tx = max(4 // vector, 1)
            while tx < BOX_COLUMNS // vector and tx * vector < n:
                tx *= 2
        ty = THREADS // tx
        rows = math.ceil(_product(shape) / (tx * vector)) if full else _product(shape[:k])
        strips = 1 if full else math.ceil((divided if divided > 0 else BOX_COLUMNS) / (tx * vector))
        params = OuterReductionSchedule(tuple(t.dtype.value for t in sig.inputs),
                                        tuple(t.dtype.value for t in sig.outputs), in_kinds,
                                        tuple(r.kind for r in sig.reductions), full, vector, THREADS, tx, UNROLL, 1)
        round_ = params.ctas_per_sm * sig.device.sms // (1 if full else 2)
        want = round_ // strips
        most = MAX_SPLITS if rows < 0 else max(1, rows // ((2 if full else 4) * UNROLL * ty))
        return replace(params, splits=max(1, min(want, most, MAX_SPLITS)))

    def encode(self, params: OuterReductionSchedule) -> dict:
        return {"vector": params.vector, "tx": params.tx, "unroll": params.unroll, "splits": params.splits,
                "in_kinds": ",".join(params.in_kinds)}

    def decode(self, sig: FusionSig, fields: dict) -> OuterReductionSchedule:
        """The decisions in `fields`, the heuristic's for the rest (`in_kinds` as the API derived
        them from concrete shapes: fusion IR may say `?`)."""
        params = self.heuristic(sig)
        ints = {k: fields[k] for k in ("vector", "tx", "unroll", "splits") if k in fields}
        in_kinds = tuple(str(fields["in_kinds"]).split(",")) if "in_kinds" in fields else params.in_kinds
        if set(fields) - {"vector", "tx", "unroll", "splits", "in_kinds"} \
                or any(not is_integer(v) for v in ints.values()) \
                or len(in_kinds) != len(sig.inputs) or set(in_kinds) - set(IN_KINDS):
            raise FusionError(f"outer_reduction schedule takes integers vector, tx, unroll, splits and one kind per "
                              f"input ({', '.join(IN_KINDS)}), got {fields}")
        problem = contradicted_kinds("in_kinds", sig.inputs, in_kinds, params.in_kinds)
        if problem:
            raise FusionError(f"outer_reduction schedule {fields}: {problem}")
        fixed = {**asdict(params), **ints, "in_kinds": in_kinds}
        params = OuterReductionSchedule(**fixed)
        if params.vector not in (1, 2, 4, 8) or params.tx not in (1, 2, 4, 8, 16, 32, 64, 128, 256) \
                or not 4 <= params.width <= BOX_COLUMNS or not 1 <= params.unroll <= 8 \
                or not 1 <= params.splits <= MAX_SPLITS:
            raise FusionError(f"outer_reduction schedule {fields} is out of range (vector 1/2/4/8, tx a power of two "
                              f"with 4 <= tx x vector <= {BOX_COLUMNS}, unroll 1-8, splits 1-{MAX_SPLITS})")
        return params

    def build(self, func_op, params: OuterReductionSchedule, kernel_name: str, insertion_point):
        from .outer_reduction_kernel import build_kernel

        return build_kernel(func_op, params, kernel_name, insertion_point, params.ctas_per_sm)

    def launch(self, params: OuterReductionSchedule, sig: FusionSig) -> dict:
        """Units (strips x splits) for the persistent grid, the [rows, cols] view, the workspace."""
        shape, k = reduced_dims(sig)
        elements, kept = math.prod(shape), math.prod(shape[k:])
        if kept == 0:
            return {"tiles": 0, "scalars": {}}
        count = elements // kept
        if count == 0:          # torch gives 0, NaN or an error per kind: not guessed here
            raise FusionError(f"outer_reduction: reducing {list(shape)} over dims {list(range(k))} folds no elements")
        divided = elements if params.full else kept
        if divided % params.vector:
            raise FusionError(f"outer_reduction kernel loads vectors of {params.vector}; {divided} "
                              f"{'elements' if params.full else 'columns'} are not a multiple")
        if elements > I32_MAX * 8:
            raise FusionError(f"{list(shape)} exceeds the kernel's index range")
        rows, cols = (math.ceil(elements / params.width), params.width) if params.full else (count, kept)
        strips = math.ceil(cols / params.width)
        launch = {"tiles": strips * params.splits, "scalars": {"rows": rows, "cols": cols, "count": count}}
        if params.splits > 1:
            slots = params.slots(strips)
            launch |= {"scratch": {"workspace": ("f32", slots), "flags": ("i32", (strips,))},
                       "views": {"workspace": slots}}
        return launch

    def meta(self, params: OuterReductionSchedule) -> dict:
        return {"params": params.kernel_params(), "block": [params.threads, 1, 1], "grid": "persistent",
                "dynamic_smem": 0, "schedule": params.to_json()}


SCHEDULER = _OuterReduction()
