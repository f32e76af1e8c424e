"""Target options for the NVPTX backend, validated before MLIR or LLVM sees them.

LLVM (built with assertions) aborts the process on some bad combinations, e.g. sm_90a with a
PTX version below 8.0, so options are checked here and rejected with a clear message.

`deadlock_guard_ms` (debug builds): N > 0 bounds every mbarrier wait to N milliseconds of
%globaltimer; a thread still waiting then prints the kernel, the barrier, the parity, its warp
role, block and thread, and traps (fuser-lower-nvasync).  0 (the default) keeps the plain wait
loop.  Left unset it comes from the environment variable FUSER_MLIR_DEADLOCK_GUARD_MS (fuser-opt:
--deadlock-guard-ms=N).  The options are part of the artifact cache key, so a guarded kernel and
a plain one never stand in for each other.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass

from ..diagnostics import error

SUPPORTED_CHIPS = ("sm_90a",)           # wgmma and setmaxnreg exist only on sm_90a
PTX_VERSIONS = range(80, 89)             # +ptx80 .. +ptx88 (sm_90a needs at least 8.0)
DEADLOCK_GUARD_ENV = "FUSER_MLIR_DEADLOCK_GUARD_MS"
MAX_DEADLOCK_GUARD_MS = 24 * 3600 * 1000  # a day: the bound in ns stays far inside an i64


@dataclass(frozen=True)
class TargetOptions:
    chip: str = "sm_90a"
    features: str = "+ptx80"
    opt_level: int = 3
    deadlock_guard_ms: int | None = None      # None: from FUSER_MLIR_DEADLOCK_GUARD_MS (else 0)

    def __post_init__(self):
        if self.deadlock_guard_ms is None:
            text = os.environ.get(DEADLOCK_GUARD_ENV, "").strip() or "0"
            if not text.isdigit():
                raise error(f"{DEADLOCK_GUARD_ENV}={text!r}: expected a number of milliseconds (0: off)")
            object.__setattr__(self, "deadlock_guard_ms", int(text))
        if not isinstance(self.deadlock_guard_ms, int) or not 0 <= self.deadlock_guard_ms <= MAX_DEADLOCK_GUARD_MS:
            raise error(f"unsupported deadlock guard {self.deadlock_guard_ms!r} ms: expected 0 (off) to "
                        f"{MAX_DEADLOCK_GUARD_MS} milliseconds")
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
