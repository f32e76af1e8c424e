"""The wgmma GPU test's kernels (tests/gpu/wgmma_kernels.mlir) as this machine builds them: the
committed PTX is what `fuser-opt --emit=ptx` makes today (it derives the pipelines and every sync
of kernel IR with pipelined loops: DERIVE_PASSES), ptxas assembles it, the
launch table of tests/gpu/test_wgmma.py matches the kernels, and every wgmma sync is derived in
the order the pipeline needs (lit_tests/pipeline/wgmma_release.mlir checks the rule itself)."""
import importlib.util
import io
import re
from pathlib import Path

from fuser_mlir.backend import ptxas
from fuser_mlir.backend.pipeline import DERIVE_PASSES
from fuser_mlir.tools import fuser_opt

GPU = Path(__file__).parent / "gpu"
KERNEL = GPU / "wgmma_kernels.mlir"
DERIVE = [arg for name in DERIVE_PASSES for arg in ("-p", name)]
REGENERATE = f"fuser-opt tests/gpu/{KERNEL.name} --emit=ptx -o tests/gpu/{KERNEL.with_suffix('.ptx').name}"


def _gpu_test():
    spec = importlib.util.spec_from_file_location("wgmma_gpu_test", GPU / "test_wgmma.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(*argv) -> str:
    out = io.StringIO()
    assert fuser_opt.run([str(KERNEL), *argv], stdout=out) == 0
    return out.getvalue()


def _functions(text: str) -> dict:
    """gpu.func name -> its text (derived kernel IR)."""
    parts = re.split(r"(?m)^\s*gpu\.func @(\w+)", text)[1:]
    return dict(zip(parts[::2], parts[1::2]))


def test_gpu_kernel_ptx_is_up_to_date():
    ptx = _run("--emit=ptx")
    committed = KERNEL.with_suffix(".ptx").read_text()
    assert ptx == committed, f"tests/gpu/{KERNEL.with_suffix('.ptx').name} is stale: run {REGENERATE}"
    ptxas.assemble(committed, "sm_90a")
    for entry in _gpu_test().KERNELS:
        body = committed.split(f".entry {entry}(")[1].split(".entry ")[0]
        assert body.count("wgmma.mma_async.sync.aligned") == 12, entry     # 3 stages x 4 k-steps
        assert ("setmaxnreg" in body) == entry.endswith("_ws"), entry


def test_launch_table_matches_the_kernels():
    """Block size and dynamic smem as the passes derived them (the GPU machine cannot ask)."""
    lowered = _functions(_run(*DERIVE, "-p", "fuser-lower-nvasync"))
    for entry, (dtype, n, block, smem) in _gpu_test().KERNELS.items():
        head = lowered[entry].split("{", 2)[1]
        assert f"fuser.dynamic_smem_bytes = {smem} : i64" in head, (entry, head)
        assert f"gpu.known_block_size = array<i32: {block}, 1, 1>" in head, (entry, head)
        assert f"memref<{n}x64x{dtype}" in lowered[entry], entry


def test_every_stage_waits_for_its_wgmma_before_releasing_it():
    """Per stage: fence, 4 k-steps, commit, wait, then the release -- the CTA barrier before the
    refill (pipelined) or the consumer warp's warp_sync + empty arrive (warp_specialized); no
    flush after the loop (each stage's wait retired its group)."""
    derived = _functions(_run(*DERIVE))
    for entry, text in derived.items():
        names = re.findall(r'"nvasync\.(wgmma\w*|warp_sync|sync_threads|mbarrier_arrive)"', text)
        stage = ["wgmma_fence", *["wgmma"] * 4, "wgmma_commit", "wgmma_wait"]
        release = ["warp_sync", "mbarrier_arrive"] if entry.endswith("_ws") else ["sync_threads"]
        sequence = [x for x in names if x in {*stage, *release}]
        if entry.endswith("_ws"):       # one arrive per producer role (A, B)
            release = release + ["mbarrier_arrive"]
        start = sequence.index("wgmma_fence")        # barriers of the mbarrier init come before
        expected = (stage + release) * 3
        assert sequence[start:start + len(expected)] == expected, (entry, sequence)
        assert not [x for x in sequence[start + len(expected):] if x.startswith("wgmma")], (entry, sequence)
        assert "wait before the empty-barrier arrive" in text if entry.endswith("_ws") else \
            "wait before the barrier that releases them" in text
