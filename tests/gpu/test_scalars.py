"""Scalar inputs (fd.define_scalar) on the H100: Python numbers given at each call, passed as kernel
parameters, so new values run the same kernel (one prepared launch per fusion and shape).  Fresh
random tensors, NaN-poisoned outputs, ragged shapes, several values per compile, float64 torch
references written out per case; Float, Int64 (beyond 32 bits) and Bool scalars, and torch's
promotion of a scalar like a Python number (a bf16 tensor stays bf16; an int tensor with a Float
scalar gives float32).  build_artifacts.py compiles these signatures (on meta tensors).
"""
import pytest
import torch

from fuser_mlir import DataType, FusionDefinition
from fuser_mlir.frontend.dtypes import torch_dtype

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA Hopper GPU")
SHAPES = [(1000, 1003), (7, 33)]


def fusion(tensor_dtypes, scalar_dtypes, body):
    """Inputs: tensors of `tensor_dtypes` ([-1, -1]), then scalars; `body(ops, *inputs)` is the output."""
    with FusionDefinition() as fd:
        inputs = [fd.define_tensor([-1, -1], d) for d in tensor_dtypes]
        inputs += [fd.define_scalar(d) for d in scalar_dtypes]
        fd.add_output(body(fd.ops, *inputs))
    return fd


F32, BF16, I32, I64, BOOL = DataType.Float, DataType.BFloat16, DataType.Int32, DataType.Int64, DataType.Bool


def random_input(dtype, shape, device="cuda"):
    if dtype.is_floating_point:
        return torch.randn(shape, device=device).to(dtype)
    bound = 2 ** 40 if dtype == torch.int64 else 1000
    return torch.randint(-bound, bound, shape, device=device, dtype=dtype)


# name: (builder, scalar values per call, float64 reference of (tensors..., scalars...), output dtype, tolerance)
CASES = {
    "affine-bf16": (lambda: fusion([BF16], [F32, F32], lambda o, x, s, t: o.add(o.mul(x, s), t)),
                    [(0.5, -1.25), (3.0, 2.0), (-0.1, 7.5)], lambda x, s, t: x.double() * s + t, torch.bfloat16, 8e-3),
    "int64-offset": (lambda: fusion([I64], [I64], lambda o, x, k: o.add(x, k)),
                     [(5,), (-(2**40) - 3,), (2**62,)], lambda x, k: x + k, torch.int64, 0),
    "where-f32": (lambda: fusion([F32, F32], [BOOL, F32], lambda o, x, y, b, s: o.where(b, x, o.mul(y, s))),
                  [(True, 2.0), (False, 2.0), (False, -0.75)],
                  lambda x, y, b, s: x.double() if b else y.double() * s, torch.float32, 2e-6),
    "int32-times-float": (lambda: fusion([I32], [F32], lambda o, x, s: o.mul(x, s)),   # promoted to float32
                          [(0.25,), (-3.5,)], lambda x, s: x.double() * s, torch.float32, 2e-6),
}


def tensor_dtypes(fd):
    return [torch_dtype(t.dtype) for t in fd.inputs if not t.scalar]


def meta_inputs(name, shape):
    """(builder, inputs) of the signature the test runs, on meta tensors (build_artifacts.py)."""
    builder, values, *_ = CASES[name]
    return builder, [torch.empty(shape, dtype=d, device="meta") for d in tensor_dtypes(builder())] + list(values[0])


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("name", list(CASES))
def test_scalar_inputs_change_without_recompiling(name, shape):
    builder, values, reference, out_dtype, tolerance = CASES[name]
    fd = builder()
    tensors = [random_input(d, shape) for d in tensor_dtypes(fd)]
    for call in values:
        out = torch.full(shape, float("nan") if out_dtype.is_floating_point else -7, dtype=out_dtype, device="cuda")
        got, = fd.execute(tensors + list(call), out=[out])
        assert got.dtype == out_dtype
        expected = reference(*tensors, *call)
        if tolerance:
            assert not got.isnan().any(), f"{name} {call}: outputs never written"
            torch.testing.assert_close(got.double(), expected, rtol=tolerance, atol=tolerance)
        else:
            assert torch.equal(got, expected.to(out_dtype)), f"{name} {call}"
    assert len(fd._launchers) == 1, "a new scalar value must not compile or prepare another launch"


def test_a_cached_call_with_an_integer_out_of_range_is_an_error():
    """The signature key holds a scalar's type, not its value: a cached call must still check the
    range (ctypes would wrap 2**63 to -2**63 silently)."""
    from fuser_mlir import FusionError

    builder, values, *_ = CASES["int64-offset"]
    fd = builder()
    x = random_input(torch.int64, SHAPES[1])
    fd.execute([x, 5])
    with pytest.raises(FusionError, match="9223372036854775808 is outside the range of i64"):
        fd.execute([x, 2 ** 63])
    assert torch.equal(fd.execute([x, -(2 ** 63)])[0], x + -(2 ** 63)), "the range's end is still taken"
