"""fuser-grid-dependency on every scheduler's kernels (no GPU): each (no `launch_dependents`: its
dependents launch as its CTAs exit) waits once, in its top-level block, before its first global
access (so the runtime may launch it
while the previous kernel in the stream runs: meta "dependent_launch"), and fuser-verify-syncs
rejects the wait moved past a global access.  GPU: tests/gpu/test_dependent_launch.py."""
import pytest
import torch
from mlir import ir

from fuser_mlir import DataType, FusionDefinition
from fuser_mlir.dialects import new_context
from fuser_mlir.passes.smem_model import first_global_access, kernels
from fuser_mlir.passes.verify_syncs import verify_function

BF16 = DataType.BFloat16


def _pointwise():
    with FusionDefinition() as fd:
        x, y = (fd.define_tensor([-1, -1], BF16) for _ in range(2))
        fd.add_output(fd.ops.relu(fd.ops.mul(x, y)))
    return fd, [(1024, 1024)] * 2


def _row_sum():
    with FusionDefinition() as fd:
        x = fd.define_tensor([-1, -1], BF16)
        fd.add_output(fd.ops.sum(x, dims=[1]))
    return fd, [(512, 4096)]


def _column_sum():
    with FusionDefinition() as fd:
        x = fd.define_tensor([-1, -1], BF16)
        fd.add_output(fd.ops.sum(x, dims=[0]))
    return fd, [(4096, 512)]


def _linear():
    with FusionDefinition() as fd:
        x, w = (fd.define_tensor([-1, -1], BF16) for _ in range(2))
        fd.add_output(fd.ops.linear(x, w))
    return fd, [(256, 512), (384, 512)]


KERNELS = [("pointwise", _pointwise, None), ("pointwise_strided", _pointwise, {"scheduler": "pointwise_strided"}),
           ("row reduction", _row_sum, None), ("outer reduction", _column_sum, None), ("matmul", _linear, None),
           ("split-K", _linear, {"scheduler": "matmul", "block_m": 64, "block_n": 128, "split_k": 4})]


def _kernel(build, schedule):
    fd, shapes = build()
    return fd.compile([torch.empty(s, dtype=torch.bfloat16, device="meta") for s in shapes], schedule=schedule)


def _body(module):
    func, = kernels(module.operation)
    return func, list(func.regions[0].blocks[0].operations)


@pytest.mark.parametrize("name, build, schedule", KERNELS, ids=[k[0] for k in KERNELS])
def test_every_kernel_waits_for_the_previous_one_before_touching_global_memory(name, build, schedule):
    compiled = _kernel(build, schedule)
    assert compiled.artifact.meta["dependent_launch"] is True
    with new_context(), ir.Location.unknown():
        module = ir.Module.parse(compiled.kernel_ir)        # kept: its ops live as long as it does
        func, body = _body(module)
        names = [op.name for op in body]
        assert "nvasync.launch_dependents" not in names, "dependents launch as the CTAs exit"
        assert compiled.kernel_ir.count('"nvasync.grid_dependency_wait"') == 1, "one wait, in the top-level block"
        wait = names.index("nvasync.grid_dependency_wait")
        first = next(k for k, op in enumerate(body) if first_global_access(op) is not None)
        assert wait < first, "a global access before the wait"
        # As late as it may be: only syncs the later passes derived lie between it and the access.
        assert all("fuser.derived" in op.attributes for op in body[wait + 1:first]), names[wait:first + 1]
        assert verify_function(func) == []
    ptx = compiled.ptx
    assert "griddepcontrol.launch_dependents;" not in ptx and "griddepcontrol.wait;" in ptx


@pytest.mark.parametrize("name, build, schedule", KERNELS, ids=[k[0] for k in KERNELS])
def test_the_verifier_rejects_a_global_access_before_the_wait(name, build, schedule):
    """Move the wait past the first op after it that touches global memory: a race with the
    previous kernel in the stream, which fuser-verify-syncs must report."""
    compiled = _kernel(build, schedule)
    with new_context(), ir.Location.unknown():
        module = ir.Module.parse(compiled.kernel_ir)
        func, body = _body(module)
        wait = next(op for op in body if op.name == "nvasync.grid_dependency_wait")
        later = next(op for op in body[body.index(wait) + 1:] if first_global_access(op) is not None)
        wait.move_after(later)
        problems = [m for _, _, m in verify_function(func)]
        assert any("before nvasync.grid_dependency_wait" in m for m in problems), problems


def _matmul_kn():
    with FusionDefinition() as fd:
        a, b = (fd.define_tensor([-1, -1], BF16) for _ in range(2))
        fd.add_output(fd.ops.matmul(a, b))
    return fd, [(64, 7168), (7168, 2112)]


@pytest.mark.parametrize("build, box_cols", [(lambda: (_linear()[0], [(64, 7168), (2112, 7168)]), None),
                                             (_matmul_kn, 64)], ids=["b", "b_kn"])
def test_skinny_kernels_prefetch_their_weights_before_the_wait(build, box_cols):
    """The skinny heuristic's l2_prefetch: the issuer prefetches B's boxes of its first unit's first
    K tiles into L2 (one box a K tile for B [N, K], block_n / 64 column boxes for [K, N]) before
    the wait -- a hint, so the first global access, and the wait, come after it; l2_prefetch 0
    prefetches nothing."""
    compiled = _kernel(build, None)
    assert compiled.params.l2_prefetch > 0, compiled.params
    boxes = compiled.params.block_n // box_cols if box_cols else 1
    assert compiled.kernel_ir.count('"nvasync.tma_prefetch"') == boxes
    with new_context(), ir.Location.unknown():
        module = ir.Module.parse(compiled.kernel_ir)
        func, body = _body(module)
        names = [op.name for op in body]
        prefetch = next(k for k, op in enumerate(body) if '"nvasync.tma_prefetch"' in str(op))
        assert prefetch < names.index("nvasync.grid_dependency_wait")
        assert verify_function(func) == []
    ptx = compiled.ptx
    assert ptx.index("cp.async.bulk.prefetch.tensor.2d.L2.global.tile") < ptx.index("griddepcontrol.wait;")
    none = _kernel(build, {"scheduler": "matmul", "l2_prefetch": 0})
    assert "tma_prefetch" not in none.kernel_ir and "prefetch.tensor" not in none.ptx
