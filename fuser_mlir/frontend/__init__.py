"""The frontend: recording a fusion in Python (no MLIR) and writing it as fusion-dialect IR."""
