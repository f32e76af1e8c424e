"""The compile driver: a recorded fusion + example inputs -> artifact -> prepared launches.

    Fusion + input shapes --(scheduler registry, heuristic: plain Python)--> scheduler, params
    Fusion + params --(frontend.fusion_ir)--> fusion dialect text with `fusion.schedule`
        --(fuser-schedule, sync passes)--> kernel IR --(lowering)--> PTX --(ptxas)--> cubin

The first two steps run everywhere (the GPU machine too, to find cached kernels and size
launches); MLIR is imported only to build a missing artifact.  Artifacts are cached by
(scheduler, canonical definition, params, target, compiler fingerprint).
"""
from __future__ import annotations

from dataclasses import dataclass

from .backend.target import TargetOptions
from .diagnostics import FusionError
from .frontend.definition import Fusion
from .frontend.dtypes import from_torch, torch_dtype
from .frontend.fusion_ir import canonical, fusion_ir
from .frontend.shapes import bind_shapes
from .runtime import artifact as artifacts
from .schedulers import FusionSig, TensorSig, pick

@dataclass
class CompiledFusion:
    fusion: Fusion
    scheduler: object
    params: object
    artifact: artifacts.Artifact
    launch: dict                          # the scheduler's launch recipe for these shapes
    out_shapes: tuple[tuple[int, ...], ...]
    expanded_inputs: tuple[int, ...]      # inputs broadcast to the output shape on the host

    @property
    def fusion_ir(self) -> str:
        return self.artifact.meta["fusion_ir"]

    @property
    def kernel_ir(self) -> str:
        return self.artifact.meta["kernel_ir"]

    @property
    def ptx(self) -> str:
        return self.artifact.ptx

    def launcher(self, device: int):
        """A Launcher for these shapes on `device` (checked to be a Hopper GPU by the caller)."""
        from .runtime.launcher import Launcher

        fd = self.fusion
        return Launcher(self.artifact, device, self.launch,
                        [torch_dtype(t.dtype) for t in fd.inputs],
                        [(s, torch_dtype(t.dtype)) for s, t in zip(self.out_shapes, fd.outputs)],
                        [repr(t) for t in fd.inputs], [f"output {t!r}" for t in fd.outputs],
                        self.expanded_inputs)

    def run(self, inputs, out=None):
        """Launch on torch CUDA tensors (checks every call; `fd.execute` caches the launcher)."""
        from .runtime.driver import require_hopper

        fd = self.fusion
        check_inputs(fd, inputs)
        names = [repr(t) for t in fd.inputs] + [f"output {t!r}" for t in fd.outputs]
        device = require_hopper(list(inputs) + list(out or []), names)
        return self.launcher(device)(inputs, out)


def check_inputs(fd: Fusion, inputs) -> list[tuple[tuple[int, ...], object]]:
    """(shape, DataType) per input; an error naming the input for anything the kernels cannot take."""
    if len(inputs) != len(fd.inputs):
        raise FusionError(f"the fusion takes {len(fd.inputs)} inputs, got {len(inputs)}")
    specs = []
    for t, value in zip(fd.inputs, inputs):
        dtype = from_torch(getattr(value, "dtype", None))
        if dtype is None:
            raise FusionError(f"input {t!r}: unsupported value {type(value).__name__} "
                              f"{getattr(value, 'dtype', '')}; expected a torch tensor of float32, "
                              "float16, bfloat16 or bool")
        if getattr(value, "device", None) is not None and value.device.type != "meta" \
                and value.numel() and not value.is_contiguous():
            raise FusionError(f"input {t!r}: not contiguous (strides {value.stride()}); TMA needs a dense "
                              "row-major tensor: pass tensor.contiguous()")
        specs.append((tuple(value.shape), dtype))
    return specs


def signature(fd: Fusion, shapes: dict) -> FusionSig:
    ops = frozenset(n.op for n in fd.nodes if n.op != "input")
    return FusionSig(ops, tuple(TensorSig(shapes[t.index], t.dtype) for t in fd.inputs),
                     tuple(TensorSig(shapes[t.index], t.dtype) for t in fd.outputs))


def compile_fusion(fd: Fusion, inputs, options: TargetOptions | None = None) -> CompiledFusion:
    target = options or TargetOptions()
    if not fd.outputs:
        raise FusionError("a fusion needs at least one output (fd.add_output)")
    shapes = bind_shapes(fd, check_inputs(fd, inputs))
    sig = signature(fd, shapes)
    scheduler = pick(sig)
    params = scheduler.heuristic(sig)
    key = artifacts.cache_key(scheduler.name, canonical(fd), scheduler.encode(params), vars(target))
    art = artifacts.get_or_build(key, lambda: _build(fd, scheduler, params, target, key),
                                 f"{scheduler.name} fusion {canonical(fd)[:80]}...")
    out_shapes = tuple(shapes[t.index] for t in fd.outputs)
    expanded = tuple(j for j, t in enumerate(fd.inputs) if shapes[t.index] != out_shapes[0])
    return CompiledFusion(fd, scheduler, params, art, scheduler.launch(params, out_shapes[0]), out_shapes,
                          expanded)


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
        ptx = compile_to_ptx(module, target)[KERNEL_MODULE]
    cubin = ptxas.assemble(ptx, target.arch).cubin if ptxas.find_ptxas() else None
    meta = {"entry": scheduler.name, **scheduler.meta(params), "fusion_ir": text, "kernel_ir": kernel_ir}
    return artifacts.Artifact(key, ptx, cubin, meta)
