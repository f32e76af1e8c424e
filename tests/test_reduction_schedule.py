"""Reductions in the API and the fusion dialect (issue: reductions and normalizations): what
fd.ops.sum / max / min / mean / var record, with torch's dims, keepdim, dtypes and errors; the
fusion IR they give verifies; softmax, log-softmax, RMSNorm, LayerNorm and row statistics, as users
write them (tests/gpu/cases.py), compile on the row-reduction scheduler with derived barriers, and
what it cannot take is a named error."""
import re
import sys
from pathlib import Path

import pytest
import torch

from fuser_mlir import DataType, FusionDefinition, FusionError
from fuser_mlir.backend.ptxas import assemble
from fuser_mlir.frontend.dtypes import torch_dtype
from fuser_mlir.frontend.normalizations import softmax
from test_api import verify_text

sys.path.insert(0, str(Path(__file__).parent / "gpu"))
from cases import NORMALIZATIONS, REDUCTION_CASES, normalization, reduction_inputs  # noqa: E402

F32, BF16, I32, BOOL = DataType.Float, DataType.BFloat16, DataType.Int32, DataType.Bool


def recorded(dtype, shape, build):
    """The fusion whose one output is build(fd.ops, x) of an input x of `shape` and `dtype`."""
    with FusionDefinition() as fd:
        x = fd.define_tensor(shape, dtype)
        fd.add_output(build(fd.ops, x))
    return fd


@pytest.mark.parametrize("op, dims, keepdim, shape", [
    ("sum", None, False, ()),
    ("sum", 1, False, (4, 6)),
    ("max", -1, True, (4, 5, 1)),
    ("min", [0, 2], False, (5,)),
    ("mean", (-3, -1), True, (1, 5, 1)),
    ("var", 1, False, (4, 6)),
])
def test_result_shapes_follow_torch(op, dims, keepdim, shape):
    fd = recorded(F32, [4, 5, 6], lambda o, x: getattr(o, op)(x, dims, keepdim=keepdim))
    dim = tuple(range(3)) if dims is None else dims
    expected = getattr(torch, {"max": "amax", "min": "amin"}.get(op, op))(torch.randn(4, 5, 6), dim, keepdim=keepdim)
    assert fd.outputs[0].shape == shape == tuple(expected.shape)
    verify_text(_fusion_ir(fd))


@pytest.mark.parametrize("dtype, torch_dtype", [(I32, torch.int32), (BOOL, torch.bool), (BF16, torch.bfloat16)])
def test_sum_dtypes_follow_torch(dtype, torch_dtype):
    """Integers and Bools sum in Int64 (a cast before the reduce), floats keep their dtype."""
    fd = recorded(dtype, [-1, 8], lambda o, x: o.sum(x, 1))
    expected = torch.sum(torch.ones(2, 8, dtype=torch_dtype), 1).dtype
    assert {torch.int64: DataType.Int64, torch.bfloat16: BF16}[expected] is fd.outputs[0].dtype
    assert [n.op for n in fd.nodes] == ["input"] + (["cast"] if dtype is not BF16 else []) + ["reduce"]
    verify_text(_fusion_ir(fd))


def test_max_and_min_keep_integer_and_bool_dtypes():
    for dtype in (I32, BOOL):
        fd = recorded(dtype, [3, 8], lambda o, x: o.max(x, 0))
        assert fd.outputs[0].dtype is dtype
        verify_text(_fusion_ir(fd))


@pytest.mark.parametrize("build, message", [
    (lambda o, x: o.mean(x, 1), "mean takes floating-point tensors, got in0.*i32.*cast it first"),
    (lambda o, x: o.var(x, 1), "var takes floating-point tensors"),
    (lambda o, x: o.sum(x, 2), r"dims 2 must be ints in \[-2, 2\)"),
    (lambda o, x: o.sum(x, [0, -2]), r"dims \[0, -2\] repeat a dim"),
    (lambda o, x: o.sum(x, []), r"dims \[\] must be ints"),
    (lambda o, x: o.sum(x, 1, keepdim=1), "keepdim must be True or False"),
])
def test_bad_reductions_are_named_errors(build, message):
    with pytest.raises(FusionError, match=message):
        recorded(I32, [3, 8], build)


def test_var_correction_is_checked_and_written():
    with pytest.raises(FusionError, match="correction must be an int >= 0, got -1"):
        recorded(F32, [3, 8], lambda o, x: o.var(x, 1, correction=-1))
    text = _fusion_ir(recorded(F32, [3, 8], lambda o, x: o.var(x, 1, correction=0, keepdim=True)))
    assert '"fusion.var"(%in0) {axes = array<i64: 1>, keepdim = true, correction = 0 : i64}' in text
    verify_text(text)


def test_reducing_a_scalar_is_an_error():
    with pytest.raises(FusionError, match="reduce a tensor of rank 1 or more"):
        with FusionDefinition() as fd:
            fd.add_output(fd.ops.sum(fd.define_scalar(F32)))


def test_cache_key_tells_reductions_apart():
    from fuser_mlir.frontend.fusion_ir import canonical

    keys = {canonical(recorded(F32, [3, 8], build)) for build in (
        lambda o, x: o.sum(x, 1), lambda o, x: o.sum(x, 1, keepdim=True), lambda o, x: o.mean(x, 1),
        lambda o, x: o.var(x, 1), lambda o, x: o.var(x, 1, correction=0), lambda o, x: o.sum(x, 0))}
    assert len(keys) == 6


# --- normalizations as users write them: the row-reduction scheduler ----------------------------
@pytest.mark.parametrize("name", [c[0] for c in REDUCTION_CASES])
def test_gpu_cases_compile_with_one_derived_barrier_per_cross_warp_fold(name):
    """Every GPU case (tests/gpu/test_reductions.py) compiles to PTX that ptxas accepts; its
    fusion IR verifies; fuser-insert-syncs derives one barrier per fold across warps and the
    scheduler writes none."""
    build, shape = next((b, s) for n, b, s in REDUCTION_CASES if n == name)
    fd = build()
    verify_text(_fusion_ir(fd))
    compiled = fd.compile(reduction_inputs(fd, shape, "meta"))
    params = compiled.params
    assert compiled.scheduler.name == "row_reduction"
    assert params.capacity >= shape[1] and shape[1] % params.vector == 0
    # A fold per reduction, var's deviations included; one mean per value averaged (var and mean share it).
    reductions = [n for n in fd.nodes if n.op in ("reduce", "var")]
    averaged = {n.args[0].index for n in reductions if n.op == "var" or n.kind == "mean"}
    folds = sum(n.op == "var" or n.kind != "mean" for n in reductions) + len(averaged)
    barriers = compiled.kernel_ir.count('"nvasync.sync_threads"() {fuser.derived = "RAW: memref.store -> memref.load"}')
    # A row held by one warp folds by shuffles alone: no barrier, no smem; a row over a cluster
    # adds one cluster barrier per fold (the CTAs' totals in each other's smem).
    assert barriers == (folds if params.group > 32 else 0), compiled.kernel_ir
    assert compiled.kernel_ir.count('"nvasync.cluster_sync"() {fuser.derived = "RAW: nvasync.store_peer') == \
        (folds if params.cluster > 1 else 0)
    assert (f".reqnctapercluster {params.cluster}, 1, 1" in compiled.ptx) == (params.cluster > 1)
    assert compiled.artifact.meta["dynamic_smem"] >= (4 * params.threads // 32 if params.group > 32 else 0)
    # The kernel (built from the fusion IR, where N is `?`) stores a row statistic [.., 1] or [..]
    # by one scalar store, a full output by one vector store per unit.
    rows = [t for t in fd.outputs if len(t.shape) == 1 or t.shape[-1] == 1]
    assert params.out_kinds == tuple("row" if t in rows else "full" for t in fd.outputs)
    stores = [line for line in compiled.kernel_ir.splitlines() if "llvm.store" in line]
    assert len(stores) == len(rows) + (len(fd.outputs) - len(rows)) * params.units
    assert sum(f"vector<{params.vector}x" in line for line in stores) == (len(fd.outputs) - len(rows)) * params.units
    assert assemble(compiled.ptx).cubin


@pytest.mark.parametrize("cols, dtype, expected", [
    # (vector, threads, units, rows_per_cta, cluster): rows of 64 threads or fewer side by side in
    # CTAs of 256; rows longer than 512 x 8 units over a cluster
    (1000, BF16, (8, 256, 2, 4, 1)), (2048, BF16, (8, 256, 4, 4, 1)), (1003, F32, (1, 256, 4, 1, 1)),
    (4096, BF16, (8, 128, 4, 1, 1)), (8192, BF16, (8, 256, 4, 1, 1)), (32768, BF16, (8, 512, 8, 1, 1)),
    (65536, BF16, (8, 512, 8, 1, 2)), (100000, BF16, (8, 512, 7, 1, 4)), (262144, BF16, (8, 512, 8, 1, 8)),
    (131072, F32, (4, 512, 8, 1, 8)), (8200, F32, (4, 512, 5, 1, 1)), (1, F32, (1, 256, 1, 8, 1)),
    (256, BF16, (8, 256, 1, 8, 1)),
])
def test_heuristic_holds_a_row_in_at_most_a_few_units_a_thread(cols, dtype, expected):
    fd = normalization(softmax, dtype)
    params = fd.compile([torch.empty(4, cols, dtype=torch_dtype(dtype), device="meta")]).params
    assert (params.vector, params.threads, params.units, params.rows_per_cta, params.cluster) == expected


def test_ctas_per_sm_follows_the_decisions_unless_named():
    """`ctas_per_sm` is the rule's for the schedule's threads and units (a 16K row: 2; with 256
    threads x 8 units: 1), a named one is compiled as named, and one past 2048 threads an SM is
    an error."""
    fd = normalization(NORMALIZATIONS["rms_norm"][0], BF16, NORMALIZATIONS["rms_norm"][1])
    example = reduction_inputs(fd, (4, 16384), "meta")
    assert fd.compile(example).params.ctas_per_sm == 2
    assert fd.compile(example, schedule={"scheduler": "row_reduction", "threads": 256, "units": 8}
                      ).params.ctas_per_sm == 1
    compiled = fd.compile(example, schedule={"scheduler": "row_reduction", "threads": 256, "units": 8,
                                             "ctas_per_sm": 3})
    assert compiled.params.ctas_per_sm == 3 and ".minnctapersm 3" in compiled.ptx
    with pytest.raises(FusionError, match="ctas_per_sm at least 1 and at most 2048 threads an SM"):
        fd.compile(example, schedule={"scheduler": "row_reduction", "ctas_per_sm": 5})


@pytest.mark.parametrize("name, cols, dtype, expected", [
    # (hold, ctas_per_sm, lookahead, stream)
    ("layer_norm", 32768, BF16, ("smem", 2, 2, 1)), ("rms_norm", 32768, BF16, ("smem", 2, 2, 1)),
    ("softmax", 32768, BF16, ("smem", 2, 1, 0)), ("layer_norm", 16384, BF16, ("smem", 2, 2, 0)),
    ("rms_norm", 12288, BF16, ("smem", 2, 2, 0)), ("softmax", 16384, F32, ("smem", 2, 1, 0)),
    ("rms_norm", 8192, BF16, ("registers", 1, 1, 0)),              # 256 threads
    ("softmax", 65536, BF16, ("smem", 2, 1, 0)),                   # over a cluster of 2
    ("layer_norm", 262144, BF16, ("smem", 2, 2, 1)),               # over a cluster of 8
])
def test_rows_of_512_threads_are_held_in_smem_at_two_ctas_per_sm(name, cols, dtype, expected):
    """A row a 512-thread CTA holds stays in shared memory between the passes, so ptxas fits the
    kernel in 64 registers (two CTAs per SM) without a spill beyond a few words; weights load 2
    units ahead of the stores, and rows stream past the L1 where it could not keep the weights
    too; no barrier guards the row's smem (each thread reads back only what it wrote)."""
    recipe, weights = NORMALIZATIONS[name]
    fd = normalization(recipe, dtype, weights)
    compiled = fd.compile(reduction_inputs(fd, (4, cols), "meta"))
    p = compiled.params
    assert (p.hold, p.ctas_per_sm, p.lookahead, p.stream) == expected
    assert f".minnctapersm {p.ctas_per_sm}" in compiled.ptx
    assert ("ld.global.L1::no_allocate" in compiled.ptx) == bool(p.stream)
    held = p.units * sum(kind == "full" for kind in p.in_kinds)
    assert compiled.ptx.count("st.shared.v4") == (held if p.hold == "smem" else 0)
    log = assemble(compiled.ptx).log
    registers = int(re.search(r"Used (\d+) registers", log).group(1))
    spilled = int(re.search(r"(\d+) bytes spill stores", log).group(1))
    assert (registers <= 64 and spilled <= 32) if p.ctas_per_sm == 2 else spilled == 0, log


@pytest.mark.parametrize("cols, inputs, hold", [(32768, 1, "smem"), (32768, 2, "registers"), (16384, 3, "smem"),
                                                (16384, 4, "registers")])
def test_rows_stay_in_registers_where_two_ctas_could_not_hold_them_in_smem(cols, inputs, hold):
    """A row of `inputs` full bf16 inputs takes inputs x 2 bytes x cols of shared memory a CTA; two
    CTAs must fit the SM's 228 KB, else the rows stay in registers (no launch that cannot fit)."""
    with FusionDefinition() as fd:
        xs = [fd.define_tensor([-1, -1], BF16) for _ in range(inputs)]
        total = xs[0]
        for x in xs[1:]:
            total = fd.ops.add(total, x)
        fd.add_output(fd.ops.div(total, fd.ops.sum(total, -1, keepdim=True)))
    compiled = fd.compile([torch.empty(4, cols, dtype=torch.bfloat16, device="meta")] * inputs)
    assert (compiled.params.hold, compiled.scheduler.meta(compiled.params)["block"]) == (hold, [512, 1, 1])
    smem = compiled.artifact.meta["dynamic_smem"]
    assert 2 * (smem + 1024) <= 228 * 1024 if hold == "smem" else smem < 1024, smem


def test_hold_lookahead_and_stream_can_be_named():
    """The decisions that follow the others are the user's when named, and checked."""
    fd = normalization(NORMALIZATIONS["layer_norm"][0], BF16, NORMALIZATIONS["layer_norm"][1])
    example = reduction_inputs(fd, (4, 32768), "meta")
    p = fd.compile(example, schedule={"scheduler": "row_reduction", "hold": "registers"}).params
    assert (p.hold, p.ctas_per_sm, p.lookahead, p.stream) == ("registers", 1, 1, 0)
    p = fd.compile(example, schedule={"scheduler": "row_reduction", "lookahead": 4, "stream": 0}).params
    assert (p.hold, p.ctas_per_sm, p.lookahead, p.stream) == ("smem", 2, 4, 0)
    with pytest.raises(FusionError, match="lookahead 1 to units, stream 0/1"):
        fd.compile(example, schedule={"scheduler": "row_reduction", "lookahead": 9})
    with pytest.raises(FusionError, match=r"hold \(registers or smem\)"):
        fd.compile(example, schedule={"scheduler": "row_reduction", "hold": "l2"})


def test_empty_rows_launch_nothing_and_rows_of_nothing_are_an_error():
    from fuser_mlir.compiler import input_signature
    from fuser_mlir.schedulers.row_reduction import SCHEDULER

    fd = normalization(softmax, BF16)
    for shape, tiles in (((0, 64), 0), ((3, 64), 1), ((9, 64), 2)):     # 8 rows of 64 (a warp each) a CTA
        sig = input_signature(fd, [torch.empty(shape, dtype=torch.bfloat16, device="meta")])
        assert SCHEDULER.launch(SCHEDULER.heuristic(sig), sig)["tiles"] == tiles
    sig = input_signature(fd, [torch.empty(3, 0, dtype=torch.bfloat16, device="meta")])
    with pytest.raises(FusionError, match=r"reducing rows of 0 elements \(shape \[3, 0\]\) is not supported"):
        SCHEDULER.launch(SCHEDULER.decode(sig, {}), sig)


def test_what_the_row_reduction_scheduler_cannot_take_is_named():
    with pytest.raises(FusionError, match=r"rows of 524288 elements exceed what a cluster of 8 CTAs holds in registers"):
        normalization(softmax, BF16).compile([torch.empty(2, 524288, dtype=torch.bfloat16, device="meta")])
    with pytest.raises(FusionError, match="every reduction must reduce the last axis of one shape"):
        recorded(F32, [-1, -1], lambda o, x: o.sum(x, 0)).compile([torch.empty(4, 8)],
                                                                  schedule={"scheduler": "row_reduction"})
    with pytest.raises(FusionError, match="integer and Bool reductions are not scheduled yet"):
        recorded(I32, [-1, -1], lambda o, x: o.max(x, 1)).compile([torch.empty(4, 8, dtype=torch.int32)])
    with pytest.raises(FusionError, match=r"input 1 of shape \[4, 1\] is neither the rows' shape"):
        with FusionDefinition() as fd:
            x, s = fd.define_tensor([-1, -1], F32), fd.define_tensor([-1, 1], F32)
            fd.add_output(fd.ops.mul(fd.ops.sum(x, 1, keepdim=True), s))
        fd.compile([torch.empty(4, 8), torch.empty(4, 1)])


def _fusion_ir(fd):
    from fuser_mlir.frontend.fusion_ir import fusion_ir

    return fusion_ir(fd)


def test_rows_side_by_side_leave_each_row_at_least_a_warp():
    fd = normalization(softmax, BF16)
    example = [torch.empty(10, 256, dtype=torch.bfloat16, device="meta")]
    with pytest.raises(FusionError, match="rows_per_cta a power of two leaving a row at least 32 threads"):
        fd.compile(example, schedule={"scheduler": "row_reduction", "threads": 64, "rows_per_cta": 4})
    params = fd.compile(example, schedule={"scheduler": "row_reduction", "threads": 128, "rows_per_cta": 2}).params
    assert (params.group, params.units) == (64, 1)
    with pytest.raises(FusionError, match="cluster 1/2/4/8 with one row a CTA"):
        fd.compile(example, schedule={"scheduler": "row_reduction", "cluster": 2, "rows_per_cta": 2})
