"""Normalizations written with `fd.ops`, as torch computes them: recipes, not new ops -- each
records the pointwise ops and reductions a user would write, so the row-reduction scheduler
fuses them into one kernel.

    with FusionDefinition() as fd:
        x = fd.define_tensor([-1, -1], DataType.BFloat16)
        w = fd.define_tensor([-1], DataType.BFloat16)
        fd.add_output(rms_norm(fd.ops, x, w))
"""
from __future__ import annotations

from .dtypes import DataType


def softmax(o, x):
    """torch.softmax(x, -1)."""
    e = o.exp(o.sub(x, o.max(x, -1, keepdim=True)))
    return o.div(e, o.sum(e, -1, keepdim=True))


def log_softmax(o, x):
    """torch.log_softmax(x, -1)."""
    shifted = o.sub(x, o.max(x, -1, keepdim=True))
    return o.sub(shifted, o.log(o.sum(o.exp(shifted), -1, keepdim=True)))


def rms_norm(o, x, weight, eps=1e-6):
    """torch.nn.functional.rms_norm over the last dim, in f32, the result in x's dtype."""
    xf = o.cast(x, DataType.Float)
    rms = o.rsqrt(o.add(o.mean(o.mul(xf, xf), -1, keepdim=True), eps))
    return o.cast(o.mul(o.mul(xf, rms), weight), x.dtype)


def layer_norm(o, x, weight, bias, eps=1e-5):
    """(y, mean, rstd) of torch.native_layer_norm over the last dim: y in x's dtype, the row
    statistics [.., 1] in f32."""
    xf = o.cast(x, DataType.Float)
    mean = o.mean(xf, -1, keepdim=True)
    rstd = o.rsqrt(o.add(o.var(xf, -1, correction=0, keepdim=True), eps))
    return o.cast(o.add(o.mul(o.mul(o.sub(xf, mean), rstd), weight), bias), x.dtype), mean, rstd
