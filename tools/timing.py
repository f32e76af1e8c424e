"""The one timing method every benchmark uses, for every system in the same run.

- Every device timing first warms up: calls until WARMUP_MS of GPU time have passed (as
  triton.testing.do_bench does), so an idle GPU's clock has ramped up before the first sample
  (measured on the H100: at 345 MHz idle, a first sample after 5 calls of a 0.19 ms LayerNorm read
  2.65 TB/s, the next ones 2.86; the benchmarks time fuser_mlir first in each row, after the
  previous row's torch.compile left the GPU idle).
- `device_ms`: median over samples of the mean CUDA-event time of `repeat` back-to-back calls,
  L2 flushed before each sample.  Back-to-back calls let the host prepare the next launch while
  the kernel runs, as in a real program; host cost still shows whenever it exceeds the kernel's.
- `cold_device_ms`: each call alone after its own L2 flush (data that fits in L2) and a GPU spin of
  SPIN_US, neither timed, so the call is enqueued before the GPU reaches the start event even when
  the host is slow (rows of the skinny table once ran 2-7x their re-measured time, which a launch
  falling inside the timed window explains; the first run with the spin had no such row);
  `copy_tbps`: the device-to-device copy rate, the memory floor's rate.
- `host_us`: host time per call (perf_counter around a batch of calls that the GPU keeps up with),
  median over samples: what a call costs the Python thread; `host_us_each` times several
  functions so, their samples interleaved.
- `bench_arguments` / `save`: the command line every benchmark shares (--build, --json) and its
  results file.
Inputs are the caller's: random normal data, never zeros (power draw changes the clock).
"""
from __future__ import annotations

import argparse
import json
import statistics
import time

import torch

_L2_FLUSH_BYTES = 128 << 20       # > the H100's 50 MiB L2
WARMUP_MS = 25
SPIN_US = 100
_SPIN_CYCLES = SPIN_US * 2000       # at the H100's ~2 GHz


def flush_l2(_buffer=[]):
    """Evict the L2 by reading a buffer twice its size.  Reading, not writing: a written flush
    buffer leaves ~50 MB of dirty lines that the timed kernel must write back to DRAM as it evicts
    them -- traffic of the flush, not of the kernel (on a 30 MB skinny GEMM it doubles the DRAM
    bytes of the timed call)."""
    if not _buffer:
        _buffer.append(torch.ones(_L2_FLUSH_BYTES // 4, dtype=torch.float32, device="cuda"))
    _buffer[0].sum()


def warm_up(fn, calls=5) -> None:
    """At least `calls` calls, then more until WARMUP_MS of GPU time have passed (module docstring)."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    done = 0
    while True:
        fn()
        done += 1
        if done >= calls:
            end.record()
            end.synchronize()
            if start.elapsed_time(end) >= WARMUP_MS:
                return
            calls = 2 * done              # double until the warm-up is long enough


def device_ms(fn, warmup=5, samples=15, repeat=8) -> float:
    warm_up(fn, warmup)
    times = []
    for _ in range(samples):
        flush_l2()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(repeat):
            fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / repeat)
    return statistics.median(times)


def cold_device_ms(fn, samples=40, warmup=5) -> float:
    """For kernels whose data fits in L2 (a skinny GEMM's 15-35 MB of weights): every call after its
    own L2 flush, timed alone; median.  The flush and the spin keep the GPU busy while the host
    enqueues the call, so host cost does not show (it does in `device_ms`)."""
    warm_up(fn, warmup)
    events = []
    for _ in range(samples):
        flush_l2()
        torch.cuda._sleep(_SPIN_CYCLES)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        events.append((start, end))
    torch.cuda.synchronize()
    return statistics.median(start.elapsed_time(end) for start, end in events)


def copy_tbps(nbytes=1 << 30) -> float:
    """Device-to-device copy rate (read + write bytes per second, TB/s): the memory floor's rate."""
    src = torch.randn(nbytes // 4, device="cuda")
    dst = torch.empty_like(src)
    ms = device_ms(lambda: dst.copy_(src), samples=10, repeat=4)
    return 2 * nbytes / ms / 1e9


def host_us(fn, calls=200, samples=15, warmup=50) -> float:
    return host_us_each({"fn": fn}, calls, samples, warmup)["fn"]


def host_us_each(fns: dict, calls=200, samples=15, warmup=50) -> dict:
    """host_us of every function of `fns` (name: function), their batches interleaved: sample k of
    each is timed right after sample k of the previous one, so every system sees the same drift of
    the host's speed (measured on the H100 host: one call timed 8.4 us and the same call with moving
    inputs 12.5 us in one round of back-to-back host_us runs, 5.8 and 5.8 in another).  Batches of
    200 stay far below the driver's launch-queue depth, so the host never blocks on a full queue
    (which would time the GPU instead)."""
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    torch.cuda.synchronize()
    times = {name: [] for name in fns}
    for _ in range(samples):
        for name, fn in fns.items():
            start = time.perf_counter()
            for _ in range(calls):
                fn()
            times[name].append((time.perf_counter() - start) / calls * 1e6)
            torch.cuda.synchronize()
    return {name: statistics.median(t) for name, t in times.items()}


def bench_arguments(doc: str) -> argparse.ArgumentParser:
    """The benchmark's parser: `--build` (compile its kernels here, no GPU) and `--json`."""
    p = argparse.ArgumentParser(description=doc.split("\n")[0])
    p.add_argument("--build", action="store_true", help="only compile the kernels (no GPU needed)")
    p.add_argument("--json", help="write the results here")
    return p


def save(results: dict, json_path: str | None) -> None:
    if json_path:
        with open(json_path, "w") as f:
            json.dump(results, f, indent=1)
