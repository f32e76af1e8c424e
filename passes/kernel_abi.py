"""fuser-kernel-abi: give lowered kernels the ABI the runtime launches (tensor maps by value, smem).

Rule
  * every argument listed in `fuser.tensormap_args` is a TMA descriptor passed by value:
    `llvm.byval = !llvm.array<128 x i8>`, `llvm.align = 64`, `nvvm.grid_constant`
    (PTX: `.param .align 64 .b8 name[128]`).  gpu.func cannot carry these argument attributes and
    convert-gpu-to-nvvm drops `llvm.byval`, hence this pass after it;
  * the dynamic shared memory global becomes `.extern .shared .align 1024` (128-B swizzled TMA
    boxes need 1024-B alignment; the upstream lowering leaves a demoted, 16-B aligned variable);
  * a kernel with `gpu.known_block_size` gets `nvvm.reqntid` and `nvvm.minctasm` (1 unless the
    kernel IR asks for more CTAs per SM), so ptxas knows the register cap at entry that
    `setmaxnreg` needs.  Its `nvvm.maxntid` (which convert-gpu-to-nvvm derives from gpu.func's
    `known_block_size`) is removed: ptxas rejects `.maxntid` next to `.reqntid`, and the exact
    size already bounds it.

Contract
  in:  a module after convert-gpu-to-nvvm (llvm.func kernels inside gpu.module).
  out: the same module with the attributes above; nothing else changes.
"""
from __future__ import annotations

from mlir import ir

from .lower_nvasync import TENSORMAP_ARGS

TENSORMAP_BYTES = 128
TENSORMAP_ALIGN = 64
SMEM_ALIGN = 1024


def run(module_op, pass_) -> None:
    def visit(op):
        if op.name == "llvm.func":
            _kernel_abi(op)
        elif op.name == "llvm.mlir.global" and op.attributes["sym_name"].value.startswith("__dynamic_shmem__"):
            op.attributes["linkage"] = ir.Attribute.parse("#llvm.linkage<external>")
            op.attributes["alignment"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), SMEM_ALIGN)
        return ir.WalkResult.ADVANCE

    module_op.walk(visit)


def _kernel_abi(func) -> None:
    attrs = func.attributes
    if TENSORMAP_ARGS in attrs:
        n_args = len(func.regions[0].blocks[0].arguments)
        arg_attrs = [{d[i].name: d[i].attr for i in range(len(d))} for d in map(ir.DictAttr, attrs["arg_attrs"])] \
            if "arg_attrs" in attrs else [{} for _ in range(n_args)]
        for index in ir.DenseI32ArrayAttr(attrs[TENSORMAP_ARGS]):
            arg_attrs[index].update({
                "llvm.byval": ir.TypeAttr.get(ir.Type.parse(f"!llvm.array<{TENSORMAP_BYTES} x i8>")),
                "llvm.align": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), TENSORMAP_ALIGN),
                "nvvm.grid_constant": ir.UnitAttr.get(),
            })
        attrs["arg_attrs"] = ir.ArrayAttr.get([ir.DictAttr.get(d) for d in arg_attrs])
    if "gpu.known_block_size" in attrs:
        attrs["nvvm.reqntid"] = ir.DenseI32ArrayAttr.get(list(ir.DenseI32ArrayAttr(attrs["gpu.known_block_size"])))
        if "nvvm.minctasm" not in attrs:
            attrs["nvvm.minctasm"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 1)
        if "nvvm.maxntid" in attrs:
            del attrs["nvvm.maxntid"]
