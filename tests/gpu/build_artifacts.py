"""Compile every kernel the GPU suite needs into $FUSER_MLIR_CACHE_DIR (run here, with MLIR).

    FUSER_MLIR_CACHE_DIR=.fuser_cache python3 tests/gpu/build_artifacts.py
    python3 tests/gpu/build_artifacts.py --list      # the cases (and schedules) only, no compiling

TMA-pointwise cases are built once per pipeline mode (cases.with_modes), as test_pointwise runs them.
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
from cases import CASES, LARGE, with_modes  # noqa: E402
from test_strided import CASES as STRIDED_CASES, EXTRA as STRIDED_EXTRA, make_inputs  # noqa: E402

from fuser_mlir.frontend.dtypes import torch_dtype  # noqa: E402


def example(shape, dtype):
    return torch.empty(shape, dtype=dtype, device="meta")


def main():
    listing = "--list" in sys.argv[1:]
    if not listing and "FUSER_MLIR_CACHE_DIR" not in os.environ:
        sys.exit("set FUSER_MLIR_CACHE_DIR (e.g. .fuser_cache) so the GPU machine can find the artifacts")
    for case_id, _, build, shapes, schedule in with_modes(CASES + LARGE):
        if listing:
            print(case_id, schedule)
            continue
        fd = build()
        fd.compile([example(s, torch_dtype(t.dtype)) for s, t in zip(shapes, fd.inputs)], schedule=schedule)
        print("built", case_id)
    for name, build, views, schedule in STRIDED_CASES + STRIDED_EXTRA:
        if listing:
            print(name, schedule)
            continue
        fd = build()
        fd.compile(make_inputs(fd, views, "meta"), schedule=schedule)
        print("built", name)


if __name__ == "__main__":
    main()
