"""Matmul benchmark: fuser_mlir vs cuBLAS (torch.matmul), torch eager and torch.compile, one run.

Every system is timed the same way (tools/timing.py device_ms: L2 flushed before each sample;
two rounds over the systems, the second kept),
on random normal bf16 inputs (never zeros: power draw changes the clock), as users call it:
`fd.execute([x, w, ...])` allocating its output, `x @ w.t()` / `F.linear`, the torch.compile'd
function.  TFLOP/s = 2 M N K / median time.

Plain GEMM (`y = x @ w^T`, x [M, K], w [N, K]): 4096^3, 8192^3 and the LLM shapes
M in {1024, 4096, 8192} x (N, K) in {(10240, 8192), (28672, 8192), (8192, 28672), (2112, 7168)};
with b given [K, N] (`fd.ops.matmul(a, b)` vs `a @ b`, wgmma's transposed B) at KN_SHAPES.
`--variants` also times the plain GEMM with each tile width forced (schedule={"block_n": ...}):
the measurements behind the heuristic's TILE_COST (fuser_mlir/schedulers/matmul.py).
`--clusters` also times every row in 2-CTA clusters sharing B by multicast (schedule={"cluster_m":
2}, the heuristic deciding the rest) and without them ({"cluster_m": 1}).
Skinny GEMMs (`--skinny`: M in {16, 64, 128} x (N, K) in {(2112, 7168), (1024, 16384), (2048, 32768),
(7168, 16384)}, weights that fit in L2, so each call is timed alone after its own flush,
timing.cold_device_ms, for every system; three rounds, each system's fastest kept): cuBLAS, our
heuristic's schedule, split-K in each mode at the heuristic's split count, our kernel without
split-K, 128-row tiles (the cost model's choice: the kernel before the skinny rule), 64-row tiles
where it took 128 x 64 ones, 6 stages where it took 4, and without the L2 prefetch of the
weights (its gain shows mostly between kernels: bench_chain.py); the memory floor is the bytes
of A, B and C at the device-to-device copy rate measured in the same run.
Fused epilogues (bias + gelu, silu(y) * gate, residual add) at 4096^3 and 8192 x 10240 x 8192,
against torch eager (cuBLAS + separate pointwise kernels) and torch.compile.  Each fusion's output
is compared with the eager result (`max_rel_err`).

    # here (MLIR available): build the kernels the benchmark launches
    FUSER_MLIR_CACHE_DIR=.fuser_cache python3 tools/bench_matmul.py --build
    # on the H100 (offline):
    FUSER_MLIR_CACHE_DIR=.fuser_cache FUSER_MLIR_OFFLINE=1 python3 tools/bench_matmul.py --json out.json
"""
from __future__ import annotations

import math
from dataclasses import replace

import torch
from timing import bench_arguments, cold_device_ms, copy_tbps, device_ms, save

from fuser_mlir import DataType, FusionDefinition
from fuser_mlir.schedulers.matmul import BLOCK_NS, MAX_STAGES, SKINNY_STAGES, SKINNY_WIDE_N, SMEM_LIMIT, TALL_BLOCK_N

PLAIN_SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192)] + [
    (m, n, k) for m in (1024, 4096, 8192) for n, k in ((10240, 8192), (28672, 8192), (8192, 28672), (2112, 7168))]
KN_SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192), (4096, 28672, 8192), (4096, 8192, 28672)]
EPILOGUE_SHAPES = [(4096, 4096, 4096), (8192, 10240, 8192)]
SKINNY_SHAPES = [(m, n, k) for m in (16, 64, 128) for n, k in ((2112, 7168), (1024, 16384), (2048, 32768), (7168, 16384))]
SKINNY_ROUNDS = 3
F = torch.nn.functional


def _linear(epilogue, extra_ranks):
    with FusionDefinition() as fd:
        x, w = fd.define_tensor([-1, -1], DataType.BFloat16), fd.define_tensor([-1, -1], DataType.BFloat16)
        extra = [fd.define_tensor([-1] * r, DataType.BFloat16) for r in extra_ranks]
        fd.add_output(epilogue(fd.ops, fd.ops.linear(x, w), *extra))
    return fd


def _matmul_kn():
    with FusionDefinition() as fd:
        a, b = fd.define_tensor([-1, -1], DataType.BFloat16), fd.define_tensor([-1, -1], DataType.BFloat16)
        fd.add_output(fd.ops.matmul(a, b))
    return fd


KN = "plain_kn"  # b given [K, N]
FUSIONS = {
    # name: (definition, eager equivalent, extra input shapes (M, N) -> shapes)
    "plain": (lambda: _linear(lambda o, y: y, ()), lambda x, w: x @ w.t(), lambda m, n: []),
    KN: (_matmul_kn, lambda a, b: a @ b, lambda m, n: []),
    "bias+gelu": (lambda: _linear(lambda o, y, b: o.gelu(o.add(y, b)), (1,)),
                  lambda x, w, b: F.gelu(F.linear(x, w, b)), lambda m, n: [(n,)]),
    "silu(y)*gate": (lambda: _linear(lambda o, y, g: o.mul(o.silu(y), g), (2,)),
                     lambda x, w, g: F.silu(x @ w.t()) * g, lambda m, n: [(m, n)]),
    "residual add": (lambda: _linear(lambda o, y, r: o.add(y, r), (2,)),
                     lambda x, w, r: x @ w.t() + r, lambda m, n: [(m, n)]),
}


def inputs(name, m, n, k, device):
    shapes = [(m, k), (k, n) if name == KN else (n, k)] + FUSIONS[name][2](m, n)
    return [torch.randn(s, dtype=torch.bfloat16, device=device) for s in shapes]


def cases():
    yield from (("plain", s) for s in PLAIN_SHAPES)
    yield from ((KN, s) for s in KN_SHAPES)
    yield from ((name, s) for name in FUSIONS if name not in ("plain", KN) for s in EPILOGUE_SHAPES)


def variant(block_n):
    """The plain GEMM's schedule at tile width `block_n` (the heuristic picks the rest: as many
    stages as fit)."""
    return {"scheduler": "matmul", "block_n": block_n}


CLUSTER_VARIANTS = {f"cluster_m={c}": {"scheduler": "matmul", "cluster_m": c} for c in (1, 2)}
VECTOR_LOADS = {"scheduler": "matmul", "tma_operands": 0}     # full epilogue operands by vector loads


def full_operand(name) -> bool:
    """The fusion has a full [M, N] epilogue operand (by TMA in the heuristic's kernels)."""
    return any(len(shape) == 2 for shape in FUSIONS[name][2](1, 1))


def skinny_variants(fd, xs):
    """{system: schedule} of the skinny table on inputs `xs` (meta tensors: for the target
    FUSER_MLIR_DEVICE names; on the GPU: for that GPU): the heuristic's, split-K in each mode at
    its split count (or 8 where it does not split), no split-K, 128-row tiles (the cost model's
    choice of width and splits: the kernel before matmul.skinny_decisions), 64-row tiles where the
    heuristic took one tile row of 128-row tiles in splits, MAX_STAGES stages where it took fewer,
    no L2 prefetch, and where it split in clusters, the tiles it takes when atomic mode is named."""
    chosen = fd.compile(xs).params
    split = chosen.split_k if chosen.split_k > 1 else 8
    out = {"fuser_mlir": None}
    if chosen.cluster_split:
        out["atomic, its tiles"] = {"scheduler": "matmul", "split_k_mode": "atomic"}
    for mode in ("deterministic", "atomic", "slots"):
        out[f"split_k={split} {mode}"] = {"scheduler": "matmul", "split_k": split, "split_k_mode": mode}
    out["no split-K"] = {"scheduler": "matmul", "split_k": 1}
    out["128-row tiles"] = {"scheduler": "matmul", "block_m": 128}    # the cost model's choice
    if chosen.block_m == 128 and chosen.block_n in (TALL_BLOCK_N, SKINNY_WIDE_N) and chosen.split_k > 1:
        out["64-row tiles"] = {"scheduler": "matmul", "block_m": 64}
    if chosen.stages == SKINNY_STAGES and replace(chosen, stages=MAX_STAGES).smem_bytes <= SMEM_LIMIT:
        out[f"{MAX_STAGES} stages"] = {"scheduler": "matmul", "stages": MAX_STAGES}
    out["no L2 prefetch"] = {"scheduler": "matmul", "l2_prefetch": 0}
    return out


def skinny(fd, results):
    rate = copy_tbps()
    results["copy_tbps"] = rate
    rows = results["skinny_rows"] = []
    for m, n, k in SKINNY_SHAPES:
        xs = inputs("plain", m, n, k, "cuda")
        floor_ms = 2 * (m * k + n * k + m * n) / rate / 1e9
        row = {"m": m, "n": n, "k": k, "floor_ms": floor_ms, "schedule": dict(vars(fd.compile(xs).params))}
        timed = {"cublas": lambda: xs[0] @ xs[1].t()}
        variants = skinny_variants(fd, xs)
        timed.update({name: lambda s=s: fd.execute(xs, schedule=s) for name, s in variants.items()})
        want = xs[0] @ xs[1].t()
        for name, s in variants.items():
            got = fd.execute(xs, schedule=s)[0]
            row.setdefault("max_rel_err", {})[name] = ((got.float() - want.float()).abs().max()
                                                       / want.float().abs().max()).item()
        # Three rounds over the systems, each system's fastest kept: a whole round of one system
        # can come out delayed (its 40 samples' median several times the others').
        for _ in range(SKINNY_ROUNDS):
            for system, fn in timed.items():
                row.setdefault(system, {"rounds_ms": []})["rounds_ms"].append(cold_device_ms(fn))
        for system in timed:
            row[system]["ms"] = min(row[system]["rounds_ms"])
            row[system]["vs_floor"] = row[system]["ms"] / floor_ms
        row["vs_cublas"] = row["cublas"]["ms"] / row["fuser_mlir"]["ms"]
        rows.append(row)
        print(f"skinny {m:4d}x{n:5d}x{k:5d} floor {floor_ms * 1e3:6.1f} us  "
              + "  ".join(f"{s} {row[s]['ms'] * 1e3:6.1f} us ({row[s]['vs_floor']:.2f}x floor)" for s in timed)
              + f"  speedup vs cuBLAS {row['vs_cublas']:.2f}  split {row['schedule']['split_k']} "
              f"bn {row['schedule']['block_n']}", flush=True)
        del xs


def main():
    parser = bench_arguments(__doc__)
    parser.add_argument("--variants", action="store_true", help="also time each tile width of the plain GEMM, "
                                                                   "and full epilogue operands by vector loads")
    parser.add_argument("--skinny", action="store_true", help="only the skinny (split-K) table")
    parser.add_argument("--clusters", action="store_true", help="also time every row with cluster_m 1 and 2")
    parser.add_argument("--fusions", help=f"only these rows, comma-separated, of: {', '.join(FUSIONS)} "
                                          "(no skinny table)")
    args = parser.parse_args()
    only = set(args.fusions.split(",")) if args.fusions else None
    if only and only - set(FUSIONS):
        parser.error(f"unknown fusions {sorted(only - set(FUSIONS))}")
    rows = [(name, shape) for name, shape in cases() if only is None or name in only]
    fds = {name: spec[0]() for name, spec in FUSIONS.items()}
    if args.build:
        for m, n, k in SKINNY_SHAPES if only is None else ():
            xs = inputs("plain", m, n, k, "meta")
            for s in skinny_variants(fds["plain"], xs).values():
                fds["plain"].compile(xs, schedule=s)
            print("built skinny", m, n, k, flush=True)
        if args.skinny:
            return
        for name, (m, n, k) in rows:
            for s in [None] + (list(CLUSTER_VARIANTS.values()) if args.clusters else []) \
                    + ([VECTOR_LOADS] if args.variants and full_operand(name) else []):
                fds[name].compile(inputs(name, m, n, k, "meta"), schedule=s)
            print("built", name, m, n, k, flush=True)
        for block_n in BLOCK_NS:
            fds["plain"].compile(inputs("plain", *PLAIN_SHAPES[0], "meta"), schedule=variant(block_n))
        return
    results = {"device": torch.cuda.get_device_name(), "rows": []}
    if only is None:
        skinny(fds["plain"], results)
    if args.skinny:
        save(results, args.json)
        return
    for name, (m, n, k) in rows:
        fd, eager = fds[name], FUSIONS[name][1]
        xs = inputs(name, m, n, k, "cuda")
        ours = fd.execute(xs)[0]
        want = eager(*xs)
        row = {"fusion": name, "m": m, "n": n, "k": k,
               "max_rel_err": ((ours.float() - want.float()).abs().max() / want.float().abs().max()).item(),
               "schedule": dict(vars(fd.compile(xs).params))}
        flops = 2 * m * n * k
        timed = {"fuser_mlir": lambda: fd.execute(xs), "torch_eager": lambda: eager(*xs)}
        if name in ("plain", KN):
            timed["cublas"] = timed.pop("torch_eager")
            if args.variants and name == "plain":
                for block_n in BLOCK_NS:
                    timed[f"block_n={block_n}"] = lambda v=variant(block_n): fd.execute(xs, schedule=v)
        else:
            compiled = torch.compile(eager)
            timed["torch_compile"] = lambda: compiled(*xs)
            if args.variants and full_operand(name):
                timed["tma_operands=0"] = lambda: fd.execute(xs, schedule=VECTOR_LOADS)
        if args.clusters:
            timed.update({system: lambda s=s: fd.execute(xs, schedule=s) for system, s in CLUSTER_VARIANTS.items()})
        # Two rounds over the systems, the second one kept: no system is timed first on a cold
        # clock (the first round measured up to 25% low on the smaller shapes).
        for _ in range(2):
            for system, fn in timed.items():
                ms = device_ms(fn)
                row[system] = {"ms": ms, "tflops": flops / ms / 1e9}
        base = "cublas" if name in ("plain", KN) else "torch_eager"
        row["vs_" + base] = row["fuser_mlir"]["tflops"] / row[base]["tflops"]
        if "torch_compile" in row:
            row["vs_torch_compile"] = row["fuser_mlir"]["tflops"] / row["torch_compile"]["tflops"]
        results["rows"].append(row)
        print(f"{name:14s} {m:5d}x{n:5d}x{k:5d}  ours {row['fuser_mlir']['tflops']:6.1f} TFLOP/s  "
              + "  ".join(f"{s} {row[s]['tflops']:6.1f}" for s in timed if s != "fuser_mlir")
              + f"  ratio {row['vs_' + base]:.3f}" + (f" vs compile {row['vs_torch_compile']:.3f}"
                                                      if "vs_torch_compile" in row else "")
              + f"  err {row['max_rel_err']:.1e}  bn {row['schedule']['block_n']} st {row['schedule']['stages']}",
              flush=True)
        del xs, ours, want
    vs_cublas_summary(results, lambda name: [r["vs_cublas"] for r in results["rows"] if r["fusion"] == name])
    save(results, args.json)


def vs_cublas_summary(results, ratios_of) -> None:
    """Geomean and min over the plain and the [K, N] rows of their ratios to cuBLAS
    (`ratios_of(fusion name)`), into `results` and printed."""
    for name, key in (("plain", "plain"), (KN, "kn")):
        ratios = ratios_of(name)
        if ratios:
            results[f"{key}_geomean_vs_cublas"] = math.exp(sum(map(math.log, ratios)) / len(ratios))
            results[f"{key}_min_vs_cublas"] = min(ratios)
            print(f"{name} vs cuBLAS: geomean {results[f'{key}_geomean_vs_cublas']:.3f}, min {min(ratios):.3f}")


if __name__ == "__main__":
    main()
