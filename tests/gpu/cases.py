"""The fusions and shapes the GPU suite runs; build_artifacts.py compiles exactly these.

Case names are `-`-separated tokens; test_pointwise.py draws inputs by them (positive, away from
zero, with ties, with nan/inf, wide integers).  `with_modes` runs every case the TMA pointwise
scheduler takes once per pipeline mode (`schedule=` names it), the others (broadcasts) once."""
from fuser_mlir import DataType, FusionDefinition
from fuser_mlir.frontend.definition import BINARY, UNARY
from fuser_mlir.frontend.normalizations import layer_norm, log_softmax, rms_norm, softmax

DTYPES = (DataType.Float, DataType.Half, DataType.BFloat16)
INT_DTYPES = (DataType.Int32, DataType.Int64)
POSITIVE = {"log", "sqrt", "rsqrt", "log1p"}      # ops drawn on positive inputs
COMPARISONS = ("eq", "ne", "lt", "le", "gt", "ge")
# One-op cases per float dtype: every unary and binary kind except those checked in groups below.
GROUPED = {"isnan", "isinf", "logical_not", "logical_and", "logical_or", *COMPARISONS}


def unary(kind, dtype, rank=2):
    with FusionDefinition() as fd:
        x = fd.define_tensor([-1] * rank, dtype)
        fd.add_output(getattr(fd.ops, kind)(x))
    return fd


def binary(kind, dtype, rank=2):
    with FusionDefinition() as fd:
        x = fd.define_tensor([-1] * rank, dtype)
        y = fd.define_tensor([-1] * rank, dtype)
        fd.add_output(getattr(fd.ops, kind)(x, y))
    return fd


def where(dtype):
    with FusionDefinition() as fd:
        c = fd.define_tensor([-1, -1], DataType.Bool)
        x = fd.define_tensor([-1, -1], dtype)
        y = fd.define_tensor([-1, -1], dtype)
        fd.add_output(fd.ops.where(c, x, fd.ops.neg(y)))
    return fd


def cast_chain(dtype):
    """Mixed dtypes: promotion, an explicit cast, and two outputs."""
    with FusionDefinition() as fd:
        x = fd.define_tensor([-1, -1], dtype)
        y = fd.define_tensor([-1, -1], DataType.Float)
        h = fd.ops.cast(fd.ops.mul(x, y), DataType.Half)
        fd.add_output(fd.ops.add(h, x))
        fd.add_output(fd.ops.cast(fd.ops.sigmoid(y), dtype))
    return fd


def broadcast_bias(dtype):
    """x [M, N] * gelu(b [N]) + broadcast(b to [M, N])."""
    with FusionDefinition() as fd:
        x = fd.define_tensor([-1, -1], dtype)
        b = fd.define_tensor([-1], dtype)
        z = fd.ops.mul(x, fd.ops.gelu(b))
        fd.add_output(fd.ops.add(z, fd.ops.broadcast(b, [-1, -1])))
    return fd


def mlp_epilogue(dtype, rank=2):
    """The multi-op fusion used for tails and sizes: silu(x) * y + tanh(x) - x / (1 + y^2)."""
    with FusionDefinition() as fd:
        x = fd.define_tensor([-1] * rank, dtype)
        y = fd.define_tensor([-1] * rank, dtype)
        a = fd.ops.mul(fd.ops.silu(x), y)
        b = fd.ops.add(a, fd.ops.tanh(x))
        fd.add_output(fd.ops.sub(b, fd.ops.div(x, fd.ops.add(fd.ops.mul(y, y), fd.ops.exp(fd.ops.neg(fd.ops.abs(y)))))))
    return fd


def outputs(dtypes, build):
    """A fusion of inputs of `dtypes` ([-1, -1] each) whose outputs are `build(fd.ops, *inputs)`."""
    with FusionDefinition() as fd:
        inputs = [fd.define_tensor([-1, -1], d) for d in dtypes]
        for out in build(fd.ops, *inputs):
            fd.add_output(out)
    return fd


def comparisons(o, x, y):
    return [getattr(o, k)(x, y) for k in COMPARISONS]


def special(o, x):
    """nan/inf handling; inputs carry nan, inf and -inf."""
    return [o.isnan(x), o.isinf(x), o.nan_to_num(x), o.nan_to_num(x, nan=1.5, posinf=100.0, neginf=-100.0)]


def scalars(o, x, c):
    """Python numbers as operands, promoted as torch does (they keep x's dtype)."""
    return [o.mul(x, 0.1), o.sub(1, x), o.pow(x, 2), o.where(c, x, 0.0), o.clamp(x, min=-0.5, max=0.75),
            o.lt(x, 0.5)]


def logical(o, a, b, x):
    """Bool inputs, and floats taken as `!= 0`."""
    return [o.logical_and(a, b), o.logical_or(a, x), o.logical_not(a), o.logical_not(x), o.eq(a, b), o.lt(a, b)]


def int_arith(o, x, y):
    return [o.add(x, y), o.sub(x, y), o.mul(x, y), o.maximum(x, y), o.minimum(x, y), o.where(o.gt(x, 0), x, y)]


def int_wide(o, x, y):
    """64-bit values beyond 32 bits (no products: they would wrap)."""
    return [o.add(x, y), o.sub(x, y), o.maximum(x, y), o.minimum(x, y), o.lt(x, y), o.neg(x)]


def int_unary(o, x):
    return [o.neg(x), o.abs(x), o.relu(x), o.sign(x), o.clamp(x, min=-100, max=250), o.mul(o.add(x, 7), 3)]


def mixed(o, i, l, h, m):
    """Promotion across integer, float and bool inputs, and integer true division."""
    return [o.add(i, l), o.mul(i, h), o.where(m, i, l), o.add(m, i), o.add(i, 2.5), o.div(i, o.add(o.abs(l), 1))]


def int_casts(o, x, i, l):
    return [o.cast(x, DataType.Int32), o.cast(x, DataType.Int64), o.cast(l, DataType.BFloat16),
            o.cast(i, DataType.Bool), o.cast(o.cast(i, DataType.Bool), DataType.Float), o.cast(l, DataType.Int32)]


# (name, builder, input shapes). Shapes include tails in both dims, 1-D, 3-D and a large case.
CASES = []
for dtype in DTYPES:
    for kind in UNARY:
        if kind not in GROUPED:
            CASES.append((f"unary-{kind}-{dtype.value}", lambda k=kind, d=dtype: unary(k, d), [(300, 1000)]))
    for kind in BINARY:
        if kind not in GROUPED:
            CASES.append((f"binary-{kind}-{dtype.value}", lambda k=kind, d=dtype: binary(k, d), [(257, 520)] * 2))
    CASES.append((f"compare-ties-{dtype.value}", lambda d=dtype: outputs([d, d], comparisons), [(130, 264)] * 2))
    CASES.append((f"special-{dtype.value}", lambda d=dtype: outputs([d], special), [(100, 1032)]))
    CASES.append((f"scalars-{dtype.value}", lambda d=dtype: outputs([d, DataType.Bool], scalars), [(64, 4096)] * 2))
    CASES.append((f"where-{dtype.value}", lambda d=dtype: where(d), [(130, 264)] * 3))
    CASES.append((f"cast-{dtype.value}", lambda d=dtype: cast_chain(d), [(100, 1032)] * 2))
    CASES.append((f"broadcast-{dtype.value}", lambda d=dtype: broadcast_bias(d), [(77, 512), (512,)]))
for shape in [(1,), (7,), (4097,), (1_000_003,), (3, 5), (129, 333), (1000, 1024), (2, 3, 200)]:
    CASES.append((f"tails-{'x'.join(map(str, shape))}", lambda r=len(shape): mlp_epilogue(DataType.BFloat16, r),
                  [shape] * 2))
for dtype in INT_DTYPES:
    CASES.append((f"int-arith-{dtype.value}", lambda d=dtype: outputs([d, d], int_arith), [(257, 520)] * 2))
    CASES.append((f"int-unary-{dtype.value}", lambda d=dtype: outputs([d], int_unary), [(300, 1000)]))
    CASES.append((f"int-compare-ties-{dtype.value}", lambda d=dtype: outputs([d, d], comparisons), [(130, 264)] * 2))
CASES += [
    ("int-wide-i64", lambda: outputs([DataType.Int64] * 2, int_wide), [(64, 1024)] * 2),
    ("logical", lambda: outputs([DataType.Bool, DataType.Bool, DataType.Float], logical), [(100, 1032)] * 3),
    ("mixed-promotion", lambda: outputs([DataType.Int32, DataType.Int64, DataType.Half, DataType.Bool], mixed),
     [(77, 512)] * 4),
    ("int-casts", lambda: outputs([DataType.Float, DataType.Int32, DataType.Int64], int_casts), [(77, 512)] * 3),
]
# >= 256 MiB per input: 1-D (flat view) and 2-D (row view).
LARGE = [("large-1d-bf16", lambda: mlp_epilogue(DataType.BFloat16, 1), [(150_000_001,)] * 2),
         ("large-2d-f32", lambda: mlp_epilogue(DataType.Float, 2), [(16384, 4100)] * 2)]


# --- reductions and normalizations (fuser_mlir.frontend.normalizations); test_reductions.py -----
def row_stats(o, x):
    """Every reduction kind over the rows, keepdim both ways, var with both corrections."""
    return [o.sum(x, -1), o.max(x, -1, keepdim=True), o.min(x, -1), o.mean(x, -1, keepdim=True),
            o.var(x, -1), o.var(x, -1, correction=0, keepdim=True)]


def normalization(recipe, dtype, weights=0):
    """The fusion of a [-1, -1] input of `dtype` and `weights` [-1] inputs whose outputs are
    recipe(fd.ops, x, *weights) (one tensor or a tuple)."""
    with FusionDefinition() as fd:
        x = fd.define_tensor([-1, -1], dtype)
        params = [fd.define_tensor([-1], dtype) for _ in range(weights)]
        outs = recipe(fd.ops, x, *params)
        for out in outs if isinstance(outs, (tuple, list)) else [outs]:
            fd.add_output(out)
    return fd


NORMALIZATIONS = {"softmax": (softmax, 0), "log_softmax": (log_softmax, 0), "rms_norm": (rms_norm, 1),
                  "layer_norm": (layer_norm, 2), "row_stats": (row_stats, 0)}     # (recipe, weights)
# (name, fusion, rows x cols): ragged columns (vector widths 8, 4, 1), 1 row, 1 column, rows of
# up to 64K elements (1024 threads x 8 units), each dtype.
REDUCTION_CASES = [
    (f"{name}-{d.name}-{rows}x{cols}", lambda n=name, d=d: normalization(NORMALIZATIONS[n][0], d, NORMALIZATIONS[n][1]),
     (rows, cols))
    for name, d, rows, cols in [
        ("softmax", DataType.BFloat16, 300, 1000), ("softmax", DataType.Float, 37, 1003),
        ("softmax", DataType.Half, 1, 4100), ("softmax", DataType.BFloat16, 16, 32768),
        ("log_softmax", DataType.Float, 33, 8192), ("log_softmax", DataType.BFloat16, 64, 1),
        ("rms_norm", DataType.BFloat16, 128, 4096), ("rms_norm", DataType.Half, 4, 65536),
        ("rms_norm", DataType.Float, 5, 8200), ("rms_norm", DataType.BFloat16, 1001, 2048),
        ("layer_norm", DataType.BFloat16, 100, 1536), ("layer_norm", DataType.Float, 7, 777),
        ("row_stats", DataType.Half, 37, 777), ("row_stats", DataType.Float, 1, 2), ("row_stats", DataType.BFloat16, 513, 24),
        # rows over a cluster of 2, 4 and 8 CTAs (the last CTA of a cluster partly past the row's
        # end), held in smem
        ("softmax", DataType.BFloat16, 7, 65536), ("layer_norm", DataType.BFloat16, 3, 100000),
        ("rms_norm", DataType.Float, 2, 131072), ("row_stats", DataType.Half, 5, 65544),
        ("log_softmax", DataType.BFloat16, 2, 262144), ("layer_norm", DataType.Float, 1, 40000),
        # 512 threads a row, the row held in smem, two CTAs per SM (64 registers); the last two with
        # units past the row's end, LayerNorm's rows streaming past the L1
        ("layer_norm", DataType.BFloat16, 300, 16384), ("rms_norm", DataType.BFloat16, 1000, 12288),
        ("layer_norm", DataType.BFloat16, 300, 30000), ("log_softmax", DataType.Half, 9, 24584),
    ]]
# (case of REDUCTION_CASES, schedule): rows held where a schedule names it -- in smem with 2 rows a
# CTA, with weights 3 units ahead and rows past the L1 -- or in registers, in one CTA or over a
# cluster of 4 (the heuristic's smem rows' alternatives).
HELD_CASES = [(name, {"scheduler": "row_reduction", **fields}) for name, fields in [
    ("softmax-BFloat16-300x1000", {"hold": "smem"}),
    ("layer_norm-Float-7x777", {"hold": "smem", "lookahead": 3, "stream": 1}),
    ("layer_norm-BFloat16-3x100000", {"hold": "registers"}),
    ("layer_norm-BFloat16-300x30000", {"hold": "registers"}),
]]



def col_stats(o, x):
    """Every reduction kind over dim 0, keepdim both ways, var with both corrections."""
    return [o.sum(x, 0), o.max(x, 0, keepdim=True), o.min(x, 0), o.mean(x, 0, keepdim=True), o.var(x, 0),
            o.var(x, 0, correction=0, keepdim=True)]


def outer_fusion(dtype, rank, kept_inputs, recipe):
    """A [-1] * rank input of `dtype`, `kept_inputs` inputs of its last dim's size, outputs
    recipe(fd.ops, x, *kept)."""
    with FusionDefinition() as fd:
        x = fd.define_tensor([-1] * rank, dtype)
        kept = [fd.define_tensor([-1], dtype) for _ in range(kept_inputs)]
        outs = recipe(fd.ops, x, *kept)
        for out in outs if isinstance(outs, (tuple, list)) else [outs]:
            fd.add_output(out)
    return fd


OUTER_RECIPES = {   # name: (rank, kept inputs, recipe)
    "col_stats": (2, 0, col_stats),
    # a kept input before the reduction and one after it, over two leading dims of three
    "scaled_colsum": (3, 2, lambda o, x, w, b: o.add(o.sum(o.mul(x, w), (0, 1)), b)),
    # full reductions: a loss-like sum of squares, a global max, min, mean and var
    "full_stats": (2, 0, lambda o, x: [o.sum(o.mul(x, x)), o.max(x), o.min(x, (0, 1), keepdim=True), o.mean(x),
                                       o.var(x)]),
    "vector_sum": (1, 0, lambda o, x: o.sum(x, 0)),
    "vector_stats": (1, 0, lambda o, x: [o.sum(x, 0), o.mean(x), o.var(x)]),
}
# (name, fusion, input shape, schedule): ragged columns and rows, 1 row, narrow columns (vector 1,
# a strip wider than them), numel not a multiple of 8, more splits than rows (splits with no rows),
# a full reduction of more than 2^31 elements.
OUTER_CASES = [
    (f"{name}-{d.name}-{'x'.join(map(str, shape))}{'-' + str(splits) + 'splits' if splits else ''}",
     lambda n=name, d=d: outer_fusion(d, *OUTER_RECIPES[n]), shape,
     {"scheduler": "outer_reduction", "splits": splits} if splits else None)
    for name, d, shape, splits in [
        ("col_stats", DataType.BFloat16, (4097, 1000), 0), ("col_stats", DataType.Float, (3, 5), 0),
        ("col_stats", DataType.Half, (65536, 8), 0), ("col_stats", DataType.Float, (1, 4096), 0),
        ("col_stats", DataType.BFloat16, (10, 264), 64), ("col_stats", DataType.Float, (20000, 3), 0),
        ("scaled_colsum", DataType.BFloat16, (8, 100, 64), 0), ("scaled_colsum", DataType.Float, (3, 7, 9), 0),
        ("full_stats", DataType.BFloat16, (1000, 1003), 0), ("full_stats", DataType.Float, (2048, 2048), 0),
        ("full_stats", DataType.Half, (1, 1), 0), ("full_stats", DataType.Float, (5, 40), 37),
        ("vector_sum", DataType.BFloat16, (1 << 20,), 0), ("vector_sum", DataType.Float, (12345,), 0),
        ("vector_stats", DataType.BFloat16, ((1 << 31) + 8,), 0),     # counts past 2^31 (an i64 scalar)
    ]]


def reduction_inputs(fd, shape, device):
    """x of `shape` and each other input of its last dim (a weight, a bias): normal on a GPU (x
    around 0.5, the others around 1), meta otherwise.  x's mean is not 0: a mean near 0 is
    ill-conditioned (measured: f32 rows of 40000 N(0, 1) values gave means 2.5-3.5e-6 off in
    relative terms, one CTA or a cluster alike)."""
    import torch

    from fuser_mlir.frontend.dtypes import torch_dtype

    shapes = [tuple(shape)] + [tuple(shape[-1:])] * (len(fd.inputs) - 1)
    if device == "meta":
        return [torch.empty(s, dtype=torch_dtype(t.dtype), device="meta") for s, t in zip(shapes, fd.inputs)]
    return [(torch.randn(s, device=device) * (1 if j == 0 else 0.2) + (0.5 if j == 0 else 1)).to(torch_dtype(t.dtype))
            for j, (s, t) in enumerate(zip(shapes, fd.inputs))]


PIPELINE_MODES = ("pipelined", "warp_specialized")     # fuser_mlir.schedulers.pointwise.MODES


def takes_tma_pointwise(build, shapes) -> bool:
    """Does the TMA pointwise scheduler take this case (dense inputs of the output's shape)?
    Plain Python on meta tensors: the GPU machine decides the same way."""
    import torch

    from fuser_mlir.compiler import input_signature
    from fuser_mlir.frontend.dtypes import torch_dtype
    from fuser_mlir.schedulers.pointwise import SCHEDULER

    fd = build()
    examples = [torch.empty(s, dtype=torch_dtype(t.dtype), device="meta") for s, t in zip(shapes, fd.inputs)]
    return SCHEDULER.can_schedule(input_signature(fd, examples)) is None


def with_modes(cases):
    """[(id, name, build, shapes, schedule)]: every case once with the registry's pick (schedule
    None, id `name`); a case the TMA pointwise scheduler takes also once per pipeline mode, with
    `schedule={"scheduler": "pointwise", "mode": m}` and id `name[m]`."""
    out = []
    for name, build, shapes in cases:
        out.append((name, name, build, shapes, None))
        if takes_tma_pointwise(build, shapes):
            out += [(f"{name}[{m}]", name, build, shapes, {"scheduler": "pointwise", "mode": m})
                    for m in PIPELINE_MODES]
    return out
