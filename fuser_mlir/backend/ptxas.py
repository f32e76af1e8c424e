"""Find and run ptxas: the check that PTX we emit assembles for sm_90a (and the cubin, when wanted).

ptxas comes from PATH or from the `nvidia-cuda-nvcc` wheel.  Warnings that flag real problems
(setmaxnreg ignored, warpgroup serialization) are errors here, except those a caller expects.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass

from ..diagnostics import error

FATAL_WARNINGS = ("setmaxnreg' ignored", "warpgroup", "C7508", "C7510")
WGMMA_ACROSS_CALL = "C7510"     # wgmma serialized: its pipeline crosses a function call


def find_ptxas() -> str | None:
    found = shutil.which("ptxas")
    if found:
        return found
    try:
        import nvidia.cuda_nvcc as wheel   # the nvidia-cuda-nvcc wheel, when installed
    except ImportError:
        return None
    for base in getattr(wheel, "__path__", []):
        candidate = os.path.join(base, "bin", "ptxas")
        if os.access(candidate, os.X_OK):
            return candidate
    return None


@dataclass(frozen=True)
class Assembled:
    cubin: bytes
    log: str          # ptxas -v output: registers, spills, shared memory


def assemble(ptx: str, arch: str = "sm_90a", expected: tuple[str, ...] = ()) -> Assembled:
    """Assemble `ptx` with `ptxas -arch=<arch> -v`; a failure or a fatal warning (other than the
    `expected` ones) raises."""
    ptxas = find_ptxas()
    if ptxas is None:
        raise error("ptxas not found: put CUDA's ptxas on PATH or install the nvidia-cuda-nvcc wheel")
    with tempfile.TemporaryDirectory() as tmp:
        src, out = os.path.join(tmp, "k.ptx"), os.path.join(tmp, "k.cubin")
        with open(src, "w") as f:
            f.write(ptx)
        proc = subprocess.run([ptxas, f"-arch={arch}", "-v", src, "-o", out], capture_output=True, text=True)
        log = proc.stdout + proc.stderr
        if proc.returncode != 0:
            raise error(f"ptxas rejected the PTX:\n{log.strip()}")
        fatal = [w for w in FATAL_WARNINGS if w not in expected]
        bad = [line for line in log.splitlines() if any(w in line for w in fatal)]
        if bad:
            raise error("ptxas warned about a real problem:\n" + "\n".join(bad))
        with open(out, "rb") as f:
            return Assembled(f.read(), log)
