"""Bad input through the Python API (and signature facts on fuser-schedule's path) gets a
FusionError that names the problem, before any kernel is built: each case below once escaped as
an internal exception (TypeError, ZeroDivisionError, IndexError), as MLIR's text, or compiled a
kernel that contradicted its input (found by API fuzz campaigns).  Compiled on meta tensors: no
GPU needed."""
import pytest
import torch

from fuser_mlir import DataType, FusionDefinition
from fuser_mlir.compiler import input_signature
from fuser_mlir.diagnostics import FusionError
from fuser_mlir.frontend.normalizations import rms_norm
from fuser_mlir.schedulers import named


def meta(*shapes, dtype=torch.bfloat16):
    return [torch.empty(s, dtype=dtype, device="meta") for s in shapes]


def relu(rank=2):
    with FusionDefinition() as fd:
        fd.add_output(fd.ops.relu(fd.define_tensor([-1] * rank, DataType.BFloat16)))
    return fd


def linear():
    with FusionDefinition() as fd:
        x, w = (fd.define_tensor([-1, -1], DataType.BFloat16) for _ in range(2))
        fd.add_output(fd.ops.linear(x, w))
    return fd


def linear_residual():
    with FusionDefinition() as fd:
        x, w, r = (fd.define_tensor([-1, -1], DataType.BFloat16) for _ in range(3))
        fd.add_output(fd.ops.add(fd.ops.linear(x, w), r))
    return fd


def column_sum_plus():
    with FusionDefinition() as fd:
        x, k = fd.define_tensor([-1, -1], DataType.Float), fd.define_tensor([-1], DataType.Float)
        fd.add_output(fd.ops.add(fd.ops.sum(x, 0), k))
    return fd


def norm():
    with FusionDefinition() as fd:
        x, w = fd.define_tensor([-1, -1], DataType.BFloat16), fd.define_tensor([-1], DataType.BFloat16)
        fd.add_output(rms_norm(fd.ops, x, w))
    return fd


@pytest.mark.parametrize("build, inputs, schedule, message", [
    (relu, meta((64, 256)), "pointwise", r"schedule must be a dict .*got 'pointwise'"),
    (relu, meta((64, 256)), {"scheduler": "pointwise", "boxes": 0}, r"boxes and stages >= 1"),
    (relu, meta((64, 256)), {"scheduler": "pointwise", "box_cols": 0}, r"box_cols in \[1, 256\]"),
    (lambda: relu(0), meta(()), {"scheduler": "pointwise", "rank": 2}, r"a 0-d output has none"),
    (lambda: relu(1), meta((2 ** 31 + 1,)), {"scheduler": "pointwise"},
     r"2147483649 elements exceed the pointwise \(TMA\) kernel's 32-bit sizes"),
    (linear, meta((64, 512), (256, 512)), {"scheduler": "matmul", "block_n": 0}, r"block_n is one of"),
    (linear, meta((64, 512), (256, 512)), {"scheduler": "matmul", "block_m": 0}, r"block_m one of"),
    (linear, meta((64, 512), (1024, 512)), {"scheduler": "matmul", "operands": "a,b_kn"},
     r"operands record how the inputs are read"),
    (norm, meta((64, 4096), (4096,)), {"scheduler": "row_reduction", "in_kinds": "full,cols", "threads": 256},
     r"in_kinds record how the inputs are read"),
    (linear, meta((64, 512), (256, 512)), {"scheduler": "matmul", "stages": True}, r"takes integer fields"),
    (norm, meta((64, 4096), (4096,)), {"scheduler": "row_reduction", "cluster": True}, r"takes integers"),
    (linear, meta((64, 512), (256, 512)), {"scheduler": "matmul", "group_m": 2 ** 31}, r"group_m in \[1, 1024\]"),
], ids=["schedule-not-a-dict", "pointwise-boxes-0", "pointwise-box-cols-0", "pointwise-rank2-0d",
        "pointwise-2^31-elements", "matmul-block-n-0", "matmul-block-m-0", "matmul-operands-from-a-user",
        "row-reduction-in-kinds-from-a-user", "matmul-bool-stages",
        "row-reduction-bool-cluster", "matmul-group-m-2^31"])
def test_bad_schedule_or_input_is_a_fusion_error(build, inputs, schedule, message):
    with pytest.raises(FusionError, match=message):
        build().compile(inputs, schedule=schedule)


@pytest.mark.parametrize("build, inputs, name, fields, message", [
    (column_sum_plus, meta((4096, 1024), (1024,), dtype=torch.float32), "outer_reduction", {"in_kinds": "value,kept"},
     r"in_kinds contradict the tensors' shapes at 0: value \(its shape \[4096, 1024\] makes it full\)"),
    (norm, meta((64, 4096), (4096,)), "row_reduction", {"in_kinds": "full,full"},
     r"in_kinds contradict the tensors' shapes at 1: full \(its shape \[4096\] makes it cols\)"),
    (norm, meta((64, 4096), (4096,)), "row_reduction", {"out_kinds": "row"},
     r"out_kinds contradict the tensors' shapes at 0: row"),
    (linear_residual, meta((64, 512), (256, 512), (64, 256)), "matmul", {"operands": "a,b,row"},
     r"operands contradict the tensors' shapes at 2: row \(its shape \[64, 256\] makes it full\)"),
], ids=["outer-reduction-in-kinds", "row-reduction-in-kinds", "row-reduction-out-kinds", "matmul-operands"])
def test_signature_facts_must_match_known_shapes(build, inputs, name, fields, message):
    """fuser-schedule's path (a `fusion.schedule` attribute on fusion IR): the kinds are taken as
    given where `?` sizes hide them, and must be the shapes' where the shapes are known."""
    fd = build()
    sig = input_signature(fd, inputs)
    with pytest.raises(FusionError, match=message):
        named(name, sig).decode(sig, fields)


def test_bad_op_arguments_are_fusion_errors():
    with FusionDefinition() as fd:
        x = fd.define_tensor([-1, -1], DataType.Float)
        with pytest.raises(FusionError, match=r"dims 1.0 must be ints"):
            fd.ops.sum(x, 1.0)
        with pytest.raises(FusionError, match=r"cannot broadcast .* to \['a', 3\]: the shape takes sizes"):
            fd.ops.broadcast(x, ["a", 3])
        fd.add_output(fd.ops.relu(x))


def test_bad_call_arguments_are_fusion_errors():
    """fd.execute / fd.compile arguments of the wrong kind: named before any GPU is needed."""
    import numpy as np

    fd, inputs = linear(), meta((64, 512), (256, 512))
    with pytest.raises(FusionError, match=r"inputs must be a list of the fusion's 2 inputs .*got Tensor"):
        fd.compile(inputs[0])
    with pytest.raises(FusionError, match=r"unsupported value ndarray"):
        fd.execute([np.zeros((64, 512), np.float32), inputs[1]])      # was a RecursionError
    with pytest.raises(FusionError, match=r"options takes a fuser_mlir TargetOptions, got str"):
        fd.compile(inputs, options="x")
    with pytest.raises(FusionError, match=r"out= takes a list of tensors, one per output, got Tensor"):
        fd.execute(inputs, out=torch.empty(64, 256, dtype=torch.bfloat16, device="meta"))
    with pytest.raises(FusionError, match=r"matmul schedule takes integer fields"):
        fd.execute(inputs, schedule={"scheduler": "matmul", "stages": [3]})    # was: unhashable type
