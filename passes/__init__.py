"""The project's passes, by the name fuser-opt and the compile driver use.

Each is a module-level pass `run(module_op, pass_)` whose module docstring states its rule and
IR contract.  Upstream textual pipelines cannot name Python passes, so the driver resolves these
names itself (fuser_mlir.backend.pipeline).
"""
from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module


@dataclass(frozen=True)
class PassInfo:
    name: str
    module: str       # module in this package defining `run`

    @property
    def run(self):
        return import_module(f"{__name__}.{self.module}").run

    @property
    def summary(self) -> str:
        doc = import_module(f"{__name__}.{self.module}").__doc__ or ""
        return doc.strip().splitlines()[0].split(":", 1)[-1].strip()


PASSES = {p.name: p for p in (
    PassInfo("fuser-verify-dialects", "verify_dialects"),
    PassInfo("fuser-schedule", "schedule"),
    PassInfo("fuser-tma-reduce-store", "tma_reduce_store"),
    PassInfo("fuser-pipeline-mbarriers", "pipeline_mbarriers"),
    PassInfo("fuser-grid-dependency", "grid_dependency"),
    PassInfo("fuser-insert-syncs", "insert_syncs"),
    PassInfo("fuser-insert-proxy-fences", "insert_proxy_fences"),
    PassInfo("fuser-flush-wgmma", "flush_wgmma"),
    PassInfo("fuser-verify-syncs", "verify_syncs"),
    PassInfo("fuser-verify-pipelines", "verify_pipelines"),
    PassInfo("fuser-unroll-loops", "unroll_loops"),
    PassInfo("fuser-lower-nvasync", "lower_nvasync"),
    PassInfo("fuser-kernel-abi", "kernel_abi"),
)}
