"""The row-reduction scheduler: fusions that reduce the innermost dim (softmax, RMSNorm, LayerNorm,
row sums), with the row held on chip (registers or shared memory) so the fusion reads HBM once.
Decisions in plain Python (the GPU machine runs them too); the kernel is `row_reduction_kernel.py`.

What it takes.  Every `fusion.reduce` / `fusion.var` reduces the last axis of one row shape
S = [.., N] (rows = the product of the outer dims).  Inputs are, against S: `full` (shape S,
contiguous, 16-byte aligned), `cols` ([N] or [1, .., N]: read per column, e.g. a norm's weight),
or `value` (a scalar input).  Outputs are `full` (shape S) or `row` (S without its last dim, or
with it as 1: the row statistics).  Floating-point tensors only (f32, f16, bf16): integer
reductions are not scheduled yet.

The work.  A CTA holds `rows_per_cta` rows side by side, `group` = threads / rows_per_cta threads
each (a row past the last computes on the last row and stores nothing), or the columns
[r * C, (r + 1) * C) of one row, C = group x units x vector, as the CTA of rank r in a cluster of
`cluster` CTAs.  A row (or a CTA's columns of it) is units of `vector` elements and thread t
holds units t, t + group, .. (`units` of them, loaded once); units past the row's
end are loaded at the row's last whole unit and masked out (vector must divide N); they stay in
registers, or (`hold` smem) in shared memory, where each thread reads back only what it wrote
(no barrier), so only a unit at a time is live in registers between the passes.  Each
reduction folds the thread's lanes, then the warp (shuffles), then the row's warps through shared
memory (one slot of threads/32 f32 per reduction; the barrier between the slot's writes and
reads is derived by fuser-insert-syncs; a row of one warp needs neither); over a cluster each CTA
then stores its total into slot [rank] of every CTA's shared memory (`nvasync.store_peer`) and
folds the slots in rank order after the cluster barrier fuser-insert-syncs derives.  So every
thread holds the row's value; what follows the reduction is computed from the registers again.
mean divides the sum by N; var is two-pass (the mean, then the sum of squared deviations,
divided by max(N - correction, 0)), in f32 like torch's.

The heuristic.  vector: 16 bytes of the narrowest dtype, halved until it divides N; group: a
warp for rows of at most 32 units, else the smallest power of two in [64, 512] with at most 4
units a thread, more units (up to MAX_UNITS) where 512 threads need them, and rows that 512 x
MAX_UNITS units do not hold split over a cluster of 2, 4 or 8 CTAs (up to 256K bf16 elements;
longer rows are an error); groups of 64 threads or fewer share CTAs of SHORT_ROWS_CTA threads;
hold (choose_hold): smem for rows of 512-thread CTAs whose full inputs two CTAs' shared memory
holds, else registers; ctas_per_sm (choose_ctas_per_sm): 2 for 512-thread rows in smem or (one
CTA a row) of at most 32 elements a thread, else ptxas's choice; with rows in smem, cols inputs
(weights) load `lookahead` 2 units ahead of the stores, and full inputs `stream` past the L1
(L1::no_allocate) where two CTAs' rows in smem, their loads in flight and the weights exceed the
SM's 256 KB of L1 and smem (choose_cols_loads).  Every decision can be named in `schedule=`;
hold, ctas_per_sm, lookahead and stream, unless named, follow the rest.
Measured on the H100 (bf16):
- 32768 rows of 1024: 64 threads x 2 units run a LayerNorm at 2.80 TB/s where 128 x 1 ran 2.38
  and a warp x 4 units 2.71; 4 such rows a CTA 2.77-2.86 TB/s over four fusions, level with one
  a CTA;
- 4096 rows of 1024 (fewer, larger CTAs launch faster): a warp a row, 8 a CTA, ran 8.5-12.6 µs
  where a row a CTA ran 10.3-13.9;
- 4096 columns: 2 rows a CTA ran a LayerNorm at 2.64 TB/s where one ran 2.96;
- 32768 columns: 512 x 8 ran a LayerNorm at 2.98 TB/s where 1024 x 4 (a 64-register cap) ran
  2.77 and softmax 1.6 % slower; split over 2 CTAs of a cluster (512 x 4 or 256 x 8) 1.5-2.5
  TB/s for the normalizations: half the bytes in flight on an SM that holds one CTA either way;
- 65536-262144 columns over clusters of 2-8: 1.9-2.6 TB/s for the normalizations (1.07-1.27x
  torch.compile), 2.6-3.2 for a row sum;
- 16384 columns (512 x 4 units x 8), compiled for two CTAs per SM (`ctas_per_sm`: 64 registers a
  thread) against one (LayerNorm 80 registers, RMSNorm 73), 32768 / 4096 rows: LayerNorm 2.92 /
  2.40 TB/s against 2.40 / 2.21, RMSNorm 3.02 / 2.50 against 2.79 / 2.40; softmax and the row sum
  (63 registers or fewer, two CTAs either way) the same.  At 32768 columns (64 elements a thread)
  64 registers spill 192-392 bytes and ran 1.1-1.6 TB/s against 2.8-2.96: one CTA.
- rows of 512 threads held in smem at two CTAs per SM (`hold`), against registers (one CTA at
  32768 columns, two at 16384), bf16, TB/s, four runs of a probe, each on a fresh machine
  (4096 / 8192 / 32768 rows):
  - 32768 columns: softmax 2.81-2.91 / 2.92-2.98 / 3.00-3.02 against 2.70-2.81 / 2.80-2.87 /
    2.89-2.91, ahead in every run; LayerNorm (weights 2 units ahead, rows past the L1) 2.78-2.83
    / 2.90-2.91 / 2.92 against 2.74-2.86 / 2.76-2.88 / 2.94-3.00 and RMSNorm 2.82-2.91 / 2.91-2.97
    / 2.98-2.99 against 2.79-2.91 / 2.93-2.97 / 2.99-3.02: ahead in one run, behind in another
    (machine to machine, not run to run); in smem without streaming LayerNorm ran 2.68-2.77 at
    4096 rows; streaming slowed softmax (2.87) and rows held in registers (1-3 %); weights 3 units
    ahead as 2; 256 threads x 16 units at two or three CTAs an SM 2-15 % slower; the smem carveout
    set to the least that fits as the driver's choice;
  - 16384 columns (4096 / 32768 rows): LayerNorm 2.83 / 2.96-3.02 against 2.74-2.75 / 2.89-2.93
    (ptxas spilled 28 bytes in registers), RMSNorm 2.93 / 3.04 against 2.91 / 3.00-3.03, softmax
    2.90-2.91 / 3.03-3.05 against 2.93 / 3.03; three CTAs an SM (40 registers) ran LayerNorm at
    32768 columns at 2.22-2.29 (it spills) and softmax 1-2 % below two;
  - weights loaded 2-4 units ahead with rows in registers: LayerNorm 3-7 % slower (ptxas
    reorders and spills), RMSNorm within 1 %;
  - rows over a cluster (4096 and 8192 rows of 65536, 2048 of 131072, 1024 of 262144), one run:
    softmax 2.72 / 2.76 / 2.64 / 2.50 against 2.22 / 2.24 / 2.01 / 1.94 in registers, LayerNorm
    2.42 / 2.49 / 2.37 / 2.29 against 2.11 / 2.14 / 1.97 / 1.85, RMSNorm 2.80 / 2.81 / 2.74 / 2.73
    against 2.58 / 2.60 / 2.41 / 2.30, the row sum (one pass) 3.01-3.13 against 3.03-3.17; in
    smem at one CTA an SM 3-10 % below registers.
- Tried, slower, not kept (one run each): persistent CTAs prefetching their next rows by TMA
  into a ring of 2-3 row buffers in shared memory (fuser-pipeline-mbarriers) ran every
  32768-column row 3-12 % slower (LayerNorm 4096 x 32768: 2.43 against 2.75 TB/s; Nsight
  Compute: 60.6 % of DRAM bandwidth against 78.9 %); rows held in registers as loaded (bf16)
  instead of as f32 changed nothing measurable; computing every unit's outputs before the first
  store (so a norm's weight loads need not wait behind stores) made LayerNorm spill and run
  8-16 % slower, RMSNorm between 1 % slower and 5 % faster.
- Also tried and not kept (two runs each, the kernels of both variants in one run):
  - a var's mean and squared deviations in one fold of per-thread (count, sum, M2) merged by
    Chan's formula (one barrier round less): LayerNorm 32768 x 8192 2.55 against 3.02 TB/s (81
    registers, past the 80 that 3 CTAs of 256 threads allow) and 0.97-0.99x on the other table
    rows; only 16384 columns gained (3.03 against 2.89);
  - rows over a cluster of 2 or 4 CTAs compiled for two CTAs per SM (512 x 4 or 512 x 2 units
    of 8): 0.6-0.9x one CTA of 512 x 8 at 16384 and 32768 columns;
  - 64 registers (`ctas_per_sm` = 1024 / threads) for 128- and 256-thread rows of 1024-8192
    columns: softmax within 1 %, RMSNorm 0-2 % slower, LayerNorm (28 bytes of spill) 3-5 %
    slower; 3 CTAs of 256 threads for 8192 columns: the same as ptxas's choice;
  - the 4096-row tables are not a wave-quantization tail: 3960, 4092, 4096 and 4224 rows of
    32768 ran within the run-to-run spread (softmax 2.75-2.80 TB/s), 8192 rows 2.84-2.86.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace

from ..diagnostics import FusionError
from ..frontend.dtypes import DataType
from . import FusionSig, TensorSig, contradicted_kinds, is_integer
from .pointwise import POINTWISE_OPS

REDUCTION_OPS = frozenset({"reduce", "var"})
VECTOR_BYTES = 16
WARP, MIN_GROUP, WIDE_THREADS = 32, 64, 512
MAX_CLUSTER = 8                 # the portable cluster size
SHORT_ROWS_CTA = 256            # a CTA's threads where a row needs 64 or fewer: several rows side by side
TARGET_UNITS = 4                # units a thread holds when the row is long enough
MAX_UNITS = 8                   # registers: 8 x 8 bf16 lanes per full input and thread
TWO_CTA_ELEMENTS = 32           # elements a 512-thread CTA's thread holds in 64 registers (ctas_per_sm)
L1_SMEM_BYTES = 256 * 1024      # Hopper: an SM's L1 and shared memory together
SMEM_PER_SM = 228 * 1024        # Hopper: the most of it that is shared memory
CTA_SMEM_RESERVE = 2 * 1024     # a CTA's reduction slots and the 1 KB the system reserves, rounded up
MAX_THREADS_PER_SM = 2048       # Hopper: the bound on ctas_per_sm x threads
IN_KINDS = ("full", "cols", "value")
HOLDS = ("registers", "smem")
OUT_KINDS = ("full", "row")
I32_MAX = 2 ** 31 - 1


@dataclass(frozen=True)
class RowReductionSchedule:
    in_dtypes: tuple[str, ...]
    out_dtypes: tuple[str, ...]
    in_kinds: tuple[str, ...]    # per input: full | cols | value
    out_kinds: tuple[str, ...]   # per output: full | row
    vector: int                  # elements per unit
    threads: int
    units: int                   # units per thread: a row holds at most group x units x vector elements
    rows_per_cta: int = 1        # rows a CTA reduces side by side, `group` threads each
    cluster: int = 1             # CTAs of a cluster sharing one row (its distributed shared memory)
    ctas_per_sm: int = 1         # CTAs per SM the kernel is compiled for (ptxas's register cap)
    hold: str = "registers"      # where full inputs stay between the passes: registers | smem
    lookahead: int = 1           # units whose cols inputs are loaded before a unit's stores
    stream: int = 0              # 1: full inputs' loads pass the L1 by (L1::no_allocate)

    @property
    def group(self) -> int:
        """Threads that hold one row."""
        return self.threads // self.rows_per_cta

    @property
    def capacity(self) -> int:
        """The longest row the kernel holds."""
        return self.group * self.units * self.vector * self.cluster

    def kernel_params(self) -> list[dict]:
        """Per input a global pointer (aligned to the vector's bytes) or a scalar input's value; a
        pointer per output; then the i32 `cols` (N) and, where a CTA holds several rows, `rows`."""
        def pointer(tensor, dtype, kind):
            align = min(VECTOR_BYTES, self.vector * DataType(dtype).itemsize) if kind in ("full", "cols") \
                else DataType(dtype).itemsize
            return {"kind": "pointer", "tensor": tensor, "dtype": dtype, "align": align}

        return ([{"kind": "value", "tensor": f"input{j}", "dtype": d} if k == "value" else pointer(f"input{j}", d, k)
                 for j, (d, k) in enumerate(zip(self.in_dtypes, self.in_kinds))]
                + [pointer(f"output{j}", d, k) for j, (d, k) in enumerate(zip(self.out_dtypes, self.out_kinds))]
                + [{"kind": "scalar", "type": "i32", "value": name}
                   for name in (("cols", "rows") if self.rows_per_cta > 1 else ("cols",))])

    def to_json(self) -> dict:
        return asdict(self)


def row_shape(sig: FusionSig) -> tuple[int, ...] | None:
    """S, the shape every reduction reduces over its last axis; None when they do not agree."""
    shapes = {r.shape for r in sig.reductions}
    if len(shapes) != 1 or any(r.axes != (len(r.shape) - 1,) for r in sig.reductions):
        return None
    return shapes.pop()


def _dims_match(a, b) -> bool:
    return len(a) == len(b) and all(x == y or x == -1 or y == -1 for x, y in zip(a, b))


def input_kind(t: TensorSig, shape) -> str | None:
    if t.scalar:
        return "value"
    if _dims_match(t.shape, shape):
        return "full"
    if len(t.shape) <= len(shape) and _dims_match(t.shape[-1:], shape[-1:]) and all(d == 1 for d in t.shape[:-1]):
        return "cols"
    return None


def output_kind(t: TensorSig, shape) -> str | None:
    """A keepdim statistic [.., 1] is a row output even where N is dynamic (a full output's last
    dim is N's, never a static 1 unless N is)."""
    keepdim = len(t.shape) == len(shape) and t.shape[-1] == 1 and shape[-1] != 1
    if keepdim and _dims_match(t.shape[:-1], shape[:-1]):
        return "row"
    if _dims_match(t.shape, shape):
        return "full"
    if _dims_match(t.shape, shape[:-1]):
        return "row"
    return None


def choose_vector(cols: int, dtypes) -> int:
    vector = min(8, VECTOR_BYTES // min(DataType(d).itemsize for d in dtypes))
    while cols > 0 and cols % vector:
        vector //= 2
    return vector


def choose_threads(cols: int, vector: int) -> tuple[int, int, int, int]:
    """(threads, units, rows_per_cta, cluster) for rows of `cols` elements (-1: unknown until
    launch, sized for 8K)."""
    chunks = math.ceil((cols if cols > 0 else 8192) / vector)
    group = WARP if chunks <= WARP else MIN_GROUP
    while group < WIDE_THREADS and group * TARGET_UNITS < chunks:
        group *= 2
    cluster = 1
    while cluster < MAX_CLUSTER and group * MAX_UNITS * cluster < chunks:
        cluster *= 2
    rows_per_cta = SHORT_ROWS_CTA // group if group < SHORT_ROWS_CTA // 2 else 1
    return group * rows_per_cta, max(1, math.ceil(chunks / (group * cluster))), rows_per_cta, cluster


def choose_hold(threads: int, units: int, vector: int, in_dtypes, in_kinds) -> str:
    """smem for the rows of 512-thread CTAs (16-bit rows of more than 8K elements, over a
    cluster too) whose full inputs two CTAs' shared memory holds: a thread's registers then hold
    at most one unit between the passes, so two CTAs fit an SM at 64 registers and one CTA's
    loads overlap the other's reductions and stores; else registers (module docstring)."""
    row_bytes = sum(threads * units * vector * DataType(d).itemsize for d, k in zip(in_dtypes, in_kinds) if k == "full")
    return "smem" if threads == WIDE_THREADS and 2 * (row_bytes + CTA_SMEM_RESERVE) <= SMEM_PER_SM else "registers"


def choose_ctas_per_sm(threads: int, units: int, vector: int, cluster: int, hold: str) -> int:
    """2 for rows of 512-thread CTAs held in smem, or (one CTA a row) whose threads hold at most
    TWO_CTA_ELEMENTS elements in registers: 64 registers a thread; else 1, ptxas's choice (module
    docstring; register-held rows over a cluster at two CTAs an SM measured slower)."""
    fits = hold == "smem" or (cluster == 1 and units * vector <= TWO_CTA_ELEMENTS)
    return 2 if threads == WIDE_THREADS and fits else 1


def choose_cols_loads(hold: str, ctas_per_sm: int, capacity: int, in_dtypes, in_kinds) -> tuple[int, int]:
    """(lookahead, stream) for a kernel whose rows stay in smem and that reads cols inputs (a
    norm's weights): their loads run 2 units ahead of the stores (at 64 registers a thread the
    loads of the next unit would wait behind the current unit's stores), and the full inputs stream
    past the L1 where the SM's smem rows, their loads in flight and the cols inputs exceed
    L1_SMEM_BYTES (the L1 then keeps the weights); else (1, 0)."""
    cols = [DataType(d).itemsize * capacity for d, k in zip(in_dtypes, in_kinds) if k == "cols"]
    if hold != "smem" or not cols:
        return 1, 0
    rows = sum(DataType(d).itemsize * capacity for d, k in zip(in_dtypes, in_kinds) if k == "full")
    return 2, int(2 * ctas_per_sm * rows + sum(cols) > L1_SMEM_BYTES)


def following(params: RowReductionSchedule, named) -> RowReductionSchedule:
    """`params` with the decisions that follow the others (hold, ctas_per_sm, lookahead, stream)
    taken by their rules, except those `named` (a user's schedule)."""
    if "hold" not in named:
        params = replace(params, hold=choose_hold(params.threads, params.units, params.vector, params.in_dtypes,
                                                  params.in_kinds))
    if "ctas_per_sm" not in named:
        params = replace(params, ctas_per_sm=choose_ctas_per_sm(params.threads, params.units, params.vector,
                                                                params.cluster, params.hold))
    lookahead, stream = choose_cols_loads(params.hold, params.ctas_per_sm, params.capacity, params.in_dtypes,
                                          params.in_kinds)
    return replace(params, lookahead=params.lookahead if "lookahead" in named else lookahead,
                   stream=params.stream if "stream" in named else stream)


def reduction_problem(sig: FusionSig) -> str | None:
    """Why a reduction scheduler cannot take `sig` whatever its shapes (None: it may): no
    reduction, ops neither pointwise nor reductions, tensors not floating-point."""
    if not sig.ops & REDUCTION_OPS:
        return "no reduction in the fusion"
    others = sig.ops - POINTWISE_OPS - REDUCTION_OPS
    if others:
        return f"ops {', '.join(sorted(others))} are neither pointwise nor reductions"
    for what, tensors in (("input", sig.inputs), ("output", sig.outputs)):
        for j, t in enumerate(tensors):
            if t.dtype.value not in ("f32", "f16", "bf16"):
                return f"{what} {j} is {t.dtype.value}: integer and Bool reductions are not scheduled yet"
    return None


def reductions_listed(sig: FusionSig) -> str:
    """The fusion's reductions, for messages: `[shape] over [axes]`, ..."""
    return ", ".join(f"{list(r.shape)} over {list(r.axes)}" for r in sig.reductions)


def inputs_problem(sig: FusionSig, kind_of, expected: str) -> str | None:
    """Why an input is not a reduction scheduler's (None: every one is): `kind_of(t)` is None
    (`expected` names the kinds taken), or a tensor read from memory that is not contiguous and
    16-byte aligned."""
    for j, t in enumerate(sig.inputs):
        kind = kind_of(t)
        if kind is None:
            return f"input {j} of shape {list(t.shape)} is neither {expected}"
        if kind != "value" and (t.strides is not None or not t.aligned):
            return f"input {j} must be contiguous and 16-byte aligned"
    return None


class _RowReduction:
    name = "row_reduction"
    signature_facts = ("in_kinds", "out_kinds")

    def can_schedule(self, sig: FusionSig) -> str | None:
        problem = reduction_problem(sig)
        if problem:
            return problem
        shape = row_shape(sig)
        if shape is None:
            return f"every reduction must reduce the last axis of one shape, got {reductions_listed(sig)}"
        problem = inputs_problem(sig, lambda t: input_kind(t, shape),
                                 f"the rows' shape {list(shape)}, a row of [{shape[-1]}] columns nor a scalar")
        if problem:
            return problem
        for j, t in enumerate(sig.outputs):
            if output_kind(t, shape) is None:
                return f"output {j} of shape {list(t.shape)} is neither the rows' shape {list(shape)} nor one per row"
        return None

    def heuristic(self, sig: FusionSig) -> RowReductionSchedule:
        shape = row_shape(sig)
        in_dtypes = tuple(t.dtype.value for t in sig.inputs)
        out_dtypes = tuple(t.dtype.value for t in sig.outputs)
        vector = choose_vector(shape[-1], [d for d, t in zip(in_dtypes, sig.inputs) if not t.scalar] + list(out_dtypes))
        threads, units, rows_per_cta, cluster = choose_threads(shape[-1], vector)
        if units > MAX_UNITS:
            raise FusionError(f"rows of {shape[-1]} elements exceed what a cluster of {MAX_CLUSTER} CTAs holds in "
                              f"registers ({MAX_CLUSTER * WIDE_THREADS * MAX_UNITS * vector}); longer rows are not "
                              "scheduled yet")
        return following(RowReductionSchedule(in_dtypes, out_dtypes, tuple(input_kind(t, shape) for t in sig.inputs),
                                              tuple(output_kind(t, shape) for t in sig.outputs), vector, threads,
                                              units, rows_per_cta, cluster), named=())

    def encode(self, params: RowReductionSchedule) -> dict:
        return {"vector": params.vector, "threads": params.threads, "units": params.units,
                "rows_per_cta": params.rows_per_cta, "cluster": params.cluster, "ctas_per_sm": params.ctas_per_sm,
                "hold": params.hold, "lookahead": params.lookahead, "stream": params.stream,
                "in_kinds": ",".join(params.in_kinds), "out_kinds": ",".join(params.out_kinds)}

    def decode(self, sig: FusionSig, fields: dict) -> RowReductionSchedule:
        """The decisions in `fields`, the heuristic's for the rest; `in_kinds` / `out_kinds`, when
        given, as the API derived them from concrete shapes (fusion IR may say `?` for N); hold,
        ctas_per_sm, lookahead and stream, when not given, follow the rules for the decisions taken."""
        params = self.heuristic(sig)
        numbers = ("vector", "threads", "units", "rows_per_cta", "cluster", "ctas_per_sm", "lookahead", "stream")
        unknown = set(fields) - set(numbers) - {"in_kinds", "out_kinds", "hold"}
        ints = {k: fields[k] for k in numbers if k in fields}
        kinds = {k: tuple(str(fields[k]).split(",")) if k in fields else getattr(params, k)
                 for k in ("in_kinds", "out_kinds")}
        if unknown or any(not is_integer(v) for v in ints.values()) \
                or len(kinds["in_kinds"]) != len(sig.inputs) or len(kinds["out_kinds"]) != len(sig.outputs) \
                or set(kinds["in_kinds"]) - set(IN_KINDS) or set(kinds["out_kinds"]) - set(OUT_KINDS) \
                or fields.get("hold", HOLDS[0]) not in HOLDS:
            raise FusionError(f"row_reduction schedule takes integers vector, threads, units, rows_per_cta, cluster, "
                              f"ctas_per_sm, lookahead and stream, hold ({' or '.join(HOLDS)}) and one "
                              f"kind per input ({', '.join(IN_KINDS)}) and output ({', '.join(OUT_KINDS)}), "
                              f"got {fields}")
        problem = contradicted_kinds("in_kinds", sig.inputs, kinds["in_kinds"], params.in_kinds) \
            or contradicted_kinds("out_kinds", sig.outputs, kinds["out_kinds"], params.out_kinds)
        if problem:
            raise FusionError(f"row_reduction schedule {fields}: {problem}")
        params = replace(params, in_kinds=kinds["in_kinds"], out_kinds=kinds["out_kinds"],
                         hold=fields.get("hold", params.hold), **ints)
        params = following(params, named=fields)
        if params.vector not in (1, 2, 4, 8) or params.threads not in (32, 64, 128, 256, 512, 1024) \
                or not 1 <= params.units <= 2 * MAX_UNITS or params.rows_per_cta not in (1, 2, 4, 8, 16, 32) \
                or params.group < 32 or params.cluster not in (1, 2, 4, 8) \
                or (params.cluster > 1 and params.rows_per_cta > 1) \
                or not 1 <= params.ctas_per_sm <= MAX_THREADS_PER_SM // params.threads \
                or not 1 <= params.lookahead <= params.units or params.stream not in (0, 1):
            raise FusionError(f"row_reduction schedule {fields} is out of range (vector 1/2/4/8, threads a power "
                              f"of two in [32, 1024], units 1-{2 * MAX_UNITS}, rows_per_cta a power of two leaving "
                              f"a row at least 32 threads, cluster 1/2/4/8 with one row a CTA, ctas_per_sm at "
                              f"least 1 and at most {MAX_THREADS_PER_SM} threads an SM, lookahead 1 to units, "
                              "stream 0/1)")
        return params

    def build(self, func_op, params: RowReductionSchedule, kernel_name: str, insertion_point):
        from .row_reduction_kernel import build_kernel

        return build_kernel(func_op, params, kernel_name, insertion_point)

    def launch(self, params: RowReductionSchedule, sig: FusionSig) -> dict:
        """A CTA per rows_per_cta rows; `cols` (and `rows`) as kernel scalars; an error when the row
        does not fit."""
        shape = row_shape(sig)
        cols, rows = shape[-1], math.prod(shape[:-1])
        if rows == 0:
            return {"tiles": 0, "scalars": {}}
        if cols == 0:           # torch gives 0, NaN or an error per kind: not guessed here
            raise FusionError(f"row_reduction: reducing rows of 0 elements (shape {list(shape)}) is not supported")
        if cols > params.capacity or cols % params.vector:
            raise FusionError(f"row_reduction kernel holds rows of at most {params.capacity} elements in "
                              f"vectors of {params.vector}; these rows have {cols}")
        if rows > I32_MAX or rows * cols > I32_MAX * 8:
            raise FusionError(f"{rows} rows of {cols} exceed the kernel's index range")
        scalars = {"cols": cols, "rows": rows} if params.rows_per_cta > 1 else {"cols": cols}
        return {"tiles": math.ceil(rows / params.rows_per_cta) * params.cluster, "scalars": scalars}

    def meta(self, params: RowReductionSchedule) -> dict:
        return {"params": params.kernel_params(), "block": [params.threads, 1, 1], "grid": "per_tile",
                "dynamic_smem": 0, "schedule": params.to_json()}


SCHEDULER = _RowReduction()
