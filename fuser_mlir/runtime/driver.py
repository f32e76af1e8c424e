"""The CUDA driver as the runtime uses it (never imports MLIR).

Cold path (once per kernel and device), through cuda-python: load the cubin (or JIT the PTX),
raise the dynamic shared-memory limit above 48 KiB, size the persistent grid by occupancy;
`encode_tensor_map` encodes a tensor map once (tests compare it with the hot path's bytes).
Hot path (every launch), through ctypes straight into libcuda: `cuTensorMapEncodeTiled` and
`cuLaunchKernelEx` (`PreparedLaunch`: its config struct and arguments built once per input
signature); a tensor map parameter is a slot re-encoded in place when its address changes.
Both tensor-map paths take one validated `TensorMapRecipe` (dims, strides, box, dtype, and the
swizzle: none, 32, 64 or 128 bytes, CU_TENSOR_MAP_SWIZZLE_*), so they encode the same map.
cuda-python's wrappers convert every argument on each call (a launch cost ~5 us of host time on
the H100).  Through ctypes, argument conversion is what costs: measured on the H100 host,
cuLaunchKernel with argtypes 5.9-7.5 us, cuLaunchKernelEx with its four arguments prebuilt as
ctypes objects 3.8-4.2 us (a trivial ctypes call: 0.3 us).  Every driver call is checked.
"""
from __future__ import annotations

import ctypes
import math
import os
from dataclasses import dataclass

from ..diagnostics import FusionError

TENSORMAP_BYTES = 128
# CUtensorMapDataType: FLOAT32, FLOAT16, BFLOAT16, INT32, INT64, UINT8 (bool is one byte)
_TENSORMAP_DTYPES = {"f32": 7, "f16": 6, "bf16": 9, "i32": 3, "i64": 5, "i1": 0}
_L2_PROMOTION_256B = 3                                            # CU_TENSOR_MAP_L2_PROMOTION_L2_256B
# CUtensorMapSwizzle by swizzle span in bytes: NONE, 32B, 64B, 128B.  A swizzled box row (its
# innermost dimension) spans at most that many bytes; the smem box needs 8 x span alignment
# (1024 B for 128-B swizzle), which wgmma descriptors and the kernel's buffers assume.
TENSORMAP_SWIZZLES = {0: 0, 32: 1, 64: 2, 128: 3}


class RuntimeFailure(RuntimeError):
    pass


def _cu():
    from cuda.bindings import driver

    return driver


def check(result, what: str):
    """Unpack a cuda-python result tuple, raising on any error code."""
    cu = _cu()
    err, *values = result if isinstance(result, tuple) else (result,)
    if err != cu.CUresult.CUDA_SUCCESS:
        raise RuntimeFailure(f"{what} failed: {_error_text(int(err))}")
    return values[0] if len(values) == 1 else values


def _error_text(code: int) -> str:
    cu = _cu()
    _, name = cu.cuGetErrorName(cu.CUresult(code))
    _, text = cu.cuGetErrorString(cu.CUresult(code))
    return f"{name.decode() if name else code} ({text.decode() if text else 'no description'})"


class _LibCuda:
    """The hot-path driver functions, bound once: tensor-map encoding and cuLaunchKernel with
    fixed argument types (one-off launches, e.g. the GPU tests'), cuLaunchKernelEx without (its
    callers pass prebuilt ctypes objects: `PreparedLaunch`)."""

    def __init__(self):
        # PyDLL keeps the GIL across the call: these return at once (measured on the H100 host:
        # 5.3 us per launch against 5.6 us with CDLL, which releases and retakes it).
        lib = ctypes.PyDLL("libcuda.so.1")
        u32, u64p, u32p, vp = ctypes.c_uint32, ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint32), ctypes.c_void_p
        self.encode_tiled = lib.cuTensorMapEncodeTiled
        self.encode_tiled.argtypes = [vp, ctypes.c_int, u32, vp, u64p, u64p, u32p, u32p,
                                      ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int]
        self.encode_tiled.restype = ctypes.c_int
        self.launch_kernel = lib.cuLaunchKernel
        self.launch_kernel.argtypes = [vp, u32, u32, u32, u32, u32, u32, u32, vp, vp, vp]
        self.launch_kernel.restype = ctypes.c_int
        self.launch_kernel_ex = lib.cuLaunchKernelEx
        self.launch_kernel_ex.restype = ctypes.c_int
        self.max_active_clusters = lib.cuOccupancyMaxActiveClusters
        self.max_active_clusters.argtypes = [ctypes.POINTER(ctypes.c_int), vp, vp]
        self.max_active_clusters.restype = ctypes.c_int


_libcuda: _LibCuda | None = None


def libcuda() -> _LibCuda:
    global _libcuda
    if _libcuda is None:
        _libcuda = _LibCuda()
    return _libcuda


def checked(code: int, what: str) -> None:
    if code:
        raise RuntimeFailure(f"{what} failed: {_error_text(code)}")


class _LaunchConfig(ctypes.Structure):
    """CUlaunchConfig (cuda.h)."""
    _fields_ = [("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint * 3), ("shared_bytes", ctypes.c_uint),
                ("stream", ctypes.c_void_p), ("attrs", ctypes.c_void_p), ("num_attrs", ctypes.c_uint)]


class _LaunchAttribute(ctypes.Structure):
    """CUlaunchAttribute (cuda.h): an id, then its value, a 64-byte union 8-byte aligned."""
    _fields_ = [("id", ctypes.c_uint), ("pad", ctypes.c_uint), ("value", ctypes.c_uint * 16)]


_PROGRAMMATIC_STREAM_SERIALIZATION = 6      # CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION


def launch_attributes(dependent: bool):
    """(CUlaunchAttribute array, how many of it count) of a launch: programmatic stream
    serialization when `dependent` (the kernel may start before the previous one in the stream
    ends; it waits for it before touching global memory), else none."""
    attrs = (_LaunchAttribute * 1)(_LaunchAttribute(_PROGRAMMATIC_STREAM_SERIALIZATION, 0, (1,)))
    return attrs, 1 if dependent else 0


def dependent_launches() -> bool:
    """Launch kernels that wait for the previous kernel themselves (`dependent_launch` in their
    metadata: fuser-grid-dependency) as programmatic dependents of it, unless FUSER_MLIR_PDL=0."""
    return os.environ.get("FUSER_MLIR_PDL", "1") != "0"


_INVALID_CONTEXT = 201         # CUDA_ERROR_INVALID_CONTEXT: no context is current in this thread
_primary_contexts: dict[int, object] = {}


def make_primary_context_current(device: int) -> None:
    """Make `device`'s primary context (torch's) current in the calling thread.  The driver keeps
    the current context per thread: a thread that has not used CUDA through torch yet has none."""
    cu = _cu()
    context = _primary_contexts.get(device)
    if context is None:
        context = _primary_contexts[device] = check(cu.cuDevicePrimaryCtxRetain(cu.CUdevice(device)),
                                                    "cuDevicePrimaryCtxRetain")
    check(cu.cuCtxSetCurrent(context), "cuCtxSetCurrent")


class PreparedLaunch:
    """cuLaunchKernelEx of one kernel on `device` with one parameter array (`params_address`: the
    C array of pointers to the parameters' values, which callers rewrite in place): the config
    struct and the call's arguments are built once; a call sets only the stream, when it changed.
    A thread with no current context gets the device's primary context, then the launch again
    (the failed launch enqueued nothing), so the hot path pays no context check."""

    def __init__(self, function: int, grid: int, block, smem: int, params_address: int, device: int,
                 dependent: bool = False):
        self.attrs, self.num_attrs = launch_attributes(dependent)
        self.config = _LaunchConfig((grid, 1, 1), tuple(block), smem, None,
                                    ctypes.addressof(self.attrs) if self.num_attrs else None, self.num_attrs)
        self.stream = None
        self.device = device
        self.args = (ctypes.c_void_p(ctypes.addressof(self.config)), ctypes.c_void_p(function),
                     ctypes.c_void_p(params_address), None)
        self.launch_kernel_ex = libcuda().launch_kernel_ex

    def __call__(self, stream: int) -> None:
        if stream != self.stream:
            self.config.stream = stream
            self.stream = stream
        code = self.launch_kernel_ex(*self.args)
        if code == _INVALID_CONTEXT:
            make_primary_context_current(self.device)
            code = self.launch_kernel_ex(*self.args)
        if code:
            checked(code, "cuLaunchKernelEx")


_hopper_devices: set[int] = set()


def require_hopper(tensors, names) -> int:
    """The CUDA device all `tensors` live on, after checking it is a Hopper GPU."""
    import torch

    if not _hopper_devices and not torch.cuda.is_available():
        raise FusionError("no CUDA GPU is available: fd.execute needs an NVIDIA Hopper GPU "
                          "(fd.compile works without one)")
    devices = set()
    for t, name in zip(tensors, names):
        if not getattr(t, "is_cuda", False):
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


def device_facts(device: int) -> tuple[str, int, int]:
    """(name, SMs, DRAM GB/s) of CUDA device `device`, from driver attributes, which every CUDA
    version keeps (CUDA 13 dropped the memory clock from cudaDeviceProp; torch's device properties
    depend on its version): the DRAM rate is the memory clock (kHz) x the bus width (bits) x two
    transfers a clock."""
    cu = _cu()
    check(cu.cuInit(0), "cuInit")
    handle = check(cu.cuDeviceGet(device), "cuDeviceGet")

    def attribute(name):
        return check(cu.cuDeviceGetAttribute(getattr(cu.CUdevice_attribute, f"CU_DEVICE_ATTRIBUTE_{name}"), handle),
                     f"cuDeviceGetAttribute({name})")

    name = check(cu.cuDeviceGetName(256, handle), "cuDeviceGetName").split(b"\0")[0].decode()
    dram_gbps = round(2 * attribute("MEMORY_CLOCK_RATE") * attribute("GLOBAL_MEMORY_BUS_WIDTH") / 8 / 1e6)
    return name, attribute("MULTIPROCESSOR_COUNT"), dram_gbps


@dataclass(frozen=True)
class LoadedKernel:
    function: int          # CUfunction handle
    resident_ctas: int     # CTAs resident at once (whole clusters): the persistent grid's upper bound


_loaded: dict[tuple[str, int], LoadedKernel] = {}


def load(artifact, device: int) -> LoadedKernel:
    """The artifact's kernel on `device` (loaded once per device)."""
    cached = _loaded.get((artifact.key, device))
    if cached:
        return cached
    import torch

    cu = _cu()
    torch.cuda.init()
    meta = artifact.meta
    with torch.cuda.device(device):
        torch.cuda.current_stream(device)        # makes torch's primary context current
        image = artifact.cubin or (artifact.ptx.encode() + b"\0")
        module = check(cu.cuModuleLoadData(image), "cuModuleLoadData")
        func = check(cu.cuModuleGetFunction(module, meta["entry"].encode()), "cuModuleGetFunction")
        smem = meta["dynamic_smem"]
        dev = check(cu.cuCtxGetDevice(), "cuCtxGetDevice")
        limit = check(cu.cuDeviceGetAttribute(
            cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev), "cuDeviceGetAttribute")
        if smem > limit:
            raise FusionError(f"kernel {meta['entry']} needs {smem} B of shared memory; "
                              f"the device allows {limit} B per block")
        if smem > 48 * 1024:
            check(cu.cuFuncSetAttribute(
                func, cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem),
                "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)")
        sms = check(cu.cuDeviceGetAttribute(
            cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev), "cuDeviceGetAttribute")
        per_sm = check(cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(func, meta["block"][0], smem),
                       "cuOccupancyMaxActiveBlocksPerMultiprocessor")
        if per_sm < 1:
            raise FusionError(f"kernel {meta['entry']} cannot be resident on this GPU "
                              f"({smem} B smem, {meta['block'][0]} threads)")
        resident = sms * per_sm
        cluster = meta.get("cluster", 1)
        if cluster > 1:
            # Clusters sit inside one GPC: fewer CTAs may be resident than SMs allow one by one.
            config = _LaunchConfig((cluster, 1, 1), tuple(meta["block"]), smem, None, None, 0)
            clusters = ctypes.c_int(0)
            checked(libcuda().max_active_clusters(ctypes.byref(clusters), ctypes.c_void_p(int(func)),
                                                  ctypes.byref(config)), "cuOccupancyMaxActiveClusters")
            if clusters.value < 1:
                raise FusionError(f"kernel {meta['entry']} cannot be resident on this GPU in clusters of {cluster} "
                                  f"({smem} B smem, {meta['block'][0]} threads)")
            resident = clusters.value * cluster
    _loaded[(artifact.key, device)] = LoadedKernel(int(func), resident)
    return _loaded[(artifact.key, device)]


@dataclass(frozen=True)
class TensorMapRecipe:
    """What cuTensorMapEncodeTiled takes besides the address, validated once per signature:
    dims innermost first, byte strides of dims 1.., the box (innermost first), the
    CUtensorMapDataType and CUtensorMapSwizzle codes."""
    dims: tuple
    strides: tuple
    box: tuple
    dtype: int
    swizzle: int

    @staticmethod
    def of(dtype: str, view, box, name: str, itemsize: int, swizzle: int = 0) -> "TensorMapRecipe":
        if any(b > 256 for b in box):
            raise FusionError(f"{name}: TMA boxes are at most 256 elements per dim, got {list(box)}")
        if swizzle not in TENSORMAP_SWIZZLES:
            raise FusionError(f"{name}: TMA swizzle must be one of {sorted(TENSORMAP_SWIZZLES)} bytes, got {swizzle}")
        if swizzle and box[-1] * itemsize > swizzle:
            raise FusionError(f"{name}: a {swizzle}-byte swizzle takes box rows of at most {swizzle} bytes, "
                              f"got {box[-1]} x {itemsize} = {box[-1] * itemsize}")
        dims = list(reversed(view))                       # innermost first, contiguous
        strides = [math.prod(dims[:d]) * itemsize for d in range(1, len(dims))]
        if any(s % 16 for s in strides):
            raise FusionError(f"{name}: row stride {strides[0]} B is not a multiple of 16 (TMA requires it)")
        # An empty stride array would be NULL, which the driver rejects even for rank 1 (seen on
        # the H100, driver 580): give rank 1 one unused, valid stride.
        strides = strides or [16]
        return TensorMapRecipe(tuple(dims), tuple(strides), tuple(reversed(box)), _TENSORMAP_DTYPES[dtype],
                               TENSORMAP_SWIZZLES[swizzle])


def encode_tensor_map(recipe: TensorMapRecipe, tensor_address: int) -> bytes:
    """Cold path: the 128-byte tensor map of `recipe` at `tensor_address`, encoded through
    cuda-python (each call converts every argument: use TensorMapSlot per launch).  It takes the
    same recipe as the hot path, so the two encodings can be compared byte for byte."""
    cu = _cu()
    tensor_map = check(cu.cuTensorMapEncodeTiled(
        cu.CUtensorMapDataType(recipe.dtype), len(recipe.dims), tensor_address,
        [cu.cuuint64_t(d) for d in recipe.dims], [cu.cuuint64_t(s) for s in recipe.strides],
        [cu.cuuint32_t(b) for b in recipe.box], [cu.cuuint32_t(1) for _ in recipe.box],
        cu.CUtensorMapInterleave(0), cu.CUtensorMapSwizzle(recipe.swizzle),
        cu.CUtensorMapL2promotion(_L2_PROMOTION_256B), cu.CUtensorMapFloatOOBfill(0)),
        "cuTensorMapEncodeTiled")
    return ctypes.string_at(tensor_map.getPtr(), TENSORMAP_BYTES)


class TensorMapSlot:
    """One TMA descriptor parameter: 128 aligned bytes re-encoded in place when the tensor's
    address changes.  Dims, strides, box and swizzle are fixed per input signature, so they are
    built once as C arrays and only the address varies per call.  `swizzle`: the box's swizzle
    span in bytes (0, 32, 64 or 128), as the kernel's smem layout (e.g. wgmma operands) expects."""

    def __init__(self, dtype: str, view, box, name: str, itemsize: int, swizzle: int = 0):
        recipe = TensorMapRecipe.of(dtype, view, box, name, itemsize, swizzle)
        self.recipe = recipe
        self.name = name
        self.rank = len(recipe.dims)
        self.dtype = recipe.dtype
        self.swizzle = recipe.swizzle
        self.dims = (ctypes.c_uint64 * self.rank)(*recipe.dims)
        self.strides = (ctypes.c_uint64 * len(recipe.strides))(*recipe.strides)
        self.box = (ctypes.c_uint32 * self.rank)(*recipe.box)
        self.element_strides = (ctypes.c_uint32 * self.rank)(*([1] * self.rank))
        self._storage = ctypes.create_string_buffer(TENSORMAP_BYTES + 64)
        self.address = (ctypes.addressof(self._storage) + 63) // 64 * 64
        self.tensor_address = None

    def put(self, tensor_address: int) -> None:
        if tensor_address == self.tensor_address:
            return
        if tensor_address % 16:
            raise FusionError(f"{self.name}: data pointer {tensor_address:#x} is not 16-byte aligned (TMA requires it)")
        checked(libcuda().encode_tiled(self.address, self.dtype, self.rank, tensor_address, self.dims,
                                       self.strides, self.box, self.element_strides, 0, self.swizzle,
                                       _L2_PROMOTION_256B, 0), f"cuTensorMapEncodeTiled({self.name})")
        self.tensor_address = tensor_address

    def encode_arguments(self) -> tuple:
        """cuTensorMapEncodeTiled's arguments but the map and the address, as `put` passes them
        (dtype, rank, the addresses of dims, strides, box and element strides, swizzle, L2
        promotion): what fastpath.cpp encodes its own copy of this descriptor from."""
        return (self.dtype, self.rank, ctypes.addressof(self.dims), ctypes.addressof(self.strides),
                ctypes.addressof(self.box), ctypes.addressof(self.element_strides), self.swizzle, _L2_PROMOTION_256B)

    def bytes(self) -> bytes:
        """The encoded tensor map (as the kernel receives it)."""
        return ctypes.string_at(self.address, TENSORMAP_BYTES)
