"""The strided pointwise scheduler on the H100 against torch in float64: fresh random inputs,
NaN-poisoned outputs, broadcast operands read in the kernel ([N] over [M, N], [M, 1], 0-d, size-1
dims in 3-D and 4-D), transposed, sliced, expanded and misaligned inputs, zero-size tensors,
ragged shapes, f32/f16/bf16, the heuristic's grid (one CTA per step) and the persistent one
(several steps per CTA).

Each case is (name, fusion builder, one (base shape, view) per input, schedule): the input is
`view(base)` of a fresh random `base`, so strides and pointer alignment are the view's.
build_artifacts.py compiles exactly these signatures (on meta tensors, whose alignment is their
storage offset's).  Run offline with artifacts built here (README, "GPU tests").
"""
import os
import sys

import pytest
import torch

sys.path.insert(0, os.path.dirname(__file__))
from cases import DTYPES, mlp_epilogue  # noqa: E402
from test_pointwise import TOLERANCE, reference  # noqa: E402

from fuser_mlir import DataType, FusionDefinition, FusionError  # noqa: E402
from fuser_mlir.frontend.dtypes import torch_dtype  # noqa: E402

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA Hopper GPU")
STRIDED = {"scheduler": "pointwise_strided"}
PERSISTENT = {**STRIDED, "persistent": 1}


# --- fusions -------------------------------------------------------------------------------------
def fusion(shapes, dtype, body, input_dtypes=None):
    """A fusion over inputs of `shapes` (-1: any size); `body(fd, *inputs)` adds its outputs."""
    with FusionDefinition() as fd:
        inputs = [fd.define_tensor(list(s), d) for s, d in zip(shapes, input_dtypes or [dtype] * len(shapes))]
        body(fd, *inputs)
    return fd


def bias_gelu(dtype):
    """x [M, N] * gelu(b [N]) + b."""
    return fusion([(-1, -1), (-1,)], dtype, lambda fd, x, b: fd.add_output(
        fd.ops.add(fd.ops.mul(x, fd.ops.gelu(b)), b)))


def row_scale(dtype):
    """silu(x [M, N]) * s [M, 1]."""
    return fusion([(-1, -1), (-1, 1)], dtype, lambda fd, x, s: fd.add_output(fd.ops.mul(fd.ops.silu(x), s)))


def scalar_affine(dtype):
    """x [M, N] * c [] + tanh(c): a 0-d operand."""
    return fusion([(-1, -1), ()], dtype, lambda fd, x, c: fd.add_output(
        fd.ops.add(fd.ops.mul(x, c), fd.ops.tanh(c))))


def scalars_only(dtype):
    """c [] * sigmoid(d []): a 0-d output."""
    return fusion([(), ()], dtype, lambda fd, c, d: fd.add_output(fd.ops.mul(c, fd.ops.sigmoid(d))))


def outer(dtype, rank):
    """sigmoid(x - y) for x, y of `rank` dims, e.g. x [A, 1, C] and y [1, B, 1] (sizes at launch)."""
    return fusion([(-1,) * rank] * 2, dtype, lambda fd, x, y: fd.add_output(fd.ops.sigmoid(fd.ops.sub(x, y))))


def mul(dtype, rank=2):
    return fusion([(-1,) * rank] * 2, dtype, lambda fd, x, y: fd.add_output(fd.ops.mul(x, y)))


def where_rows(dtype):
    """where(c [M, 1], x [M, N], -y [N]) and relu(x): a bool condition and two outputs."""
    def body(fd, c, x, y):
        fd.add_output(fd.ops.where(c, x, fd.ops.neg(y)))
        fd.add_output(fd.ops.relu(x))
    return fusion([(-1, 1), (-1, -1), (-1,)], dtype, body, [DataType.Bool, dtype, dtype])


# --- input views ---------------------------------------------------------------------------------
def dense(*shape):
    return shape, lambda t: t


def transposed(*shape):
    """A [.., a, b] view of a contiguous [.., b, a] tensor."""
    return shape[:-2] + shape[:-3:-1], lambda t: t.transpose(-1, -2)


def sliced(*shape, start=0, pad=8):
    """Columns [start, start + n) of rows of n + pad elements."""
    return shape[:-1] + (shape[-1] + pad,), lambda t: t[..., start:start + shape[-1]]


def every_other_row(rows, cols):
    return (2 * rows, cols), lambda t: t[::2]


def shifted(*shape):
    """A contiguous tensor starting one element into its storage: its pointer is misaligned."""
    n = 1
    for d in shape:
        n *= d
    return (n + 1,), lambda t: t[1:].view(shape)


def expanded(rows, cols):
    """A [rows, cols] input that is a row broadcast by torch's expand (stride 0)."""
    return (1, cols), lambda t: t.expand(rows, cols)


# (name, builder, input views, schedule)
CASES = []
for dt in DTYPES:
    v = dt.value
    CASES += [
        (f"bias-{v}", lambda d=dt: bias_gelu(d), [dense(77, 512), dense(512)], None),
        (f"bias-ragged-{v}", lambda d=dt: bias_gelu(d), [dense(129, 333), dense(333)], None),
        (f"rows-{v}", lambda d=dt: row_scale(d), [dense(300, 1000), dense(300, 1)], None),
        (f"scalar-0d-{v}", lambda d=dt: scalar_affine(d), [dense(257, 520), dense()], None),
        (f"size1-3d-{v}", lambda d=dt: outer(d, 3), [dense(4, 1, 130), dense(1, 7, 1)], None),
        (f"transposed-{v}", lambda d=dt: mul(d), [transposed(257, 520), dense(257, 520)], None),
        (f"sliced-{v}", lambda d=dt: mul(d), [sliced(100, 1024, start=8, pad=16), sliced(100, 1024, pad=6)], None),
        (f"misaligned-{v}", lambda d=dt: mul(d), [shifted(61, 333), dense(61, 333)], None),
        (f"misaligned-1d-{v}", lambda d=dt: mul(d, 1), [shifted(4096), dense(4096)], None),
        (f"expanded-{v}", lambda d=dt: mul(d), [expanded(64, 520), every_other_row(64, 520)], None),
        (f"where-rows-{v}", lambda d=dt: where_rows(d), [dense(64, 1), dense(64, 520), dense(520)], None),
        (f"zero-size-bias-{v}", lambda d=dt: bias_gelu(d), [dense(0, 64), dense(64)], None),
        (f"zero-size-dense-{v}", lambda d=dt: mul(d), [dense(0, 8), dense(0, 8)], None),
    ]
CASES += [
    ("rank4", lambda: outer(DataType.BFloat16, 4), [dense(3, 1, 5, 1), dense(1, 4, 1, 6)], None),
    ("zero-size-cols", lambda: bias_gelu(DataType.BFloat16), [dense(5, 0), dense(0)], None),
    ("scalars-only", lambda: scalars_only(DataType.Float), [dense(), dense()], STRIDED),
    ("short-rows-f32", lambda: bias_gelu(DataType.Float), [dense(1000, 6), dense(6)], None),
    ("transposed-3d", lambda: outer(DataType.Half, 3), [transposed(3, 40, 50), dense(1, 40, 1)], None),
    # The persistent grid (persistent 1): several grid steps per CTA, each with its tail.
    ("persistent-epilogue-2d", lambda: mlp_epilogue(DataType.BFloat16, 2), [dense(1000, 1024)] * 2, PERSISTENT),
    ("persistent-epilogue-ragged", lambda: mlp_epilogue(DataType.BFloat16, 1), [dense(4097)] * 2, PERSISTENT),
    ("persistent-unroll-4", lambda: mul(DataType.Float), [dense(300, 1000)] * 2, {**PERSISTENT, "unroll": 4}),
    ("large-bias-bf16", lambda: bias_gelu(DataType.BFloat16), [dense(4099, 8192), dense(8192)], PERSISTENT),
    ("large-transposed-f32", lambda: mul(DataType.Float), [transposed(3001, 4000), dense(3001, 4000)], PERSISTENT),
    # The heuristic's grid (one CTA per step) over many CTAs.
    ("large-bias-bf16-per-step", lambda: bias_gelu(DataType.BFloat16), [dense(4099, 8192), dense(8192)], None),
]


# Signatures the tests below run besides CASES (build_artifacts.py compiles these too).
MODES = {"dense": [dense(64, 520)] * 2, "misaligned": [shifted(64, 520), dense(64, 520)],
         "transposed": [transposed(64, 520), dense(64, 520)]}
EXTRA = [(f"modes-{name}", lambda: mul(DataType.BFloat16), views, None) for name, views in MODES.items()] + [
    ("out-checks", lambda: bias_gelu(DataType.BFloat16), [dense(8, 512), dense(512)], None),
    ("graph", lambda: bias_gelu(DataType.BFloat16), [dense(64, 512), dense(512)], None),
]


def make_inputs(fd, views, device):
    """Each input as `view(base)`: random on a GPU, empty meta tensors for build_artifacts."""
    inputs = []
    for t, (base_shape, view) in zip(fd.inputs, views):
        dtype = torch_dtype(t.dtype)
        if device == "meta":
            base = torch.empty(base_shape, dtype=dtype, device="meta")
        elif t.dtype is DataType.Bool:
            base = torch.rand(base_shape, device=device) < 0.5
        else:
            base = (torch.randn(base_shape, device=device) * 2).to(dtype)
        inputs.append(view(base))
    return inputs


def check(name, build, views, schedule):
    fd = build()
    inputs = make_inputs(fd, views, "cuda")
    refs = reference(fd, inputs)
    shape = torch.broadcast_shapes(*(r.shape for r in refs))
    out = [torch.full(shape, float("nan"), dtype=torch_dtype(t.dtype), device="cuda") for t in fd.outputs]
    result = fd.execute(inputs, out=out, schedule=schedule)
    torch.cuda.synchronize()
    assert all(r is o for r, o in zip(result, out))
    for o, r, t in zip(out, refs, fd.outputs):
        r = r.expand(o.shape)
        assert not torch.isnan(o).any(), f"{name}: unwritten (NaN) elements in output {t!r}"
        err = (o.double() - r).norm() / r.norm().clamp_min(1e-30)
        assert err < TOLERANCE[t.dtype], f"{name}: relative error {err:.3e} for {t!r}"
    return fd


@pytest.mark.parametrize("name, build, views, schedule", CASES, ids=[c[0] for c in CASES])
def test_strided(name, build, views, schedule):
    fd = check(name, build, views, schedule)
    compiled = fd.compile(make_inputs(fd, views, "meta"), schedule=schedule)
    assert compiled.scheduler.name == "pointwise_strided"
    launcher, = fd._launchers.values()
    assert (launcher.tiles == 0) == name.startswith("zero-size")
    if launcher.tiles and not compiled.params.persistent:
        assert launcher.grid == launcher.tiles                 # one CTA per grid step
    elif launcher.tiles and name.startswith("large"):
        assert launcher.grid < launcher.tiles                  # several grid steps per CTA


@pytest.mark.parametrize("name", [c[0] for c in CASES if c[0].startswith("zero-size")])
def test_zero_size_returns_empty_outputs_without_launching(name):
    _, build, views, schedule = next(c for c in CASES if c[0] == name)
    fd = build()
    inputs = make_inputs(fd, views, "cuda")
    outputs = fd.execute(inputs, schedule=schedule)
    shape = torch.broadcast_shapes(*(t.shape for t in inputs))
    assert [(o.shape, o.dtype) for o in outputs] == [(shape, torch_dtype(t.dtype)) for t in fd.outputs]
    launcher, = fd._launchers.values()
    assert launcher.tiles == 0 and not hasattr(launcher, "function")


def test_one_definition_follows_each_access_mode():
    """One fusion called with aligned, misaligned and transposed inputs of one shape, in turn and
    again, with and without inference mode: every result is right and each signature has its own
    prepared launch (the cached path's guard turns down every other signature and grad mode)."""
    fd = mul(DataType.BFloat16)
    for _ in range(2):
        for views in MODES.values():
            for inference in (False, True):
                x, y = make_inputs(fd, views, "cuda")
                with torch.inference_mode(inference):
                    out, = fd.execute([x, y])
                torch.cuda.synchronize()
                assert torch.equal(out, (x.double() * y.double()).to(torch.bfloat16)), (views, inference)
    assert len(fd._launchers) == 3 and fd._recent is not None


def test_out_must_be_contiguous_and_aligned_for_vector_stores():
    fd = bias_gelu(DataType.BFloat16)
    x, b = make_inputs(fd, next(c[2] for c in EXTRA if c[0] == "out-checks"), "cuda")
    fd.execute([x, b])
    with pytest.raises(FusionError, match="must be a contiguous"):
        fd.execute([x, b], out=[torch.empty(512, 8, dtype=torch.bfloat16, device="cuda").t()])
    misaligned = torch.empty(8 * 512 + 1, dtype=torch.bfloat16, device="cuda")[1:].view(8, 512)
    with pytest.raises(FusionError, match="not 16-byte aligned"):
        fd.execute([x, b], out=[misaligned])


def test_graph_replay_reads_broadcast_operands_in_place():
    """A captured launch re-reads the bias in place: replays see its new values."""
    fd = bias_gelu(DataType.BFloat16)
    x, b = make_inputs(fd, next(c[2] for c in EXTRA if c[0] == "graph"), "cuda")
    fd.execute([x, b])
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out, = fd.execute([x, b])
    b.copy_(torch.randn(512, device="cuda").to(torch.bfloat16))
    graph.replay()
    torch.cuda.synchronize()
    ref, = reference(fd, [x, b])
    assert (out.double() - ref).norm() / ref.norm() < TOLERANCE[DataType.BFloat16]
