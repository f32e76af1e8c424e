"""Compile every kernel the GPU suite needs into $FUSER_MLIR_CACHE_DIR (run here, with MLIR).

    FUSER_MLIR_CACHE_DIR=.fuser_cache python3 tests/gpu/build_artifacts.py
    python3 tests/gpu/build_artifacts.py --list      # the cases (and schedules) only, no compiling
    python3 tests/gpu/build_artifacts.py --shard 1/2 # every 2nd case from the first: run shards in parallel
    python3 tests/gpu/build_artifacts.py --match overlap,splitk   # the cases whose names contain either

TMA-pointwise cases are built once per pipeline mode (cases.with_modes), as test_pointwise runs them.
Every case is scheduled for each GPU of schedulers.TARGETS (FUSER_MLIR_DEVICE), so the suite finds
its kernels on either; where the heuristics agree, one kernel serves both.
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
from cases import CASES, HELD_CASES, LARGE, OUTER_CASES, REDUCTION_CASES, reduction_inputs, with_modes  # noqa: E402
from test_scalars import CASES as SCALAR_CASES, SHAPES as SCALAR_SHAPES, meta_inputs  # noqa: E402
from test_matmul import CASES as MATMUL_CASES, HUGE as HUGE_MATMUL  # noqa: E402
from test_strided import CASES as STRIDED_CASES, EXTRA as STRIDED_EXTRA, make_inputs  # noqa: E402

from fuser_mlir.frontend.dtypes import torch_dtype  # noqa: E402
from fuser_mlir.schedulers import TARGET_ENV, TARGETS  # noqa: E402


def example(shape, dtype):
    return torch.empty(shape, dtype=dtype, device="meta")


def shard() -> tuple[int, int]:
    """(k, n) from `--shard k/n` (1-based): build every n-th case starting at the k-th."""
    args = sys.argv[1:]
    if "--shard" not in args:
        return 0, 1
    k, n = map(int, args[args.index("--shard") + 1].split("/"))
    if not 1 <= k <= n:
        sys.exit(f"--shard k/n needs 1 <= k <= n, got {k}/{n}")
    return k - 1, n


def main():
    listing = "--list" in sys.argv[1:]
    if not listing and "FUSER_MLIR_CACHE_DIR" not in os.environ:
        sys.exit("set FUSER_MLIR_CACHE_DIR (e.g. .fuser_cache) so the GPU machine can find the artifacts")
    first, every = shard()
    jobs = [(case_id, schedule, build, lambda fd, s=shapes: [example(x, torch_dtype(t.dtype))
                                                             for x, t in zip(s, fd.inputs)])
            for case_id, _, build, shapes, schedule in with_modes(CASES + LARGE)]
    jobs += [(name, schedule, build, lambda fd, v=views: make_inputs(fd, v, "meta"))
             for name, build, views, schedule in STRIDED_CASES + STRIDED_EXTRA]
    jobs += [(f"scalars-{name}-{shape}", None, meta_inputs(name, shape)[0], lambda fd, n=name, s=shape: meta_inputs(n, s)[1])
             for name in SCALAR_CASES for shape in SCALAR_SHAPES]
    jobs += [(name, schedule, build, lambda fd, m=make: m("meta"))
             for name, build, make, schedule in MATMUL_CASES + [HUGE_MATMUL]]
    jobs += [(name, None, build, lambda fd, s=shape: reduction_inputs(fd, s, "meta"))
             for name, build, shape in REDUCTION_CASES]
    jobs += [(name, schedule, build, lambda fd, s=shape: reduction_inputs(fd, s, "meta"))
             for name, build, shape, schedule in OUTER_CASES]
    by_name = {name: (build, shape) for name, build, shape in REDUCTION_CASES}
    jobs += [(name, schedule, by_name[name][0], lambda fd, s=by_name[name][1]: reduction_inputs(fd, s, "meta"))
             for name, schedule in HELD_CASES]
    if "--match" in sys.argv[1:]:
        texts = sys.argv[sys.argv.index("--match") + 1].split(",")
        jobs = [job for job in jobs if any(text in job[0] for text in texts)]
    for name, schedule, build, inputs_of in jobs[first::every]:
        if listing:
            print(name, schedule)
            continue
        for target in TARGETS:
            os.environ[TARGET_ENV] = target
            fd = build()
            fd.compile(inputs_of(fd), schedule=schedule)
        print("built", name)


if __name__ == "__main__":
    main()
