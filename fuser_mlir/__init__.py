"""fuser_mlir: a fusion compiler for NVIDIA Hopper (sm_90a) on the MLIR Python bindings.

Importing this package never imports MLIR (the GPU machine has no MLIR bindings): modules that
build IR import it when they are used.

The flow, one way: `frontend` (recording, fusion dialect text) -> `schedulers` (kernel IR, with
the shared builders of `kernel`) -> `passes` (derived syncs, lowering) -> `backend` (PTX, cubin)
-> `runtime` (artifacts, launches).  `api` and `compiler` tie them together.
"""
__version__ = "0.1.0"

from .api import FusionDefinition  # noqa: E402  (no MLIR behind these)
from .diagnostics import FusionError  # noqa: E402
from .frontend.dtypes import DataType  # noqa: E402

__all__ = ["DataType", "FusionDefinition", "FusionError"]
