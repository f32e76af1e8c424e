"""The runtime: artifacts and their cache, the CUDA driver, prepared launches.  Imports no MLIR."""
