"""The user's API: record a fusion, then compile or execute it.

    with FusionDefinition() as fd:
        x = fd.define_tensor(shape=[-1, -1], dtype=DataType.BFloat16)
        y = fd.define_tensor(shape=[-1, -1], dtype=DataType.BFloat16)
        fd.add_output(fd.ops.mul(fd.ops.relu(x), y))
    out, = fd.execute([tx, ty])

`execute` keeps one prepared launch per input signature (shapes, dtypes, contiguity, device):
a repeated call costs a dictionary lookup, the descriptors whose tensor moved, the output
allocation and one driver launch.  Anything new goes through `compile` and its checks first.
"""
from __future__ import annotations

from .compiler import CompiledFusion, compile_fusion
from .frontend.definition import Fusion


class FusionDefinition(Fusion):
    def __init__(self):
        super().__init__()
        self._launchers = {}

    def compile(self, inputs, options=None) -> CompiledFusion:
        """Compile for these inputs' shapes and dtypes (CPU or meta tensors are fine)."""
        return compile_fusion(self, inputs, options)

    def execute(self, inputs, options=None, out=None):
        """Compile (cached) and run on torch CUDA tensors; returns the output tensors (written
        into `out` when given)."""
        try:
            key = tuple([(t.shape, t.dtype, t.get_device(), t.is_contiguous()) for t in inputs])
        except AttributeError:            # not tensors: the checks below say what is wrong
            key = None
        launcher = self._launchers.get(key) if options is None else None
        if launcher is None:
            compiled = compile_fusion(self, inputs, options)
            from .runtime.driver import require_hopper

            names = [repr(t) for t in self.inputs] + [f"output {t!r}" for t in self.outputs]
            launcher = compiled.launcher(require_hopper(list(inputs) + list(out or []), names))
            if key is not None and options is None:
                self._launchers[key] = launcher
        return launcher(inputs, out)
