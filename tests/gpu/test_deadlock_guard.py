"""The deadlock guard on the H100: a kernel whose mbarrier phase never completes (expect-tx
announces 16 bytes more than its TMA load delivers) fails within seconds with the guard's
diagnostic instead of hanging.

The kernel is tests/gpu/deadlock_guard_kernel.mlir, compiled with --deadlock-guard-ms=1000; its
PTX is committed next to it (this machine has no MLIR; tests/test_deadlock_guard_build.py checks it is
up to date).  The launch runs in a child process: a trap leaves the CUDA context unusable, and a
guard that does not fire must not hang the suite (the child is killed after CHILD_TIMEOUT_S).
"""
import subprocess
import sys
from pathlib import Path

import pytest
import torch

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA Hopper GPU")

PTX = Path(__file__).parent / "deadlock_guard_kernel.ptx"
CHILD_TIMEOUT_S = 120

# Loads the PTX through the runtime's cold path, encodes the tensor map of a 32 x 64 bf16 tensor
# (box: the whole tensor), launches one CTA of 128 threads with 5120 bytes of dynamic smem (the
# kernel's mbarrier at 0 and its box at 1024) and waits.  Device printf goes to stdout: it is
# sent to stderr with the rest.
CHILD = r"""
import ctypes, os, sys, time
os.dup2(2, 1)
import torch
from fuser_mlir.runtime import driver
from fuser_mlir.runtime.artifact import Artifact

ptx = open(sys.argv[1]).read()
art = Artifact("deadlock-guard-test", ptx, None, {"entry": "wrong_expect_tx", "dynamic_smem": 5120, "block": [128, 1, 1]})
src = torch.zeros(32, 64, dtype=torch.bfloat16, device="cuda")
kernel = driver.load(art, 0)
slot = driver.TensorMapSlot("bf16", (32, 64), (32, 64), "src", 2)
slot.put(src.data_ptr())
params = (ctypes.c_void_p * 1)(slot.address)
start = time.monotonic()
driver.checked(driver.libcuda().launch_kernel(kernel.function, 1, 1, 1, 128, 1, 1, 5120, None,
                                              ctypes.addressof(params), None), "cuLaunchKernel")
try:
    torch.cuda.synchronize()
except RuntimeError as exc:
    sys.stderr.write(f"launch failed after {time.monotonic() - start:.3f} s: {exc}\n")
    sys.exit(3)
sys.stderr.write("the kernel finished: the deadlock guard did not fire\n")
sys.exit(0)
"""


def test_guarded_wait_fails_fast_with_a_diagnostic():
    try:
        proc = subprocess.run([sys.executable, "-c", CHILD, str(PTX)], capture_output=True, text=True,
                              timeout=CHILD_TIMEOUT_S)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"the guarded kernel hung (killed after {CHILD_TIMEOUT_S} s); stderr: {exc.stderr}")
    stderr = proc.stderr
    assert proc.returncode == 3, f"expected a failed launch, got exit status {proc.returncode}: {stderr}"
    elapsed = float(stderr.split("launch failed after ")[1].split(" s")[0])
    assert elapsed < 5.0, f"the guard (1000 ms) took {elapsed} s to fire"
    assert "fuser_mlir deadlock guard: kernel wrong_expect_tx: mbarrier wait at " in stderr, stderr
    assert ("timed out after 1000 ms: mbarriers at smem byte offset 0, index 0, expected parity 0, "
            "warp role all, block (0, 0, 0), thread (") in stderr, stderr
