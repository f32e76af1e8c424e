"""The matmul scheduler on the GPU (an H100 or H200) against torch in float64: fresh random normal inputs,
NaN-poisoned outputs, ragged M, N and K (M = 1, K below one tile, tails in every dim, batch dims
folded into M, more tiles than SMs), both B layouts (w [N, K] of linear, b [K, N] of matmul, and
transposed views of each, which read as the other layout), bf16 and f16, and every epilogue kind:
bias [N], per-row scale [M, 1], full residual and gate [M, N] (also past 2^31 elements), a scalar
input, activations, a cast to f32, and several outputs; split-K in every mode (split counts 2, 3,
8, more splits than K tiles; reused workspace over repeated launches; deterministic, slots and
cluster modes bitwise equal over 20 launches).

Each case is (name, fusion builder, input maker, schedule); build_artifacts.py compiles exactly
these signatures on meta tensors.  Run offline with artifacts built here (README, "GPU tests").
"""
import os
import sys

import pytest
import torch

sys.path.insert(0, os.path.dirname(__file__))
from test_pointwise import reference  # noqa: E402
from threads import run_in_threads  # noqa: E402

from fuser_mlir import DataType, FusionDefinition  # noqa: E402
from fuser_mlir.frontend.dtypes import torch_dtype  # noqa: E402

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA Hopper GPU")
BF16, F16 = DataType.BFloat16, DataType.Half
# Elementwise: |out - ref| <= RTOL |ref| + ATOL max|ref| (the output's rounding dominates).
RTOL = {BF16: 2 ** -7, F16: 2 ** -10, DataType.Float: 2 ** -16}
ATOL = 2 ** -12


def linear(dtype, epilogue, extra=(), op="linear"):
    """x [.., M, K] @ w [N, K]^T (op "linear"; "matmul": x @ b [K, N]), then `epilogue(fd, y,
    *extra_inputs)` adds the outputs; `extra`: (rank, dtype) of further tensor inputs, or "scalar"
    for a define_scalar."""
    with FusionDefinition() as fd:
        x = fd.define_tensor([-1, -1], dtype)
        w = fd.define_tensor([-1, -1], dtype)
        more = [fd.define_scalar(DataType.Float) if e == "scalar" else fd.define_tensor([-1] * e, dtype)
                for e in extra]
        epilogue(fd, getattr(fd.ops, op)(x, w), *more)
    return fd


def batched(dtype):
    """x [B, M, K] @ w [N, K]^T + bias."""
    with FusionDefinition() as fd:
        x = fd.define_tensor([-1, -1, -1], dtype)
        w, b = fd.define_tensor([-1, -1], dtype), fd.define_tensor([-1], dtype)
        fd.add_output(fd.ops.linear(x, w, b))
    return fd


EPILOGUES = {
    "plain": ((), lambda fd, y: fd.add_output(y)),
    "bias-gelu": ((1,), lambda fd, y, b: fd.add_output(fd.ops.gelu(fd.ops.add(y, b)))),
    "silu-gate": ((2,), lambda fd, y, g: fd.add_output(fd.ops.mul(fd.ops.silu(y), g))),
    "row-scale": ((2,), lambda fd, y, s: fd.add_output(fd.ops.mul(y, s))),
    "two-outputs": ((1,), lambda fd, y, b: (fd.add_output(fd.ops.add(y, b)),
                                             fd.add_output(fd.ops.relu(fd.ops.add(y, b))))),
    "scalar-f32": (("scalar",), lambda fd, y, s: fd.add_output(fd.ops.cast(fd.ops.mul(y, s), DataType.Float))),
    # two full operands, one output: the gate arrives by TMA in the output's tile, the residual by
    # vector loads (one tile per output dtype)
    "residual-gate-3": ((2, 2), lambda fd, y, r, g: (fd.add_output(fd.ops.add(y, r)), fd.add_output(fd.ops.mul(y, g)),
                                                    fd.add_output(fd.ops.silu(y)))),
    "gate-residual": ((2, 2), lambda fd, y, g, r: fd.add_output(fd.ops.add(fd.ops.mul(fd.ops.silu(y), g), r))),
}


def randn(shape, dtype, device):
    """Normal values on CUDA; on "meta" (build_artifacts.py compiles there) the same shapes,
    strides and dtypes."""
    return torch.randn(shape, dtype=torch_dtype(dtype), device=device)


def linear_inputs(kind, dtype, m, n, k, device, b_layout="nk"):
    """Inputs of `linear` (b_layout "nk": w [N, K]; "kn^T": w as the transposed view of a [K, N]
    matrix) or of its matmul form ("kn": b [K, N]; "nk^T": b as the transposed view of [N, K])."""
    extra, _ = EPILOGUES[kind]
    b = {"nk": lambda: randn((n, k), dtype, device), "kn": lambda: randn((k, n), dtype, device),
         "kn^T": lambda: randn((k, n), dtype, device).t(), "nk^T": lambda: randn((n, k), dtype, device).t()}[b_layout]()
    more = []
    for e in extra:
        if e == "scalar":
            more.append(0.75)
        elif kind == "row-scale":
            more.append(randn((m, 1), dtype, device))
        else:
            more.append(randn((n,) if e == 1 else (m, n), dtype, device))
    return [randn((m, k), dtype, device), b, *more]


SHAPES = {"m1": (1, 256, 64), "ktail": (200, 136, 40), "ragged": (333, 264, 200), "waves": (2048, 2304, 512)}
CASES = []      # (name, build, make inputs, schedule)
for kind, (extra, epilogue) in EPILOGUES.items():
    for shape_name, (m, n, k) in SHAPES.items():
        for dtype in ((BF16, F16) if kind == "plain" else (BF16,)):
            CASES.append((f"{kind}-{dtype.value}-{shape_name}", lambda d=dtype, e=epilogue, x=extra: linear(d, e, x),
                          lambda dev, kd=kind, d=dtype, s=(m, n, k): linear_inputs(kd, d, *s, dev), None))
CASES += [
    ("batched-bias-f16", lambda: batched(F16),
     lambda dev: [randn((3, 100, 128), F16, dev), randn((192, 128), F16, dev), randn((192,), F16, dev)], None),
    ("plain-bf16-bn128-s4", lambda: linear(BF16, EPILOGUES["plain"][1]),
     lambda dev: linear_inputs("plain", BF16, 333, 264, 200, dev),
     {"scheduler": "matmul", "block_n": 128, "stages": 4, "group_m": 2}),
]

# 160-wide tiles: bf16 output boxes of 32 columns in 64-byte swizzle (f32 ones keep 128-byte rows),
# a ragged last tile column (600 = 3.75 x 160), several tiles per CTA, split-K partials of 160-wide
# tiles (10 workspace rows of 256 floats a slab) in both modes.
for name, kind, (m, n, k), schedule in [
        ("bn160-bias-gelu-ragged", "bias-gelu", (333, 600, 200), {"split_k": 1}),
        ("bn160-two-outputs-waves", "two-outputs", SHAPES["waves"], {}),
        ("bn160-scalar-f32-ragged", "scalar-f32", SHAPES["ragged"], {"split_k": 1}),
        ("splitk-atomic-s3-bn160-two-outputs", "two-outputs", (64, 2112, 7168), {"split_k": 3, "block_m": 128}),
        ("splitk-deterministic-s3-bn160-plain", "plain", (200, 600, 1000),
         {"split_k": 3, "split_k_mode": "deterministic"}),
        # 144-wide: bf16 boxes of 16 columns in 32-byte swizzle, f32 ones in 64-byte swizzle
        ("bn144-two-outputs-ragged", "two-outputs", (333, 600, 200), {"block_n": 144}),
        ("bn144-scalar-f32-waves", "scalar-f32", SHAPES["waves"], {"block_n": 144}),
        ("splitk-atomic-s3-bn144-silu-gate", "silu-gate", (64, 2112, 7168), {"split_k": 3, "block_m": 128,
                                                                            "block_n": 144}),
        # 176-wide: 11 boxes of 16 columns; a ragged last tile column (600 = 3.4 x 176)
        ("bn176-bias-gelu-ragged", "bias-gelu", (333, 600, 200), {"block_n": 176}),
        ("bn176-two-outputs-waves", "two-outputs", SHAPES["waves"], {"block_n": 176})]:
    extra, epilogue = EPILOGUES[kind]
    CASES.append((name, lambda e=epilogue, x=extra: linear(BF16, e, x),
                  lambda dev, kd=kind, s=(m, n, k): linear_inputs(kd, BF16, *s, dev),
                  {"scheduler": "matmul", "block_n": 160, **schedule}))

# Split-K (fuser-tma-reduce-store's protocols): split counts 2, 3 (not dividing the 16 K tiles), 8,
# 6 over 4 K tiles (splits with no K tiles), in every mode, with epilogues; M = 64 is the skinny
# case split-K is for; "heuristic" lets the heuristic split a skinny shape.
SPLIT_K = [("plain", 2, (333, 264, 1000)), ("bias-gelu", 3, (200, 136, 1000)),
           ("two-outputs", 8, (64, 2112, 7168)), ("silu-gate", 6, (130, 256, 200))]
for mode in ("deterministic", "atomic", "slots"):
    for kind, splits, (m, n, k) in SPLIT_K:
        extra, epilogue = EPILOGUES[kind]
        CASES.append((f"splitk-{mode}-s{splits}-{kind}", lambda e=epilogue, x=extra: linear(BF16, e, x),
                      lambda dev, kd=kind, s=(m, n, k): linear_inputs(kd, BF16, *s, dev),
                      {"scheduler": "matmul", "split_k": splits, "split_k_mode": mode}))
# Split-K in clusters (split_k_mode "cluster": the partials added through distributed shared memory,
# each CTA storing its slice): 2, 3, 4, 5, 6 and 8 splits; slices of equal and unequal size (the
# larger last, or alternating) and tile widths of no TMA box (72, 80, 104); ragged M, N and K;
# M = 1 (one warp's rows); more splits than K tiles (splits with no K tiles); 3 and 4 splits of a
# 6-stage ring's 5 and 6 K tiles; two consumer warpgroups (128-row tiles); b [K, N]; f16;
# epilogues and several outputs.
for name, kind, dtype, layout, (m, n, k), (block_m, block_n, splits) in [
        ("cluster-s6-two-outputs-bn144", "two-outputs", BF16, "nk", (64, 2112, 7168), (64, 144, 6)),
        ("cluster-s3-bias-gelu-bn144-ragged", "bias-gelu", BF16, "nk", (333, 600, 1000), (64, 144, 3)),
        ("cluster-s8-silu-gate-empty-splits", "silu-gate", BF16, "nk", (50, 256, 200), (64, 128, 8)),
        ("cluster-s2-plain-m1-kn", "plain", BF16, "kn", SHAPES["m1"], (64, 128, 2)),
        ("cluster-s5-plain-f16-ktail", "plain", F16, "nk", SHAPES["ktail"], (64, 160, 5)),
        ("cluster-s4-row-scale-bm128-bn64", "row-scale", BF16, "nk", (100, 320, 1000), (128, 64, 4)),
        ("cluster-s8-scalar-f32-bm128", "scalar-f32", BF16, "nk", (128, 1000, 3000), (128, 128, 8)),
        # widths of no TMA box, slices of unequal size (9 groups over 8 CTAs, 13 and 10 over 4)
        ("cluster-s8-bias-gelu-bn72-uneven", "bias-gelu", BF16, "nk", (64, 1024, 4096), (64, 72, 8)),
        ("cluster-s4-two-outputs-bn104-uneven-ragged", "two-outputs", BF16, "nk", (40, 504, 1000), (64, 104, 4)),
        ("cluster-s4-silu-gate-bn80-interleaved", "silu-gate", BF16, "nk", (64, 400, 1000), (64, 80, 4)),
        # the heuristic's narrow fallback: 64-wide tiles, 16 clusters of 8 (two CTAs an SM), long splits
        ("cluster-s8-bias-gelu-bn64-long-k-ragged", "bias-gelu", BF16, "nk", (40, 1000, 16000), (64, 64, 8))]:
    extra, epilogue = EPILOGUES[kind]
    op = "linear" if layout == "nk" else "matmul"
    CASES.append((name, lambda d=dtype, e=epilogue, x=extra, o=op: linear(d, e, x, o),
                  lambda dev, kd=kind, d=dtype, s=(m, n, k), bl=layout: linear_inputs(kd, d, *s, dev, bl),
                  {"scheduler": "matmul", "block_m": block_m, "block_n": block_n, "split_k": splits,
                   "split_k_mode": "cluster"}))
# b given [K, N] (wgmma's transposed B), and transposed views read as the other layout.
for name, kind, dtype, layout, (m, n, k), schedule in [
        ("kn-plain-bf16-m1", "plain", BF16, "kn", SHAPES["m1"], None),
        ("kn-plain-f16-ktail", "plain", F16, "kn", SHAPES["ktail"], None),
        ("kn-bias-gelu-bf16-ragged", "bias-gelu", BF16, "kn", SHAPES["ragged"], None),
        ("kn-two-outputs-bf16-waves", "two-outputs", BF16, "kn", SHAPES["waves"], None),
        ("kn-plain-bf16-bn192", "plain", BF16, "kn", SHAPES["ragged"], {"scheduler": "matmul", "block_n": 192}),
        ("kn-splitk-atomic-s3-silu-gate", "silu-gate", BF16, "kn", (200, 136, 1000),
         {"scheduler": "matmul", "split_k": 3, "split_k_mode": "atomic"}),
        ("nkT-plain-bf16-ragged", "plain", BF16, "nk^T", SHAPES["ragged"], None),
        ("linear-knT-row-scale-bf16-ragged", "row-scale", BF16, "kn^T", SHAPES["ragged"], None)]:
    extra, epilogue = EPILOGUES[kind]
    op = "linear" if layout in ("nk", "kn^T") else "matmul"
    CASES.append((name, lambda d=dtype, e=epilogue, x=extra, o=op: linear(d, e, x, o),
                  lambda dev, kd=kind, d=dtype, s=(m, n, k), bl=layout: linear_inputs(kd, d, *s, dev, bl), schedule))
# 64-row tiles (one consumer warpgroup; the skinny kernel): ragged tile rows and columns, M = 1,
# more tiles than SMs, 64-byte output boxes (160), f16, b [K, N], split-K in every mode (also with
# more splits than K tiles).
for name, kind, dtype, layout, (m, n, k), schedule in [
        ("bm64-bias-gelu-ragged", "bias-gelu", BF16, "nk", SHAPES["ragged"], {"split_k": 1}),
        ("bm64-two-outputs-m1", "two-outputs", BF16, "nk", SHAPES["m1"], {"split_k": 1}),
        ("bm64-scalar-f32-waves", "scalar-f32", BF16, "nk", SHAPES["waves"], {"split_k": 1}),
        ("bm64-bn160-plain-f16-ktail", "plain", F16, "nk", SHAPES["ktail"], {"block_n": 160, "split_k": 1}),
        ("bm64-kn-row-scale-ragged", "row-scale", BF16, "kn", SHAPES["ragged"], {"block_n": 128}),
        ("bm64-splitk-atomic-s5-silu-gate", "silu-gate", BF16, "nk", (50, 1000, 3000), {"split_k": 5}),
        ("bm64-splitk-deterministic-s8-two-outputs", "two-outputs", BF16, "nk", (64, 2112, 7168),
         {"block_n": 128, "split_k": 8, "split_k_mode": "deterministic"}),
        ("bm64-kn-splitk-atomic-s3-plain", "plain", BF16, "kn", (100, 640, 1000), {"split_k": 3}),
        # 6 splits over 4 K tiles: splits with no K tiles still take part in the protocol
        ("bm64-splitk-deterministic-s6-empty-splits", "bias-gelu", BF16, "nk", (64, 256, 200),
         {"split_k": 6, "split_k_mode": "deterministic"}),
        ("bm64-splitk-atomic-s6-empty-splits", "silu-gate", BF16, "nk", (50, 304, 200), {"split_k": 6}),
        ("bm64-splitk-slots-s7-plain", "plain", BF16, "nk", (64, 2112, 7168),
         {"block_n": 128, "split_k": 7, "split_k_mode": "slots"}),
        ("bm64-kn-splitk-slots-s6-empty-splits", "bias-gelu", BF16, "kn", (37, 320, 200),
         {"split_k": 6, "split_k_mode": "slots"}),
        # one tile row's 4-stage ring (M <= 64): splits of 4 and 5 K tiles (S and S + 1)
        ("bm64-splitk-atomic-s2-trips-4-5", "plain", BF16, "nk", (64, 256, 576), {"split_k": 2})]:
    extra, epilogue = EPILOGUES[kind]
    op = "linear" if layout == "nk" else "matmul"
    CASES.append((name, lambda d=dtype, e=epilogue, x=extra, o=op: linear(d, e, x, o),
                  lambda dev, kd=kind, d=dtype, s=(m, n, k), bl=layout: linear_inputs(kd, d, *s, dev, bl),
                  {"scheduler": "matmul", "block_m": 64, **schedule}))
# 2-CTA clusters sharing B by TMA multicast (cluster_m 2): an odd number of tile rows (the last
# cluster's second tile lies wholly past M), M = 1, K below one tile, more clusters than fit at
# once, both B layouts, 160- and 192-wide tiles (B slices of 80 and 96 rows), f16, several outputs.
for name, kind, dtype, layout, (m, n, k), schedule in [
        ("cl2-bias-gelu-ragged", "bias-gelu", BF16, "nk", SHAPES["ragged"], {}),
        ("cl2-two-outputs-m1", "two-outputs", BF16, "nk", SHAPES["m1"], {}),
        ("cl2-plain-f16-ktail", "plain", F16, "nk", SHAPES["ktail"], {"block_n": 192}),
        ("cl2-silu-gate-waves", "silu-gate", BF16, "nk", SHAPES["waves"], {"block_n": 160}),
        ("cl2-silu-gate-tiles-past-m", "silu-gate", BF16, "nk", (1100, 2112, 1000), {"block_n": 160}),
        ("cl2-kn-row-scale-ragged", "row-scale", BF16, "kn", SHAPES["ragged"], {"block_n": 128}),
        ("cl2-kn-scalar-f32-waves", "scalar-f32", BF16, "kn", SHAPES["waves"], {})]:
    extra, epilogue = EPILOGUES[kind]
    op = "linear" if layout == "nk" else "matmul"
    CASES.append((name, lambda d=dtype, e=epilogue, x=extra, o=op: linear(d, e, x, o),
                  lambda dev, kd=kind, d=dtype, s=(m, n, k), bl=layout: linear_inputs(kd, d, *s, dev, bl),
                  {"scheduler": "matmul", "cluster_m": 2, **schedule}))
# Full epilogue operands by TMA into their output's smem tile as the K loop ends (tma_operands, the
# heuristic's default; the other cases with a full operand take it too): ~2 tiles a CTA with one K
# tile each (the load barely overlaps), 64- and 32-byte output boxes (160, 144), 64-row tiles, b
# [K, N], two operands each in its own output's tile beside a third output; and vector loads.
for name, kind, layout, (m, n, k), schedule in [
        ("tma-silu-gate-many-tiles", "silu-gate", "nk", (4096, 2048, 64), {}),
        ("tma-silu-gate-bn160-ragged", "silu-gate", "nk", SHAPES["ragged"], {"block_n": 160}),
        ("tma-gate-residual-bn144-ragged", "gate-residual", "nk", (333, 600, 200), {"block_n": 144}),
        ("tma-silu-gate-bm64-waves", "silu-gate", "nk", SHAPES["waves"], {"block_m": 64, "split_k": 1}),
        ("tma-kn-gate-residual-waves", "gate-residual", "kn", SHAPES["waves"], {}),
        ("tma-residual-gate-three-outputs", "residual-gate-3", "nk", SHAPES["ragged"], {}),
        ("vector-silu-gate-waves", "silu-gate", "nk", SHAPES["waves"], {"tma_operands": 0})]:
    extra, epilogue = EPILOGUES[kind]
    op = "linear" if layout == "nk" else "matmul"
    CASES.append((name, lambda e=epilogue, x=extra, o=op: linear(BF16, e, x, o),
                  lambda dev, kd=kind, s=(m, n, k), bl=layout: linear_inputs(kd, BF16, *s, dev, bl),
                  {"scheduler": "matmul", **schedule}))
# B prefetched into L2 before the grid-dependency wait (l2_prefetch; the skinny cases above take the
# heuristic's): 128-row tiles, every K tile of the first unit (more than it has), both B layouts.
for name, kind, layout, (m, n, k) in [("prefetch-all-bias-gelu-waves", "bias-gelu", "nk", SHAPES["waves"]),
                                      ("prefetch-all-kn-plain-ragged", "plain", "kn", SHAPES["ragged"])]:
    extra, epilogue = EPILOGUES[kind]
    op = "linear" if layout == "nk" else "matmul"
    CASES.append((name, lambda e=epilogue, x=extra, o=op: linear(BF16, e, x, o),
                  lambda dev, kd=kind, s=(m, n, k), bl=layout: linear_inputs(kd, BF16, *s, dev, bl),
                  {"scheduler": "matmul", "l2_prefetch": 65536}))
# The heuristic's 64-row tiles where 128 wide would exceed a wave: 2 x 64 tiles of 64 x 160, the
# second tile row 32 rows deep (on the H100; the H200's DRAM wants more than 64 columns streaming,
# and its cost model takes 128-row tiles).
CASES.append(("skinny-heuristic-bias-gelu-bn160", lambda: linear(BF16, EPILOGUES["bias-gelu"][1], (1,)),
              lambda dev: linear_inputs("bias-gelu", BF16, 96, 10240, 256, dev), None))
CASES.append(("splitk-heuristic-plain", lambda: linear(BF16, EPILOGUES["plain"][1]),
              lambda dev: linear_inputs("plain", BF16, 64, 1024, 16384, dev), None))
# 56 tile columns of 64 x 128: unsplit on the H100, 2 splits on the H200 (the GPU's DRAM rate
# decides, matmul.py), whichever runs the suite.
CASES.append(("skinny-heuristic-device-silu-gate",
              lambda: linear(BF16, EPILOGUES["silu-gate"][1], EPILOGUES["silu-gate"][0]),
              lambda dev: linear_inputs("silu-gate", BF16, 64, 7168, 1024, dev), None))
# One tile row of 128 rows (the heuristic's for 64 < M <= 128 where splits fill a wave): 128 x 128
# tiles up to M = 96 (M = 65 and 90: all but 1 and 26 of the second warpgroup's rows past M), 128 x
# 64 above (two consumer warpgroups of m64n64); ragged columns (1000 = 15.6 x 64), the heuristic's
# splits, every mode, splits with no K tiles, b [K, N], a full operand by TMA into an unsplit tile's
# 64-column box.
for name, kind, layout, (m, n, k), schedule in [
        ("skinny-wide-heuristic-bias-gelu-m65-ragged", "bias-gelu", "nk", (65, 1000, 3000), None),
        ("skinny-wide-heuristic-silu-gate-m90", "silu-gate", "nk", (90, 2112, 7168), None),
        ("skinny-tall-heuristic-bias-gelu-ragged", "bias-gelu", "nk", (128, 1000, 3000), None),
        ("skinny-tall-heuristic-silu-gate-m100", "silu-gate", "nk", (100, 2112, 7168), None),
        ("bm128-bn64-splitk-deterministic-s3-two-outputs", "two-outputs", "nk", (120, 640, 1000),
         {"split_k": 3, "split_k_mode": "deterministic"}),
        ("bm128-bn64-kn-splitk-slots-s5-empty-splits", "plain", "kn", (110, 320, 200),
         {"split_k": 5, "split_k_mode": "slots"}),
        ("bm128-bn64-tma-silu-gate-ragged", "silu-gate", "nk", SHAPES["ragged"], {"split_k": 1}),
        # the 6-stage ring: splits of 6 and 7 K tiles (S and S + 1)
        ("bm128-bn64-splitk-atomic-s2-trips-6-7", "bias-gelu", "nk", (128, 320, 832), {"split_k": 2}),
        # 128 x 128 tiles' 5-stage ring: splits of 5 and 6 K tiles
        ("bm128-bn128-splitk-atomic-s2-trips-5-6", "silu-gate", "nk", (80, 320, 704), {"block_n": 128, "split_k": 2})]:
    extra, epilogue = EPILOGUES[kind]
    op = "linear" if layout == "nk" else "matmul"
    CASES.append((name, lambda e=epilogue, x=extra, o=op: linear(BF16, e, x, o),
                  lambda dev, kd=kind, s=(m, n, k), bl=layout: linear_inputs(kd, BF16, *s, dev, bl),
                  None if schedule is None else {"scheduler": "matmul", "block_m": 128, "block_n": 64, **schedule}))
BY_NAME = {c[0]: c for c in CASES}
# M x N past 2^31 elements: a full operand's element offsets (row x N + col) need 64 bits.  Checked
# on rows at both ends (a whole float64 reference would take ~17 GB).
HUGE = ("huge-silu-gate", lambda: linear(BF16, EPILOGUES["silu-gate"][1], (2,)),
        lambda dev: linear_inputs("silu-gate", BF16, 65600, 32768, 64, dev), None)


def run_case(name, inputs=None, launches=1):
    """Launch case `name` `launches` times on the same inputs (fresh NaN-poisoned outputs each
    time); returns (outputs of every launch, float64 references)."""
    _, build, make, schedule = BY_NAME[name]
    fd = build()
    inputs = inputs or make("cuda")
    refs = reference(fd, inputs)
    runs = []
    for _ in range(launches):
        out = [torch.full(r.shape, float("nan"), dtype=torch_dtype(t.dtype), device="cuda")
               for r, t in zip(refs, fd.outputs)]
        fd.execute(inputs, out=out, schedule=schedule)
        runs.append(out)
    torch.cuda.synchronize()
    return fd, runs, refs


def check(name, fd, out, refs):
    for o, r, t in zip(out, refs, fd.outputs):
        assert not torch.isnan(o).any(), f"{name}: {torch.isnan(o).sum().item()} unwritten (NaN) elements in {t!r}"
        bound = RTOL[t.dtype] * r.abs() + ATOL * r.abs().max()
        bad = ((o.double() - r).abs() > bound).sum().item()
        assert bad == 0, f"{name}: {bad} of {o.numel()} elements of {t!r} off (max error " \
                         f"{(o.double() - r).abs().max().item():.3e})"


@pytest.mark.parametrize("name,build,make,schedule", CASES, ids=[c[0] for c in CASES])
def test_matmul_matches_torch(name, build, make, schedule):
    """Every launch checked: split-K's reuse its workspace and semaphores; an unscheduled case's
    second launch is a cached call, which takes the C++ call (runtime/fastpath.py), split or not."""
    fd, runs, refs = run_case(name, launches=3 if name.startswith("splitk") else 2)
    for out in runs:
        check(name, fd, out, refs)
    if schedule is None:
        assert fd._recent.fast is not None, f"{name}: no C++ call"


def test_split_k_heuristic_splits_skinny_shapes():
    fd, _, _ = run_case("splitk-heuristic-plain")
    compiled = fd.compile(BY_NAME["splitk-heuristic-plain"][2]("meta"))
    assert compiled.params.split_k > 1, compiled.params


@pytest.mark.parametrize("name", ["splitk-deterministic-s8-two-outputs", "splitk-deterministic-s3-bias-gelu",
                                  "splitk-slots-s8-two-outputs", "bm64-splitk-slots-s7-plain",
                                  "bm128-bn64-splitk-deterministic-s3-two-outputs",
                                  "cluster-s6-two-outputs-bn144", "cluster-s4-row-scale-bm128-bn64",
                                  "cluster-s8-bias-gelu-bn72-uneven"])
def test_split_k_ordered_modes_are_bitwise_reproducible(name):
    fd, runs, refs = run_case(name, launches=20)
    check(name, fd, runs[0], refs)
    for k, out in enumerate(runs[1:], 1):
        for o, first in zip(out, runs[0]):
            assert torch.equal(o.view(torch.int16) if o.element_size() == 2 else o.view(torch.int32),
                               first.view(torch.int16) if o.element_size() == 2 else first.view(torch.int32)), \
                f"{name}: launch {k} differs bitwise from launch 0"


@pytest.mark.parametrize("name", ["splitk-atomic-s3-bias-gelu", "splitk-heuristic-plain"])
def test_split_k_from_threads_on_their_own_streams(name):
    """Threads on their own CUDA streams share one split-K launch: each stream gets its own
    workspace and semaphores (the launch's scratch, bound per stream under its lock), so the
    threads' concurrent kernels neither add into each other's partials nor release each other's
    tiles.  A tiny GIL switch interval makes thread switches inside a call frequent: without the
    launcher's lock, about half of thread 0's elements were wrong in each of three runs (H100).
    The named schedule takes the Python path every call; the heuristic's, the C++ call on the
    stream its scratch is bound to (the Python path rebinds it for another stream)."""
    _, build, make, schedule = BY_NAME[name]
    fd = build()
    inputs = [make("cuda") for _ in range(4)]                 # each thread its own operands
    refs = [reference(fd, x) for x in inputs]
    fd.execute(inputs[0], schedule=schedule)                  # compile and load before the threads
    torch.cuda.synchronize()
    assert schedule is not None or fd._recent.fast is not None, f"{name}: no C++ call"
    results = [None] * len(inputs)

    def run(i):
        stream = torch.cuda.Stream()
        with torch.cuda.stream(stream):
            outs = [fd.execute(inputs[i], schedule=schedule) for _ in range(50)]
        stream.synchronize()
        results[i] = outs

    failures = run_in_threads(run, range(len(inputs)))
    assert not failures, failures[0]
    for i, outs in enumerate(results):
        for out in outs:
            check(f"{name} (thread {i})", fd, out, refs[i])


def test_a_full_operand_past_2_31_elements():
    name, build, make, _ = HUGE
    fd, inputs = build(), make("cuda")
    x, w, gate = inputs
    out = torch.full(gate.shape, float("nan"), dtype=gate.dtype, device="cuda")
    fd.execute(inputs, out=[out])
    rows = torch.cat([torch.arange(64), torch.arange(x.shape[0] - 64, x.shape[0])]).cuda()
    check(name, fd, [out[rows]], reference(fd, [x[rows], w, gate[rows]]))


def test_the_gpu_is_one_of_the_targets_kernels_are_built_for():
    """Kernels built off the GPU are scheduled for a target (FUSER_MLIR_DEVICE); the GPU's own
    facts (SMs, DRAM rate from its memory clock and bus width) must be that target's, or its
    heuristics would pick kernels nobody built."""
    from fuser_mlir.compiler import cuda_device
    from fuser_mlir.schedulers import TARGETS

    device = cuda_device(torch.cuda.current_device())
    target = next((t for t in TARGETS.values() if t.name == device.name), None)
    assert target is not None, f"{device} is none of the targets {list(TARGETS.values())}"
    assert device.sms == target.sms and abs(device.dram_gbps - target.dram_gbps) <= 0.01 * target.dram_gbps, \
        (device, target)


def test_a_kernel_scheduled_for_the_other_target_runs_here(monkeypatch):
    """fd.compile on meta tensors schedules for FUSER_MLIR_DEVICE; the kernel runs on any Hopper
    GPU (the device guided only the heuristics): here the other target's choice for a shape the
    two targets split differently."""
    from fuser_mlir.compiler import cuda_device
    from fuser_mlir.schedulers import TARGET_ENV, TARGETS

    here = cuda_device(torch.cuda.current_device())
    other = next(name for name, target in TARGETS.items() if target.name != here.name)
    name, build, make, _ = BY_NAME["skinny-heuristic-device-silu-gate"]
    fd, inputs = build(), make("cuda")
    monkeypatch.setenv(TARGET_ENV, other)
    compiled = fd.compile(make("meta"))
    assert compiled.params.split_k != fd.compile(inputs).params.split_k, compiled.params
    refs = reference(fd, inputs)
    out = [torch.full(r.shape, float("nan"), dtype=torch_dtype(t.dtype), device="cuda")
           for r, t in zip(refs, fd.outputs)]
    compiled.run(inputs, out=out)
    check(f"{name} scheduled for {other}", fd, out, refs)
