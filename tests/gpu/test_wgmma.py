"""The first wgmma on silicon: C = A @ B^T on one 64 x N tile, TMA -> 128-byte swizzled smem ->
wgmma (4 k-steps per 64-wide K tile, each on a 32-byte-advanced descriptor) -> f32 fragment ->
global memory, with the K loop pipelined by fuser-pipeline-mbarriers in both modes.

The kernels are tests/gpu/wgmma_kernels.mlir; their PTX is committed next to it (this machine has
no MLIR; tests/test_wgmma_build.py checks it is up to date and that KERNELS below matches it).
Each kernel runs every trip count of TRIPS (K = 64 * ktiles; 0 must give C = 0) on fresh
torch.randn inputs, with C poisoned with NaN before each launch, against a float64 reference.
bf16/f16 products are exact in f32; the bound allows f32 accumulation error (1e-3 of |A| @ |B|^T
per element), far below what a wrong descriptor, swizzle or fragment mapping produces.

The launches run in a child process (this file run as a script) killed after CHILD_TIMEOUT_S, so
a pipeline that hangs fails the test instead of stalling the suite.  Run one kernel by hand, e.g.
under compute-sanitizer:
    python3 tests/gpu/test_wgmma.py wgmma_bf16_ws,wgmma_f16_ws 2 5
Set WGMMA_DUMP_DIR to keep A, B, C and the reference of a failing case (torch.save).
"""
import ctypes
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

PTX = Path(__file__).with_name("wgmma_kernels.ptx")
CHILD_TIMEOUT_S = 180
TRIPS = (0, 1, 2, 3, 5, 9)          # stages = 3: 0, 1, S-1, S, S+2, 3S
BOX_K = 64                          # K elements per TMA box and pipeline stage (128 bytes)
SWIZZLE = 128
# entry -> (dtype, N, block threads, dynamic smem bytes), as the passes derived them
KERNELS = {
    "wgmma_bf16_pipelined": ("bf16", 128, 128, 73752),
    "wgmma_f16_pipelined": ("f16", 64, 128, 49176),
    "wgmma_bf16_ws": ("bf16", 128, 256, 73848),
    "wgmma_f16_ws": ("f16", 64, 256, 49272),
}
_TORCH_DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16}


def _block_map(bad: torch.Tensor) -> str:
    """Which 8 x 8 blocks of C hold wrong elements ('#': some, '.': none): swapped core
    matrices point at the descriptor's strides, garbage everywhere at the swizzle."""
    rows, cols = bad.shape
    blocks = bad.reshape(rows // 8, 8, cols // 8, 8).any(dim=3).any(dim=1)
    return "\n".join("".join("#" if b else "." for b in row) for row in blocks.tolist())


def run_kernel(entry: str, trips) -> list[str]:
    """Launch `entry` once per trip count; raise AssertionError on the first wrong result."""
    from fuser_mlir.runtime import driver
    from fuser_mlir.runtime.artifact import Artifact

    dtype, n, block, smem = KERNELS[entry]
    art = Artifact(f"wgmma-test-{entry}", PTX.read_text(), None,
                   {"entry": entry, "dynamic_smem": smem, "block": [block, 1, 1]})
    kernel = driver.load(art, torch.cuda.current_device())
    lib = driver.libcuda()
    stream = torch.cuda.current_stream().cuda_stream
    seed = int.from_bytes(os.urandom(4), "little")      # fresh inputs every run; printed to reproduce
    torch.manual_seed(seed)
    done = []
    for ktiles in trips:
        k = BOX_K * max(ktiles, 1)               # trip count 0 still gets valid (unread) tensors
        a = torch.randn(64, k, device="cuda").to(_TORCH_DTYPES[dtype])
        b = torch.randn(n, k, device="cuda").to(_TORCH_DTYPES[dtype])
        c = torch.full((64, n), float("nan"), device="cuda")
        slots = [driver.TensorMapSlot(dtype, (64, k), (64, BOX_K), "A", 2, SWIZZLE),
                 driver.TensorMapSlot(dtype, (n, k), (n, BOX_K), "B", 2, SWIZZLE)]
        for slot, t in zip(slots, (a, b)):
            slot.put(t.data_ptr())
        scalars = [ctypes.c_void_p(c.data_ptr()), ctypes.c_int32(ktiles)]
        # kernelParams: the tensor maps are 128-byte byval parameters (the slots' bytes themselves)
        params = (ctypes.c_void_p * 4)(slots[0].address, slots[1].address, *[ctypes.addressof(s) for s in scalars])
        driver.checked(lib.launch_kernel(kernel.function, 1, 1, 1, block, 1, 1, smem, stream,
                                         ctypes.addressof(params), None), "cuLaunchKernel")
        torch.cuda.synchronize()
        used = BOX_K * ktiles
        a64, b64 = a[:, :used].cpu().double(), b[:, :used].cpu().double()    # no other GPU kernel
        expected = a64 @ b64.T
        bound = 1e-3 * (a64.abs() @ b64.abs().T) + 1e-6
        c = c.cpu()
        error = (c.double() - expected).abs()
        bad = ~(error <= bound)                  # NaN (never written) counts as wrong
        if bad.any():
            dump = os.environ.get("WGMMA_DUMP_DIR")
            if dump:
                torch.save({"a": a.cpu(), "b": b.cpu(), "c": c, "expected": expected},
                           Path(dump) / f"{entry}_k{ktiles}.pt")
            where = bad.nonzero().tolist()[:8]
            raise AssertionError(
                f"{entry} ktiles={ktiles} (seed {seed}): {int(bad.sum())} of {bad.numel()} elements wrong "
                f"({int(c.isnan().sum())} never written), max error {float(error.nan_to_num(float('inf')).max()):.4g}; "
                f"first at (row, col) {where}; wrong 8x8 blocks (rows down, cols across):\n{_block_map(bad)}")
        done.append(f"{entry} ktiles={ktiles}: ok, max error {float(error.max()):.3g}")
    return done


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA Hopper GPU")
@pytest.mark.parametrize("entry", list(KERNELS))
def test_wgmma_tile_matches_torch(entry):
    try:
        proc = subprocess.run([sys.executable, __file__, entry, *map(str, TRIPS)], capture_output=True,
                              text=True, timeout=CHILD_TIMEOUT_S)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"{entry} hung (killed after {CHILD_TIMEOUT_S} s); output: {exc.stdout} {exc.stderr}")
    assert proc.returncode == 0, f"{entry}: exit status {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    assert proc.stdout.count(": ok,") == len(TRIPS), proc.stdout


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA Hopper GPU")
@pytest.mark.parametrize("swizzle", [0, 32, 64, 128])
def test_hot_and_cold_tensor_maps_agree(swizzle):
    """The ctypes encoding (hot path) and cuda-python's (cold path) of one recipe are the same
    128 bytes, swizzle included; a different swizzle gives different bytes."""
    from fuser_mlir.runtime import driver

    t = torch.empty(128, 256, dtype=torch.bfloat16, device="cuda")
    width = max(swizzle, 32) // 2
    slot = driver.TensorMapSlot("bf16", (128, 256), (64, width), "t", 2, swizzle)
    slot.put(t.data_ptr())
    assert slot.bytes() == driver.encode_tensor_map(slot.recipe, t.data_ptr())
    other = driver.TensorMapSlot("bf16", (128, 256), (64, width), "t", 2, 0 if swizzle else 32)
    other.put(t.data_ptr())
    assert other.bytes() != slot.bytes()


if __name__ == "__main__":         # ENTRY[,ENTRY...] [KTILES...]
    for name in sys.argv[1].split(","):
        for line in run_kernel(name, [int(x) for x in sys.argv[2:]] or TRIPS):
            print(line, flush=True)
