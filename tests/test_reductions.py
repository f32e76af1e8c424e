"""Reductions in the API and the fusion dialect (issue: reductions and normalizations): what
fd.ops.sum / max / min / mean / var record, with torch's dims, keepdim, dtypes and errors; the
fusion IR they give verifies, for softmax, log-softmax, RMSNorm and LayerNorm as users write them;
and until a scheduler takes reductions, compiling one is an error that says so."""
import pytest
import torch

from fuser_mlir import DataType, FusionDefinition, FusionError
from test_api import verify_text

F32, BF16, I32, BOOL = DataType.Float, DataType.BFloat16, DataType.Int32, DataType.Bool


def recorded(dtype, shape, build):
    """The fusion whose one output is build(fd.ops, x) of an input x of `shape` and `dtype`."""
    with FusionDefinition() as fd:
        x = fd.define_tensor(shape, dtype)
        fd.add_output(build(fd.ops, x))
    return fd


@pytest.mark.parametrize("op, dims, keepdim, shape", [
    ("sum", None, False, ()),
    ("sum", 1, False, (4, 6)),
    ("max", -1, True, (4, 5, 1)),
    ("min", [0, 2], False, (5,)),
    ("mean", (-3, -1), True, (1, 5, 1)),
    ("var", 1, False, (4, 6)),
])
def test_result_shapes_follow_torch(op, dims, keepdim, shape):
    fd = recorded(F32, [4, 5, 6], lambda o, x: getattr(o, op)(x, dims, keepdim=keepdim))
    dim = tuple(range(3)) if dims is None else dims
    expected = getattr(torch, {"max": "amax", "min": "amin"}.get(op, op))(torch.randn(4, 5, 6), dim, keepdim=keepdim)
    assert fd.outputs[0].shape == shape == tuple(expected.shape)
    verify_text(_fusion_ir(fd))


@pytest.mark.parametrize("dtype, torch_dtype", [(I32, torch.int32), (BOOL, torch.bool), (BF16, torch.bfloat16)])
def test_sum_dtypes_follow_torch(dtype, torch_dtype):
    """Integers and Bools sum in Int64 (a cast before the reduce), floats keep their dtype."""
    fd = recorded(dtype, [-1, 8], lambda o, x: o.sum(x, 1))
    expected = torch.sum(torch.ones(2, 8, dtype=torch_dtype), 1).dtype
    assert {torch.int64: DataType.Int64, torch.bfloat16: BF16}[expected] is fd.outputs[0].dtype
    assert [n.op for n in fd.nodes] == ["input"] + (["cast"] if dtype is not BF16 else []) + ["reduce"]
    verify_text(_fusion_ir(fd))


def test_max_and_min_keep_integer_and_bool_dtypes():
    for dtype in (I32, BOOL):
        fd = recorded(dtype, [3, 8], lambda o, x: o.max(x, 0))
        assert fd.outputs[0].dtype is dtype
        verify_text(_fusion_ir(fd))


@pytest.mark.parametrize("build, message", [
    (lambda o, x: o.mean(x, 1), "mean takes floating-point tensors, got in0.*i32.*cast it first"),
    (lambda o, x: o.var(x, 1), "var takes floating-point tensors"),
    (lambda o, x: o.sum(x, 2), r"dims 2 must be ints in \[-2, 2\)"),
    (lambda o, x: o.sum(x, [0, -2]), r"dims \[0, -2\] repeat a dim"),
    (lambda o, x: o.sum(x, []), r"dims \[\] must be ints"),
    (lambda o, x: o.sum(x, 1, keepdim=1), "keepdim must be True or False"),
])
def test_bad_reductions_are_named_errors(build, message):
    with pytest.raises(FusionError, match=message):
        recorded(I32, [3, 8], build)


def test_var_correction_is_checked_and_written():
    with pytest.raises(FusionError, match="correction must be an int >= 0, got -1"):
        recorded(F32, [3, 8], lambda o, x: o.var(x, 1, correction=-1))
    text = _fusion_ir(recorded(F32, [3, 8], lambda o, x: o.var(x, 1, correction=0, keepdim=True)))
    assert '"fusion.var"(%in0) {axes = array<i64: 1>, keepdim = true, correction = 0 : i64}' in text
    verify_text(text)


def test_reducing_a_scalar_is_an_error():
    with pytest.raises(FusionError, match="reduce a tensor of rank 1 or more"):
        with FusionDefinition() as fd:
            fd.add_output(fd.ops.sum(fd.define_scalar(F32)))


def test_cache_key_tells_reductions_apart():
    from fuser_mlir.frontend.fusion_ir import canonical

    keys = {canonical(recorded(F32, [3, 8], build)) for build in (
        lambda o, x: o.sum(x, 1), lambda o, x: o.sum(x, 1, keepdim=True), lambda o, x: o.mean(x, 1),
        lambda o, x: o.var(x, 1), lambda o, x: o.var(x, 1, correction=0), lambda o, x: o.sum(x, 0))}
    assert len(keys) == 6


# --- normalizations as users write them ----------------------------------------------------------
def softmax(o, x):
    e = o.exp(o.sub(x, o.max(x, -1, keepdim=True)))
    return [o.div(e, o.sum(e, -1, keepdim=True))]


def log_softmax(o, x):
    shifted = o.sub(x, o.max(x, -1, keepdim=True))
    return [o.sub(shifted, o.log(o.sum(o.exp(shifted), -1, keepdim=True)))]


def rms_norm(o, x, w):
    xf = o.cast(x, F32)
    rms = o.rsqrt(o.add(o.mean(o.mul(xf, xf), -1, keepdim=True), 1e-6))
    return [o.cast(o.mul(o.mul(xf, rms), w), BF16)]


def layer_norm(o, x, w, b):
    """The normalized rows and the row statistics (mean, 1/std), as torch's native_layer_norm."""
    xf = o.cast(x, F32)
    mean = o.mean(xf, -1, keepdim=True)
    rstd = o.rsqrt(o.add(o.var(xf, -1, correction=0, keepdim=True), 1e-5))
    return [o.cast(o.add(o.mul(o.mul(o.sub(xf, mean), rstd), w), b), BF16), mean, rstd]


@pytest.mark.parametrize("build, weights", [(softmax, 0), (log_softmax, 0), (rms_norm, 1), (layer_norm, 2)],
                         ids=["softmax", "log_softmax", "rms_norm", "layer_norm"])
def test_normalizations_record_valid_fusion_ir_and_await_a_scheduler(build, weights):
    with FusionDefinition() as fd:
        x = fd.define_tensor([-1, -1], BF16)
        params = [fd.define_tensor([-1], BF16) for _ in range(weights)]
        for out in build(fd.ops, x, *params):
            fd.add_output(out)
    text = _fusion_ir(fd)
    assert '"fusion.reduce"' in text
    verify_text(text)
    inputs = [torch.randn(16, 64).to(torch.bfloat16)] + [torch.randn(64).to(torch.bfloat16)] * weights
    with pytest.raises(FusionError, match="no scheduler can compile this fusion .*ops .*reduce.* are not pointwise"):
        fd.compile(inputs)


def _fusion_ir(fd):
    from fuser_mlir.frontend.fusion_ir import fusion_ir

    return fusion_ir(fd)
