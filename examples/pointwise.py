"""Compile (and, on a Hopper GPU, run) a pointwise fusion through the Python API.

    python3 examples/pointwise.py            # prints the fusion IR, kernel IR head and PTX head
"""
import torch

from fuser_mlir import DataType, FusionDefinition

with FusionDefinition() as fd:
    x = fd.define_tensor(shape=[-1, -1], dtype=DataType.BFloat16)
    y = fd.define_tensor(shape=[-1, -1], dtype=DataType.BFloat16)
    fd.add_output(fd.ops.mul(fd.ops.relu(x), y))

device = "cuda" if torch.cuda.is_available() else "cpu"
tx = torch.randn(1000, 1024, dtype=torch.bfloat16, device=device)
ty = torch.randn(1000, 1024, dtype=torch.bfloat16, device=device)
compiled = fd.compile([tx, ty])
print(compiled.fusion_ir)
print("\n".join(compiled.kernel_ir.splitlines()[:12]), "\n  ...\n")
print("\n".join(line for line in compiled.ptx.splitlines() if "cp.async.bulk" in line or ".entry" in line))
if device == "cuda":
    out, = fd.execute([tx, ty])
    err = (out.double() - torch.relu(tx.double()) * ty.double()).norm() / (torch.relu(tx.double()) * ty.double()).norm()
    print(f"ran on {torch.cuda.get_device_name()}: relative error {err:.2e}")
