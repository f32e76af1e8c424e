"""fuser_mlir: a fusion compiler for NVIDIA Hopper (sm_90a) on the MLIR Python bindings.

Importing this package never imports MLIR (the GPU machine has no MLIR bindings): modules that
build IR import it when they are used.
"""
__version__ = "0.1.0"
