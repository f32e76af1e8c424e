"""Pointwise fusions on the H100 against torch in float64: fresh random inputs, NaN-poisoned
outputs, shapes with tails, 1-D to 3-D, and >= 256 MiB tensors.

Run offline with artifacts built here (README, "GPU tests"); skipped where no CUDA GPU exists.
"""
import os
import sys

import pytest
import torch

sys.path.insert(0, os.path.dirname(__file__))
from cases import CASES, LARGE, POSITIVE  # noqa: E402

from fuser_mlir import DataType  # noqa: E402
from fuser_mlir.frontend.dtypes import torch_dtype  # noqa: E402

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA Hopper GPU")

TOLERANCE = {DataType.Float: 2e-6, DataType.Half: 1e-3, DataType.BFloat16: 8e-3}


def reference(fd, inputs):
    """Evaluate the definition with torch in float64."""
    values = {t.index: v.double() if v.dtype != torch.bool else v for t, v in zip(fd.inputs, inputs)}
    for node in fd.nodes:
        if node.op == "input":
            continue
        args = [values[a.index] for a in node.args]
        if node.op == "unary":
            fn = {"relu": torch.relu, "gelu": torch.nn.functional.gelu, "silu": torch.nn.functional.silu,
                  "rsqrt": torch.rsqrt, "sigmoid": torch.sigmoid}.get(node.kind) or getattr(torch, node.kind)
            out = fn(*args)
        elif node.op == "binary":
            out = getattr(torch, node.kind)(*args)
        elif node.op == "ternary":
            out = torch.where(*args)
        elif node.op == "cast":
            out = args[0].to(torch_dtype(node.out.dtype)).double()
        else:                      # broadcast: torch broadcasting in later ops does the rest
            out = args[0]
        values[node.out.index] = out
    return [values[t.index] for t in fd.outputs]


def random_inputs(name, fd, shapes):
    inputs = []
    for t, shape in zip(fd.inputs, shapes):
        if t.dtype is DataType.Bool:
            inputs.append(torch.rand(shape, device="cuda") < 0.5)
            continue
        x = torch.randn(shape, device="cuda", dtype=torch.float32) * 2
        if any(k in name for k in POSITIVE):
            x = x.abs() + 0.05
        elif "div" in name and t is fd.inputs[1]:   # keep f16 quotients inside f16's range
            x = torch.where(x < 0, x - 0.5, x + 0.5)
        inputs.append(x.to(torch_dtype(t.dtype)))
    return inputs


def check(name, build, shapes):
    fd = build()
    inputs = random_inputs(name, fd, shapes)
    refs = reference(fd, inputs)
    out = [torch.full(r.shape if r.dim() else (), float("nan"), dtype=torch_dtype(t.dtype), device="cuda")
           for r, t in zip(torch.broadcast_tensors(*refs), fd.outputs)]
    fd.execute(inputs, out=out)
    torch.cuda.synchronize()
    for o, r, t in zip(out, refs, fd.outputs):
        r = r.expand(o.shape)
        assert not torch.isnan(o).any(), f"{name}: unwritten (NaN) elements in output {t!r}"
        err = (o.double() - r).norm() / r.norm().clamp_min(1e-30)
        assert err < TOLERANCE[t.dtype], f"{name}: relative error {err:.3e} for {t!r}"


@pytest.mark.parametrize("name, build, shapes", CASES, ids=[c[0] for c in CASES])
def test_pointwise(name, build, shapes):
    check(name, build, shapes)


@pytest.mark.parametrize("name, build, shapes", LARGE, ids=[c[0] for c in LARGE])
def test_pointwise_large(name, build, shapes):
    check(name, build, shapes)


def test_fresh_inputs_each_launch_give_fresh_results():
    """Two launches of one compiled kernel on different inputs: no stale state between launches."""
    name, build, shapes = CASES[0]
    check(name, build, shapes)
    check(name, build, shapes)


def test_cpu_tensor_is_rejected():
    from fuser_mlir import FusionError

    _, build, shapes = CASES[0]
    fd = build()
    with pytest.raises(FusionError, match="CPU tensor"):
        fd.execute([torch.randn(shapes[0])])
