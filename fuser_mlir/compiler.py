"""The compile driver: FusionDefinition + example inputs -> schedule -> artifact -> launches.

    definition --(fusion_ir)--> fusion dialect      (what `compiled.fusion_ir` shows)
    definition + shapes --(schedule)--> PointwiseSchedule   (plain Python, also on the GPU machine)
    schedule --(pointwise_kernel)--> kernel IR (gpu + nvasync) --(pipeline)--> PTX --(ptxas)--> cubin

Artifacts are cached by (canonical definition, schedule, target, version); with
FUSER_MLIR_OFFLINE=1 nothing is compiled and MLIR is never imported.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from . import artifact as artifacts
from .api import DataType, FusionDefinition, FusionError
from .fusion_ir import canonical, fusion_ir
from .schedule import InputSpec, PointwiseSchedule, bind_shapes, choose_schedule, view_2d
from .target import TargetOptions

_TORCH_DTYPES = {"float32": DataType.Float, "float16": DataType.Half, "bfloat16": DataType.BFloat16,
                 "bool": DataType.Bool}


@dataclass
class CompiledFusion:
    definition: FusionDefinition
    schedule: PointwiseSchedule
    artifact: artifacts.Artifact
    out_shape: tuple[int, ...]
    expanded_inputs: tuple[bool, ...]      # inputs broadcast to the output shape on the host

    @property
    def fusion_ir(self) -> str:
        return self.artifact.meta["fusion_ir"]

    @property
    def kernel_ir(self) -> str:
        return self.artifact.meta["kernel_ir"]

    @property
    def ptx(self) -> str:
        return self.artifact.ptx

    def run(self, inputs, out=None):
        import torch

        from . import runtime

        if out is None:
            out = [torch.empty(self.out_shape, dtype=torch_dtype(DataType(d)), device=inputs[0].device)
                   for d in self.schedule.out_dtypes]
        if len(out) != len(self.definition.outputs):
            raise FusionError(f"the fusion has {len(self.definition.outputs)} outputs, out= gave {len(out)}")
        for o, t, d in zip(out, self.definition.outputs, self.schedule.out_dtypes):
            if tuple(o.shape) != self.out_shape or o.dtype != torch_dtype(DataType(d)):
                raise FusionError(f"output for {t!r} must be {list(self.out_shape)} {DataType(d).name}, "
                                  f"got {list(o.shape)} {o.dtype}")
        names = [repr(t) for t in self.definition.inputs] + [f"output {t!r}" for t in self.definition.outputs]
        device = runtime.require_hopper(list(inputs) + list(out), names)
        kernel_inputs = [t.expand(self.out_shape).contiguous() if expand else t
                         for t, expand in zip(inputs, self.expanded_inputs)]
        view = view_2d(self.out_shape, self.schedule.in_dtypes + self.schedule.out_dtypes)
        tiles = _tile_count(self.schedule, view)
        runtime.launch(self.artifact, device, kernel_inputs + list(out), names, view, tiles)
        return list(out)


def torch_dtype(dtype: DataType):
    import torch

    return {DataType.Float: torch.float32, DataType.Half: torch.float16,
            DataType.BFloat16: torch.bfloat16, DataType.Bool: torch.bool}[dtype]


def _tile_count(schedule: PointwiseSchedule, view) -> int:
    if schedule.rank == 2:
        return math.ceil(view[0] / schedule.box_rows) * math.ceil(view[1] / (schedule.box_cols * schedule.boxes))
    return math.ceil(view[0] / (schedule.box_cols * schedule.boxes))


def input_specs(fd: FusionDefinition, inputs) -> list[InputSpec]:
    specs = []
    for t, value in zip(fd.inputs, inputs):
        dtype = _TORCH_DTYPES.get(str(getattr(value, "dtype", "")).removeprefix("torch."))
        if dtype is None:
            raise FusionError(f"input {t!r}: unsupported value {type(value).__name__} "
                              f"{getattr(value, 'dtype', '')}; expected a torch tensor of float32, "
                              "float16, bfloat16 or bool")
        specs.append(InputSpec(tuple(value.shape), dtype))
    return specs


def compile_fusion(fd: FusionDefinition, inputs, options: TargetOptions | None = None) -> CompiledFusion:
    target = options or TargetOptions()
    if not fd.outputs:
        raise FusionError("a fusion needs at least one output (fd.add_output)")
    shapes = bind_shapes(fd, input_specs(fd, inputs))
    out_shapes = {shapes[t.index] for t in fd.outputs}
    if len(out_shapes) > 1:
        listed = ", ".join(f"{t!r} -> {list(shapes[t.index])}" for t in fd.outputs)
        raise FusionError(f"the pointwise scheduler needs all outputs in one shape; got {listed}")
    out_shape = out_shapes.pop()
    in_dtypes = tuple(t.dtype.value for t in fd.inputs)
    out_dtypes = tuple(t.dtype.value for t in fd.outputs)
    schedule = choose_schedule(in_dtypes, out_dtypes, view_2d(out_shape, in_dtypes + out_dtypes))
    key = artifacts.cache_key("pointwise", canonical(fd), schedule.to_json(), vars(target))
    art = artifacts.get_or_build(key, lambda: _build(fd, schedule, target, key),
                                 f"pointwise fusion {canonical(fd)[:80]}...")
    expanded = tuple(shapes[t.index] != out_shape for t in fd.inputs)
    return CompiledFusion(fd, schedule, art, out_shape, expanded)


def _build(fd: FusionDefinition, schedule: PointwiseSchedule, target: TargetOptions, key: str):
    from mlir import ir

    from . import ptxas
    from .dialects import new_context
    from .pipeline import SYNC_PASSES, PassPipeline, compile_to_ptx
    from .pointwise_kernel import KERNEL_NAME, MODULE_NAME, build_kernel_module

    with new_context(), ir.Location.unknown():
        module = build_kernel_module(fd, schedule)
        PassPipeline(["fuser-verify-dialects", *SYNC_PASSES]).run(module)
        kernel_ir = str(module)
        ptx = compile_to_ptx(module, target)[MODULE_NAME]
    cubin = ptxas.assemble(ptx, target.arch).cubin if ptxas.find_ptxas() else None
    n_in = len(schedule.in_dtypes)
    params = [{"kind": "tensormap", "tensor": f"input{j}" if j < n_in else f"output{j - n_in}",
               "dtype": d, "box": schedule.box_shape}
              for j, d in enumerate(schedule.in_dtypes + schedule.out_dtypes)]
    params += [{"kind": "scalar", "type": "i32", "value": name}
               for name in (("rows", "cols") if schedule.rank == 2 else ("elements",))]
    meta = {"entry": KERNEL_NAME, "params": params, "block": [schedule.threads, 1, 1],
            "grid": "persistent: min(tiles, SMs x resident CTAs per SM)",
            "dynamic_smem": schedule.smem_bytes, "schedule": schedule.to_json(),
            "fusion_ir": fusion_ir(fd), "kernel_ir": kernel_ir}
    return artifacts.Artifact(key, ptx, cubin, meta)


def execute_fusion(fd: FusionDefinition, inputs, options=None, out=None):
    return compile_fusion(fd, inputs, options).run(inputs, out)
