"""The read floor of a skinny GEMM: how fast one kernel can only read its operands.

The skinny table's `floor_ms` (bench_matmul.py) is the operands' bytes at the device-to-device
copy rate -- the rate of a long copy.  A skinny GEMM reads 15-35 MB in 10-20 us, where a kernel's
launch, its DRAM ramp and the bytes it can keep in flight decide more than the copy rate.  This
floor is measured instead: Triton kernels that TMA-load every tile of A and B a GEMM with split K
loads (one [BM, BK] box of A and one [BN, BK] box of B per step, Triton's own pipeline of `stages`)
and only add them up, over a few tilings; the fastest is the floor.  No GEMM, whatever its combine,
can beat it by much: it does the same reads and nothing else.

`ncu_matmul.py --skinny` times these beside fuser_mlir and cuBLAS under Nsight
Compute (`calls` gives the launches).  Triton runs on the GPU machine only; nothing here is
imported by fuser_mlir.
"""
from __future__ import annotations

# (BN, BK, Triton stages, CTAs as a share of the SMs): the three fastest of 16 tilings of pure
# reads of 64 x 2112 x 7168's and 64 x 1024 x 16384's operands (H200, Nsight Compute).
TILINGS = ((64, 128, 4, 1.0), (128, 128, 4, 0.68), (128, 64, 8, 0.68))
PREFIX = "read A+B"     # the systems' names: "read A+B 64x128 s4 (132 CTAs)"


def _kernel():
    import triton
    import triton.language as tl

    @triton.jit
    def read_ab(a_desc, b_desc, out, K, K_PER_SPLIT: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
                BK: tl.constexpr, STAGES: tl.constexpr):
        tile, split = tl.program_id(0), tl.program_id(1)
        start = split * K_PER_SPLIT
        b_sum = tl.zeros([BN, BK], tl.float32)
        a_sum = tl.zeros([BM, BK], tl.float32)
        for k in tl.range(start, tl.minimum(start + K_PER_SPLIT, K), BK, num_stages=STAGES):
            b_sum += b_desc.load([tile * BN, k]).to(tl.float32)
            a_sum += a_desc.load([0, k]).to(tl.float32)
        tl.store(out + tile * tl.num_programs(1) + split, tl.sum(b_sum) + tl.sum(a_sum))   # keeps the loads live

    return read_ab


def calls(a, b) -> dict:
    """{system: a launch} reading a [M, K] (M <= 128, one row of boxes) and b [N, K] by each tiling."""
    import torch
    import triton
    from triton.tools.tensor_descriptor import TensorDescriptor

    m, k = a.shape
    n = b.shape[0]
    if m > 128:
        raise ValueError(f"read_floor: a has {m} rows; the floor is for skinny GEMMs (M <= 128)")
    kernel = _kernel()
    sms = torch.cuda.get_device_properties(a.device).multi_processor_count
    out = torch.empty(1 << 16, device=a.device)
    block_m = max(16, triton.next_power_of_2(m))     # rows past M are TMA's out-of-bounds fill: not read
    found = {}
    for block_n, block_k, stages, share in TILINGS:
        tiles = triton.cdiv(n, block_n)
        splits = max(1, int(share * sms) // tiles)
        k_per_split = triton.cdiv(triton.cdiv(k, splits), block_k) * block_k
        grid = (tiles, triton.cdiv(k, k_per_split))
        a_desc = TensorDescriptor.from_tensor(a, [block_m, block_k])
        b_desc = TensorDescriptor.from_tensor(b, [block_n, block_k])
        name = f"{PREFIX} {block_n}x{block_k} s{stages} ({grid[0] * grid[1]} CTAs)"
        warps = 4 if (block_m + block_n) * block_k <= 192 * 128 else 8     # the sums in registers, not spilled
        found[name] = (lambda g=grid, ad=a_desc, bd=b_desc, kps=k_per_split, bn=block_n, bk=block_k, st=stages,
                       w=warps: kernel[g](ad, bd, out, k, kps, block_m, bn, bk, st, num_warps=w))
    return found
