"""fuser-schedule: turn each fusion func into kernel IR, by the scheduler that takes it.

Rule: every `func.func` marked `fusion.fusion` is replaced by a `gpu.func` kernel of the same
name in the module's `gpu.module @kernels` (created when missing; the module becomes a
`gpu.container_module`).  The func's `fusion.schedule` attribute, when present, names the
scheduler and its decisions, integers and strings (`{scheduler = "pointwise", rank = 2,
box_rows = 32, ...}`, `{scheduler = "pointwise_strided", in_modes = "vector,splat", ...}`; the API
writes it from concrete shapes).  Otherwise the first registered scheduler that takes the fusion
decides with its heuristic on the func's static shapes: a dynamic dim (`?`) is unknown at
compile time and reaches the kernel as a scalar parameter, and so does a rank-0 argument marked
`{fusion.scalar}` (its value).
Contract: in: fusion funcs whose ops verify (run fuser-verify-dialects first); other ops are left
alone.  out: kernel IR with no barrier, fence or wait (the sync passes derive them next).  A
fusion no scheduler takes, or a malformed schedule attribute, is an error at the func.
"""
from __future__ import annotations

import json

from mlir import ir

from ..diagnostics import FusionError
from ..dialects.fusion import FUSION_ATTR, SCALAR_ARG, SCHEDULE_ATTR
from ..frontend.dtypes import DataType
from ..schedulers import FusionSig, MatmulSig, ReduceSig, TensorSig, named, pick

KERNEL_MODULE = "kernels"


def signature(func_op) -> FusionSig:
    """The scheduler's view of a fusion func: its op names and argument/result types."""
    ftype = ir.FunctionType(ir.TypeAttr(func_op.attributes["function_type"]).value)
    ops = frozenset(op.operation.name.partition(".")[2] for op in func_op.regions[0].blocks[0].operations
                    if op.operation.name.startswith("fusion."))
    arg_attrs = list(ir.ArrayAttr(func_op.attributes["arg_attrs"])) if "arg_attrs" in func_op.attributes \
        else [None] * len(ftype.inputs)
    inputs = tuple(_tensor_sig(ty, attrs is not None and SCALAR_ARG in ir.DictAttr(attrs))
                   for ty, attrs in zip(ftype.inputs, arg_attrs))
    body = func_op.regions[0].blocks[0]
    position = {arg: j for j, arg in enumerate(body.arguments)}
    matmuls = tuple(MatmulSig(position.get(op.operands[0]), position.get(op.operands[1]),
                              ir.BoolAttr(op.attributes["transpose_b"]).value)
                    for op in body.operations if op.operation.name == "fusion.matmul")
    reductions = tuple(ReduceSig(_tensor_sig(op.operands[0].type).shape,
                                 tuple(ir.DenseI64ArrayAttr(op.attributes["axes"])),
                                 ir.BoolAttr(op.attributes["keepdim"]).value,
                                 ir.StringAttr(op.attributes["kind"]).value if "kind" in op.attributes else "var")
                       for op in body.operations if op.operation.name in ("fusion.reduce", "fusion.var"))
    return FusionSig(ops, inputs, tuple(_tensor_sig(ty) for ty in ftype.results), matmuls, reductions)


def _tensor_sig(ty, scalar: bool = False) -> TensorSig:
    ty = ir.RankedTensorType(ty)
    dynamic = ir.ShapedType.get_dynamic_size()
    if scalar and ty.rank:
        raise FusionError(f"a {SCALAR_ARG} argument is rank 0, got {ty}")
    return TensorSig(tuple(-1 if d == dynamic else d for d in ty.shape), DataType(str(ty.element_type)),
                     scalar=scalar)


def schedule_of(func_op, sig: FusionSig):
    """(scheduler, params) for a fusion func: from its `fusion.schedule` attribute, else chosen."""
    if SCHEDULE_ATTR not in func_op.attributes:
        scheduler = pick(sig)
        return scheduler, scheduler.heuristic(sig)
    fields = {}
    for entry in ir.DictAttr(func_op.attributes[SCHEDULE_ATTR]):
        attr = entry.attr
        fields[entry.name] = (ir.StringAttr(attr).value if isinstance(attr, ir.StringAttr)
                              else ir.IntegerAttr(attr).value)
    scheduler = named(str(fields.pop("scheduler", "")), sig)
    return scheduler, scheduler.decode(sig, fields)


def schedule_attr(scheduler, params) -> str:
    """The `fusion.schedule` attribute text for these decisions."""
    fields = ", ".join(f"{k} = {json.dumps(v)}" for k, v in scheduler.encode(params).items())
    return f'{{scheduler = "{scheduler.name}", {fields}}}'


def run(module_op, pass_) -> None:
    funcs = [op for op in module_op.regions[0].blocks[0].operations
             if op.operation.name == "func.func" and FUSION_ATTR in op.attributes]
    if not funcs:
        return
    kernels = _kernel_module(module_op)
    failed = False
    for func in funcs:
        try:
            scheduler, params = schedule_of(func, signature(func))
            name = ir.StringAttr(func.attributes["sym_name"]).value
            scheduler.build(func, params, name, ir.InsertionPoint(kernels.regions[0].blocks[0]))
        except (FusionError, ValueError) as exc:
            func.location.emit_error(f"fuser-schedule: {exc}")
            failed = True
            continue
        func.operation.erase()
    if failed:
        pass_.signal_pass_failure()


def _kernel_module(module_op):
    """The module's `gpu.module @kernels`, created at its end when missing."""
    body = module_op.regions[0].blocks[0]
    for op in body.operations:
        if op.operation.name == "gpu.module" and ir.StringAttr(op.attributes["sym_name"]).value == KERNEL_MODULE:
            return op
    module_op.attributes["gpu.container_module"] = ir.UnitAttr.get()
    kernels = ir.Operation.parse(f"gpu.module @{KERNEL_MODULE} {{}}")
    ir.InsertionPoint(body).insert(kernels)
    return kernels
