"""The user's API: record a fusion, then compile or execute it.

    with FusionDefinition() as fd:
        x = fd.define_tensor(shape=[-1, -1], dtype=DataType.BFloat16)
        y = fd.define_tensor(shape=[-1, -1], dtype=DataType.BFloat16)
        fd.add_output(fd.ops.mul(fd.ops.relu(x), y))
    out, = fd.execute([tx, ty])

`execute` keeps one prepared launch per input signature (`signature_key`): a repeated call costs
a check of the signature (the most recent launch's, else a dictionary lookup), the output
allocation, the address writes (re-encoding only descriptors whose tensor moved) and one driver
launch -- in C++ where the launch's parameters allow it (runtime/fastpath.py).  Anything new goes
through `compile` and its checks first.

Schedulers.  Pointwise fusions run the strided scheduler ("pointwise_strided": direct
vector/scalar global loads, any broadcast, stride or alignment), which measured faster than the
TMA pipelines ("pointwise": dense, 16-byte aligned tensors of the output's shape) on dense tensors
too.  `schedule=` picks one and may override its decisions, e.g. to compare both on the same
tensors:

    fd.execute(inputs, schedule={"scheduler": "pointwise", "mode": "warp_specialized"})
    fd.execute(inputs, schedule={"scheduler": "pointwise_strided", "unroll": 2, "persistent": 1})
    fd.compile(inputs, schedule={"scheduler": "pointwise", "stages": 2}).params

The decisions a scheduler takes are its `encode(params)` fields (`fd.compile(...).params`); a
scheduler that cannot take the inputs is an error naming why.
"""
from __future__ import annotations

from .compiler import CompiledFusion, compile_fusion, device_of
from .frontend.definition import Fusion
from .runtime.signature import SignatureGuard, signature_key  # noqa: F401 -- signature_key: part of the API


class FusionDefinition(Fusion):
    def __init__(self):
        super().__init__()
        self._launchers = {}
        self._recent = None       # the launcher of the last keyed call without options or schedule

    def compile(self, inputs, options=None, schedule: dict | None = None) -> CompiledFusion:
        """Compile for these inputs' signature: shapes, dtypes, strides and data-pointer alignment
        (CPU or meta tensors are fine; a meta tensor's alignment is its storage offset's).
        `schedule`: {"scheduler": name, decision: value, ...} (module docstring)."""
        return compile_fusion(self, inputs, options, schedule)

    def execute(self, inputs, options=None, out=None, schedule: dict | None = None):
        """Compile (cached) and run on torch CUDA tensors; returns the output tensors (written
        into `out` when given; contiguous).  `schedule` as for `compile`."""
        recent = self._recent
        if recent is not None and options is None and schedule is None:
            outputs = recent.cached(inputs, out)
            if outputs is not None:
                return outputs
        try:
            key = signature_key(inputs)
            if schedule is not None:
                key = (key, tuple(sorted(schedule.items())))
            launcher = self._launchers.get(key) if options is None else None
        except (AttributeError, TypeError):   # not tensors, or not hashable: the checks below say what is wrong
            key = launcher = None
        if launcher is None:
            compiled = compile_fusion(self, inputs, options, schedule)
            launcher = compiled.launcher(device_of(self, inputs, out), inputs)
            if key is not None and options is None:
                self._launchers[key] = launcher
        if options is None and schedule is None:
            if launcher is recent:     # the key matches what its guard turned down: grad mode or
                launcher.guard = SignatureGuard.of(inputs)    # exact strides changed; guard those
            if launcher.guard is not None or launcher.fast is not None:
                self._recent = launcher
        # The key matched, so the C++ call takes it unless the device or a split-K stream binding
        # differs (schedule= calls: the key costs ~2 us, the Python launch ~8 more).
        outputs = launcher.fast(inputs, out) if launcher.fast is not None else None
        return launcher(inputs, out) if outputs is None else outputs
