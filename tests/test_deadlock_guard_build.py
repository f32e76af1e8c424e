"""The deadlock guard (TargetOptions.deadlock_guard_ms): where it comes from, that it keys the
artifact cache, and that the GPU test's committed kernel is what the compiler makes today.
(lit_tests/lowering/deadlock_guard.mlir checks the bounded wait, the printf and the trap in PTX.)"""
import io
from pathlib import Path

import pytest
import torch

from fuser_mlir import DataType, FusionDefinition
from fuser_mlir.backend import ptxas
from fuser_mlir.backend.target import DEADLOCK_GUARD_ENV, TargetOptions
from fuser_mlir.diagnostics import CompileError
from fuser_mlir.tools import fuser_opt

GPU_KERNEL = Path(__file__).parent / "gpu" / "deadlock_guard_kernel.mlir"
REGENERATE = (f"fuser-opt tests/gpu/{GPU_KERNEL.name} --deadlock-guard-ms=1000 --emit=ptx "
              f"-o tests/gpu/{GPU_KERNEL.with_suffix('.ptx').name}")


def test_option_comes_from_the_environment_unless_given(monkeypatch):
    monkeypatch.delenv(DEADLOCK_GUARD_ENV, raising=False)
    assert TargetOptions().deadlock_guard_ms == 0
    monkeypatch.setenv(DEADLOCK_GUARD_ENV, "250")
    assert TargetOptions().deadlock_guard_ms == 250
    assert TargetOptions(deadlock_guard_ms=0).deadlock_guard_ms == 0
    monkeypatch.setenv(DEADLOCK_GUARD_ENV, "soon")
    with pytest.raises(CompileError, match="expected a number of milliseconds"):
        TargetOptions()
    with pytest.raises(CompileError, match="unsupported deadlock guard"):
        TargetOptions(deadlock_guard_ms=-1)


def test_guarded_and_plain_kernels_never_share_a_cache_entry(monkeypatch, tmp_path):
    """A debug build is keyed apart from the plain one (TargetOptions is part of the key): asking
    for the plain kernel after the guarded one compiles the plain one."""
    monkeypatch.setenv("FUSER_MLIR_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv(DEADLOCK_GUARD_ENV, raising=False)
    with FusionDefinition() as fd:
        x = fd.define_tensor([-1, -1], DataType.BFloat16)
        fd.add_output(fd.ops.relu(x))
    inputs = [torch.empty(64, 1024, dtype=torch.bfloat16)]
    tma = {"scheduler": "pointwise"}          # a kernel with mbarrier waits to guard
    guarded = fd.compile(inputs, TargetOptions(deadlock_guard_ms=1000), schedule=tma)
    plain = fd.compile(inputs, schedule=tma)
    assert guarded.artifact.key != plain.artifact.key
    assert "vprintf" in guarded.artifact.ptx and "trap;" in guarded.artifact.ptx
    assert "%globaltimer" in guarded.artifact.ptx
    assert "vprintf" not in plain.artifact.ptx and "trap;" not in plain.artifact.ptx
    assert fd.compile(inputs, TargetOptions(deadlock_guard_ms=1000), schedule=tma).artifact.key == guarded.artifact.key


@pytest.mark.skipif(not ptxas.find_ptxas(), reason="ptxas not installed")
def test_guarded_matmul_assembles_with_serialized_wgmma(monkeypatch, tmp_path):
    """The guard's report is a call inside wgmma's pipeline: ptxas serializes wgmma (C7510), an
    error in a normal build and accepted in a guarded one."""
    monkeypatch.setenv("FUSER_MLIR_CACHE_DIR", str(tmp_path))
    with FusionDefinition() as fd:
        x, w = fd.define_tensor([-1, -1], DataType.BFloat16), fd.define_tensor([-1, -1], DataType.BFloat16)
        fd.add_output(fd.ops.linear(x, w))
    inputs = [torch.empty(s, dtype=torch.bfloat16, device="meta") for s in ((64, 256), (256, 256))]
    guarded = fd.compile(inputs, TargetOptions(deadlock_guard_ms=1000))
    assert guarded.artifact.cubin and "trap;" in guarded.artifact.ptx
    with pytest.raises(CompileError, match="C7510"):
        ptxas.assemble(guarded.artifact.ptx, "sm_90a")


def test_gpu_kernel_ptx_is_up_to_date():
    out = io.StringIO()
    status = fuser_opt.run([str(GPU_KERNEL), "--deadlock-guard-ms=1000", "--emit=ptx"], stdout=out)
    assert status == 0
    committed = GPU_KERNEL.with_suffix(".ptx").read_text()
    assert out.getvalue() == committed, f"tests/gpu/{GPU_KERNEL.with_suffix('.ptx').name} is stale: run {REGENERATE}"
    assert "trap;" in committed and "vprintf" in committed
    ptxas.assemble(committed, "sm_90a")
