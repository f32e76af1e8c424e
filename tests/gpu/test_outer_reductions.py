"""Reductions over leading dims and over every dim on the H100 against torch in float64: every
reduction kind over dim 0 (keepdim both ways, var with both corrections), kept inputs before and
after the reduction, full reductions of matrices and vectors, on fresh random inputs with
NaN-poisoned outputs; ragged and narrow columns, 1 row, element counts not a multiple of the
vector, splits with no rows; the split combine bitwise reproducible; NaN and inf propagating.

Run offline with artifacts built here (README, "GPU tests"); skipped where no CUDA GPU exists.
"""
import os
import sys

import pytest
import torch

sys.path.insert(0, os.path.dirname(__file__))
from cases import OUTER_CASES  # noqa: E402
from test_pointwise import TOLERANCE  # noqa: E402
from test_reductions import run_case  # noqa: E402

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA Hopper GPU")
BY_NAME = {name: (build, shape, schedule) for name, build, shape, schedule in OUTER_CASES}


def run(name, edit_x=None):
    """(fusion, inputs, outputs, references) of case `name`; `edit_x(x)` edits the input first."""
    build, shape, schedule = BY_NAME[name]
    return run_case(build, shape, "outer_reduction", schedule, edit_x)


def check(name, out, refs, fd):
    """NaN and inf exactly where torch has them (a var of one element is NaN), close elsewhere."""
    for o, r, t in zip(out, refs, fd.outputs):
        r = r.expand(o.shape)
        assert torch.equal(torch.isnan(o), torch.isnan(r)), f"{name}: NaNs of {t!r} differ from torch's"
        assert torch.equal(torch.isinf(o), torch.isinf(r)), f"{name}: infinities of {t!r} differ from torch's"
        finite = torch.isfinite(r)
        if finite.any():
            err = (o.double()[finite] - r[finite]).norm() / r[finite].norm().clamp_min(1e-30)
            assert err < TOLERANCE[t.dtype], f"{name}: relative error {err:.3e} for {t!r}"


@pytest.mark.parametrize("name", list(BY_NAME))
def test_outer_reduction_matches_torch(name):
    fd, _, out, refs = run(name)
    check(name, out, refs, fd)


@pytest.mark.parametrize("name", ["col_stats-BFloat16-4097x1000", "full_stats-Float-2048x2048"])
def test_nan_and_inf_propagate_as_in_torch(name):
    """A NaN in column 1, +inf in column 2 and -inf in column 3 (one of each in a full reduction)."""
    def edit(x):
        x[x.shape[0] // 2, 1] = float("nan")
        x[0, 2] = float("inf")
        x[-1, 3] = float("-inf")

    fd, _, out, refs = run(name, edit)
    check(name, out, refs, fd)


@pytest.mark.parametrize("name", ["col_stats-BFloat16-4097x1000", "vector_sum-BFloat16-1048576",
                                  "full_stats-BFloat16-1000x1003"])
def test_split_combine_is_bitwise_reproducible(name):
    """The last split folds the others' slots in split order: 20 launches give the same bits."""
    fd, inputs, out, _ = run(name)
    _, _, schedule = BY_NAME[name]
    assert fd.compile(inputs, schedule=schedule).params.splits > 1
    def bits(t):
        return t.reshape(-1).view(torch.uint8)

    for _ in range(20):
        again = fd.execute(inputs, schedule=schedule)
        for a, b in zip(again, out):
            assert torch.equal(bits(a), bits(b)), f"{name}: a launch gave different bits"
