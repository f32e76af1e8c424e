"""Chains of kernels in one stream: fuser_mlir's launched as programmatic dependents against the same
kernels launched one after another, and torch, in the same run.

fuser-grid-dependency makes every kernel wait for the previous one in its stream itself, so the
runtime lets it start before that one ends (FUSER_MLIR_PDL=0 turns that off: the `serial` column).
What that saves shows only between kernels, not in one kernel's time (bench_matmul.py times each
call alone): here a chain is LAYERS back-to-back calls of one fusion, each on its own weights, as
a model's decode step runs a skinny GEMM per layer (their weights, LAYERS x 30-235 MB, do not fit
in L2), timed by `timing.device_ms` (its repeat = one chain; median per call).  Rows: the skinny
matmul shapes of bench_matmul.py at M = 64 against torch.nn.functional.linear (cuBLAS), and a
pointwise add + relu of [4096, 4096] bf16 tensors against torch eager.

`--l2-prefetch 0,8` also times the matmul rows with each `l2_prefetch` forced (schedule=): how
many K tiles of its weights a CTA prefetches into L2 before it waits for the previous kernel.

    # here (MLIR available): FUSER_MLIR_CACHE_DIR=.fuser_cache python3 tools/bench_chain.py --build
    # on the H100, from tools/: FUSER_MLIR_CACHE_DIR=... FUSER_MLIR_OFFLINE=1 python3 bench_chain.py --json out.json
"""
from __future__ import annotations

import itertools
import os

import torch

from fuser_mlir import DataType, FusionDefinition
from timing import bench_arguments, device_ms, save

LAYERS = 8
MATMUL_SHAPES = [(64, 2112, 7168), (64, 1024, 16384), (64, 2048, 32768), (64, 7168, 16384)]
POINTWISE_SHAPE = (4096, 4096)
ROUNDS = 3


def linear():
    with FusionDefinition() as fd:
        x = fd.define_tensor([-1, -1], DataType.BFloat16)
        w = fd.define_tensor([-1, -1], DataType.BFloat16)
        fd.add_output(fd.ops.linear(x, w))
    return fd


def add_relu():
    with FusionDefinition() as fd:
        x = fd.define_tensor([-1, -1], DataType.BFloat16)
        y = fd.define_tensor([-1, -1], DataType.BFloat16)
        fd.add_output(fd.ops.relu(fd.ops.add(x, y)))
    return fd


def rows(device):
    """(row name, fusion builder, per-layer inputs, torch's call on one layer's inputs)."""
    for m, n, k in MATMUL_SHAPES:
        x = torch.randn(m, k, dtype=torch.bfloat16, device=device)
        layers = [[x, torch.randn(n, k, dtype=torch.bfloat16, device=device)] for _ in range(LAYERS)]
        yield f"linear {m}x{n}x{k}", linear, layers, torch.nn.functional.linear
    layers = [[torch.randn(POINTWISE_SHAPE, dtype=torch.bfloat16, device=device) for _ in range(2)]
              for _ in range(LAYERS)]
    yield f"add+relu {POINTWISE_SHAPE[0]}x{POINTWISE_SHAPE[1]}", add_relu, layers, lambda x, y: torch.relu(x + y)


def chain(call, layers):
    """One call per invocation, cycling through the layers: device_ms's repeat of LAYERS is a chain."""
    cycle = itertools.cycle(layers)
    return lambda: call(next(cycle))


def fusion_with_pdl(build, layers, enabled: bool):
    """A definition whose launch is prepared with FUSER_MLIR_PDL as `enabled` (read when the
    launch is prepared, at its first call)."""
    fd = build()
    previous = os.environ.get("FUSER_MLIR_PDL")
    os.environ["FUSER_MLIR_PDL"] = "1" if enabled else "0"
    try:
        fd.execute(layers[0])
    finally:
        if previous is None:
            del os.environ["FUSER_MLIR_PDL"]
        else:
            os.environ["FUSER_MLIR_PDL"] = previous
    launcher, = fd._launchers.values()
    assert launcher.launch.num_attrs == (1 if enabled else 0), "the launch did not take the setting"
    return fd


def check(name, call, layers, eager):
    """Every layer's output against torch in float64."""
    for inputs in layers:
        out, = call(inputs)
        ref = eager(*[t.double() for t in inputs])
        err = ((out.double() - ref).abs().max() / ref.abs().max()).item()
        assert err < 1e-2, f"{name}: max relative error {err}"


def prefetch_variants(name, values) -> dict:
    """{system: schedule} of the matmul rows' forced `l2_prefetch` values."""
    if not name.startswith("linear"):
        return {}
    return {f"l2_prefetch={p}": {"scheduler": "matmul", "l2_prefetch": p} for p in values}


def main():
    parser = bench_arguments(__doc__)
    parser.add_argument("--l2-prefetch", default="", help="comma-separated l2_prefetch values to time as well")
    args = parser.parse_args()
    prefetch = [int(p) for p in args.l2_prefetch.split(",") if p]
    if args.build:
        for name, build, layers, _ in rows("meta"):
            build().compile(layers[0])
            for schedule in prefetch_variants(name, prefetch).values():
                build().compile(layers[0], schedule=schedule)
            print("built", name, flush=True)
        return
    results = {"device": torch.cuda.get_device_name(), "layers": LAYERS,
               "method": f"timing.device_ms over chains of {LAYERS} calls (L2 flushed before each chain), "
                         f"us per call, median of each of {ROUNDS} rounds; ratios of each system's faster round",
               "rows": []}
    for name, build, layers, eager in rows("cuda"):
        dependent, serial = (fusion_with_pdl(build, layers, on) for on in (True, False))
        for fd in (dependent, serial):
            check(name, fd.execute, layers, eager)
        systems = {"fuser_mlir": chain(dependent.execute, layers), "serial": chain(serial.execute, layers),
                   "torch": chain(lambda t: eager(*t), layers)}
        for system, schedule in prefetch_variants(name, prefetch).items():
            call = lambda t, fd=build(), schedule=schedule: fd.execute(t, schedule=schedule)  # noqa: E731
            check(f"{name} {system}", call, layers, eager)
            systems[system] = chain(call, layers)
        us = {s: [] for s in systems}
        for _ in range(ROUNDS):
            for s, fn in systems.items():
                us[s].append(device_ms(fn, repeat=LAYERS) * 1e3)
        entry = {"row": name, "us": us, "vs_serial": min(us["serial"]) / min(us["fuser_mlir"]),
                 "vs_torch": min(us["torch"]) / min(us["fuser_mlir"])}
        results["rows"].append(entry)
        print(f"{name:24s} " + "  ".join(f"{s} {'/'.join(f'{t:7.2f}' for t in ts)}" for s, ts in us.items())
              + f"  vs serial {entry['vs_serial']:.3f}x  vs torch {entry['vs_torch']:.3f}x", flush=True)
    save(results, args.json)


if __name__ == "__main__":
    main()
