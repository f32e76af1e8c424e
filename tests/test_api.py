"""The Python API, the pointwise compile path on CPU (PTX + ptxas), and the artifact cache."""
import json

import pytest
import torch

from fuser_mlir import DataType, FusionDefinition, FusionError
from fuser_mlir.runtime import artifact as artifacts
from fuser_mlir.backend.ptxas import assemble


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("FUSER_MLIR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("FUSER_MLIR_OFFLINE", raising=False)
    artifacts._memory.clear()
    yield tmp_path / "cache"
    artifacts._memory.clear()


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


def test_compile_gives_tma_ptx_that_ptxas_accepts():
    compiled = relu_mul().compile([cpu(300, 1000), cpu(300, 1000)])
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
    compiled = fd.compile([cpu(4097, dtype=torch.float32)])
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
