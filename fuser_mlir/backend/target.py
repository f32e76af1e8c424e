"""Target options for the NVPTX backend, validated before MLIR or LLVM sees them.

LLVM (built with assertions) aborts the process on some bad combinations, e.g. sm_90a with a
PTX version below 8.0, so options are checked here and rejected with a clear message.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass

from ..diagnostics import error

SUPPORTED_CHIPS = ("sm_90a",)           # wgmma and setmaxnreg exist only on sm_90a
PTX_VERSIONS = range(80, 89)             # +ptx80 .. +ptx88 (sm_90a needs at least 8.0)


@dataclass(frozen=True)
class TargetOptions:
    chip: str = "sm_90a"
    features: str = "+ptx80"
    opt_level: int = 3

    def __post_init__(self):
        if self.chip not in SUPPORTED_CHIPS:
            raise error(f"unsupported target chip '{self.chip}': fuser_mlir targets Hopper "
                        f"({', '.join(SUPPORTED_CHIPS)}); wgmma and setmaxnreg need sm_90a")
        match = re.fullmatch(r"\+ptx(\d+)", self.features)
        if not match or int(match.group(1)) not in PTX_VERSIONS:
            raise error(f"unsupported target features '{self.features}': expected +ptxNN with "
                        f"NN in {PTX_VERSIONS.start}..{PTX_VERSIONS.stop - 1} (sm_90a needs PTX 8.0+)")
        if self.opt_level not in (0, 1, 2, 3):
            raise error(f"unsupported optimization level {self.opt_level}: expected 0, 1, 2 or 3")

    @property
    def attach_target(self) -> str:
        # libdevice supplies math (exp, tanh, erf, ...) for kernels that use the math dialect.
        libdevice = find_libdevice()
        link = f" l={libdevice}" if libdevice else ""
        return f"nvvm-attach-target{{chip={self.chip} features={self.features} O={self.opt_level}{link}}}"

    @property
    def arch(self) -> str:
        return self.chip


def find_libdevice() -> str | None:
    """libdevice.10.bc from CUDA_HOME/CUDA_PATH, /usr/local/cuda, or the nvidia-cuda-nvcc wheel."""
    roots = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"]
    try:
        import nvidia.cuda_nvcc as wheel

        roots += list(getattr(wheel, "__path__", []))
    except ImportError:
        pass
    for root in filter(None, roots):
        candidate = os.path.join(root, "nvvm", "libdevice", "libdevice.10.bc")
        if os.path.isfile(candidate) and " " not in candidate:   # the pipeline option is unquoted
            return candidate
    return None
