"""Where the pointwise gap to torch.compile goes: schedule variants side by side.

For the benchmark fusions (tools/bench_pointwise.py) at the large shapes, times the heuristic's
choice (the strided scheduler: plain vectorized global loads and stores, one CTA per step of 8
elements a thread, as torch.compile's Triton kernels), the strided scheduler with a persistent
grid and with 128-thread CTAs, the TMA pointwise scheduler with each variant of tile shape, stages
and view (`schedule=` overrides: the box, the stage count, the flat [N] view; the shared memory a
variant takes decides the CTAs per SM), and a static-shape torch.compile, every one as users call
it (tools/timing.py device_ms).

    FUSER_MLIR_CACHE_DIR=.fuser_cache python3 tools/bench_pointwise_schedules.py --build [--shard 1/2]
    FUSER_MLIR_CACHE_DIR=.fuser_cache FUSER_MLIR_OFFLINE=1 python3 tools/bench_pointwise_schedules.py --json out.json
"""
from __future__ import annotations


import torch
from bench_pointwise import FUSIONS, SHAPES
from timing import bench_arguments, device_ms, save

from fuser_mlir import FusionError

LARGE = SHAPES[2:]
# (name, schedule): the heuristic, TMA tiles of box_rows x 256 columns (rank 2), the flat view, and
# the strided scheduler's other grids.
VARIANTS = [("heuristic", None)] + [
    (f"tma {rows}x256 x{stages}", {"scheduler": "pointwise", "rank": 2, "box_rows": rows, "box_cols": 256,
                                   "boxes": 1, "stages": stages})
    for rows, stages in ((8, 4), (8, 8), (16, 4), (16, 6), (32, 2), (32, 3), (32, 4), (64, 2))
] + [
    ("tma flat 32x256 x4", {"scheduler": "pointwise", "rank": 1, "box_rows": 1, "box_cols": 256, "boxes": 32,
                            "stages": 4}),
    ("strided persistent", {"scheduler": "pointwise_strided", "persistent": 1}),
    ("strided 128 threads", {"scheduler": "pointwise_strided", "threads": 128}),
]


def cases(shard=(0, 1)):
    jobs = [(name, shape, variant) for name in FUSIONS for shape in LARGE for variant in VARIANTS]
    return jobs[shard[0]::shard[1]]


def build(shard):
    for name, shape, (label, schedule) in cases(shard):
        make, _, dtype = FUSIONS[name]
        fd = make()
        try:
            fd.compile([torch.empty(shape, dtype=dtype, device="meta") for _ in fd.inputs], schedule=schedule)
            print("built", name, shape, label)
        except FusionError as exc:                 # e.g. the stages do not fit in shared memory
            print("skipped", name, shape, label, "-", str(exc).splitlines()[0])


def bench(json_path):
    results = {"device": torch.cuda.get_device_name(), "rows": []}
    for name, (make, eager, dtype) in FUSIONS.items():
        for shape in LARGE:
            torch._dynamo.reset()
            compiled_torch = torch.compile(eager, dynamic=False)
            fd = make()
            inputs = [torch.randn(shape, device="cuda").to(dtype) for _ in fd.inputs]
            reference = fd.execute(inputs)
            nbytes = sum(t.numel() * t.element_size() for t in inputs + reference)
            compile_ms = device_ms(lambda: compiled_torch(*inputs))
            for label, schedule in VARIANTS:
                try:
                    compiled = fd.compile(inputs, schedule=schedule)
                    same = all(torch.equal(a, b) for a, b in zip(fd.execute(inputs, schedule=schedule), reference))
                    ms = device_ms(lambda: fd.execute(inputs, schedule=schedule))
                except FusionError as exc:
                    print(f"{name:36s} {'x'.join(map(str, shape)):>11s} {label:22s} skipped: {str(exc).splitlines()[0]}")
                    continue
                row = {"fusion": name, "shape": shape, "variant": label, "schedule": compiled.params.to_json()
                       if hasattr(compiled.params, "to_json") else str(compiled.params),
                       "smem": compiled.artifact.meta["dynamic_smem"], "block": compiled.artifact.meta["block"][0],
                       "ms": ms, "TBps": nbytes / ms / 1e9, "vs_compile": compile_ms / ms, "agrees": same}
                results["rows"].append(row)
                print(f"{name:36s} {'x'.join(map(str, shape)):>11s} {label:22s} smem {row['smem']:6d} "
                      f"threads {row['block']:4d} {row['TBps']:5.2f} TB/s {row['vs_compile']:5.2f}x compile "
                      f"{'' if same else 'DIFFERS'}")
            print(f"{name:36s} {'x'.join(map(str, shape)):>11s} {'torch.compile':22s} {nbytes / compile_ms / 1e9:5.2f} TB/s")
            del inputs, reference
            torch.cuda.empty_cache()
    save(results, json_path)


def main():
    p = bench_arguments(__doc__)
    p.add_argument("--shard", default="1/1", help="k/n: build every n-th kernel from the k-th")
    args = p.parse_args()
    k, n = map(int, args.shard.split("/"))
    build((k - 1, n)) if args.build else bench(args.json)


if __name__ == "__main__":
    main()
