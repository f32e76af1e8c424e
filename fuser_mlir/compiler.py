"""The compile driver: a recorded fusion + example inputs -> artifact -> prepared launches.

    Fusion + input signature --(scheduler registry, heuristic: plain Python)--> scheduler, params
    Fusion + params --(frontend.fusion_ir)--> fusion dialect text with `fusion.schedule`
        --(fuser-schedule, sync passes)--> kernel IR --(lowering)--> PTX --(ptxas)--> cubin

An input's signature is its shape and dtype, its strides when it is not contiguous, and whether
its data pointer is 16-byte aligned: the registry picks the TMA pointwise scheduler for dense,
aligned inputs of the output's shape and the strided one otherwise (`schedule=` names one).
The fusion's signature adds the GPU its inputs are on (SMs, DRAM bandwidth), or off the GPU the
target that $FUSER_MLIR_DEVICE names (schedulers.target_device): heuristics decide per device.
The first two steps run everywhere (the GPU machine too, to find cached kernels and size
launches); MLIR is imported only to build a missing artifact.  Artifacts are cached by
(scheduler, canonical definition, params, target, compiler fingerprint).

The artifact's launch block and dynamic shared memory are read from the final kernel IR (after
the pipelining and sync passes), not from the schedule: fuser-pipeline-mbarriers adds a producer
warpgroup (warp_specialized) and the mbarrier arrays, so only the kernel knows its real size.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, replace

from .backend.target import TargetOptions
from .diagnostics import FusionError
from .frontend.definition import Fusion
from .frontend.dtypes import TORCH_DTYPE_NAMES, DataType, from_torch, torch_dtype
from .frontend.fusion_ir import canonical, fusion_ir
from .frontend.shapes import bind_shapes
from .runtime import artifact as artifacts
from .schedulers import DeviceSig, FusionSig, MatmulSig, ReduceSig, TensorSig, named, pick, target_device

@dataclass
class CompiledFusion:
    fusion: Fusion
    scheduler: object
    params: object
    artifact: artifacts.Artifact
    sig: FusionSig                        # what it was compiled for: shapes, dtypes, strides, alignment
    launch: dict                          # the scheduler's launch recipe for this signature
    out_shapes: tuple[tuple[int, ...], ...]

    @property
    def fusion_ir(self) -> str:
        return self.artifact.meta["fusion_ir"]

    @property
    def kernel_ir(self) -> str:
        return self.artifact.meta["kernel_ir"]

    @property
    def ptx(self) -> str:
        return self.artifact.ptx

    def launcher(self, device: int, examples=None):
        """A Launcher for this signature on `device` (checked to be a Hopper GPU by the caller);
        `examples`: inputs of the signature, for fd.execute's cached path."""
        from .runtime.launcher import Launcher

        fd = self.fusion
        return Launcher(self.artifact, device, self.launch,
                        [torch_dtype(t.dtype) for t in fd.inputs],
                        [(s, torch_dtype(t.dtype)) for s, t in zip(self.out_shapes, fd.outputs)],
                        [repr(t) for t in fd.inputs], [f"output {t!r}" for t in fd.outputs], examples)

    def run(self, inputs, out=None):
        """Launch on torch CUDA tensors of the signature it was compiled for (checked every call;
        `fd.execute` caches the launcher), on any Hopper GPU: the device the kernel was scheduled
        for only guided the heuristics."""
        fd = self.fusion
        sig = input_signature(fd, inputs)
        if replace(sig, device=self.sig.device) != self.sig:
            raise FusionError(f"compiled for inputs {list(self.sig.inputs)}, got {list(sig.inputs)}: "
                              "compile for these (fd.execute does)")
        return self.launcher(device_of(fd, inputs, out))(inputs, out)


def device_of(fd: Fusion, inputs, out) -> int:
    """The Hopper GPU the call's tensors (inputs but scalars, and `out`) live on."""
    from .runtime.driver import require_hopper

    if out is not None and not isinstance(out, (list, tuple)):
        raise FusionError(f"out= takes a list of tensors, one per output, got {type(out).__name__}")
    tensors = [(v, repr(t)) for t, v in zip(fd.inputs, inputs) if not t.scalar]
    tensors += [(v, f"output {t!r}") for t, v in zip(fd.outputs, out or [])]
    return require_hopper([v for v, _ in tensors], [name for _, name in tensors])


def check_inputs(fd: Fusion, inputs) -> list[tuple[tuple[int, ...], object]]:
    """(shape, DataType) per input; an error naming the input for anything the kernels cannot take."""
    import torch

    if not isinstance(inputs, (list, tuple)):
        raise FusionError(f"inputs must be a list of the fusion's {len(fd.inputs)} inputs (tensors and Python "
                          f"numbers), got {type(inputs).__name__}")
    if len(inputs) != len(fd.inputs):
        raise FusionError(f"the fusion takes {len(fd.inputs)} inputs, got {len(inputs)}")
    specs = []
    for t, value in zip(fd.inputs, inputs):
        if t.scalar:
            specs.append(((), scalar_dtype(t, value)))
            continue
        dtype = from_torch(value.dtype) if isinstance(value, torch.Tensor) else None
        if dtype is None:
            raise FusionError(f"input {t!r}: unsupported value {type(value).__name__} "
                              f"{getattr(value, 'dtype', '')}; expected a torch tensor of "
                              f"{', '.join(TORCH_DTYPE_NAMES)}")
        specs.append((tuple(value.shape), dtype))
    return specs


_SCALAR_TYPES = {DataType.Bool: (bool,), DataType.Int32: (int,), DataType.Int64: (int,), DataType.Float: (int, float)}
_INT_RANGE = {DataType.Int32: 2 ** 31, DataType.Int64: 2 ** 63}


def scalar_dtype(t, value):
    """The dtype of scalar input `t` after checking that `value` is a Python number it takes
    (bool for Bool, int for integers (in range), int or float for Float)."""
    if type(value) not in _SCALAR_TYPES[t.dtype]:
        raise FusionError(f"input {t!r} is a scalar (fd.define_scalar): expected a Python "
                          f"{' or '.join(k.__name__ for k in _SCALAR_TYPES[t.dtype])}, got {type(value).__name__}")
    bound = _INT_RANGE.get(t.dtype)
    if bound and not -bound <= value < bound:
        raise FusionError(f"input {t!r}: {value} is outside the range of {t.dtype.name}")
    return t.dtype


def layout(value) -> tuple[tuple[int, ...] | None, bool]:
    """(strides, 16-byte aligned) of a tensor: strides None when contiguous.  A meta tensor's
    address is its storage offset (allocations are aligned); a zero-size tensor reads nothing,
    so it counts as contiguous and aligned."""
    if value.numel() == 0:
        return None, True
    strides = None if value.is_contiguous() else tuple(value.stride())
    address = value.storage_offset() * value.element_size() if value.device.type == "meta" else value.data_ptr()
    return strides, address % 16 == 0


def signature(fd: Fusion, shapes: dict, layouts, device: DeviceSig) -> FusionSig:
    ops = frozenset(n.op for n in fd.nodes if n.op != "input")
    position = {t.index: j for j, t in enumerate(fd.inputs)}
    matmuls = tuple(MatmulSig(position.get(n.args[0].index), position.get(n.args[1].index), n.attrs["transpose_b"])
                    for n in fd.nodes if n.op == "matmul")
    reductions = tuple(ReduceSig(shapes[n.args[0].index], n.attrs["axes"], n.attrs["keepdim"], n.kind or "var")
                       for n in fd.nodes if n.op in ("reduce", "var"))
    return FusionSig(ops, tuple(TensorSig(shapes[t.index], t.dtype, *lay, scalar=t.scalar)
                                for t, lay in zip(fd.inputs, layouts)),
                     tuple(TensorSig(shapes[t.index], t.dtype) for t in fd.outputs), matmuls, reductions, device)


def input_signature(fd: Fusion, inputs) -> FusionSig:
    """The signature schedulers decide from, checked against the definition."""
    shapes = bind_shapes(fd, check_inputs(fd, inputs))
    cuda = next((v.device.index for t, v in zip(fd.inputs, inputs) if not t.scalar and v.is_cuda), None)
    return signature(fd, shapes, [(None, True) if t.scalar else layout(v) for t, v in zip(fd.inputs, inputs)],
                     target_device() if cuda is None else cuda_device(cuda))


@functools.cache
def cuda_device(index: int) -> DeviceSig:
    """CUDA device `index` as heuristics see it: its name, SMs and DRAM bandwidth."""
    from .runtime.driver import device_facts

    return DeviceSig(*device_facts(index))


def choose(sig: FusionSig, schedule: dict | None):
    """(scheduler, params): the registry's pick and its heuristic, or with `schedule` =
    {"scheduler": name, decision: value, ...} the named scheduler with the decisions given (its
    `encode` fields) and its heuristic's choice, under those, for the rest."""
    if schedule is None:
        scheduler = pick(sig)
        return scheduler, scheduler.heuristic(sig)
    if not isinstance(schedule, dict):
        raise FusionError(f"schedule must be a dict such as {{'scheduler': 'pointwise_strided'}}, got {schedule!r}")
    fields = dict(schedule)
    name = fields.pop("scheduler", None)
    if not isinstance(name, str):
        raise FusionError(f"schedule {schedule} needs a 'scheduler' name, e.g. {{'scheduler': 'pointwise_strided'}}")
    scheduler = named(name, sig)
    facts = sorted(set(fields) & set(scheduler.signature_facts))
    if facts:
        raise FusionError(f"scheduler '{name}': {', '.join(facts)} record how the inputs are read, which the API "
                          "takes from the tensors themselves; a schedule gives decisions only")
    params = scheduler.heuristic(sig)
    if fields:
        unknown = sorted(set(fields) - set(scheduler.encode(params)))
        if unknown:
            raise FusionError(f"scheduler '{name}' has no decision {', '.join(unknown)} "
                              f"(it has {', '.join(scheduler.encode(params))})")
        params = scheduler.decode(sig, fields)
    return scheduler, params


def compile_fusion(fd: Fusion, inputs, options: TargetOptions | None = None,
                   schedule: dict | None = None) -> CompiledFusion:
    """Compile `fd` for the signature of `inputs` (see `choose` for `schedule`)."""
    if options is not None and not isinstance(options, TargetOptions):
        raise FusionError(f"options takes a fuser_mlir TargetOptions, got {type(options).__name__}")
    target = options or TargetOptions()
    if not fd.outputs:
        raise FusionError("a fusion needs at least one output (fd.add_output)")
    sig = input_signature(fd, inputs)
    scheduler, params = choose(sig, schedule)
    key = artifacts.cache_key(scheduler.name, canonical(fd), scheduler.encode(params), vars(target))
    art = artifacts.get_or_build(key, lambda: _build(fd, scheduler, params, target, key),
                                 f"{scheduler.name} fusion {canonical(fd)[:80]}... scheduled for {sig.device.name}")
    check_alignment(sig, art.meta["params"], scheduler.name)
    return CompiledFusion(fd, scheduler, params, art, sig, scheduler.launch(params, sig),
                          tuple(o.shape for o in sig.outputs))


def check_alignment(sig: FusionSig, params: list[dict], scheduler: str) -> None:
    """Launches write input addresses unchecked (runtime/launcher.py), so every input pointer a
    kernel reads with wide accesses must be aligned by the signature: 16 bytes where it says so
    (the signature key includes it), else the element size, which every torch tensor has."""
    for p in params:
        tensor = p.get("tensor", "")
        if p["kind"] != "pointer" or not tensor.startswith("input"):
            continue
        t = sig.inputs[int(tensor[len("input"):])]
        known = 16 if t.aligned else t.dtype.itemsize
        if p["align"] > known:
            raise FusionError(f"scheduler {scheduler} reads {tensor} with {p['align']}-byte accesses, but its "
                              f"data pointer is only known to be {known}-byte aligned (a scheduler bug)")


def _build(fd: Fusion, scheduler, params, target: TargetOptions, key: str) -> artifacts.Artifact:
    from mlir import ir

    from .backend import ptxas
    from .backend.pipeline import SCHEDULE_PASSES, PassPipeline, compile_to_ptx
    from .dialects import new_context
    from .passes.schedule import KERNEL_MODULE, schedule_attr

    text = fusion_ir(fd, scheduler.name, schedule_attr(scheduler, params))   # the kernel takes its name
    with new_context(), ir.Location.unknown():
        module = ir.Module.parse(text)
        PassPipeline(SCHEDULE_PASSES).run(module)
        kernel_ir = str(module)
        launch = kernel_launch(module, scheduler.name)       # before lowering rewrites the gpu.func
        ptx = compile_to_ptx(module, target)[KERNEL_MODULE]
    # A deadlock guard's report (vprintf) is a call inside wgmma's pipeline, which ptxas then
    # serializes: expected in a debugging build, which is for finding hangs, not for speed.
    expected = (ptxas.WGMMA_ACROSS_CALL,) if target.deadlock_guard_ms else ()
    cubin = ptxas.assemble(ptx, target.arch, expected).cubin if ptxas.find_ptxas() else None
    meta = {"entry": scheduler.name, **scheduler.meta(params), **launch, "fusion_ir": text, "kernel_ir": kernel_ir}
    return artifacts.Artifact(key, ptx, cubin, meta)


def kernel_launch(module, entry: str) -> dict:
    """{"block", "dynamic_smem", "dependent_launch"} of kernel `entry` as the passes left it: its
    `gpu.known_block_size`, the end of its highest `nvasync.smem_buffer` (data tiles and
    mbarriers alike: every shared-memory byte is such a view of the one dynamic allocation), and
    whether it waits for the previous kernel in the stream itself (fuser-grid-dependency), so
    the runtime may launch it before that one ends."""
    from mlir import ir

    from .passes import grid_dependency
    from .passes.smem_model import block_dims, first_nested, kernels, memref_bytes

    funcs = [f for f in kernels(module.operation) if ir.StringAttr(f.attributes["sym_name"]).value == entry]
    if len(funcs) != 1:
        raise FusionError(f"the compiled module has {len(funcs)} kernels named {entry}")
    block = block_dims(funcs[0])
    if block is None:
        raise FusionError(f"kernel {entry} declares no gpu.known_block_size")
    ends = [0]
    funcs[0].walk(lambda op: ends.append(op.attributes["offset"].value + memref_bytes(op.results[0].type))
                  or ir.WalkResult.ADVANCE if op.name == "nvasync.smem_buffer" else ir.WalkResult.ADVANCE)
    dependent = first_nested(funcs[0], lambda op: op.name == grid_dependency.WAIT) is not None
    return {"block": list(block), "dynamic_smem": max(ends), "dependent_launch": dependent}
