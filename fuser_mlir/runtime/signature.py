"""Which prepared launch a call's inputs select: the signature key, and a guard that checks a call
against one signature without building the key.

`signature_key` is the dictionary key of `fd.execute`'s prepared launches: per input the facts the
schedulers' access modes depend on.  Building it is a handful of tensor attribute reads per input
(~1.7 us of the H100 host for two tensors), so the cached path first asks the most recent launch's
`SignatureGuard`: torch's own C++ tensor checker (the one torch.compile evaluates on every call:
dtype, device, sizes, strides, grad mode and dispatch keys) plus each data pointer's 16-byte
alignment.  The guard is stricter than the key (exact strides, requires_grad, inference mode), so
a call it rejects falls back to the key; it never selects a launch the key would not.
"""
from __future__ import annotations


def signature_key(inputs) -> tuple:
    """What selects a prepared launch, per input: shape, dtype, device, strides when not
    contiguous (True when contiguous) and whether the data pointer is 16-byte aligned -- the
    facts the schedulers' access modes depend on; for a Python number (a scalar input), its type
    only: its value is a kernel parameter."""
    try:
        return tuple([_tensor_key(t) for t in inputs])
    except AttributeError:      # numbers among them; anything else raises AttributeError again
        return tuple([type(t) if isinstance(t, (bool, int, float)) else _tensor_key(t) for t in inputs])


def _tensor_key(t) -> tuple:
    return t.shape, t.dtype, t.get_device(), t.is_contiguous() or t.stride(), t.data_ptr() % 16 == 0


class SignatureGuard:
    """Accepts exactly the inputs like `inputs` (tensors only): same dtype, device, sizes and
    strides, grad state and 16-byte alignment of each data pointer."""

    def __init__(self, check, aligned: list[bool]):
        self._check = check
        self._aligned = aligned
        self._all_aligned = all(aligned)

    @staticmethod
    def of(inputs) -> SignatureGuard | None:
        """The guard of these inputs, or None where there is none: a Python number among them,
        or a torch without the checker (its module is private: any failure means no guard)."""
        try:
            from torch._C._dynamo.guards import TensorGuards

            check = TensorGuards(*inputs, dynamic_dims_sizes=[list(t.shape) for t in inputs],
                                 dynamic_dims_strides=[list(t.stride()) for t in inputs]).check
            return SignatureGuard(check, [t.data_ptr() % 16 == 0 for t in inputs])
        except Exception:      # noqa: BLE001 -- no guard is always correct, only slower
            return None

    def addresses(self, inputs) -> list[int] | None:
        """The inputs' data pointers when they have the guarded signature, else None."""
        try:
            if not self._check(*inputs):
                return None
        except TypeError:           # another number of inputs, or not tensors
            return None
        addresses = [t.data_ptr() for t in inputs]
        if self._all_aligned:           # the common case, in a loop that stops early (cheaper)
            for a in addresses:
                if a & 15:
                    return None
            return addresses
        return addresses if [a % 16 == 0 for a in addresses] == self._aligned else None
