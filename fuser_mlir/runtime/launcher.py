"""A kernel launch prepared for one input signature: the hot path of `fd.execute`.

Everything that depends only on the signature (shapes, dtypes, device) is computed once: the
grid, the scalar parameters, the output shapes, the C array of parameter pointers and one
tensor-map slot per tensor parameter.  A call then reads each tensor's address, re-encodes the
descriptors whose address changed, allocates the outputs and launches on torch's current stream
(so it also records into a CUDA graph being captured).
"""
from __future__ import annotations

import ctypes

from ..diagnostics import FusionError
from . import driver


class Launcher:
    def __init__(self, artifact, device: int, launch: dict, in_dtypes, out_specs, in_names, out_names,
                 expanded_inputs):
        """`launch`: the scheduler's {"view", "tiles"}; `out_specs`: (shape, torch dtype) per output;
        `expanded_inputs`: indices of inputs broadcast to the output shape on the host."""
        import torch

        self.device = device
        self.torch_device = torch.device("cuda", device)
        self.out_specs = [(tuple(shape), dtype) for shape, dtype in out_specs]
        self.out_names = out_names
        self.expanded = [(j, self.out_specs[0][0]) for j in expanded_inputs]
        self.tiles = launch["tiles"]
        meta = artifact.meta
        self.block = meta["block"]
        self.smem = meta["dynamic_smem"]
        if self.tiles == 0:           # an empty output: nothing to launch
            return
        kernel = driver.load(artifact, device)
        self.function = kernel.function
        self.grid = max(1, min(self.tiles, kernel.resident_ctas))
        view = launch["view"]
        if any(v >= 2 ** 31 for v in view):
            raise FusionError(f"tensor extent {max(view)} exceeds the kernel's 32-bit index range")
        tensor_params = [p for p in meta["params"] if p["kind"] == "tensormap"]
        itemsizes = [torch.empty((), dtype=d).element_size() for d in in_dtypes] + \
                    [torch.empty((), dtype=d).element_size() for _, d in self.out_specs]
        self.slots = [driver.TensorMapSlot(p["dtype"], view, p["box"], name, size)
                      for p, name, size in zip(tensor_params, in_names + out_names, itemsizes)]
        self.scalars = [ctypes.c_int32(v) for v in view]
        pointers = [s.address for s in self.slots] + [ctypes.addressof(v) for v in self.scalars]
        self.params = (ctypes.c_void_p * len(pointers))(*pointers)
        self.params_address = ctypes.addressof(self.params)
        self.lib = driver.libcuda()

    def __call__(self, inputs, out=None):
        import torch

        outputs = out if out is not None else [
            torch.empty(shape, dtype=dtype, device=self.torch_device) for shape, dtype in self.out_specs]
        if out is not None:
            self._check_out(out)
        if self.tiles == 0:
            return list(outputs)
        if self.expanded:
            inputs = list(inputs)
            for j, shape in self.expanded:
                inputs[j] = inputs[j].expand(shape).contiguous()
        slots = self.slots
        for j, t in enumerate(inputs):
            slots[j].encode(t.data_ptr())
        n_in = len(inputs)
        for j, t in enumerate(outputs):
            slots[n_in + j].encode(t.data_ptr())
        if torch.cuda.current_device() != self.device:
            with torch.cuda.device(self.device):
                self._launch()
        else:
            self._launch()
        return list(outputs)

    def _launch(self):
        import torch

        stream = torch._C._cuda_getCurrentRawStream(self.device)
        code = self.lib.launch_kernel(self.function, self.grid, 1, 1, *self.block, self.smem, stream,
                                      self.params_address, None)
        if code:
            driver.checked(code, "cuLaunchKernel")

    def _check_out(self, out):
        if len(out) != len(self.out_specs):
            raise FusionError(f"the fusion has {len(self.out_specs)} outputs, out= gave {len(out)}")
        for o, (shape, dtype), name in zip(out, self.out_specs, self.out_names):
            if (tuple(o.shape) != shape or o.dtype != dtype or not o.is_contiguous()
                    or o.get_device() != self.device):
                raise FusionError(f"{name} must be a contiguous {list(shape)} {dtype} tensor on cuda:{self.device}, "
                                  f"got {list(o.shape)} {o.dtype} on {o.device}"
                                  f"{'' if o.is_contiguous() else ' (not contiguous)'}")
