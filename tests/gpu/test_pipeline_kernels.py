"""Pass-derived pipelines on the H100: a persistent tile loop around a pipelined K loop, in both
modes, with two producer roles (A and B, each its own full/empty pair in warp_specialized mode).

The kernels are tests/gpu/pipeline_kernels.mlir; their PTX is committed next to it (this machine
has no MLIR; tests/test_pipeline_kernels_build.py checks it is up to date).  out = (A * B).sum(0)
over R rows: n = ceil(R / 32) K-steps per tile, `tiles` tiles of 128 columns spread over `grid`
CTAs.  Trip counts 0, 1, S-1, S, S+1 and 3S+1 (S = 4 stages), ragged row counts (the TMA box rows
past R are zero-filled and still counted by expect-tx), CTAs with several tiles (phases carried
across tiles) and idle CTAs (grid > tiles).  Run it under `timeout`: a protocol bug hangs.
"""
import ctypes
import re
from pathlib import Path

import pytest
import torch

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA Hopper GPU")

PTX = Path(__file__).parent / "pipeline_kernels.ptx"
STAGES = 4
SMEM = 227 * 1024           # the opt-in maximum: more than either kernel's layout needs
MODES = ("pipelined", "warp_specialized")

# (rows R, n K-steps, tiles, grid): every trip count of the K loop, ragged tails, idle CTAs.
CASES = [
    (32, 0, 3, 2),                  # trip count 0: out = 0 (the accumulator's initial value)
    (32, 1, 3, 2),
    (96, STAGES - 1, 5, 2),
    (128, STAGES, 4, 4),
    (160, STAGES + 1, 6, 4),
    (32 * (3 * STAGES + 1), 3 * STAGES + 1, 7, 3),
    (32 * (3 * STAGES + 1) - 7, 3 * STAGES + 1, 2, 5),   # ragged last box; 3 idle CTAs
    (70, 3, 9, 132),                # more CTAs than tiles: most of them idle
]


def _kernel(mode):
    from fuser_mlir.runtime import driver
    from fuser_mlir.runtime.artifact import Artifact

    ptx = PTX.read_text()
    entry = f"colsum_dot_{mode}"
    body = ptx.split(f".entry {entry}(")[1]
    block = int(re.search(r"\.reqntid (\d+)", body).group(1))
    art = Artifact(f"pipeline-kernels-{mode}", ptx, None, {"entry": entry, "dynamic_smem": SMEM, "block": [block, 1, 1]})
    return driver, driver.load(art, torch.cuda.current_device()), block


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("rows, n, tiles, grid", CASES)
def test_colsum_dot_matches_torch(mode, rows, n, tiles, grid):
    driver, kernel, block = _kernel(mode)
    cols = 128 * tiles
    a = torch.randn(rows, cols, device="cuda")
    b = torch.randn(rows, cols, device="cuda")
    out = torch.full((cols,), float("nan"), device="cuda")
    slots = [driver.TensorMapSlot("f32", (rows, cols), (32, 128), name, 4) for name in ("a", "b")]
    for slot, t in zip(slots, (a, b)):
        slot.put(t.data_ptr())
    scalars = [ctypes.c_int64(n), ctypes.c_int64(tiles), ctypes.c_void_p(out.data_ptr())]
    # kernelParams: the tensor maps are 128-byte byval parameters (the slot's bytes themselves)
    params = (ctypes.c_void_p * 5)(slots[0].address, slots[1].address, *[ctypes.addressof(x) for x in scalars])
    stream = torch.cuda.current_stream().cuda_stream
    driver.checked(driver.libcuda().launch_kernel(kernel.function, grid, 1, 1, block, 1, 1, SMEM, stream,
                                                  ctypes.addressof(params), None), "cuLaunchKernel")
    torch.cuda.synchronize()
    used = min(rows, 32 * n)
    expected = (a[:used].double() * b[:used].double()).sum(0)
    assert not out.isnan().any(), f"{int(out.isnan().sum())} outputs never written"
    torch.testing.assert_close(out.double(), expected, rtol=1e-5, atol=1e-4)
