"""A kernel launch prepared for one input signature: the hot path of `fd.execute`.

Everything that depends only on the signature (shapes, strides, dtypes, alignment, device) is
computed once: the grid, the scalar parameters (sizes, strides), the output shapes, the C array of
parameter pointers and the driver call with its arguments (driver.PreparedLaunch).  Tensor
parameters (the artifact's meta "params" list says which) are global pointers, read straight from
one array of addresses (one 8-byte cell per tensor), or TMA descriptors, re-encoded from their
tensor's cell when the address changed; a scalar input's number has a value slot.  A call
allocates the outputs, writes every address in one assignment, refreshes the descriptors and
launches on torch's current stream (so it also records into a CUDA graph being captured), one
thread at a time (the buffers are shared by every call of the signature).  `run`
takes the inputs' addresses already read (signature.SignatureGuard reads them while checking the
signature), `__call__` the inputs.  `cached` is fd.execute's call of the most recent launch: `fast`,
the same work in C++ (fastpath.py) where it exists, else the guard and `run`; both answer None
where the inputs are not the launch's.

Alignment is checked per signature, not per call: the compiler checks each pointer's alignment
against the signature's (compiler.check_alignment), and the signature key includes it; `out=`
tensors are checked here.

Scratch buffers (launch "scratch": a split-K matmul's f32 workspace and per-tile semaphores) belong
to the launch, one set per CUDA stream it runs on (two streams never share one): allocated zeroed
at the first call on a stream and reused, since the kernel leaves them as it needs them (zero; a
slots-mode workspace, stored before it is read, as it likes).  The
parameters point at the set bound last; `bound` ({1, stream}, {0, _} while rebinding) tells the
C++ call which stream's set that is, and it launches only on that stream.
"""
from __future__ import annotations

import ctypes
import threading

from ..diagnostics import FusionError
from . import driver, fastpath
from .signature import SignatureGuard

_SCALAR_TYPES = {"i32": ctypes.c_int32, "i64": ctypes.c_int64}
# A scalar input's kernel parameter, by its dtype (storage type: Bool is one byte).
_VALUE_TYPES = {"f32": ctypes.c_float, "i32": ctypes.c_int32, "i64": ctypes.c_int64, "i1": ctypes.c_int8}


class ValueSlot:
    """A scalar input's kernel parameter: the Python number written into it at every call.  An
    integer must fit it (ctypes would wrap it silently; the signature key holds only the number's
    type, so a cached call never meets compile's range check)."""

    def __init__(self, dtype: str, name: str):
        self.value = _VALUE_TYPES[dtype]()
        self.address = ctypes.addressof(self.value)
        self.name, self.dtype = name, dtype
        self.bound = 1 << (8 * ctypes.sizeof(self.value) - 1) if dtype in ("i32", "i64") else None

    def put(self, number) -> None:
        if self.bound is not None and not -self.bound <= number < self.bound:
            raise FusionError(f"input {self.name}: {number} is outside the range of {self.dtype}")
        self.value.value = number


def allocator(templates):
    """The allocation of outputs like `templates` (expanded one-element tensors): torch.empty_like,
    which skips the argument parsing of torch.empty (measured on the H100 host: 2.1 us against
    4.2 us).  An expanded tensor is not dense, so empty_like lays its copy out with contiguous
    strides without a memory_format argument (whose parsing costs more) -- except where every dim
    has size 1 (or none), where it is dense and its copy would keep stride 0: then with one."""
    import torch

    def contiguous(t):
        return torch.empty_like(t, memory_format=torch.contiguous_format)

    return torch.empty_like if all(torch.empty_like(t).stride() == contiguous(t).stride() for t in templates) \
        else contiguous


class Launcher:
    def __init__(self, artifact, device: int, launch: dict, in_dtypes, out_specs, in_names, out_names, examples=None):
        """`launch`: the scheduler's recipe for this signature ({"tiles", "scalars"} and, for
        tensor maps, "views": the shape each tensor map sees, by tensor); `out_specs`: (shape,
        torch dtype) per output; `examples`: inputs of the signature, for fd.execute's cached
        path (its C++ `fast` call, and its SignatureGuard where every input is a tensor)."""
        import torch

        self.device = device
        self.torch_device = torch.device("cuda", device)
        self.out_specs = [(tuple(shape), dtype) for shape, dtype in out_specs]
        self.out_templates = [torch.empty((), dtype=dtype, device=self.torch_device).expand(shape)
                              for shape, dtype in self.out_specs]
        self.out_names = out_names
        # torch's entry points, bound once: the hot path does no module attribute lookups.
        self._empty_like = allocator(self.out_templates)
        self._current_device, self._current_stream = torch._C._cuda_getDevice, torch._C._cuda_getCurrentRawStream
        self.tiles = launch["tiles"]
        meta = artifact.meta
        self.block = meta["block"]
        self.smem = meta["dynamic_smem"]
        n_in = len(in_names)
        self.value_slots = []              # (input index, ValueSlot): the scalar inputs
        self.in_is_value = [False] * n_in
        self.out_align = [1] * len(out_names)     # bytes, as the kernel's stores of each output need
        self.guard = SignatureGuard.of(examples) if examples is not None else None
        self.fast = None
        self.lock = threading.Lock()
        if self.tiles == 0:           # an empty output: nothing to launch
            return
        kernel = driver.load(artifact, device)
        self.function = kernel.function
        # meta "grid": "persistent" (CTAs stride over the tiles) or "per_tile" (one CTA each).
        # A cluster kernel's tiles and resident CTAs are whole clusters.
        self.grid = max(meta.get("cluster", 1), min(self.tiles, kernel.resident_ctas)) \
            if meta["grid"] == "persistent" else self.tiles
        names = list(in_names) + list(out_names)
        itemsizes = [torch.empty((), dtype=d).element_size() for d in list(in_dtypes) + [d for _, d in self.out_specs]]
        tensor_index = {f"input{j}": j for j in range(n_in)} | \
                       {f"output{j}": n_in + j for j in range(len(out_names))}
        scratch_pointers = [p["scratch"] for p in meta["params"] if "scratch" in p and p["kind"] == "pointer"]
        # One cell per tensor, then per scratch pointer: a pointer parameter points at its cell.
        self.n_tensors = len(names)
        self.addresses = (ctypes.c_uint64 * (self.n_tensors + len(scratch_pointers)))()
        cell = ctypes.addressof(self.addresses)
        self.tensor_maps = []              # (tensor index, TensorMapSlot)
        self.scalars = []
        self.scratch_specs = launch.get("scratch", {})
        self.scratch_cells = {name: self.n_tensors + i for i, name in enumerate(scratch_pointers)}
        self.scratch_maps = []             # (scratch buffer name, TensorMapSlot)
        self.scratch_by_stream = {}
        self.bound = (ctypes.c_uint64 * 2)()     # {1, stream} once bound (the C++ call reads it)
        pointers = []
        tensor_params = []                 # (parameter index, tensor index): global pointers
        value_params = []                  # (parameter index, input index, dtype): scalar inputs
        map_params = []                    # (parameter index, tensor index, TensorMapSlot)
        for p in meta["params"]:
            if "scratch" in p:
                name = p["scratch"]
                if p["kind"] == "tensormap":
                    slot = driver.TensorMapSlot(p["dtype"], launch["views"][name], p["box"], name, 4, p["swizzle"])
                    self.scratch_maps.append((name, slot))
                    pointers.append(slot.address)
                else:
                    pointers.append(cell + 8 * self.scratch_cells[name])
                continue
            if p["kind"] == "scalar":
                value, bits = launch["scalars"][p["value"]], int(p["type"][1:])
                if not -2 ** (bits - 1) <= value < 2 ** (bits - 1):
                    raise FusionError(f"kernel scalar {p['value']} = {value} exceeds the kernel's {bits}-bit index range")
                self.scalars.append(_SCALAR_TYPES[p["type"]](value))
                pointers.append(ctypes.addressof(self.scalars[-1]))
                continue
            j = tensor_index[p["tensor"]]
            if p["kind"] == "value":
                value_params.append((len(pointers), j, p["dtype"]))
                slot = ValueSlot(p["dtype"], names[j])
                self.value_slots.append((j, slot))
                self.in_is_value[j] = True
                pointers.append(slot.address)
            elif p["kind"] == "tensormap":
                slot = driver.TensorMapSlot(p["dtype"], launch["views"][p["tensor"]], p["box"], names[j], itemsizes[j],
                                            p.get("swizzle", 0))
                self.tensor_maps.append((j, slot))
                map_params.append((len(pointers), j, slot))
                pointers.append(slot.address)
            else:
                tensor_params.append((len(pointers), j))
                pointers.append(cell + 8 * j)
            if j >= n_in:
                self.out_align[j - n_in] = 16 if p["kind"] == "tensormap" else p["align"]
        self.params = (ctypes.c_void_p * len(pointers))(*pointers)
        self.launch = driver.PreparedLaunch(self.function, self.grid, self.block, self.smem,
                                            ctypes.addressof(self.params), device,
                                            meta.get("dependent_launch", False) and driver.dependent_launches())
        if self.value_slots:               # a scalar's number is no tensor: the guard cannot see it
            self.guard = None
        if examples is not None:
            self.fast = self._fast_launch(examples, tensor_params, value_params, map_params, len(pointers))

    def _fast_launch(self, examples, tensor_params, value_params, map_params, n_params):
        """The C++ call of this launch (fastpath.cpp), or None where the extension is unavailable
        or an example number is no parameter."""
        import torch

        numbers = [not isinstance(t, torch.Tensor) for t in examples]
        if numbers != self.in_is_value:    # a number no parameter takes: the key path checks its type
            return None
        built = fastpath.module()
        if built is None:
            return None
        return built.FastLaunch([None if value else t for value, t in zip(self.in_is_value, examples)],
                                self.out_templates, self.out_align, self.device, self.grid, self.block, self.smem,
                                self.function, ctypes.addressof(self.params), n_params, tensor_params,
                                [(k, j, dtype, type(examples[j])) for k, j, dtype in value_params],
                                [(k, j, *slot.encode_arguments()) for k, j, slot in map_params],
                                ctypes.cast(driver.libcuda().launch_kernel_ex, ctypes.c_void_p).value,
                                ctypes.cast(driver.libcuda().encode_tiled, ctypes.c_void_p).value,
                                torch._C._cuda_getCurrentRawStream, torch._C._cuda_getDevice,
                                ctypes.addressof(self.bound) if self.scratch_specs else 0,
                                ctypes.addressof(self.launch.attrs), self.launch.num_attrs,
                                (self.bound, self.scalars, [slot for _, _, slot in map_params], self.launch))

    def cached(self, inputs, out=None):
        """fd.execute's cached call: the outputs when `inputs` have this launch's signature, else
        None (nothing launched) -- through the C++ call where there is one, else the guard and run."""
        if self.fast is not None:
            return self.fast(inputs, out)
        addresses = self.guard.addresses(inputs) if self.guard is not None else None
        return None if addresses is None else self.run(addresses, out)

    def __call__(self, inputs, out=None):
        return self.run([0 if value else v.data_ptr() for value, v in zip(self.in_is_value, inputs)], out,
                        inputs if self.value_slots else None)

    def run(self, addresses, out=None, numbers=None):
        """Launch with each input tensor's address in `addresses` (0 for a scalar input, whose
        number is numbers[j])."""
        if out is None:
            outputs = [self._empty_like(t) for t in self.out_templates]
        else:
            self._check_out(out)
            outputs = list(out)
        if self.tiles == 0:
            return outputs
        # The parameter buffers are the launch's, shared by every thread calling it: one call at a
        # time fills them and launches (the driver copies them when it enqueues the kernel).
        # Without the lock, a thread switch between one call's writes and its launch lets another
        # call's writes in, and the first call launches with that call's tensors.
        with self.lock:
            for j, slot in self.value_slots:
                slot.put(numbers[j])
            self.addresses[:self.n_tensors] = addresses + [t.data_ptr() for t in outputs]
            for j, slot in self.tensor_maps:
                slot.put(self.addresses[j])
            stream = self._current_stream(self.device)
            if self.scratch_specs and (not self.bound[0] or self.bound[1] != stream):
                self._bind_scratch(stream)
            if self._current_device() == self.device:
                self.launch(stream)
            else:                  # the kernel was loaded into this device's context: make it current
                import torch

                with torch.cuda.device(self.device):
                    self.launch(stream)
        return outputs

    def _bind_scratch(self, stream):
        """Point the scratch parameters at `stream`'s set (run holds the lock; the C++ call, which
        holds the GIL from its check of `bound` to its launch, sees the old binding or the new)."""
        import torch

        self.bound[0] = 0
        buffers = self.scratch_by_stream.get(stream)
        if buffers is None:
            dtypes = {"f32": torch.float32, "i32": torch.int32}
            buffers = {name: torch.zeros(shape, dtype=dtypes[dtype], device=self.torch_device)
                       for name, (dtype, shape) in self.scratch_specs.items()}
            self.scratch_by_stream[stream] = buffers
        for name, index in self.scratch_cells.items():
            self.addresses[index] = buffers[name].data_ptr()
        for name, slot in self.scratch_maps:
            slot.put(buffers[name].data_ptr())
        self.bound[1] = stream
        self.bound[0] = 1

    def _check_out(self, out):
        if len(out) != len(self.out_specs):
            raise FusionError(f"the fusion has {len(self.out_specs)} outputs, out= gave {len(out)}")
        for o, (shape, dtype), name in zip(out, self.out_specs, self.out_names):
            if (tuple(o.shape) != shape or o.dtype != dtype or not o.is_contiguous()
                    or o.get_device() != self.device):
                raise FusionError(f"{name} must be a contiguous {list(shape)} {dtype} tensor on cuda:{self.device}, "
                                  f"got {list(o.shape)} {o.dtype} on {o.device}"
                                  f"{'' if o.is_contiguous() else ' (not contiguous)'}")
        for o, align, name in zip(out, self.out_align, self.out_names):
            if o.data_ptr() % align:
                raise FusionError(f"{name}: data pointer {o.data_ptr():#x} is not {align}-byte aligned, "
                                  "which the kernel's stores need")
