"""tools/ncu_matmul.py's reading of Nsight Compute's CSV: kernels summed per launch of their NVTX range,
plus the memcpy / memset time Nsight Compute does not see."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import ncu_matmul  # noqa: E402

HEAD = ('"ID","Process ID","Process Name","Host Name","thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:'
        'Msg_Type:Msg","Id:Domain:Start/Stop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg","Kernel Name",'
        '"Metric Name","Metric Unit","Metric Value"')


def kernel(label, name, ns):
    ranges = f'""<default domain>:{label}:none:none:none:none:none:none""' if label else ""
    return f'"0","1","python3","host","{ranges}","","{name}","gpu__time_duration.sum","ns","{ns:,}"'


def test_sums_each_launch_of_a_range():
    lines = ["==PROF== Connected", HEAD, kernel(None, "randn", 999)]
    for r in range(ncu_matmul.ROUNDS):
        lines.append(kernel("plain 8x8x8|fuser_mlir", "plain 8x8x8|fuser_mlir/matmul", 1000 + r))
        lines.append(kernel("bias+gelu 8x8x8|torch_eager", "nvjet", 2000))
        lines.append(kernel("bias+gelu 8x8x8|torch_eager", "gelu", 500 + 10 * r))
    times = ncu_matmul.kernel_times(lines)
    assert times["plain 8x8x8"]["fuser_mlir"] == pytest.approx([1.0 + r / 1e3 for r in range(ncu_matmul.ROUNDS)])
    assert times["bias+gelu 8x8x8"]["torch_eager"] == pytest.approx(
        [2.5 + r / 1e2 for r in range(ncu_matmul.ROUNDS)])
    assert set(times) == {"plain 8x8x8", "bias+gelu 8x8x8"}


def test_uneven_rounds_are_an_error():
    lines = [HEAD] + [kernel("plain 8x8x8|cublas", "nvjet", 1000)] * (ncu_matmul.ROUNDS + 1)
    with pytest.raises(ValueError, match="plain 8x8x8|cublas"):
        ncu_matmul.kernel_times(lines)


def test_skinny_rows_flush_l2_per_call_not_per_kernel():
    """cuBLAS's split-K reduce kernel reads its partials from L2: Nsight Compute must not flush
    between the kernels of one call (the launches flush before each call instead)."""
    assert ncu_matmul.rows(None, skinny=True) == [("plain", s) for s in ncu_matmul.bm.SKINNY_SHAPES]
    skinny = ncu_matmul.ncu_command("ncu", None, False, True)
    assert skinny[skinny.index("--cache-control") + 1] == "none" and skinny[-1] == "--skinny"
    assert "--cache-control" not in ncu_matmul.ncu_command("ncu", None, False, False)


def test_a_call_counts_its_copies_beside_its_kernels():
    """torch.compile's residual add copies C into its output (a memcpy, no kernel) before its GEMM:
    that time is part of the call's."""
    rounds = {"fuser_mlir": [185.0, 186.0, 184.0], "torch_compile": [177.0, 178.0, 176.0]}
    us = ncu_matmul.device_us(rounds, {"torch_compile": 16.8})
    assert us == pytest.approx({"fuser_mlir": 185.0, "torch_compile": 193.8})
