"""The cached path of fd.execute without a GPU: the signature checks (runtime/signature.py) -- the
guard accepts new tensors of its signature and never a call whose signature key differs -- and
the outputs' allocation (runtime/launcher.allocator)."""
import itertools

import pytest
import torch

from fuser_mlir.runtime.signature import SignatureGuard, signature_key


def _misaligned(shape, dtype=torch.bfloat16):
    """A dense tensor of `shape` whose data pointer is 2 bytes past a 16-byte boundary."""
    n = torch.Size(shape).numel()
    return torch.randn(n + 8).to(dtype)[1:n + 1].view(shape)


def _variants():
    rand = lambda *s, dtype=torch.bfloat16: torch.randn(*s).to(dtype)  # noqa: E731
    return {
        "dense": rand(64, 32),
        "dense, other data": rand(64, 32),
        "f32": rand(64, 32, dtype=torch.float32),
        "other rows": rand(63, 32),
        "transposed": rand(32, 64).t(),
        "sliced columns": rand(64, 40)[:, :32],
        "misaligned": _misaligned((64, 32)),
        "expanded row": rand(32).expand(64, 32),
        "size-1 dim, odd stride": rand(64, 1, 32).as_strided((64, 1, 32), (32, 7, 1)),
        "size-1 dim": rand(64, 1, 32),
        "0-d": rand(()),
        "requires grad": rand(64, 32).requires_grad_(),
    }


def test_guard_accepts_new_tensors_of_its_signature_and_reads_their_addresses():
    x, y = torch.randn(64, 32), torch.randn(32)
    guard = SignatureGuard.of([x, y])
    new = [torch.randn(64, 32), torch.randn(32)]
    assert guard.addresses(new) == [t.data_ptr() for t in new]


@pytest.mark.parametrize("base, other", list(itertools.product(_variants(), repeat=2)))
def test_guard_never_accepts_another_signature(base, other):
    variants = _variants()
    guard = SignatureGuard.of([variants[base], torch.randn(8)])
    accepted = guard.addresses([variants[other], torch.randn(8)]) is not None
    same_key = signature_key([variants[base]]) == signature_key([variants[other]])
    assert not accepted or same_key, f"the guard of {base!r} took {other!r}, whose signature differs"
    if base == other or {base, other} == {"dense", "dense, other data"}:
        assert accepted, f"the guard of {base!r} turned down a tensor of its own signature"


def test_guard_turns_down_another_number_of_inputs_and_python_numbers():
    x = torch.randn(4, 8)
    guard = SignatureGuard.of([x, x])
    assert guard.addresses([x]) is None
    assert guard.addresses([x, x, x]) is None
    assert guard.addresses([x, 0.5]) is None
    assert SignatureGuard.of([x, 0.5]) is None, "a Python number's value is a parameter: no tensor guard"


def test_guard_follows_grad_mode():
    x = torch.randn(4, 8)
    guard = SignatureGuard.of([x])
    with torch.inference_mode():
        assert guard.addresses([torch.randn(4, 8)]) is None
        assert SignatureGuard.of([torch.randn(4, 8)]).addresses([torch.randn(4, 8)]) is not None


@pytest.mark.parametrize("shapes", [[(256, 1024)], [(1, 1)], [(1,)], [()], [(0, 3)], [(5, 1, 3)], [(7, 3), (1, 1)]])
def test_outputs_are_allocated_with_contiguous_strides(shapes):
    """The launcher's allocation (runtime/launcher.allocator) gives the strides torch.empty does,
    size-1 shapes included (an expanded template of those is dense, with stride 0)."""
    from fuser_mlir.runtime.launcher import allocator

    templates = [torch.empty(()).expand(shape) for shape in shapes]
    alloc = allocator(templates)
    assert [alloc(t).stride() for t in templates] == [torch.empty(shape).stride() for shape in shapes]


def test_scalar_slots_refuse_integers_they_cannot_hold():
    """A cached call's scalar input is checked at each call (its signature key is the number's
    type only); ctypes would wrap an integer out of range silently."""
    from fuser_mlir import FusionError
    from fuser_mlir.runtime.launcher import ValueSlot

    for dtype, bits in (("i32", 32), ("i64", 64)):
        slot = ValueSlot(dtype, "in1")
        for ok in (-2 ** (bits - 1), 2 ** (bits - 1) - 1):
            slot.put(ok)
            assert slot.value.value == ok
        for bad in (2 ** (bits - 1), -2 ** (bits - 1) - 1):
            with pytest.raises(FusionError, match=f"input in1: {bad} is outside the range of {dtype}"):
                slot.put(bad)
    slot = ValueSlot("f32", "in2")
    slot.put(2 ** 40)
    assert slot.value.value == 2.0 ** 40
