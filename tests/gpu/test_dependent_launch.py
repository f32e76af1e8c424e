"""Kernels launched as programmatic dependents (fuser-grid-dependency) on the H100: a kernel may
start while the one before it in the stream still runs, so each must wait before it reads what
that one writes (RAW) or writes what it still reads (WAR).  The chains here issue dependent
kernels back to back, with no host synchronization between them, and compare every result with
the same kernels run one at a time (bitwise) or with a float64 reference; outputs are NaN-poisoned.

Uses the GPU suite's cases (tests/gpu/cases.py, test_matmul.py), whose kernels build_artifacts.py
compiles.
"""
import os
import sys

import pytest
import torch

sys.path.insert(0, os.path.dirname(__file__))
from cases import LARGE  # noqa: E402
from test_matmul import BY_NAME, check, reference  # noqa: E402

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA Hopper GPU")

POINTWISE = "large-1d-bf16"       # ~0.3 ms a launch: long enough for the next one to start early
SPLIT_K = "splitk-heuristic-plain"


def _pointwise():
    name, build, shapes = next(c for c in LARGE if c[0] == POINTWISE)
    return build(), shapes[0]


def _poisoned(like):
    return torch.full_like(like, float("nan"))


def test_kernels_are_launched_as_dependents():
    """Every kernel of these fusions waits for the previous kernel itself, so the runtime prepares
    its launch as a programmatic dependent (the C++ call is handed the same attribute:
    tests/test_fastpath.py)."""
    fd, shape = _pointwise()
    x, y = (torch.randn(shape, device="cuda").to(torch.bfloat16) for _ in range(2))
    fd.execute([x, y])
    name, build, make, schedule = BY_NAME[SPLIT_K]
    matmul = build()
    matmul.execute(make("cuda"), schedule=schedule)
    for f in (fd, matmul):
        launcher, = f._launchers.values()
        assert launcher.launch.num_attrs == 1 and launcher.launch.config.num_attrs == 1


@pytest.mark.parametrize("path", ["C++", "Python"])
def test_pointwise_chain_waits_for_the_kernel_before(path):
    """o1 = f(x, y); x = f(a, b) (out=x: it overwrites what the kernel before reads); o2 = f(o1, y)
    (reads what the kernel before it but one wrote) -- back to back, five rounds of fresh data."""
    fd, shape = _pointwise()
    for round_ in range(5):
        x, y, a, b = (torch.randn(shape, device="cuda").to(torch.bfloat16) for _ in range(4))
        first, written, second = [], [], []       # one at a time: the oracle
        for out, inputs in ((first, [x, y]), (written, [a, b]), (second, None)):
            out += fd.execute(inputs or [first[0], y])
            torch.cuda.synchronize()
        first, written, second = first[0], written[0], second[0]
        launcher, = fd._launchers.values()
        if path == "Python":
            launcher.fast = None
        o1, o2 = _poisoned(first), _poisoned(second)
        torch.cuda.synchronize()
        fd.execute([x, y], out=[o1])
        fd.execute([a, b], out=[x])
        fd.execute([o1, y], out=[o2])
        torch.cuda.synchronize()
        assert torch.equal(o1, first), f"round {round_}: f(x, y) read x after the next kernel overwrote it"
        assert torch.equal(x, written), f"round {round_}: the overwrite of x differs"
        assert torch.equal(o2, second), f"round {round_}: f(o1, y) read o1 before the kernel writing it completed"


def test_split_k_chain():
    """20 launches of one split-K kernel back to back, each on inputs of its own: each reads the
    workspace and semaphores the one before left ready, and its result matches float64."""
    name, build, make, schedule = BY_NAME[SPLIT_K]
    fd = build()
    inputs = [make("cuda") for _ in range(20)]
    refs = [reference(fd, i) for i in inputs]
    outs = [[torch.full(r.shape, float("nan"), dtype=torch.bfloat16, device="cuda") for r in rs] for rs in refs]
    fd.execute(inputs[0], out=outs[0], schedule=schedule)
    torch.cuda.synchronize()
    for i, o in zip(inputs, outs):
        fd.execute(i, out=o, schedule=schedule)
    torch.cuda.synchronize()
    for k, (o, r) in enumerate(zip(outs, refs)):
        check(f"{name} launch {k}", fd, o, r)
