"""The NVPTX backend step (LLVM dialect -> PTX), isolated in a child process.

LLVM here is built with assertions: an intrinsic the target cannot select ends the process with
"LLVM ERROR: Cannot select ...".  A compiler must not kill its user's Python process, so
`serialize` runs `gpu-module-to-binary{format=isa}` in `python -m fuser_mlir.backend.nvptx` and turns
a crash into a located CompileError that quotes LLVM's message.

Protocol: the parent writes JSON {"ir": text, "target": {...}} to stdin; the child answers JSON
{"ptx": {module: text}} or {"diagnostics": [...]} on stdout.
"""
from __future__ import annotations

import json
import subprocess
import sys

from ..diagnostics import CompileError, Diagnostic
from .target import TargetOptions


def serialize(llvm_ir: str, target: TargetOptions, where=("", 0, 0)) -> dict[str, str]:
    """PTX per gpu.module of `llvm_ir`; `where` (file, line, col) locates a backend crash."""
    request = json.dumps({"ir": llvm_ir, "target": vars(target)})
    proc = subprocess.run([sys.executable, "-m", "fuser_mlir.backend.nvptx"], input=request,
                          capture_output=True, text=True)
    if proc.returncode == 0:
        answer = json.loads(proc.stdout)
        if "ptx" in answer:
            return answer["ptx"]
        raise CompileError([Diagnostic.from_json(d) for d in answer["diagnostics"]])
    llvm_lines = [line for line in proc.stderr.splitlines() if "LLVM ERROR" in line or "error" in line.lower()]
    reason = "; ".join(llvm_lines[-3:]) or proc.stderr.strip()[-500:] or f"exit status {proc.returncode}"
    raise CompileError([Diagnostic("error", f"the NVPTX backend failed on this kernel module "
                                            f"({reason})", *where)])


def _child_main() -> int:
    from mlir import ir, passmanager
    from mlir.dialects import gpu

    from ..diagnostics import from_mlir_error

    request = json.loads(sys.stdin.read())
    with ir.Context() as ctx, ir.Location.unknown():
        ctx.allow_unregistered_dialects = False
        try:
            module = ir.Module.parse(request["ir"])
            passmanager.PassManager.parse("builtin.module(gpu-module-to-binary{format=isa})").run(module.operation)
        except ir.MLIRError as exc:
            answer = {"diagnostics": [d.to_json() for d in from_mlir_error(exc).diagnostics]}
        else:
            answer = {"ptx": {}}
            for op in module.body.operations:
                if op.operation.name == "gpu.binary":
                    name = op.operation.attributes["sym_name"].value
                    obj = gpu.ObjectAttr(op.operation.attributes["objects"][0])
                    answer["ptx"][name] = obj.object.decode()
    sys.stdout.write(json.dumps(answer))
    return 0


if __name__ == "__main__":
    sys.exit(_child_main())
