"""Pointwise bandwidth benchmark: fuser_mlir vs torch eager vs torch.compile, with the copy ceiling.

Every system is timed as users call it (tools/timing.py device_ms): `fd.execute(inputs)`
allocating its outputs, the eager expression, the torch.compile'd function; effective bandwidth =
(bytes read + written) / median time.  Shapes: the 2^27-element tensors of the throughput table
and three model-sized ones (256x1024, 2048x4096, 8192x8192), where host cost shows.

fuser_mlir runs as users call it (`fd.execute(inputs)`: the registry's pick, the strided
scheduler; reported as `default` and `fuser_mlir`), and, side by side in the same run, the TMA
pointwise scheduler in each pipeline mode (`--modes`, default both: `pipelined`,
`warp_specialized`; `schedule={"scheduler": "pointwise", "mode": ...}`).  Each variant's outputs
are checked against the default's (`variants_agree`).  `--build` compiles every variant's kernels.

    # here (MLIR available): build the kernels the benchmark launches
    FUSER_MLIR_CACHE_DIR=.fuser_cache python3 tools/bench_pointwise.py --build
    # on the H100 (offline):
    FUSER_MLIR_CACHE_DIR=.fuser_cache FUSER_MLIR_OFFLINE=1 python3 tools/bench_pointwise.py --json out.json
"""
from __future__ import annotations


import torch
from timing import bench_arguments, device_ms, save

from fuser_mlir import DataType, FusionDefinition
from fuser_mlir.schedulers.pointwise import MODES

N = 1 << 27          # elements per tensor: 256 MiB of bf16, 512 MiB of f32
SHAPES = [(256, 1024), (2048, 4096), (8192, 8192), (N // 8192, 8192)]


def _def(n_inputs, dtype, body):
    with FusionDefinition() as fd:
        xs = [fd.define_tensor([-1, -1], dtype) for _ in range(n_inputs)]
        for out in body(fd.ops, *xs):
            fd.add_output(out)
    return fd


FUSIONS = {
    # name: (definition, torch eager equivalent, dtype)
    "relu(x)*y bf16": (lambda: _def(2, DataType.BFloat16, lambda o, x, y: [o.mul(o.relu(x), y)]),
                       lambda x, y: torch.relu(x) * y, torch.bfloat16),
    "gelu(x) f32": (lambda: _def(1, DataType.Float, lambda o, x: [o.gelu(x)]),
                    lambda x: torch.nn.functional.gelu(x), torch.float32),
    "silu(x)*y+tanh(x)-x/(y*y+1) bf16": (
        lambda: _def(3, DataType.BFloat16, lambda o, x, y, one: [
            o.sub(o.add(o.mul(o.silu(x), y), o.tanh(x)), o.div(x, o.add(o.mul(y, y), one)))]),
        lambda x, y, one: torch.nn.functional.silu(x) * y + torch.tanh(x) - x / (y * y + one), torch.bfloat16),
    "x*y+z, sigmoid(z) (2 outputs) bf16": (
        lambda: _def(3, DataType.BFloat16, lambda o, x, y, z: [o.add(o.mul(x, y), z), o.sigmoid(z)]),
        lambda x, y, z: (x * y + z, torch.sigmoid(z)), torch.bfloat16),
}


def variants(modes):
    """(label, schedule): the registry's pick as users call it (`fd.execute(inputs)`), then the
    TMA pointwise scheduler in each pipeline mode."""
    return [("default", None)] + [(f"tma_{m}", {"scheduler": "pointwise", "mode": m}) for m in modes]


def build(modes):
    for name, (make, _, dtype) in FUSIONS.items():
        for shape in SHAPES:
            fd = make()
            for label, schedule in variants(modes):
                fd.compile([torch.empty(shape, dtype=dtype, device="meta") for _ in fd.inputs], schedule=schedule)
        print("built", name, "as", ", ".join(label for label, _ in variants(modes)))


def bench(json_path, modes):
    labels = [label for label, _ in variants(modes)]
    results = {"device": torch.cuda.get_device_name(), "shapes": SHAPES, "variants": labels, "rows": []}
    src = torch.randn(2 * N, device="cuda")             # 512 MiB f32 copy
    dst = torch.empty_like(src)
    copy_ms = device_ms(lambda: dst.copy_(src))
    copy_bw = 2 * src.numel() * 4 / copy_ms / 1e9
    results["copy_TBps"] = copy_bw
    del src, dst
    for name, (make, eager, dtype) in FUSIONS.items():
        for shape in SHAPES:
            torch._dynamo.reset()      # a static-shape torch.compile kernel per shape: its best case
            compiled_torch = torch.compile(eager, dynamic=False)
            fd = make()
            inputs = [torch.randn(shape, device="cuda").to(dtype) for _ in fd.inputs]
            outs = fd.execute(inputs)
            nbytes = sum(t.numel() * t.element_size() for t in inputs + outs)
            row = {"fusion": name, "shape": shape, "bytes": nbytes, "variants_agree": True}
            for label, schedule in variants(modes):
                got = fd.execute(inputs, schedule=schedule)
                row["variants_agree"] &= all(torch.equal(a, b) for a, b in zip(got, outs))
                row[f"{label}_ms"] = device_ms(lambda: fd.execute(inputs, schedule=schedule))
                row[f"{label}_TBps"] = nbytes / row[f"{label}_ms"] / 1e9
                del got
            row["fuser_mlir_ms"] = row["default_ms"]
            row["eager_ms"] = device_ms(lambda: eager(*inputs))
            try:
                row["torch_compile_ms"] = device_ms(lambda: compiled_torch(*inputs))
            except Exception as exc:       # report, don't hide: the table says why it is missing
                row["torch_compile_ms"] = None
                row["torch_compile_error"] = f"{type(exc).__name__}: {str(exc)[:200]}"
            for key in ("fuser_mlir", "eager", "torch_compile"):
                ms = row[f"{key}_ms"]
                row[f"{key}_TBps"] = nbytes / ms / 1e9 if ms else None
            results["rows"].append(row)
            del inputs, outs
            torch.cuda.empty_cache()
    print(f"device: {results['device']}; copy ceiling {copy_bw:.2f} TB/s; times as called (host included); "
          "TB/s per variant; % copy and ratios: the default (what fd.execute(inputs) runs)")
    header = "".join(f"{label[:16]:>17s}" for label in labels)
    print(f"{'fusion':36s} {'shape':>12s}{header} {'% copy':>7s} {'eager':>6s} {'compile':>7s} {'vs eager':>8s} "
          f"{'vs compile':>10s} agree")
    for r in results["rows"]:
        tc = r["torch_compile_TBps"]
        vs_compile = "n/a" if tc is None else f"{r['torch_compile_ms'] / r['default_ms']:.2f}x"
        per_variant = "".join(f"{r[f'{label}_TBps']:17.2f}" for label in labels)
        print(f"{r['fusion']:36s} {'x'.join(map(str, r['shape'])):>12s}{per_variant} "
              f"{100 * r['default_TBps'] / copy_bw:6.1f}% {r['eager_TBps']:6.2f} "
              f"{tc if tc is None else round(tc, 2)!s:>7s} {r['eager_ms'] / r['default_ms']:7.2f}x {vs_compile:>10s} "
              f"{'yes' if r['variants_agree'] else 'NO'}")
    wins = {label: sum(1 for r in results["rows"] if r[f"{label}_ms"] == min(r[f"{k}_ms"] for k in labels))
            for label in labels}
    print("fastest variant per row:", ", ".join(f"{label} {n}" for label, n in wins.items()))
    save(results, json_path)


def main():
    p = bench_arguments(__doc__)
    p.add_argument("--modes", default=",".join(MODES),
                   help=f"comma-separated pointwise pipeline modes to run (default: {','.join(MODES)})")
    args = p.parse_args()
    modes = tuple(m for m in args.modes.split(",") if m)
    unknown = set(modes) - set(MODES)
    if unknown or not modes:
        p.error(f"--modes takes some of {', '.join(MODES)}")
    build(modes) if args.build else bench(args.json, modes)


if __name__ == "__main__":
    main()
