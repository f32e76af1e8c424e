"""The backend: the pass pipeline as a list of stages, the NVPTX step in a child process, ptxas and
target options."""
