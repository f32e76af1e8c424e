"""The GPU test's pipeline kernels (tests/gpu/pipeline_kernels.mlir): their committed PTX is what
the compiler makes today, ptxas assembles it, and the derived protocol has the shape the GPU test
relies on (a 256-thread warp-specialized kernel with two producer roles)."""
import io
from pathlib import Path

from fuser_mlir.backend import ptxas
from fuser_mlir.tools import fuser_opt

GPU_KERNELS = Path(__file__).parent / "gpu" / "pipeline_kernels.mlir"
REGENERATE = f"fuser-opt tests/gpu/{GPU_KERNELS.name} --emit=ptx -o tests/gpu/{GPU_KERNELS.with_suffix('.ptx').name}"


def test_gpu_kernel_ptx_is_up_to_date_and_assembles():
    out = io.StringIO()
    assert fuser_opt.run([str(GPU_KERNELS), "--emit=ptx"], stdout=out) == 0
    committed = GPU_KERNELS.with_suffix(".ptx").read_text()
    assert out.getvalue() == committed, f"tests/gpu/{GPU_KERNELS.with_suffix('.ptx').name} is stale: run {REGENERATE}"
    ws = committed.split(".entry colsum_dot_warp_specialized(")[1]
    assert ".reqntid 256, 1, 1" in ws
    assert "setmaxnreg.dec.sync.aligned.u32 \t40" in ws and "setmaxnreg.inc.sync.aligned.u32 \t232" in ws
    ptxas.assemble(committed, "sm_90a")
