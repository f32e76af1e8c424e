"""Launch compiled artifacts on torch CUDA tensors through cuda-python (never imports MLIR).

Loads the cubin (or JIT-compiles the PTX in the driver), caches the loaded function per device,
raises the dynamic shared-memory limit above 48 KiB, encodes TMA descriptors from the live
tensors at every launch and launches on torch's current stream.  Every driver call is checked.
"""
from __future__ import annotations

import ctypes

from .api import FusionError

_functions: dict[tuple[str, int], tuple[object, int]] = {}   # (key, device) -> (CUfunction, grid)
_tensormap_dtypes = {"f32": "FLOAT32", "f16": "FLOAT16", "bf16": "BFLOAT16", "i1": "UINT8"}


class RuntimeFailure(RuntimeError):
    pass


def _driver():
    from cuda.bindings import driver

    return driver


def check(result, what: str):
    """Unpack a cuda-python result tuple, raising on any error code."""
    cu = _driver()
    err, *values = result if isinstance(result, tuple) else (result,)
    if err != cu.CUresult.CUDA_SUCCESS:
        _, name = cu.cuGetErrorName(err)
        _, text = cu.cuGetErrorString(err)
        raise RuntimeFailure(f"{what} failed: {name.decode() if name else err} "
                             f"({text.decode() if text else 'no description'})")
    return values[0] if len(values) == 1 else values


_hopper_devices: set[int] = set()


def require_hopper(tensors, names) -> int:
    """The CUDA device all `tensors` live on, after checking it is a Hopper GPU."""
    import torch

    if not _hopper_devices and not torch.cuda.is_available():
        raise FusionError("no CUDA GPU is available: fd.execute needs an NVIDIA Hopper GPU "
                          "(fd.compile works without one)")
    devices = set()
    for t, name in zip(tensors, names):
        if not t.is_cuda:
            raise FusionError(f"{name} is a CPU tensor; fd.execute takes CUDA tensors")
        devices.add(t.device.index)
    if len(devices) > 1:
        raise FusionError(f"tensors are on several devices {sorted(devices)}")
    device = devices.pop()
    if device not in _hopper_devices:
        major, minor = torch.cuda.get_device_capability(device)
        if (major, minor) != (9, 0):
            raise FusionError(f"{torch.cuda.get_device_name(device)} is sm_{major}{minor}; fuser_mlir "
                              "kernels need a Hopper GPU (sm_90a)")
        _hopper_devices.add(device)
    return device


def _load(artifact, device: int):
    cu = _driver()
    cached = _functions.get((artifact.key, device))
    if cached:
        return cached
    import torch

    torch.cuda.init()
    with torch.cuda.device(device):
        torch.cuda.current_stream(device)        # makes torch's primary context current
        image = artifact.cubin or (artifact.ptx.encode() + b"\0")
        module = check(cu.cuModuleLoadData(image), "cuModuleLoadData")
        func = check(cu.cuModuleGetFunction(module, artifact.meta["entry"].encode()), "cuModuleGetFunction")
        smem = artifact.meta["dynamic_smem"]
        dev = check(cu.cuCtxGetDevice(), "cuCtxGetDevice")
        limit = check(cu.cuDeviceGetAttribute(
            cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev), "cuDeviceGetAttribute")
        if smem > limit:
            raise FusionError(f"kernel {artifact.meta['entry']} needs {smem} B of shared memory; "
                              f"the device allows {limit} B per block")
        if smem > 48 * 1024:
            check(cu.cuFuncSetAttribute(
                func, cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem),
                "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)")
        sms = check(cu.cuDeviceGetAttribute(
            cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev), "cuDeviceGetAttribute")
        per_sm = check(cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(
            func, artifact.meta["block"][0], smem), "cuOccupancyMaxActiveBlocksPerMultiprocessor")
        if per_sm < 1:
            raise FusionError(f"kernel {artifact.meta['entry']} cannot be resident on this GPU "
                              f"({smem} B smem, {artifact.meta['block'][0]} threads)")
    _functions[(artifact.key, device)] = (func, sms * per_sm)
    return _functions[(artifact.key, device)]


def encode_tensormap(tensor, dtype: str, view, box, name: str):
    """A tiled TMA descriptor for `tensor` seen as `view` (outermost first) with `box`."""
    cu = _driver()
    itemsize = tensor.element_size()
    address = tensor.data_ptr()
    if address % 16:
        raise FusionError(f"{name}: data pointer {address:#x} is not 16-byte aligned (TMA requires it)")
    if not tensor.is_contiguous():
        raise FusionError(f"{name}: not contiguous (strides {tensor.stride()}); TMA needs a dense "
                          "row-major tensor: pass tensor.contiguous()")
    dims = list(reversed(view))                       # innermost first
    strides = [dims[0] * itemsize] if len(dims) == 2 else []
    if any(s % 16 for s in strides):
        raise FusionError(f"{name}: row stride {strides[0]} B is not a multiple of 16 (TMA requires it)")
    # cuda-python passes an empty list as NULL, which the driver rejects even for rank 1 (seen on
    # the H100, driver 580): give rank 1 one unused, valid stride.
    strides = strides or [16]
    enum = getattr(cu.CUtensorMapDataType, f"CU_TENSOR_MAP_DATA_TYPE_{_tensormap_dtypes[dtype]}")
    return check(cu.cuTensorMapEncodeTiled(
        enum, len(dims), address,
        [cu.cuuint64_t(d) for d in dims], [cu.cuuint64_t(s) for s in strides],
        [cu.cuuint32_t(b) for b in reversed(box)], [cu.cuuint32_t(1)] * len(dims),
        cu.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
        cu.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_NONE,
        cu.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
        cu.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE), f"cuTensorMapEncodeTiled({name})")


def launch(artifact, device: int, tensors, names, view, tiles: int) -> None:
    """Launch `artifact` on `device` (checked by `require_hopper`) over `tensors` (inputs then
    outputs, in parameter order)."""
    import torch

    cu = _driver()
    func, resident = _load(artifact, device)
    meta = artifact.meta
    keep, pointers = [], []
    tensor_params = [p for p in meta["params"] if p["kind"] == "tensormap"]
    for param, tensor, name in zip(tensor_params, tensors, names):
        tmap = encode_tensormap(tensor, param["dtype"], view, param["box"], name)
        keep.append(tmap)
        pointers.append(int(tmap.getPtr()))
    for value in view:
        if value >= 2 ** 31:
            raise FusionError(f"tensor extent {value} exceeds the kernel's 32-bit index range")
        scalar = ctypes.c_int32(value)
        keep.append(scalar)
        pointers.append(ctypes.addressof(scalar))
    params = (ctypes.c_void_p * len(pointers))(*pointers)
    grid = max(1, min(tiles, resident))
    stream = cu.CUstream(torch.cuda.current_stream(device).cuda_stream)
    with torch.cuda.device(device):
        check(cu.cuLaunchKernel(func, grid, 1, 1, *meta["block"], meta["dynamic_smem"], stream,
                                ctypes.addressof(params), 0), "cuLaunchKernel")
