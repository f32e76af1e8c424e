"""fd.execute's C++ call (runtime/fastpath.cpp) without a GPU: built here with the host compiler, run
on CPU tensors with a stand-in for cuLaunchKernelEx that records what it was handed.  It accepts a
call exactly when the signature key matches, hands the driver the config and one parameter array
whose pointer entries point at the inputs' and the fresh (or `out=`) outputs' addresses, and
answers None, launching nothing, where the signature, `out` or the current device differs or the
launch fails."""
import ctypes
import itertools

import pytest
import torch
from test_signature import _misaligned, _variants

from fuser_mlir.runtime import fastpath
from fuser_mlir.runtime.driver import _LaunchAttribute, _LaunchConfig, launch_attributes
from fuser_mlir.runtime.signature import signature_key

LAUNCH = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p),
                          ctypes.c_void_p)
ENCODE = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_uint, ctypes.c_uint64,
                          ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint64),
                          ctypes.POINTER(ctypes.c_uint32), ctypes.POINTER(ctypes.c_uint32), ctypes.c_int, ctypes.c_int,
                          ctypes.c_int, ctypes.c_int)
FUNCTION, STREAM = 0xF00D, 0x5EAF


class Driver:
    """A cuLaunchKernelEx that records each launch: (grid, block, smem, stream, function, cells,
    scalar): the 8 bytes each pointer parameter points at (an address, or a scalar input's value
    bytes) and the fixed i32 after them."""

    def __init__(self, tensors: int, code: int = 0, encode_code: int = 0):
        self.launches, self.code, self.tensors = [], code, tensors
        self.attributes = []            # per launch: (id, first value word) of each launch attribute
        self.fn = LAUNCH(self.launch)
        self.address = ctypes.cast(self.fn, ctypes.c_void_p).value
        self.encodes, self.encode_code = [], encode_code
        self.encode_fn = ENCODE(self.encode)
        self.encode_address = ctypes.cast(self.encode_fn, ctypes.c_void_p).value

    def encode(self, tensor_map, dtype, rank, address, dims, strides, box, element_strides, interleave, swizzle, l2,
               fill):
        """A cuTensorMapEncodeTiled that writes the address into the map's first 8 bytes."""
        self.encodes.append((dtype, rank, address, dims[:rank], strides[:rank - 1], box[:rank],
                             element_strides[:rank], swizzle, l2, tensor_map % 64))
        ctypes.c_uint64.from_address(tensor_map).value = address
        return self.encode_code

    def launch(self, config, function, params, extra):
        c = _LaunchConfig.from_address(config)
        cells = [ctypes.c_uint64.from_address(params[k]).value for k in range(self.tensors)]
        scalar = ctypes.c_int32.from_address(params[self.tensors]).value
        self.launches.append((tuple(c.grid), tuple(c.block), c.shared_bytes, c.stream, function, cells, scalar))
        self.attributes.append([(a.id, a.value[0]) for a in (_LaunchAttribute * c.num_attrs).from_address(c.attrs)]
                               if c.num_attrs else [])
        return self.code


def fast_launch(examples, templates, driver, device=lambda: 0, out_align=None, values=(), maps=(), bound=None,
                attributes=((), 0)):
    """A FastLaunch whose kernel takes one parameter per input and output, then one i32; its
    stores need `out_align` bytes (default 16) of each output's pointer; `values`: (input index,
    dtype, Python type) of the scalar inputs (None among the examples); `maps`: (tensor index,
    TensorMapSlot) of the tensors passed as TMA descriptors; the others pointers; `bound`: the
    {bound, stream} cells of a launch with scratch buffers (launcher.Launcher.bound); `attributes`:
    the launch's (CUlaunchAttribute array, count), driver.launch_attributes."""
    scalar = ctypes.c_int32(77)
    n = len(examples) + len(templates)
    params = (ctypes.c_void_p * (n + 1))(*([0] * n + [ctypes.addressof(scalar)]))
    module = fastpath.module()
    assert module is not None, f"the C++ fast path did not build here: {fastpath._failed}"
    others = {j for j, _, _ in values} | {j for j, _ in maps}
    launch = module.FastLaunch(examples, templates, out_align or [16] * len(templates), 0, 7, [128, 1, 1], 4096,
                               FUNCTION, ctypes.addressof(params), n + 1, [(k, k) for k in range(n) if k not in others],
                               [(j, j, dtype, kind) for j, dtype, kind in values],
                               [(j, j, *slot.encode_arguments()) for j, slot in maps], driver.address,
                               driver.encode_address, lambda d: STREAM, device,
                               0 if bound is None else ctypes.addressof(bound),
                               ctypes.addressof(attributes[0]) if attributes[1] else 0, attributes[1],
                               [scalar, params, maps, bound, attributes])
    return launch


def test_a_call_of_the_signature_launches_with_its_addresses_and_returns_fresh_outputs():
    x, y = torch.randn(64, 32).to(torch.bfloat16), torch.randn(32, 64).t()
    driver = Driver(3)
    fast = fast_launch([x, y], [torch.empty((), dtype=torch.bfloat16).expand(64, 32)], driver)
    for _ in range(2):
        a, b = torch.randn(64, 32).to(torch.bfloat16), torch.randn(32, 64).t()
        out, = fast([a, b])
        assert (out.shape, out.dtype, out.is_contiguous()) == ((64, 32), torch.bfloat16, True)
        assert driver.launches[-1] == ((7, 1, 1), (128, 1, 1), 4096, STREAM, FUNCTION,
                                       [a.data_ptr(), b.data_ptr(), out.data_ptr()], 77)
    assert len(driver.launches) == 2


@pytest.mark.parametrize("dependent", [True, False])
def test_a_dependent_launch_hands_the_driver_programmatic_stream_serialization(dependent):
    """A kernel that waits for the previous one itself (fuser-grid-dependency) is launched with
    CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION (6) set; any other with no attribute."""
    x = torch.randn(64, 32)
    driver = Driver(2)
    fast = fast_launch([x], [torch.empty(())], driver, attributes=launch_attributes(dependent))
    for _ in range(2):
        assert fast([torch.randn(64, 32)]) is not None
    assert driver.attributes == [[(6, 1)] if dependent else []] * 2


@pytest.mark.parametrize("base, other", list(itertools.product(_variants(), repeat=2)))
def test_it_accepts_exactly_the_calls_whose_signature_key_matches(base, other):
    variants = _variants()
    driver = Driver(2)
    fast = fast_launch([variants[base]], [torch.empty(())], driver)
    accepted = fast([variants[other]]) is not None
    assert accepted == (signature_key([variants[base]]) == signature_key([variants[other]])), \
        f"FastLaunch of {base!r} {'took' if accepted else 'turned down'} {other!r}"
    assert len(driver.launches) == accepted


def _bits(value, ctype):
    """`value` as the 8 bytes of a parameter cell holding a `ctype`."""
    cell = ctypes.c_uint64(0)
    ctypes.memmove(ctypes.addressof(cell), ctypes.addressof(ctype(value)), ctypes.sizeof(ctype))
    return cell.value


def test_scalar_inputs_are_written_into_their_parameters_and_checked_as_the_key_and_range_say():
    x = torch.randn(8, 8)
    driver = Driver(6)
    fast = fast_launch([x, None, None, None, None], [torch.empty(())], driver,
                       values=[(1, "f32", float), (2, "i32", int), (3, "i64", int), (4, "i1", bool)])
    out, = fast([x, 0.1, -5, 2 ** 40, True])
    assert driver.launches[-1][5] == [x.data_ptr(), _bits(0.1, ctypes.c_float), _bits(-5, ctypes.c_int32),
                                      _bits(2 ** 40, ctypes.c_int64), 1, out.data_ptr()]
    fast([x, 2.5, 2 ** 31 - 1, -2 ** 63, False])
    assert driver.launches[-1][5][1:5] == [_bits(2.5, ctypes.c_float), _bits(2 ** 31 - 1, ctypes.c_int32),
                                           _bits(-2 ** 63, ctypes.c_int64), 0]
    for bad in ([x, 1, -5, 0, True], [x, 0.1, 5.0, 0, True], [x, 0.1, True, 0, True], [x, 0.1, -5, 0, 1],
                [x, 0.1, 2 ** 31, 0, True], [x, 0.1, -5, 2 ** 63, True], [x, 0.1, -5, 0, True, 3]):
        assert fast(bad) is None, f"{bad[1:]}: another key, or a number its parameter cannot hold"
    assert len(driver.launches) == 2


def test_descriptors_are_encoded_from_the_slots_arguments_when_their_tensor_moves():
    from fuser_mlir.runtime.driver import TensorMapSlot

    x, y = torch.randn(64, 32).to(torch.bfloat16), torch.randn(64, 32).to(torch.bfloat16)
    slots = [(0, TensorMapSlot("bf16", (64, 32), (8, 32), "x", 2, 64)),
             (2, TensorMapSlot("bf16", (64, 32), (16, 32), "out", 2))]
    driver = Driver(3)
    fast = fast_launch([x, y], [torch.empty((), dtype=torch.bfloat16).expand(64, 32)], driver, maps=slots)
    out, = fast([x, y])
    assert driver.launches[-1][5] == [x.data_ptr(), y.data_ptr(), out.data_ptr()], "each map holds its tensor"
    assert driver.encodes == [(9, 2, x.data_ptr(), [32, 64], [64], [32, 8], [1, 1], 2, 3, 0),
                              (9, 2, out.data_ptr(), [32, 64], [64], [32, 16], [1, 1], 0, 3, 0)]
    fast([x, y], [out])
    assert len(driver.encodes) == 2, "no tensor moved: nothing re-encoded"
    z = torch.randn(64, 32).to(torch.bfloat16)
    fast([z, y], [out])
    assert [e[2] for e in driver.encodes[2:]] == [z.data_ptr()] and driver.launches[-1][5][0] == z.data_ptr()
    failing = Driver(3, encode_code=1)
    assert fast_launch([x, y], [torch.empty((), dtype=torch.bfloat16).expand(64, 32)], failing,
                       maps=slots)([x, y]) is None, "a failed encode is the Python path's to report"
    assert failing.launches == []


def test_out_tensors_of_the_outputs_signature_are_written_in_place_and_returned():
    x = torch.randn(64, 32).to(torch.bfloat16)
    driver = Driver(3)
    fast = fast_launch([x], [torch.empty((), dtype=torch.float32).expand(64, 32),
                             torch.empty((), dtype=torch.bfloat16).expand(64)], driver, out_align=[16, 2])
    out = [torch.empty(64, 32), _misaligned((64,))]
    result = fast([x], out)
    assert len(result) == 2 and all(r is o for r, o in zip(result, out)), "out= returns the tensors it was given"
    assert driver.launches[-1][5] == [x.data_ptr(), out[0].data_ptr(), out[1].data_ptr()]
    for bad in ([out[0]], [out[0], torch.empty(64, dtype=torch.float16)], [torch.empty(32, 64).t(), out[1]],
                [_misaligned((64, 32), torch.float32), out[1]], [out[0], torch.empty(63, dtype=torch.bfloat16)],
                [out[0], 1.0]):
        assert fast([x], bad) is None, "out= tensors not of the outputs' signature are the Python path's to report"
    assert len(driver.launches) == 1


def test_it_answers_none_and_launches_nothing_where_the_call_is_not_its_own():
    x = torch.randn(4, 8)
    driver = Driver(2)
    fast = fast_launch([x], [torch.empty(())], driver)
    for inputs in ([], [x, x], [0.5], [x.double()], [_misaligned((4, 8), torch.float32)], [x.t().contiguous().t()],
                   x, None):
        assert fast(inputs) is None
    assert fast_launch([x], [torch.empty(())], driver, device=lambda: 1)([x]) is None, "another current device"
    assert driver.launches == []
    failing = Driver(2, code=201)
    assert fast_launch([x], [torch.empty(())], failing)([x]) is None, "a failed launch is the Python path's to report"
    assert len(failing.launches) == 1


def test_a_launch_with_scratch_buffers_launches_only_on_the_stream_they_are_bound_to():
    """The copied scratch parameters point at one stream's workspace: a call on another stream, or
    while the launcher rebinds ({0, _}), is a "no" that launches nothing."""
    x = torch.randn(64, 32)
    driver = Driver(2)
    bound = (ctypes.c_uint64 * 2)()
    fast = fast_launch([x], [torch.empty(()).expand(64, 32)], driver, bound=bound)
    for state in ([0, 0], [0, STREAM], [1, STREAM + 1], [1, 0]):
        bound[:] = state
        assert fast([x]) is None, state
    assert driver.launches == []
    bound[:] = [1, STREAM]
    assert fast([x]) is not None
    assert [launch[3] for launch in driver.launches] == [STREAM]


def test_without_a_compiler_it_warns_once_and_calls_take_the_python_path(tmp_path, monkeypatch):
    monkeypatch.setenv("FUSER_MLIR_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("CXX", str(tmp_path / "no-such-g++"))
    monkeypatch.setattr(fastpath, "_module", None)
    monkeypatch.setattr(fastpath, "_failed", None)
    with pytest.warns(RuntimeWarning, match="C\\+\\+ fast path is unavailable.*no-such-g\\+\\+"):
        assert fastpath.module() is None
    assert fastpath.module() is None, "a failed build is not retried"
    assert not list((tmp_path / "fastpath").iterdir()), "a failed build leaves no file behind"
