"""The pointwise scheduler's two pipeline modes on CPU: `pipelined` (the heuristic's default) and
`warp_specialized` (a producer warpgroup after whole consumer warpgroups), chosen by `schedule=`.
Both compile to PTX that ptxas accepts; the artifact's launch block and dynamic smem are the final
kernel IR's (the pipelining pass grows the block by the producer warpgroup), and the derived syncs
of a warp-specialized kernel are a named barrier over the consumers per stage plus one bar.sync 0
after the init and one before the invalidation."""
import re

import pytest
import torch

from fuser_mlir import DataType, FusionDefinition, FusionError
from fuser_mlir.backend.ptxas import assemble
from fuser_mlir.schedulers import pointwise


pytestmark = pytest.mark.usefixtures("private_cache")


def fusion(dtypes, build, rank=2):
    with FusionDefinition() as fd:
        xs = [fd.define_tensor([-1] * rank, d) for d in dtypes]
        for out in build(fd.ops, *xs):
            fd.add_output(out)
    return fd


def meta(shape, dtype):
    from fuser_mlir.frontend.dtypes import torch_dtype

    return torch.empty(shape, dtype=torch_dtype(dtype), device="meta")


BF16, F32, F16 = DataType.BFloat16, DataType.Float, DataType.Half
# (name, input dtypes, outputs, shape, schedule overrides): 2-D and flat views, 1-4 stages' worth
# of tiles, one and two outputs, 256 and 512 consumer threads.
FUSIONS = [
    ("relu_mul-bf16", (BF16, BF16), lambda o, x, y: [o.mul(o.relu(x), y)], (300, 1000), {}),
    ("gelu-f32-flat", (F32,), lambda o, x: [o.gelu(x)], (4097,), {}),
    ("three-f16-small-tile", (F16, F16, F16), lambda o, x, y, z: [o.add(o.mul(x, y), z)], (129, 333),
     {"stages": 2, "boxes": 8, "box_cols": 256, "box_rows": 1, "rank": 1}),
    ("two-outputs-bf16", (BF16, F32), lambda o, x, y: [o.cast(o.mul(x, y), DataType.Half), o.sigmoid(y)],
     (64, 1024), {"stages": 3, "box_rows": 8, "box_cols": 256}),
]


def compile_mode(name, dtypes, build, shape, extra, mode):
    fd = fusion(dtypes, build, len(shape))
    return fd.compile([meta(shape, d) for d in dtypes],
                      schedule={"scheduler": "pointwise", "mode": mode, **extra})


def smem_end(kernel_ir: str) -> int:
    """The end of the highest smem buffer in the kernel IR text."""
    ends = []
    for offset, dims, elem in re.findall(r'"nvasync.smem_buffer"\(\) \{offset = (\d+) : i64\} : \(\) -> '
                                         r'memref<([0-9x]+)x(\w+), #gpu', kernel_ir):
        size = {"bf16": 2, "f16": 2, "f32": 4, "i64": 8, "i32": 4, "i8": 1, "i1": 1}[elem]
        for d in dims.split("x"):
            size *= int(d)
        ends.append(int(offset) + size)
    return max(ends)


@pytest.mark.parametrize("name, dtypes, build, shape, extra", FUSIONS, ids=[f[0] for f in FUSIONS])
def test_both_modes_compile_with_the_kernel_irs_block_and_smem(name, dtypes, build, shape, extra):
    compiled = {mode: compile_mode(name, dtypes, build, shape, extra, mode) for mode in pointwise.MODES}
    pipelined, ws = compiled["pipelined"], compiled["warp_specialized"]
    assert pipelined.artifact.key != ws.artifact.key
    for mode, c in compiled.items():
        assert c.params.mode == mode
        block = c.artifact.meta["block"]
        consumers = c.params.threads
        assert block == [consumers + (128 if mode == "warp_specialized" else 0), 1, 1]
        assert f".reqntid {block[0]}, 1, 1" in c.ptx
        assert c.artifact.meta["dynamic_smem"] == smem_end(c.kernel_ir) == c.params.smem_bytes
        assert assemble(c.ptx).cubin
    # The same tiles; warp specialization adds a producer warpgroup and an `empty` barrier array.
    assert ws.params.threads % 128 == 0
    assert ws.artifact.meta["dynamic_smem"] > pipelined.artifact.meta["dynamic_smem"]
    assert "warp_role" not in pipelined.kernel_ir and "named_barrier" not in pipelined.kernel_ir
    kir = ws.kernel_ir
    consumers = ws.params.threads
    assert kir.count('"nvasync.warp_role"') == 2
    assert f"first_warp = {consumers // 32} : i32, num_warps = 4 : i32" in kir
    assert f"first_warp = 0 : i32, num_warps = {consumers // 32} : i32" in kir
    # Per stage one named barrier over the consumers; bar.sync 0 only after init and before inval.
    named = re.findall(r'"nvasync.named_barrier"\(\) \{[^}]*id = (\d+) : i32, threads = (\d+) : i32', kir)
    assert named == [("1", str(consumers))] * ws.params.stages
    syncs = re.findall(r'"nvasync.sync_threads"\(\) \{fuser.derived = "(\w+): ([^"]*)"', kir)
    assert syncs == [("RAW", "nvasync.mbarrier_init -> nvasync.mbarrier_try_wait_parity"),
                     ("WAR", "nvasync.mbarrier_try_wait_parity -> nvasync.mbarrier_inval")]
    assert "setmaxnreg" not in kir               # no register budgets unless asked for


def test_the_artifact_takes_block_and_smem_from_the_kernel_not_the_schedule(monkeypatch):
    """A scheduler's estimates are overridden by what the passes left in the kernel."""
    estimate = pointwise.SCHEDULER.meta
    monkeypatch.setattr(pointwise.SCHEDULER, "meta", lambda p: {**estimate(p), "block": [1, 1, 1],
                                                                 "dynamic_smem": 0})
    name, dtypes, build, shape, extra = FUSIONS[0]
    c = compile_mode(name, dtypes, build, shape, extra, "warp_specialized")
    assert c.artifact.meta["block"] == [c.params.threads + 128, 1, 1]
    assert c.artifact.meta["dynamic_smem"] == smem_end(c.kernel_ir) > 0


def test_register_budgets_become_setmaxnreg():
    c = compile_mode("regs", (F32,), lambda o, x: [o.exp(x)], (1000, 1024),
                     {"stages": 2, "box_rows": 8, "box_cols": 256}, "warp_specialized")
    assert c.params.threads == 256
    c = fusion((F32,), lambda o, x: [o.exp(x)]).compile(
        [meta((1000, 1024), F32)], schedule={"scheduler": "pointwise", "mode": "warp_specialized", "stages": 2,
                                             "box_rows": 8, "box_cols": 256, "producer_regs": 40,
                                             "consumer_regs": 232})
    assert '"nvasync.setmaxnreg"() {action = "dec", regs = 40 : i32}' in c.kernel_ir
    assert '"nvasync.setmaxnreg"() {action = "inc", regs = 232 : i32}' in c.kernel_ir
    assert re.search(r"setmaxnreg.dec.sync.aligned.u32\s+40;", c.ptx)
    assert re.search(r"setmaxnreg.inc.sync.aligned.u32\s+232;", c.ptx)
    assert assemble(c.ptx).cubin


def test_heuristic_mode_and_encoding():
    fd = fusion((BF16, BF16), lambda o, x, y: [o.mul(x, y)])
    sig_inputs = [meta((300, 1000), BF16)] * 2
    from fuser_mlir.compiler import choose, input_signature

    sig = input_signature(fd, sig_inputs)
    _, params = choose(sig, {"scheduler": "pointwise"})
    assert params.mode == pointwise.DEFAULT_MODE
    fields = pointwise.SCHEDULER.encode(params)
    assert fields["mode"] == params.mode and fields["producer_regs"] == fields["consumer_regs"] == 0
    ws = pointwise.SCHEDULER.decode(sig, {**fields, "mode": "warp_specialized"})
    assert ws.mode == "warp_specialized" and ws.threads % 128 == 0 and ws.block_threads == ws.threads + 128
    # A schedule attribute without mode (older fusion files) means the pipelined mode.
    legacy = {k: v for k, v in fields.items() if k not in ("mode", "producer_regs", "consumer_regs")}
    assert pointwise.SCHEDULER.decode(sig, legacy).mode == "pipelined"


def test_warp_specialized_consumers_are_whole_warpgroups():
    small = pointwise.PointwiseSchedule(("f32",), ("f32",), 1, 1, 256, 1, 2, mode="warp_specialized")
    assert small.tile_elems // small.vector == 32 and small.threads == 128     # not 32
    assert pointwise.PointwiseSchedule(("f32",), ("f32",), 1, 1, 256, 1, 2).threads == 32
    odd = pointwise.PointwiseSchedule(("f32",), ("f32",), 2, 12, 256, 1, 2, mode="warp_specialized")
    assert odd.threads == 384 and odd.block_threads == 512


@pytest.mark.parametrize("fields, message", [
    ({"mode": "async"}, "mode must be one of pipelined, warp_specialized"),
    ({"mode": "warp_specialized", "producer_regs": 40}, "give both producer_regs and consumer_regs"),
    ({"producer_regs": 40, "consumer_regs": 232}, "register budgets need mode 'warp_specialized'"),
    ({"mode": "warp_specialized", "producer_regs": 44, "consumer_regs": 232}, "multiples of 8 in"),
    ({"mode": "warp_specialized", "producer_regs": 40, "consumer_regs": 256, "box_rows": 16},
     "exceed the SM's 65536"),
])
def test_invalid_mode_fields_are_named(fields, message):
    fd = fusion((BF16,), lambda o, x: [o.neg(x)])
    with pytest.raises(FusionError, match=re.escape(message)):
        fd.compile([meta((300, 1024), BF16)],
                   schedule={"scheduler": "pointwise", "rank": 2, "box_rows": 8, "box_cols": 256, "boxes": 1,
                             "stages": 2, **fields})
