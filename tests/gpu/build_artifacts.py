"""Compile every kernel the GPU suite needs into $FUSER_MLIR_CACHE_DIR (run here, with MLIR).

    FUSER_MLIR_CACHE_DIR=.fuser_cache python3 tests/gpu/build_artifacts.py
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
from cases import CASES, LARGE  # noqa: E402
from test_strided import CASES as STRIDED_CASES, EXTRA as STRIDED_EXTRA, make_inputs  # noqa: E402

from fuser_mlir.frontend.dtypes import torch_dtype  # noqa: E402


def example(shape, dtype):
    return torch.empty(shape, dtype=dtype, device="meta")


def main():
    if "FUSER_MLIR_CACHE_DIR" not in os.environ:
        sys.exit("set FUSER_MLIR_CACHE_DIR (e.g. .fuser_cache) so the GPU machine can find the artifacts")
    for name, build, shapes in CASES + LARGE:
        fd = build()
        fd.compile([example(s, torch_dtype(t.dtype)) for s, t in zip(shapes, fd.inputs)])
        print("built", name)
    for name, build, views, schedule in STRIDED_CASES + STRIDED_EXTRA:
        fd = build()
        fd.compile(make_inputs(fd, views, "meta"), schedule=schedule)
        print("built", name)


if __name__ == "__main__":
    main()
