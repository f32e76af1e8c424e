"""Reductions and normalizations on the H100 against torch in float64: softmax, log-softmax,
RMSNorm, LayerNorm (with its row statistics) and every reduction kind, on fresh random inputs
with NaN-poisoned outputs; ragged columns, 1 row, 1 column, rows up to 256K elements (over clusters
of 2-8 CTAs), short rows side by side in a CTA, each float
dtype, keepdim both ways; NaN and inf propagating as torch propagates them.

Run offline with artifacts built here (README, "GPU tests"); skipped where no CUDA GPU exists.
"""
import os
import sys

import pytest
import torch

sys.path.insert(0, os.path.dirname(__file__))
from cases import HELD_CASES, REDUCTION_CASES, reduction_inputs  # noqa: E402
from test_pointwise import TOLERANCE, poisoned, reference  # noqa: E402

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA Hopper GPU")
BY_NAME = {name: (build, shape) for name, build, shape in REDUCTION_CASES}


def run_case(build, shape, scheduler: str, schedule=None, edit_x=None):
    """(fusion, inputs, outputs, references) of a reduction case run into NaN-poisoned outputs
    (test_outer_reductions runs its cases through it too); `edit_x(x)` edits the input first; the
    case must go to `scheduler`."""
    fd = build()
    inputs = reduction_inputs(fd, shape, "cuda")
    if edit_x:
        edit_x(inputs[0])
    refs = reference(fd, inputs)
    out = [poisoned(tuple(r.shape), t.dtype) for r, t in zip(refs, fd.outputs)]
    fd.execute(inputs, out=out, schedule=schedule)
    torch.cuda.synchronize()
    assert fd.compile(reduction_inputs(fd, shape, "meta"), schedule=schedule).scheduler.name == scheduler
    return fd, inputs, out, refs


def run(name, poison_x=None):
    """(fusion, outputs, references) of case `name`; `poison_x(x)` edits the input first."""
    build, shape = BY_NAME[name]
    fd, _, out, refs = run_case(build, shape, "row_reduction", edit_x=poison_x)
    return fd, out, refs


@pytest.mark.parametrize("name", list(BY_NAME))
def test_reduction_matches_torch(name):
    fd, out, refs = run(name)
    for o, r, t in zip(out, refs, fd.outputs):
        assert not torch.isnan(o).any(), f"{name}: unwritten (NaN) elements in output {t!r}"
        err = (o.double() - r).norm() / r.norm().clamp_min(1e-30)
        assert err < TOLERANCE[t.dtype], f"{name}: relative error {err:.3e} for {t!r}"


@pytest.mark.parametrize("name", ["softmax-BFloat16-300x1000", "row_stats-Float-1x2", "layer_norm-Float-7x777",
                                  "layer_norm-BFloat16-3x100000"])      # over a cluster of 4
def test_nan_and_inf_propagate_as_in_torch(name):
    """A NaN in row 0, +inf in row 1 and -inf in row 2 (where the case has those rows): every
    output is NaN exactly where torch's is, and close to it elsewhere."""
    def poison(x):
        x[0, x.shape[1] // 2] = float("nan")
        if x.shape[0] > 2:
            x[1, 0] = float("inf")
            x[2, -1] = float("-inf")

    fd, out, refs = run(name, poison)
    for o, r, t in zip(out, refs, fd.outputs):
        r = r.expand(o.shape)
        assert torch.equal(torch.isnan(o), torch.isnan(r)), f"{name}: NaNs of {t!r} differ from torch's"
        finite = torch.isfinite(r)
        assert torch.equal(torch.isinf(o), torch.isinf(r)), f"{name}: infinities of {t!r} differ from torch's"
        if finite.any():
            err = (o.double()[finite] - r[finite]).norm() / r[finite].norm().clamp_min(1e-30)
            assert err < TOLERANCE[t.dtype], f"{name}: relative error {err:.3e} for {t!r}"


@pytest.mark.parametrize("name", ["layer_norm-Float-7x777", "layer_norm-Float-1x40000", "row_stats-Float-1x2"])
def test_variance_of_rows_far_from_zero(name):
    """Rows of mean 1000 and deviation 1 (f32): every output within 1e-4 of float64's.  A sum of
    squares less the squared mean cancels six of f32's seven digits here; the two-pass variance
    (the mean, then the squared deviations) does not, and y is bounded by the f32 mean's rounding
    (1000 x 2^-24 against deviations of 1)."""
    fd, out, refs = run(name, lambda x: x.add_(1000.0))
    for o, r, t in zip(out, refs, fd.outputs):
        err = (o.double() - r).norm() / r.norm().clamp_min(1e-30)
        assert err < 1e-4, f"{name}: relative error {err:.3e} for {t!r}"



@pytest.mark.parametrize("name, schedule", HELD_CASES)
def test_where_rows_are_held_as_named(name, schedule):
    """Rows held in shared memory (or registers) as a schedule names it: the same results as torch."""
    build, shape = BY_NAME[name]
    fd, _, out, refs = run_case(build, shape, "row_reduction", schedule)
    for o, r, t in zip(out, refs, fd.outputs):
        assert not torch.isnan(o).any(), f"{name}: unwritten (NaN) elements in output {t!r}"
        err = (o.double() - r).norm() / r.norm().clamp_min(1e-30)
        assert err < TOLERANCE[t.dtype], f"{name}: relative error {err:.3e} for {t!r}"
