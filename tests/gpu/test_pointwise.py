"""Pointwise fusions on the H100 against torch in float64: fresh random inputs, NaN-poisoned
outputs (Bool and integer outputs poisoned too, and compared exactly), every op kind per dtype,
shapes with tails, 1-D to 3-D, and >= 256 MiB tensors.  Every case runs with the registry's pick
(the strided scheduler), and every case the TMA pointwise scheduler takes also in both of its
pipeline modes (`pipelined`, `warp_specialized`; cases.with_modes).

Run offline with artifacts built here (README, "GPU tests"); skipped where no CUDA GPU exists.
"""
import os
import sys

import pytest
import torch

sys.path.insert(0, os.path.dirname(__file__))
from cases import CASES, LARGE, POSITIVE, with_modes  # noqa: E402

from fuser_mlir import DataType  # noqa: E402
from fuser_mlir.frontend.definition import Constant  # noqa: E402
from fuser_mlir.frontend.dtypes import torch_dtype  # noqa: E402

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA Hopper GPU")

TOLERANCE = {DataType.Float: 2e-6, DataType.Half: 1e-3, DataType.BFloat16: 8e-3}


def reference(fd, inputs):
    """Evaluate the definition with torch in float64 (Bool values as bool)."""
    def normal(v, dtype):
        return v if dtype is DataType.Bool else v.double()

    values = {t.index: torch.tensor(v, dtype=torch.float64, device="cuda") if t.scalar else normal(v, t.dtype)
              for t, v in zip(fd.inputs, inputs)}

    def arg(a):
        if isinstance(a, Constant):
            return torch.tensor(a.value, dtype=torch.bool if a.dtype is DataType.Bool else torch.float64,
                                device="cuda")
        return values[a.index]

    for node in fd.nodes:
        if node.op == "input":
            continue
        args = [arg(a) for a in node.args]
        if node.op == "unary":
            fn = {"relu": torch.relu, "gelu": torch.nn.functional.gelu, "silu": torch.nn.functional.silu,
                  "rsqrt": torch.rsqrt, "sigmoid": torch.sigmoid}.get(node.kind) or getattr(torch, node.kind)
            out = fn(*args, **node.attrs)           # clamp's bounds, nan_to_num's replacements
        elif node.op == "binary":
            out = getattr(torch, node.kind)(*args)
        elif node.op == "ternary":
            out = torch.where(*args)
        elif node.op == "cast":
            out = args[0].to(torch_dtype(node.out.dtype))
        elif node.op == "matmul":
            a, b = args
            out = a @ (b.t() if node.attrs["transpose_b"] else b)
        elif node.op == "reduce":
            fn = {"sum": torch.sum, "max": torch.amax, "min": torch.amin, "mean": torch.mean}[node.kind]
            out = fn(args[0], dim=node.attrs["axes"], keepdim=node.attrs["keepdim"])
        elif node.op == "var":
            out = torch.var(args[0], dim=node.attrs["axes"], correction=node.attrs["correction"],
                            keepdim=node.attrs["keepdim"])
        else:                      # broadcast: torch broadcasting in later ops does the rest
            out = args[0]
        values[node.out.index] = normal(out, node.out.dtype)
    return [values[t.index] for t in fd.outputs]


def random_inputs(name, fd, shapes):
    """Fresh inputs drawn by the case's name tokens (cases.py): positive for log-like ops and pow's
    base, away from zero for divisors, few distinct values for comparisons (`ties`), nan/inf
    (`special`), integers in +-1000 (+-2^40 for `wide`)."""
    tokens = set(name.split("-"))
    inputs = []
    for t, shape in zip(fd.inputs, shapes):
        if t.dtype is DataType.Bool:
            inputs.append(torch.rand(shape, device="cuda") < 0.5)
            continue
        if t.dtype.is_int:
            bound = 4 if "ties" in tokens else 2 ** 40 if "wide" in tokens else 1000
            inputs.append(torch.randint(-bound, bound + 1, shape, device="cuda", dtype=torch_dtype(t.dtype)))
            continue
        x = torch.randn(shape, device="cuda", dtype=torch.float32) * 2
        if "pow" in tokens:           # bases in [0.1, 2.5], exponents ~ N(0, 1): f16 keeps the range
            x = torch.rand(shape, device="cuda") * 2.4 + 0.1 if t is fd.inputs[0] else x / 2
        elif tokens & POSITIVE:
            x = x.abs() + 0.05
        elif "reciprocal" in tokens or ("div" in tokens and t is fd.inputs[1]):   # f16 quotients in range
            x = torch.where(x < 0, x - 0.5, x + 0.5)
        elif "exp" in tokens:         # e^x inside f16's range: 2 x randn passes 11.1 in about one run of 200
            x = x.clamp(max=10)
        if "ties" in tokens:
            x = torch.randint(-4, 5, shape, device="cuda").float() / 2
        if "special" in tokens:
            pick = torch.rand(shape, device="cuda")
            x = torch.where(pick < 0.05, float("nan"), torch.where(pick < 0.1, float("inf"),
                                                                   torch.where(pick < 0.15, float("-inf"), x)))
        inputs.append(x.to(torch_dtype(t.dtype)))
    return inputs


# Outputs compared exactly (poisoned with a value the kernel never writes: 0xFF bytes for Bool).
EXACT = {DataType.Bool: 0xFF, DataType.Int32: -2 ** 31, DataType.Int64: -2 ** 63}


def poisoned(shape, dtype):
    if dtype is DataType.Bool:
        return torch.full(shape, EXACT[dtype], dtype=torch.uint8, device="cuda").view(torch.bool)
    return torch.full(shape, EXACT.get(dtype, float("nan")), dtype=torch_dtype(dtype), device="cuda")


def check(name, build, shapes, schedule=None):
    fd = build()
    inputs = random_inputs(name, fd, shapes)
    refs = reference(fd, inputs)
    out = [poisoned(r.shape if r.dim() else (), t.dtype) for r, t in zip(torch.broadcast_tensors(*refs), fd.outputs)]
    fd.execute(inputs, out=out, schedule=schedule)
    torch.cuda.synchronize()
    for o, r, t in zip(out, refs, fd.outputs):
        r = r.expand(o.shape)
        if t.dtype in EXACT:              # booleans as their bytes: an unwritten 0xFF shows
            got = o.view(torch.uint8) if t.dtype is DataType.Bool else o
            wrong = (got.double() != r.double()).sum().item()
            assert wrong == 0, f"{name}: {wrong} elements of output {t!r} differ from torch"
            continue
        assert not torch.isnan(o).any(), f"{name}: unwritten (NaN) elements in output {t!r}"
        err = (o.double() - r).norm() / r.norm().clamp_min(1e-30)
        assert err < TOLERANCE[t.dtype], f"{name}: relative error {err:.3e} for {t!r}"


MODE_CASES, LARGE_MODE_CASES = with_modes(CASES), with_modes(LARGE)


@pytest.mark.parametrize("name, build, shapes, schedule", [c[1:] for c in MODE_CASES], ids=[c[0] for c in MODE_CASES])
def test_pointwise(name, build, shapes, schedule):
    check(name, build, shapes, schedule)


@pytest.mark.parametrize("name, build, shapes, schedule", [c[1:] for c in LARGE_MODE_CASES],
                         ids=[c[0] for c in LARGE_MODE_CASES])
def test_pointwise_large(name, build, shapes, schedule):
    check(name, build, shapes, schedule)


def test_both_modes_run_and_launch_their_own_blocks():
    """The warp-specialized kernel launches the block its artifact says (consumers + a producer
    warpgroup) and writes every element as the pipelined one does."""
    name, build, shapes = next(c for c in CASES if c[0].startswith("tails-1000x1024"))
    blocks = {}
    for mode in ("pipelined", "warp_specialized"):
        schedule = {"scheduler": "pointwise", "mode": mode}
        check(name, build, shapes, schedule)
        fd = build()
        compiled = fd.compile([torch.empty(s, dtype=torch_dtype(t.dtype), device="meta")
                               for s, t in zip(shapes, fd.inputs)], schedule=schedule)
        blocks[mode] = compiled.artifact.meta["block"][0]
        assert compiled.params.mode == mode
    assert blocks["warp_specialized"] == blocks["pipelined"] + 128


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
