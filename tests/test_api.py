"""The Python API, the pointwise compile path on CPU (PTX + ptxas), and the artifact cache."""
import json

import pytest
import torch

from fuser_mlir import DataType, FusionDefinition, FusionError
from fuser_mlir.api import signature_key
from fuser_mlir.runtime import artifact as artifacts
from fuser_mlir.backend.ptxas import assemble


pytestmark = pytest.mark.usefixtures("private_cache")


def relu_mul():
    with FusionDefinition() as fd:
        x = fd.define_tensor(shape=[-1, -1], dtype=DataType.BFloat16)
        y = fd.define_tensor(shape=[-1, -1], dtype=DataType.BFloat16)
        fd.add_output(fd.ops.mul(fd.ops.relu(x), y))
    return fd


def cpu(*shape, dtype=torch.bfloat16):
    return torch.randn(shape).to(dtype)


def test_recording_does_not_import_mlir():
    import subprocess
    import sys

    code = ("import sys; from fuser_mlir import FusionDefinition, DataType\n"
            "with FusionDefinition() as fd:\n"
            "    x = fd.define_tensor([-1], DataType.Float); fd.add_output(fd.ops.exp(x))\n"
            "print('mlir' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip() == "False"


TMA = {"scheduler": "pointwise"}


def test_compile_gives_tma_ptx_that_ptxas_accepts():
    compiled = relu_mul().compile([cpu(300, 1000), cpu(300, 1000)], schedule=TMA)
    assert '"fusion.unary"' in compiled.fusion_ir and '"fusion.binary"' in compiled.fusion_ir
    assert "nvasync.tma_load" in compiled.kernel_ir and "nvasync.tma_store" in compiled.kernel_ir
    ptx = compiled.ptx
    assert "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes" in ptx
    assert "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group" in ptx
    assert ".param .align 64 .b8 pointwise_param_0[128]" in ptx
    assert assemble(ptx).cubin


def test_flat_view_for_ragged_1d():
    with FusionDefinition() as fd:
        x = fd.define_tensor([-1], DataType.Float)
        fd.add_output(fd.ops.gelu(x))
    compiled = fd.compile([cpu(4097, dtype=torch.float32)], schedule=TMA)
    assert compiled.params.rank == 1
    assert "cp.async.bulk.tensor.1d" in compiled.ptx


def test_promotion_follows_torch():
    with FusionDefinition() as fd:
        a = fd.define_tensor([-1], DataType.Half)
        b = fd.define_tensor([-1], DataType.BFloat16)
        c = fd.define_tensor([-1], DataType.Float)
        ab = fd.ops.add(a, b)
        fd.add_output(ab)
        fd.add_output(fd.ops.mul(a, a))
    assert ab.dtype is DataType.Float and fd.outputs[1].dtype is DataType.Half
    assert c.dtype is DataType.Float


def test_mismatched_shapes_name_the_tensors():
    with pytest.raises(FusionError, match=r"in0\[3, 4\].*in1\[5\]"):
        with FusionDefinition() as fd:
            x = fd.define_tensor([3, 4], DataType.Float)
            y = fd.define_tensor([5], DataType.Float)
            fd.add_output(fd.ops.add(x, y))


def test_wrong_input_dtype_and_rank_are_named():
    fd = relu_mul()
    with pytest.raises(FusionError, match=r"input in0\[\?, \?\]:bf16: expected dtype BFloat16, got Float"):
        fd.compile([cpu(4, 16, dtype=torch.float32), cpu(4, 16)])
    with pytest.raises(FusionError, match=r"input in1.*expected shape \[-1, -1\]"):
        fd.compile([cpu(4, 16), cpu(64)])
    with pytest.raises(FusionError, match="unsupported value"):
        fd.compile([cpu(4, 16, dtype=torch.float64), cpu(4, 16)])


def test_execute_without_gpu_is_a_clear_error():
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU; the no-GPU error cannot be observed here")
    with pytest.raises(FusionError, match="no CUDA GPU is available"):
        relu_mul().execute([cpu(8, 64), cpu(8, 64)])


def test_cache_hits_on_disk_and_rebuilds_corrupt_entries(private_cache):
    inputs = [cpu(64, 256), cpu(64, 256)]
    first = relu_mul().compile(inputs)
    entry = private_cache / first.artifact.key
    assert (entry / "meta.json").exists() and (entry / "kernel.ptx").exists()
    artifacts._memory.clear()
    again = relu_mul().compile(inputs)                 # from disk: same key, same PTX
    assert again.artifact.key == first.artifact.key and again.ptx == first.ptx
    (entry / "meta.json").write_text("{ not json")
    artifacts._memory.clear()
    rebuilt = relu_mul().compile(inputs)
    assert rebuilt.ptx == first.ptx
    assert json.loads((entry / "meta.json").read_text())["key"] == first.artifact.key


def test_offline_miss_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("FUSER_MLIR_OFFLINE", "1")
    with pytest.raises(artifacts.OfflineMiss, match="FUSER_MLIR_OFFLINE=1 and no cached kernel"):
        relu_mul().compile([cpu(8, 64), cpu(8, 64)])


def test_same_schedule_shares_one_kernel_across_shapes():
    a = relu_mul().compile([cpu(300, 1024), cpu(300, 1024)])
    b = relu_mul().compile([cpu(17, 4096), cpu(17, 4096)])
    assert a.artifact.key == b.artifact.key       # dynamic sizes are kernel arguments


# --- the pointwise op set: recording, promotion, constants, errors, PTX ----------------------------

def record(*dtypes, build):
    """A fusion of [-1, -1] inputs of `dtypes` whose outputs are `build(fd.ops, *inputs)`."""
    with FusionDefinition() as fd:
        inputs = [fd.define_tensor([-1, -1], d) for d in dtypes]
        for out in build(fd.ops, *inputs):
            fd.add_output(out)
    return fd


def fusion_text(fd):
    from fuser_mlir.frontend.fusion_ir import fusion_ir

    return fusion_ir(fd)


def verify_text(text):
    """Parse and run fuser-verify-dialects: the text is valid fusion IR."""
    from mlir import ir

    from fuser_mlir.backend.pipeline import PassPipeline
    from fuser_mlir.dialects import new_context

    with new_context(), ir.Location.unknown():
        PassPipeline(["fuser-verify-dialects"]).run(ir.Module.parse(text))


F32, F16, BF16, I32, I64, BOOL = (DataType.Float, DataType.Half, DataType.BFloat16, DataType.Int32,
                                  DataType.Int64, DataType.Bool)


@pytest.mark.parametrize("dtypes, build, expected", [
    # Python numbers count by category only when above the tensors' (torch.result_type).
    ((BF16,), lambda o, x: o.mul(x, 0.5), BF16),
    ((F16,), lambda o, x: o.add(2, x), F16),
    ((I32,), lambda o, x: o.add(x, 2), I32),
    ((I32,), lambda o, x: o.add(x, 2.5), F32),
    ((BOOL,), lambda o, x: o.add(x, 2), I64),
    ((BOOL,), lambda o, x: o.mul(x, 2.5), F32),
    ((F32,), lambda o, x: o.mul(x, True), F32),
    ((I64,), lambda o, x: o.pow(x, 0.5), F32),
    # Tensors: integers widen, a float wins over integers, Bool promotes to anything.
    ((I32, I64), lambda o, x, y: o.sub(x, y), I64),
    ((I64, BF16), lambda o, x, y: o.maximum(x, y), BF16),
    ((I32, F16), lambda o, x, y: o.mul(x, y), F16),
    ((BOOL, I32), lambda o, x, y: o.add(x, y), I32),
    ((I32, I32), lambda o, x, y: o.div(x, y), F32),              # true division
    # Predicates give Bool; logical ops take anything as `!= 0`.
    ((I32, F16), lambda o, x, y: o.lt(x, y), BOOL),
    ((BF16,), lambda o, x: o.isnan(x), BOOL),
    ((F32, I64), lambda o, x, y: o.logical_and(x, y), BOOL),
    ((F16,), lambda o, x: o.logical_not(x), BOOL),
    # where promotes its values; clamp its tensor with its bounds.
    ((BOOL, I32), lambda o, c, x: o.where(c, x, 0.5), F32),
    ((BOOL,), lambda o, c: o.where(c, 1, 2), I64),
    ((BOOL, I64, I32), lambda o, c, x, y: o.where(c, x, y), I64),
    ((I32,), lambda o, x: o.clamp(x, 0, 10), I32),
    ((I32,), lambda o, x: o.clamp(x, max=0.5), F32),
    ((F16,), lambda o, x: o.nan_to_num(x), F16),
    ((F32,), lambda o, x: o.cast(x, I64), I64),
])
def test_result_dtypes_follow_torch(dtypes, build, expected):
    fd = record(*dtypes, build=lambda o, *xs: [build(o, *xs)])
    assert fd.outputs[0].dtype is expected
    verify_text(fusion_text(fd))


def test_constants_keep_torch_precision_in_the_fusion_ir():
    """A Python float is an f32 rank-0 constant even in a bf16 op (torch computes it in f32: 0.1,
    not bf16's 0.10009765625); integers are constants of their op's integer type; clamp's bounds
    and nan_to_num's replacements (torch's defaults: the output dtype's largest finite values) are
    attributes."""
    fd = record(BF16, I32, build=lambda o, x, i: [
        o.mul(x, 0.1), o.sub(3, i), o.where(o.isinf(x), float("-inf"), x), o.clamp(i, min=-7),
        o.nan_to_num(x)])
    text = fusion_text(fd)
    verify_text(text)
    assert 'arith.constant dense<0.1> : tensor<f32>' in text
    assert '"fusion.binary"(%in0, %b1) {kind = "mul"} : (tensor<?x?xbf16>, tensor<?x?xf32>) -> tensor<?x?xbf16>' in text
    assert 'arith.constant dense<3> : tensor<i32>' in text
    assert 'arith.constant dense<0xFF800000> : tensor<f32>' in text         # -inf
    assert '{kind = "clamp", min = -7 : i64}' in text
    assert ('{kind = "nan_to_num", nan = 0.0 : f64, posinf = 3.3895313892515355e+38 : f64, '
            'neginf = -3.3895313892515355e+38 : f64}') in text


def test_a_different_constant_is_a_different_kernel():
    from fuser_mlir.frontend.fusion_ir import canonical

    def keyed(build):
        return canonical(record(F32, build=lambda o, x: [build(o, x)]))

    same = keyed(lambda o, x: o.mul(x, 0.5))
    assert keyed(lambda o, x: o.mul(x, 0.5)) == same
    for other in (lambda o, x: o.mul(x, 0.25), lambda o, x: o.mul(x, 1), lambda o, x: o.mul(0.5, x),
                  lambda o, x: o.mul(x, x), lambda o, x: o.clamp(x, min=0.5), lambda o, x: o.clamp(x, max=0.5)):
        assert keyed(other) != same
    assert keyed(lambda o, x: o.nan_to_num(x, nan=1.0)) != keyed(lambda o, x: o.nan_to_num(x))


@pytest.mark.parametrize("dtypes, build, message", [
    ((I32,), lambda o, x: o.exp(x), r"exp takes floating-point tensors, got in0\[\?, \?\]:i32; cast it first"),
    ((I64,), lambda o, x: o.pow(x, 2), r"pow takes floating-point tensors, got in0\[\?, \?\]:i64"),
    ((I32,), lambda o, x: o.isnan(x), r"isnan takes floating-point tensors, got in0"),
    ((I32,), lambda o, x: o.nan_to_num(x), r"nan_to_num takes floating-point tensors, got in0"),
    ((BOOL, BOOL), lambda o, x, y: o.add(x, y), r"add takes numeric \(floating-point or integer\) tensors, "
                                                r"got in0\[\?, \?\]:i1"),
    ((BOOL,), lambda o, x: o.neg(x), r"neg takes numeric .* got in0\[\?, \?\]:i1"),
    ((F32, F32), lambda o, c, x: o.where(c, x, 0), r"where takes a Bool condition, got in0\[\?, \?\]:f32"),
    ((I32,), lambda o, x: o.add(x, 2 ** 31), r"2147483648 does not fit Int32, the dtype of in0\[\?, \?\]:i32"),
    ((I64,), lambda o, x: o.clamp(x, max=2 ** 63), r"does not fit Int64, the dtype of in0"),
    ((F32,), lambda o, x: o.add(x, "1"), r"add: '1' is neither a tensor of this fusion definition nor a Python number"),
    ((F32,), lambda o, x: o.add(1, 2), r"add needs a tensor operand, got only Python numbers \[1, 2\]"),
    ((F32,), lambda o, x: o.clamp(x), r"clamp of in0\[\?, \?\]:f32 needs min or max"),
    ((F32,), lambda o, x: o.atan2(x, x), r"fd.ops has no op 'atan2'"),
])
def test_invalid_uses_name_the_tensor(dtypes, build, message):
    with pytest.raises((FusionError, AttributeError), match=message):
        record(*dtypes, build=lambda o, *xs: [build(o, *xs)])


def test_float_op_set_compiles_to_ptx_that_ptxas_accepts():
    """Every new float kind, Python numbers and bool predicates in one bf16 fusion."""
    def build(o, x, y):
        t = o.sub(o.add(o.erf(x), o.reciprocal(y)), o.mul(o.sin(x), o.cos(y)))
        t = o.maximum(o.add(t, o.log1p(o.abs(y))), o.expm1(x))
        t = o.add(o.add(t, o.pow(x, 2)), o.sign(o.add(o.round(t), o.sub(o.floor(x), o.ceil(y)))))
        t = o.clamp(o.nan_to_num(t), min=-1.0, max=6.0)
        return [o.mul(o.where(o.logical_or(o.isnan(x), o.isinf(y)), 0.5, t), 0.1)]

    compiled = record(BF16, BF16, build=build).compile([cpu(64, 256), cpu(64, 256)])
    ptx = compiled.ptx
    for instruction in ("cvt.rni.f32.f32", "cvt.rmi.f32.f32", "cvt.rpi.f32.f32", "rcp.approx.f32", "setp.nan.f32",
                        "max.NaN.f32", "min.NaN.f32"):
        assert instruction in ptx, instruction
    assert assemble(ptx).cubin


@pytest.mark.parametrize("scheduler", ["pointwise_strided", "pointwise"])
def test_integer_and_bool_op_set_compiles_to_ptx_that_ptxas_accepts(scheduler):
    """Integer arithmetic (not f32), comparisons and logical ops with Bool outputs stored as bytes,
    casts between categories, integer true division; in both pointwise schedulers."""
    def build(o, i, j, b, h):
        n = o.clamp(o.maximum(o.relu(o.neg(j)), o.abs(o.add(i, 3))), min=-100, max=100)
        n = o.mul(o.sub(n, o.sign(j)), o.minimum(i, 2))
        flags = o.logical_and(o.logical_not(b), o.ge(n, i))
        flags = o.logical_or(o.ne(flags, o.eq(b, True)), o.lt(h, o.cast(o.cast(h, I32), F16)))
        return [o.where(flags, n, o.cast(o.cast(i, BOOL), I32)), flags, o.div(i, o.add(o.abs(j), 1))]

    fd = record(I32, I32, BOOL, F16, build=build)
    compiled = fd.compile([torch.randint(-9, 9, (64, 256), dtype=torch.int32)] * 2 +
                          [torch.zeros(64, 256, dtype=torch.bool), cpu(64, 256, dtype=torch.float16)],
                          schedule={"scheduler": scheduler})
    assert [t.dtype for t in fd.outputs] == [I32, BOOL, F32]
    ptx = compiled.ptx
    # 8 bools of a thread: 8 bytes, staged in smem for the TMA store or stored directly
    bools = "st.shared.v2.b32" if scheduler == "pointwise" else "st.global.v2.b32"
    for instruction in ("max.relu.s32", "min.s32", "abs.s32", "mul.lo.s32", "setp.ge.s32", "cvt.rzi.s32.f32", bools):
        assert instruction in ptx, instruction
    assert "cvt.rn.f32.s32" in ptx and "div.approx.f32" in ptx       # integers divide in f32
    assert assemble(ptx).cubin


def affine_scalars():
    with FusionDefinition() as fd:
        x = fd.define_tensor([-1, -1], DataType.BFloat16)
        s, k = fd.define_scalar(DataType.Float), fd.define_scalar(DataType.Int32)
        fd.add_output(fd.ops.add(fd.ops.mul(x, s), k))
    return fd


def test_scalar_inputs_are_kernel_parameters_and_new_values_reuse_the_kernel():
    fd = affine_scalars()
    x = torch.empty(64, 1000, dtype=torch.bfloat16, device="meta")
    first, second = fd.compile([x, 0.5, 3]), fd.compile([x, -2.0, 7])
    assert first.artifact.key == second.artifact.key
    assert first.scheduler.name == "pointwise_strided" and first.params.in_modes == ("vector", "value", "value")
    assert "%s1: tensor<f32> {fusion.scalar}" in first.fusion_ir and "%s2: tensor<i32> {fusion.scalar}" in first.fusion_ir
    # torch's promotion of Python numbers: a bf16 tensor stays bf16, the scalars join in f32
    assert fd.outputs[0].dtype is DataType.BFloat16
    entry = first.ptx.split(".entry pointwise_strided(")[1].split(")")[0]
    assert ".param .f32" in entry and ".param .u32" in entry
    kinds = [p["kind"] for p in first.artifact.meta["params"]]
    assert kinds[:3] == ["pointer", "value", "value"]
    assert signature_key([torch.empty(2, 3), 0.5, 3])[1:] == (float, int)


def test_scalar_inputs_promote_like_python_numbers():
    with FusionDefinition() as fd:
        x = fd.define_tensor([-1], DataType.Int32)
        fd.add_output(fd.ops.mul(x, fd.define_scalar(DataType.Float)))
    assert fd.outputs[0].dtype is DataType.Float        # int tensor with a float number: float32


@pytest.mark.parametrize("value, message", [
    (torch.tensor(0.5), "expected a Python int or float, got Tensor"),
    ("0.5", "expected a Python int or float, got str"),
])
def test_scalar_input_takes_a_python_number(value, message):
    fd = affine_scalars()
    with pytest.raises(FusionError, match=message):
        fd.compile([torch.empty(4, 8, dtype=torch.bfloat16, device="meta"), value, 1])


def test_scalar_input_errors_name_the_problem():
    fd = affine_scalars()
    with pytest.raises(FusionError, match=r"s2:i32: 2147483648 is outside the range of Int32"):
        fd.compile([torch.empty(4, 8, dtype=torch.bfloat16, device="meta"), 0.5, 2 ** 31])
    with pytest.raises(FusionError, match="expected a Python int, got float"):
        fd.compile([torch.empty(4, 8, dtype=torch.bfloat16, device="meta"), 0.5, 1.5])
    with pytest.raises(FusionError, match="unsupported scalar dtype .*define_scalar takes Float, Int32, Int64, Bool"):
        FusionDefinition().define_scalar(DataType.BFloat16)
    with pytest.raises(FusionError, match="TMA reads tensors"):
        fd.compile([torch.empty(4, 8, dtype=torch.bfloat16, device="meta"), 0.5, 1], schedule={"scheduler": "pointwise"})
