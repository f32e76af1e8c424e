"""fuser_mlir: a fusion compiler for NVIDIA Hopper (sm_90a) on the MLIR Python bindings.

Importing this package never imports MLIR (the GPU machine has no MLIR bindings): modules that
build IR import it when they are used.
"""
__version__ = "0.1.0"

from .api import DataType, FusionDefinition, FusionError  # noqa: E402  (no MLIR behind these)

__all__ = ["DataType", "FusionDefinition", "FusionError"]
