"""fuser_mlir: a fusion compiler for NVIDIA Hopper (sm_90a) on the MLIR Python bindings.

Importing this package never imports MLIR (the GPU machine has no MLIR bindings): modules that
build IR import it when they are used.

The flow, one way: `frontend` (recording, fusion dialect text) -> `schedulers` (kernel IR, with
the shared builders of `kernel`) -> `passes` (derived syncs, lowering) -> `backend` (PTX, cubin)
-> `runtime` (artifacts, launches).  `api` and `compiler` tie them together.
"""
from importlib.util import find_spec as _find_spec

# dialects/, passes/ and tools/ become fuser_mlir.dialects/.passes/.tools only when installed
# (pyproject's package-dir).  With a regular `pip install .`, a script run in the repository
# root imports this raw source folder instead, which lacks them: say so now, not at first use.
if _find_spec(__name__ + ".dialects") is None:
    raise ImportError(
        f"fuser_mlir: you are importing the source tree at {__path__[0]}, which lacks "
        "fuser_mlir.dialects/.passes/.tools (pip maps them in from dialects/, passes/, tools/); "
        "run from another folder to use the installed package, or `pip install -e .`")

__version__ = "0.1.0"

from .api import FusionDefinition  # noqa: E402  (no MLIR behind these)
from .diagnostics import FusionError  # noqa: E402
from .frontend.dtypes import DataType  # noqa: E402

__all__ = ["DataType", "FusionDefinition", "FusionError"]
