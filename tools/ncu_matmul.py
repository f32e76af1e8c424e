"""Matmul kernel durations under Nsight Compute: bench_matmul's plain, [K, N] and fused rows, per system.

Why beside bench_matmul.py: its CUDA-event timings of back-to-back calls move up to +-10 % between
rounds at 4096^3 on the H100 (clock and power), so a few percent between two kernels cannot be read
from them.  Here every launch is one Nsight Compute measurement (`gpu__time_duration`, at the
clocks the GPU picks: `--clock-control none`; L2 flushed before each kernel), which repeats within
about 1 %; the price is that each kernel runs alone on an idle GPU (boost clocks, no power limit
reached), so the numbers are each kernel's best, not a sustained rate, and host cost is not in
them.  A system's time is the device time of a call: its kernels' durations summed (torch eager's
bias+gelu is the cuBLAS GEMM plus an elementwise kernel), plus the device work it does outside
kernels, memcpy and memset, which Nsight Compute does not measure -- taken from torch.profiler in a
pass of its own (`copies_us`).  That work counts: torch.compile's residual add copies C into its
output (a device-to-device memcpy: 16 us at 4096^3, 78 us at 8192 x 10240 x 8192 on an H200), then
one cuBLAS GEMM reduce-adds the product into it; cuBLAS's calls at the fused rows' shapes also
run a 0.7-0.8 us memset (at the skinny rows only 16 x 7168 x 16384's does).

Systems: plain rows (bench_matmul.PLAIN_SHAPES, [N, K] weights; KN_SHAPES with b given [K, N]):
fuser_mlir's heuristic schedule and cuBLAS (`x @ w.t()`, `a @ b`); fused rows (EPILOGUE_SHAPES):
fuser_mlir, its full operands by vector loads (`tma_operands` 0) where a fusion has one, torch
eager and torch.compile; `--variants` adds each plain row's schedule with every tile width,
clusters of 2 and group_m 4 and 16 forced.  Each is launched ROUNDS times inside an NVTX range
`row|system` that names its kernels; the median of the rounds is kept.  `--skinny`: instead
bench_matmul's skinny rows and systems (bench_matmul.skinny_variants) against
cuBLAS's split-K GEMM plus its reduce kernel, summed, and the read floor (read_floor.py: Triton
kernels that only TMA-load the operands, the fastest of a few tilings); their weights fit in L2,
so each call runs after an L2 flush and Nsight Compute flushes nothing between the kernels of one
call.

    # here (MLIR available): FUSER_MLIR_CACHE_DIR=.fuser_cache python3 tools/ncu_matmul.py --build
    # on the H100, from tools/: FUSER_MLIR_CACHE_DIR=... FUSER_MLIR_OFFLINE=1 python3 ncu_matmul.py --json out.json
"""
from __future__ import annotations

import csv
import os
import shutil
import statistics
import subprocess
import sys

import bench_matmul as bm
import read_floor
from timing import bench_arguments, save

ROUNDS = 3
NCU_METRIC = "gpu__time_duration.sum"
REFERENCES = ("cublas", "torch_eager", "torch_compile")     # the systems fuser_mlir is compared with
COPY_ACTIVITIES = ("Memcpy", "Memset")      # torch.profiler's names of device work that is no kernel


def systems(name, variants=False):
    """{system: schedule} of fuser_mlir's launches in row `name` (torch's are added at launch);
    `variants`: a plain row's schedule with each tile width, in clusters of 2 and with group_m 4
    and 16 forced (the heuristic deciding the rest; the heuristic's own choice is timed twice)."""
    out = {"fuser_mlir": None}
    if name != "plain" and bm.full_operand(name):
        out["vector loads"] = bm.VECTOR_LOADS
    if name == "plain" and variants:
        out.update({f"block_n={w}": bm.variant(w) for w in bm.BLOCK_NS})
        out["cluster_m=2"] = bm.CLUSTER_VARIANTS["cluster_m=2"]
        out.update({f"group_m={g}": {"scheduler": "matmul", "group_m": g} for g in (4, 16)})
    return out


def rows(only, skinny=False):
    if skinny:
        return [("plain", s) for s in bm.SKINNY_SHAPES]
    return [(name, s) for name, shapes in (("plain", bm.PLAIN_SHAPES), (bm.KN, bm.KN_SHAPES))
            if only is None or name in only for s in shapes] + \
        [(name, s) for name in bm.FUSIONS if name not in ("plain", bm.KN) and (only is None or name in only)
         for s in bm.EPILOGUE_SHAPES]


def systems_of(fd, name, xs, variants, skinny):
    """{system: schedule} of a row on inputs `xs`: a skinny row's are bench_matmul's skinny table's."""
    return bm.skinny_variants(fd, xs) if skinny else systems(name, variants)


def calls(only, variants, skinny):
    """Per row on fresh inputs: (row name, {system: a call}), every call made once (compiled, warm)."""
    import torch

    fds = {name: spec[0]() for name, spec in bm.FUSIONS.items()}
    for name, (m, n, k) in rows(only, skinny):
        fd, eager = fds[name], bm.FUSIONS[name][1]
        xs = bm.inputs(name, m, n, k, "cuda")
        timed = {system: (lambda s=s: fd.execute(xs, schedule=s))
                 for system, s in systems_of(fd, name, xs, variants, skinny).items()}
        if name in ("plain", bm.KN):
            timed["cublas"] = lambda: eager(*xs)
            if skinny:
                timed.update(read_floor.calls(*xs))
        else:
            compiled = torch.compile(eager)
            compiled(*xs)                       # compiled outside the measured ranges
            timed.update({"torch_eager": lambda: eager(*xs), "torch_compile": lambda: compiled(*xs)})
        for fn in timed.values():               # warm: caches, the C++ call, cuBLAS's heuristics
            fn()
        yield f"{name} {m}x{n}x{k}", timed
        torch.cuda.synchronize()
        del xs


def launch(only, variants, skinny) -> None:
    """The launches Nsight Compute measures (run under it).  Skinny rows: the L2 flushed before
    each call (the weights fit in it), not between the kernels of one (cuBLAS's reduce kernel
    reads its split-K partials from L2)."""
    import torch
    from timing import flush_l2

    for row, timed in calls(only, variants, skinny):
        for _ in range(ROUNDS):
            for system, fn in timed.items():
                if skinny:
                    flush_l2()
                torch.cuda.nvtx.range_push(f"{row}|{system}")
                fn()
                torch.cuda.nvtx.range_pop()


def copies_us(only, variants, skinny) -> dict:
    """{row: {system: us a call}} of the device work a call does outside kernels -- memcpy and
    memset, which Nsight Compute does not measure -- from torch.profiler's CUDA activity over
    ROUNDS calls (not under Nsight Compute: one profiler at a time)."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    found: dict = {}
    for row, timed in calls(only, variants, skinny):
        for system, fn in timed.items():
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                for _ in range(ROUNDS):
                    fn()
                torch.cuda.synchronize()
            us = sum(e.device_time_total for e in prof.events()
                     if e.device_type == torch.autograd.DeviceType.CUDA and e.name.startswith(COPY_ACTIVITIES))
            if us:
                found.setdefault(row, {})[system] = us / ROUNDS
    return found


def ncu_binary() -> str:
    found = os.environ.get("NCU") or shutil.which("ncu") or "/usr/local/cuda/bin/ncu"
    if not os.path.exists(found):
        sys.exit(f"ncu_matmul: Nsight Compute's ncu not found (tried {found}); set NCU=/path/to/ncu")
    return found


def ncu_command(ncu, only, variants, skinny) -> list[str]:
    """The Nsight Compute command line that runs `launch` (skinny rows flush L2 themselves)."""
    return [ncu, "--clock-control", "none", "--nvtx", "--print-nvtx-rename", "kernel", "--metrics", NCU_METRIC,
            "--csv"] + (["--cache-control", "none"] if skinny else []) \
        + [sys.executable, os.path.abspath(__file__), "--launch"] \
        + (["--fusions", ",".join(sorted(only))] if only else []) + (["--variants"] if variants else []) \
        + (["--skinny"] if skinny else [])


def measure(only, variants, skinny) -> dict:
    """{row: {system: [us per round]}} from one Nsight Compute run of `launch`."""
    done = subprocess.run(ncu_command(ncu_binary(), only, variants, skinny), capture_output=True, text=True)
    times = kernel_times(done.stdout.splitlines())
    if done.returncode or not times:
        sys.exit(f"ncu_matmul: the Nsight Compute run failed (rc {done.returncode}):\n{done.stdout[-3000:]}"
                 f"\n{done.stderr[-3000:]}")
    return times


def kernel_times(lines) -> dict:
    """{row: {system: [us per round]}} from the CSV lines of `ncu --csv --print-nvtx-rename kernel`:
    each kernel's duration, summed per launch of the NVTX range `row|system` it ran in."""
    table = list(csv.reader(line for line in lines if line.startswith('"')))
    if not table:
        return {}
    head = table[0]
    ranges = next(i for i, h in enumerate(head) if h.startswith("thread Domain:Push/Pop_Range"))
    value = head.index("Metric Value")
    kernels: dict = {}
    for record in table[1:]:
        label = record[ranges].split("<default domain>:", 1)[-1].split(":none", 1)[0]
        if "|" in label:
            row, system = label.rsplit("|", 1)
            kernels.setdefault(row, {}).setdefault(system, []).append(float(record[value].replace(",", "")) / 1e3)
    # A system's launch is the same kernels every round: split its list into ROUNDS equal runs.
    uneven = [f"{row}|{system}" for row, per in kernels.items() for system, times in per.items() if len(times) % ROUNDS]
    if uneven:
        raise ValueError(f"kernels measured in {', '.join(uneven)} do not split into {ROUNDS} equal rounds")
    return {row: {system: [sum(times[r * len(times) // ROUNDS:(r + 1) * len(times) // ROUNDS]) for r in range(ROUNDS)]
                  for system, times in per.items()}
            for row, per in kernels.items()}


def device_us(kernel_rounds: dict, copies: dict) -> dict:
    """{system: us a call}: the median over the rounds of its kernels' summed durations, plus its
    memcpy / memset time (`copies_us`)."""
    return {system: statistics.median(times) + copies.get(system, 0.0) for system, times in kernel_rounds.items()}


def main():
    parser = bench_arguments(__doc__)
    parser.add_argument("--fusions", help=f"only these rows, comma-separated, of: {', '.join(bm.FUSIONS)}")
    parser.add_argument("--variants", action="store_true", help="also each plain row's tile widths, clusters of 2 "
                                                                   "and group_m 4 and 16 (systems())")
    parser.add_argument("--skinny", action="store_true", help="the skinny rows instead (bench_matmul --skinny's "
                                                                 "shapes and systems), each call after an L2 flush")
    parser.add_argument("--launch", action="store_true", help="(internal) the launches ncu measures")
    args = parser.parse_args()
    only = set(args.fusions.split(",")) if args.fusions else None
    if args.build:
        fds = {name: spec[0]() for name, spec in bm.FUSIONS.items()}
        for name, (m, n, k) in rows(only, args.skinny):
            xs = bm.inputs(name, m, n, k, "meta")
            for s in systems_of(fds[name], name, xs, args.variants, args.skinny).values():
                fds[name].compile(xs, schedule=s)
            print("built", name, m, n, k, flush=True)
        return
    if args.launch:
        launch(only, args.variants, args.skinny)
        return
    import torch

    results = {"device": torch.cuda.get_device_name(), "method": "Nsight Compute gpu__time_duration, "
               f"--clock-control none, median of {ROUNDS} launches (us), plus each call's memcpy and memset "
               "(torch.profiler, copies_us)", "rows": []}
    kernels = measure(only, args.variants, args.skinny)
    copies = copies_us(only, args.variants, args.skinny)
    for row, per in kernels.items():
        us = device_us(per, copies.get(row, {}))
        entry = {"row": row, "fusion": row.split(" ")[0], "us": us, "rounds_us": per, "copies_us": copies.get(row, {})}
        base = [s for s in REFERENCES if s in us]
        entry.update({f"vs_{s}": us[s] / us["fuser_mlir"] for s in base})
        floors = [t for s, t in us.items() if s.startswith(read_floor.PREFIX)]
        if floors:          # each system's time over the fastest pure read of the operands
            entry["read_floor_us"] = min(floors)
            entry.update({f"{s}_over_read_floor": us[s] / min(floors) for s in ("fuser_mlir", "cublas")})
        ours = {s: t for s, t in us.items() if s not in REFERENCES and not s.startswith(read_floor.PREFIX)}
        if len(ours) > 1:       # the heuristic's schedule against the fastest of fuser_mlir's
            entry["fastest"] = min(ours, key=ours.get)
            entry["heuristic_vs_fastest"] = ours[entry["fastest"]] / us["fuser_mlir"]
        results["rows"].append(entry)
        print(f"{row:30s} " + "  ".join(f"{s} {t:8.1f}" for s, t in us.items())
              + "  " + "  ".join(f"vs {s} {entry[f'vs_{s}']:.3f}x" for s in base)
              + (f"  fastest {entry['fastest']} ({entry['heuristic_vs_fastest']:.3f}x)" if "fastest" in entry else "")
              + (f"  {entry['fuser_mlir_over_read_floor']:.3f}x the read floor" if floors else ""),
              flush=True)
    bm.vs_cublas_summary(results, lambda name: [r["vs_cublas"] for r in results["rows"] if r["fusion"] == name])
    save(results, args.json)


if __name__ == "__main__":
    main()
