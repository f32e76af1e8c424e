"""The matmul scheduler without a GPU: the API's fusion IR, the heuristic and overrides, the errors
for what the kernel cannot take, and one kernel compiled to PTX and assembled (the GPU tests are
tests/gpu/test_matmul.py)."""
import dataclasses
import re

import pytest
import torch

from fuser_mlir import DataType, FusionDefinition, FusionError
from fuser_mlir.backend import ptxas
from fuser_mlir.compiler import choose, input_signature
from fuser_mlir.schedulers import TARGET_ENV, TARGETS, DeviceSig
from fuser_mlir.schedulers.matmul import SKINNY_L2_PREFETCH, SKINNY_M, SKINNY_STAGES, SKINNY_WIDE_N, TALL_BLOCK_N
from fuser_mlir.frontend.fusion_ir import fusion_ir

BF16 = DataType.BFloat16


@pytest.fixture(autouse=True)
def default_target(monkeypatch):
    """Off the GPU the heuristics decide for $FUSER_MLIR_DEVICE: these tests expect the default's."""
    monkeypatch.delenv(TARGET_ENV, raising=False)


def linear_gelu(extra_shape=(-1,)):
    with FusionDefinition() as fd:
        x, w = fd.define_tensor([-1, -1], BF16), fd.define_tensor([-1, -1], BF16)
        b = fd.define_tensor(list(extra_shape), BF16)
        fd.add_output(fd.ops.gelu(fd.ops.linear(x, w, b)))
    return fd


def meta(*shapes, dtype=torch.bfloat16):
    return [torch.empty(s, dtype=dtype, device="meta") for s in shapes]


def test_linear_and_matmul_record_fusion_matmul():
    fd = linear_gelu()
    text = fusion_ir(fd)
    assert '"fusion.matmul"(%in0, %in1) {transpose_b = true}' in text
    assert 'kind = "gelu"' in text
    with FusionDefinition() as fd:
        a, b = fd.define_tensor([4, 8], BF16), fd.define_tensor([8, 2], BF16)
        fd.add_output(fd.ops.matmul(a, b))
    assert "{transpose_b = false} : (tensor<4x8xbf16>, tensor<8x2xbf16>) -> tensor<4x2xbf16>" in fusion_ir(fd)


@pytest.mark.parametrize("shapes,dtype,message", [
    (((4, 8), (2, 8)), DataType.Float, "two bf16 or two f16 tensors"),
    (((4, 8), (2, 16)), BF16, "contraction sizes differ: K = 8"),
    (((8,), (2, 8)), BF16, "takes a [.., M, K] and b [N, K]"),
])
def test_recording_errors(shapes, dtype, message):
    fd = FusionDefinition()
    x, w = (fd.define_tensor(list(s), dtype) for s in shapes)
    with pytest.raises(FusionError, match=message.replace("[", r"\[").replace(".", r"\.")):
        fd.ops.linear(x, w)


@pytest.mark.parametrize("m,n,k,block_n", [(4096, 4096, 4096, 256), (1024, 2112, 7168, 144), (8192, 2112, 7168, 176),
                                           (1024, 10240, 8192, 160), (1024, 28672, 8192, 256), (4096, 10240, 8192, 256)])
def test_heuristic_weighs_waves(m, n, k, block_n):
    fd = linear_gelu()
    scheduler, params = choose(input_signature(fd, meta((m, k), (n, k), (n,))), None)
    assert scheduler.name == "matmul"
    assert params.block_n == block_n and params.operands == ("a", "b", "col")
    assert params.smem_bytes <= 227 * 1024


def test_schedule_override_and_its_checks():
    fd = linear_gelu()
    inputs = meta((1000, 512), (768, 512), (768,))
    _, params = choose(input_signature(fd, inputs), {"scheduler": "matmul", "block_n": 128, "stages": 4, "group_m": 2})
    assert (params.block_n, params.stages, params.group_m) == (128, 4, 2)
    with pytest.raises(FusionError, match="shared memory"):
        choose(input_signature(fd, inputs), {"scheduler": "matmul", "block_n": 256, "stages": 5})
    with pytest.raises(FusionError, match="block_n is one of"):
        choose(input_signature(fd, inputs), {"scheduler": "matmul", "block_n": 100})


def test_schedule_operands_must_describe_the_inputs():
    """fusion IR's `operands` field (the API's reading of each input) is checked against the
    fusion: a is "a", b either layout, epilogue inputs an epilogue kind."""
    fd = linear_gelu()
    sig = input_signature(fd, meta((64, 128), (256, 128), (256,)))
    scheduler, _ = choose(sig, None)
    assert scheduler.decode(sig, {"operands": "a,b_kn,col"}).operands == ("a", "b_kn", "col")
    for bad in ("b,a,col", "a,b,b", "a,col,col", "a,b"):
        with pytest.raises(FusionError, match="does not describe these 3 inputs"):
            scheduler.decode(sig, {"operands": bad})


@pytest.mark.parametrize("case,message", [
    ("kn", None),
    ("kn_n_odd", "pad N to a multiple of 8, or pass B as [N, K] rows"),
    ("k_odd", "pad K to a multiple of 8"),
    ("w_strided", "w [256, 128] has strides [2, 512]"),
    ("w_transposed", None),
    ("bias_2d_bad", "epilogue input 2 of shape"),
    ("f32_out_ok", None),
])
def test_what_the_kernel_cannot_take_is_named(case, message):
    with FusionDefinition() as fd:
        x = fd.define_tensor([-1] * (3 if case == "bias_2d_bad" else 2), BF16)
        w = fd.define_tensor([-1, -1], BF16)
        if case.startswith("kn"):
            fd.add_output(fd.ops.matmul(x, w))
            inputs = meta((64, 128), (128, 260 if case == "kn_n_odd" else 256))
        else:
            b = fd.define_tensor([-1, -1], BF16)
            fd.add_output(fd.ops.cast(fd.ops.add(fd.ops.linear(x, w), b), DataType.Float))
            k = 100 if case == "k_odd" else 128
            inputs = meta((2, 64, k) if case == "bias_2d_bad" else (64, k), (256, k), (64, 256))
            if case == "w_strided":      # every other column of a [K, 2N] matrix, transposed
                inputs[1] = torch.empty((128, 512), dtype=torch.bfloat16, device="meta")[:, ::2].t()
            if case == "w_transposed":   # the transpose of a row-major [K, N]: read as b [K, N]
                inputs[1] = torch.empty((128, 256), dtype=torch.bfloat16, device="meta").t()
    sig = input_signature(fd, inputs)
    if message is None:
        scheduler, params = choose(sig, None)
        assert scheduler.name == "matmul"
        assert params.operands[1] == ("b_kn" if case in ("kn", "w_transposed") else "b"), params
        return
    with pytest.raises(FusionError, match=message.replace("[", r"\[")):
        choose(sig, None)


@pytest.mark.skipif(not ptxas.find_ptxas(), reason="ptxas not installed")
def test_kernel_assembles_with_derived_epilogue_protocol(private_cache):
    fd = linear_gelu()
    compiled = fd.compile(meta((300, 512), (768, 512), (768,)))
    ir_text = compiled.kernel_ir
    # The heuristic splits this shape: a sync may be named after the split's TMA reduce it also serves.
    for derived in (r'"WAR: nvasync.tma_(store|reduce) reads smem -> vector.store"',
                    r'"generic writes -> async proxy: vector.store -> nvasync.tma_(store|reduce)"'):
        assert re.search(derived, ir_text), derived
    for derived in ('"RAW: vector.store -> nvasync.tma_store"', '"commit the bulk group of nvasync.tma_store"'):
        assert derived in ir_text, derived
    assert compiled.artifact.cubin, "ptxas produced no cubin"
    assert compiled.artifact.meta["block"] == [384, 1, 1]
    assert f"wgmma.mma_async.sync.aligned.m64n{compiled.params.block_n}k16.f32.bf16.bf16" in compiled.ptx


@pytest.mark.skipif(not ptxas.find_ptxas(), reason="ptxas not installed")
def test_144_wide_tiles_store_boxes_of_32_byte_rows(private_cache):
    """144 columns: bf16 output boxes of 16 columns in 32-byte swizzle, f32 ones of 16 in 64-byte
    swizzle; wgmma n144."""
    with FusionDefinition() as fd:
        x, w = fd.define_tensor([-1, -1], BF16), fd.define_tensor([-1, -1], BF16)
        y = fd.ops.linear(x, w)
        fd.add_output(y)
        fd.add_output(fd.ops.cast(y, DataType.Float))
    compiled = fd.compile(meta((300, 512), (600, 512)), schedule={"scheduler": "matmul", "block_n": 144})
    maps = {p.get("tensor"): p for p in compiled.artifact.meta["params"] if p["kind"] == "tensormap"}
    assert (maps["output0"]["box"], maps["output0"]["swizzle"]) == ([128, 16], 32)
    assert (maps["output1"]["box"], maps["output1"]["swizzle"]) == ([128, 16], 64)
    assert "m64n144k16.f32.bf16.bf16" in compiled.ptx
    assert compiled.artifact.cubin, "ptxas produced no cubin"


@pytest.mark.skipif(not ptxas.find_ptxas(), reason="ptxas not installed")
def test_kn_kernel_reads_column_boxes_into_transposed_wgmma(private_cache):
    """b [K, N]: block_n / 64 TMA loads of [64, 64] boxes per stage, one expect-tx for all of them,
    wgmma with imm-trans-b = 1."""
    with FusionDefinition() as fd:
        a, b = fd.define_tensor([-1, -1], BF16), fd.define_tensor([-1, -1], BF16)
        fd.add_output(fd.ops.matmul(a, b))
    compiled = fd.compile(meta((300, 512), (512, 768)), schedule={"scheduler": "matmul", "block_n": 192, "split_k": 1})
    assert compiled.params.operands == ("a", "b_kn")
    params = compiled.artifact.meta["params"]
    assert params[1]["box"] == [64, 64] and params[1]["swizzle"] == 128
    ir_text = compiled.kernel_ir
    # per stage: A's box (128 x 64) and B's three column boxes (64 x 64) = 16384 + 3 x 8192 bytes
    assert ir_text.count('"nvasync.mbarrier_arrive_expect_tx"') >= 2 and "bytes = 24576" in ir_text \
        and "bytes = 16384" in ir_text, "expect-tx per role: A 16384, B 3 x 8192"
    assert "m64n192k16.f32.bf16.bf16" in compiled.ptx
    wgmma = [line for line in compiled.ptx.splitlines() if "wgmma.mma_async" in line]
    assert wgmma and all(line.replace(" ", "").endswith("p,1,1,0,1;") for line in wgmma), wgmma[:1]
    assert compiled.artifact.cubin, "ptxas produced no cubin"


@pytest.mark.skipif(not ptxas.find_ptxas(), reason="ptxas not installed")
def test_160_wide_tiles_store_boxes_of_64_byte_rows(private_cache):
    """160 columns are not whole 128-byte rows of bf16 (64 columns): the bf16 output's boxes are 32
    columns in 64-byte swizzle; the split's f32 partial is one unswizzled box of the workspace's
    fragment order (128 x 160 floats in rows of 256); wgmma n160."""
    compiled = plain_linear().compile(meta((200, 4096), (600, 4096)),
                                      schedule={"scheduler": "matmul", "block_n": 160, "split_k": 3})
    maps = {p.get("tensor", p.get("scratch")): p for p in compiled.artifact.meta["params"] if p["kind"] == "tensormap"}
    assert (maps["output0"]["box"], maps["output0"]["swizzle"]) == ([128, 32], 64)
    assert (maps["workspace"]["box"], maps["workspace"]["swizzle"]) == ([1, 80, 256], 0)
    assert (maps["input1"]["box"], maps["input1"]["swizzle"]) == ([160, 64], 128)
    assert "m64n160k16.f32.bf16.bf16" in compiled.ptx
    assert compiled.artifact.cubin, "ptxas produced no cubin"


def test_kn_tiles_are_whole_column_boxes():
    """b [K, N] loads boxes of 64 columns: the heuristic skips 144-wide tiles (which it takes for
    the same shape with w [N, K]) and an override names the rule."""
    with FusionDefinition() as fd:
        a, b = fd.define_tensor([-1, -1], BF16), fd.define_tensor([-1, -1], BF16)
        fd.add_output(fd.ops.matmul(a, b))
    _, kn = choose(input_signature(fd, meta((1024, 7168), (7168, 2112))), None)
    _, nk = choose(input_signature(plain_linear(), meta((1024, 7168), (2112, 7168))), None)
    assert nk.block_n == 144 and kn.block_n % 64 == 0, (nk, kn)
    with pytest.raises(FusionError, match="block_n must be a multiple of 64"):
        choose(input_signature(fd, meta((1024, 7168), (7168, 2112))), {"scheduler": "matmul", "block_n": 160})


@pytest.mark.skipif(not ptxas.find_ptxas(), reason="ptxas not installed")
def test_64_row_tiles_run_one_consumer_warpgroup(private_cache):
    """block_m 64 (skinny problems): A and output boxes of 64 rows (the workspace's: 64 x 128
    floats in rows of 256), one consumer
    warpgroup (its 4 warps release each stage) beside the producer warpgroup."""
    compiled = plain_linear().compile(meta((64, 7168), (2112, 7168)),
                                      schedule={"scheduler": "matmul", "block_m": 64, "block_n": 128, "split_k": 8})
    maps = {p.get("tensor", p.get("scratch")): p["box"] for p in compiled.artifact.meta["params"]
            if p["kind"] == "tensormap"}
    assert maps == {"input0": [64, 64], "input1": [128, 64], "output0": [64, 64], "workspace": [1, 32, 256]}, maps
    assert compiled.artifact.meta["block"] == [256, 1, 1]
    ir_text = compiled.kernel_ir
    assert "bytes = 8192" in ir_text and "bytes = 16384" in ir_text, "expect-tx per role: A 64 x 64, B 128 x 64"
    assert "count = 4" in ir_text, "empty barriers count the 4 consumer warps"
    assert "m64n128k16.f32.bf16.bf16" in compiled.ptx
    assert compiled.artifact.cubin, "ptxas produced no cubin"
    with pytest.raises(FusionError, match="block_m one of"):
        choose(input_signature(plain_linear(), meta((64, 7168), (2112, 7168))), {"scheduler": "matmul", "block_m": 32})


@pytest.mark.skipif(not ptxas.find_ptxas(), reason="ptxas not installed")
def test_tall_skinny_tiles_run_m64n64_on_two_consumer_warpgroups(private_cache):
    """128 x 64 tiles (the heuristic's at M = 128, N = 2112): A boxes of 128 rows, B's of 64, a
    workspace tile of 128 x 64 floats (32 rows of 256), two consumer warpgroups of m64n64."""
    compiled = plain_linear().compile(meta((128, 7168), (2112, 7168)))
    assert (compiled.params.block_m, compiled.params.block_n, compiled.params.split_k) == (128, 64, 4)
    maps = {p.get("tensor", p.get("scratch")): p["box"] for p in compiled.artifact.meta["params"]
            if p["kind"] == "tensormap"}
    assert maps == {"input0": [128, 64], "input1": [64, 64], "output0": [128, 64], "workspace": [1, 32, 256]}, maps
    assert compiled.artifact.meta["block"] == [384, 1, 1]
    assert "bytes = 16384" in compiled.kernel_ir and "bytes = 8192" in compiled.kernel_ir, \
        "expect-tx per role: A 128 x 64, B 64 x 64"
    assert set(re.findall(r"wgmma\.mma_async\.sync\.aligned\.(m64n\d+k16)", compiled.ptx)) == {"m64n64k16"}
    assert compiled.artifact.cubin, "ptxas produced no cubin"


@pytest.mark.parametrize("mnk,decided", [
    ((64, 2112, 7168), (64, 144, 6)),       # 15 tiles of 64 x 144 in clusters of 6: 90 units
    ((16, 1024, 16384), (64, 128, 16)),     # M <= 16: no 64-wide clusters, atomic mode's one-slab protocol
    ((128, 7168, 16384), (64, 128, 1)),     # 2 x 56 tiles: a wave unsplit
    ((64, 7168, 16384), (64, 128, 1)),      # 56 tiles: 2 splits would not pay
    ((64, 28672, 4096), (64, 256, 1)),      # 224 tiles of 64 x 128: the narrowest width within a wave
    ((128, 10240, 8192), (64, 160, 1)),     # 2 x 64 tiles (the cost model: 128 x 160 in 2 splits, slower)
    ((96, 10240, 256), (64, 160, 1)),       # tests/gpu/test_matmul.py's skinny-heuristic-bias-gelu-bn160
    ((128, 28672, 8192), (128, 256, 1)),    # no 64-row width fits a wave: the cost model's
    ((1024, 2112, 7168), (128, 144, 1)),
    ((128, 2112, 7168), (128, 64, 4)),      # above SKINNY_TALL_M: 33 columns of 128 x 64, 4 splits: 132 units
    ((97, 1024, 16384), (128, 64, 8)),
    ((96, 1024, 16384), (128, 128, 16)),    # up to SKINNY_TALL_M: 8 columns of 128 x 128, 16 splits
    ((96, 2112, 7168), (128, 128, 7)),      # 17 columns of 128 x 128, 7 splits: 119 units
    ((65, 4096, 8192), (128, 128, 4)),
    ((64, 4096, 8192), (64, 128, 4)),       # one 64-row tile row: 64-row tiles
    ((128, 4480, 8192), (128, 176, 5)),     # 70 columns of 64 (no second split fits), 35 of 128: the cost model
])
def test_skinny_problems_take_tiles_that_fill_one_wave_of_splits(mnk, decided):
    m, n, k = mnk
    _, params = choose(input_signature(plain_linear(), meta((m, k), (n, k))), None)
    assert (params.block_m, params.block_n, params.split_k) == decided, params
    # The skinny decisions prefetch the weights' first K tile(s); the cost model's kernels do not.
    skinny = params.block_m == 64 or m <= SKINNY_M and params.block_n in (TALL_BLOCK_N, SKINNY_WIDE_N)
    assert params.l2_prefetch == (SKINNY_L2_PREFETCH if skinny else 0), params
    # One 64-row tile row streams through SKINNY_STAGES; others keep as many stages as fit, up to 6.
    assert params.stages == (SKINNY_STAGES if m <= 64 and params.block_m == 64 else
                             min(6, (227 * 1024 - params.epilogue_bytes - 1024) // params.stage_bytes)), params


@pytest.mark.parametrize("mnk,decided", [
    ((64, 2112, 7168), (144, 6, "cluster")),     # 15 clusters of 6 (17 resident), 90 CTAs, 19 K tiles a split
    ((16, 2112, 7168), (144, 6, "cluster")),
    ((64, 1024, 16384), (64, 8, "cluster")),     # no width of the cost model's fits: 64-wide tiles, 16
    #                                              clusters of 8 (2 CTAs an SM: 30 resident), 32 K tiles a split
    ((64, 3072, 8192), (192, 6, "cluster")),     # 16 clusters of 6, 96 CTAs (160-wide in 5: 26 K tiles a split)
    ((64, 768, 16384), (64, 8, "cluster")),      # 64-wide: 12 clusters of 8, 32 K tiles a split
    ((64, 512, 16384), (128, 32, "atomic")),     # 64-wide: 8 clusters of 8 are 64 CTAs, too few
    ((64, 2048, 32768), (128, 8, "atomic")),     # 86 K tiles a split: the protocol's share is small
    ((64, 7168, 16384), (128, 1, "atomic")),
])
def test_short_splits_of_one_tile_row_run_in_clusters(mnk, decided):
    m, n, k = mnk
    sig = input_signature(plain_linear(), meta((m, k), (n, k)))
    _, params = choose(sig, None)
    assert (params.block_n, params.split_k, params.split_k_mode) == decided, params
    # A named mode or split count keeps the workspace protocols' tiles.
    _, atomic = choose(sig, {"scheduler": "matmul", "split_k_mode": "atomic"})
    assert atomic.split_k_mode == "atomic" and (atomic.split_k == 1 or atomic.block_n == 128), atomic


def test_the_narrow_cluster_fallback_keeps_what_the_schedule_names():
    """The 64-wide fallback takes the width only where the schedule leaves it open, and counts the
    CTAs an SM holds by the shared memory of the stages named."""
    sig = input_signature(plain_linear(), meta((64, 16384), (1024, 16384)))
    _, four = choose(sig, {"scheduler": "matmul", "stages": 4})
    assert (four.block_n, four.split_k, four.split_k_mode) == (64, 8, "cluster"), four
    _, wide = choose(sig, {"scheduler": "matmul", "block_n": 144})      # 18 column groups: no 8 splits
    assert (wide.block_n, wide.split_k_mode) == (144, "atomic"), wide
    _, deep = choose(sig, {"scheduler": "matmul", "stages": 7})         # 132 KB: one CTA an SM, 15 of 16 clusters
    assert deep.split_k_mode == "atomic" and deep.stages == 7, deep


def test_named_stages_and_tile_rows_overrule_the_skinny_rules():
    sig = input_signature(plain_linear(), meta((128, 7168), (2112, 7168)))
    _, stages = choose(sig, {"scheduler": "matmul", "stages": 3})
    _, rows = choose(sig, {"scheduler": "matmul", "block_m": 64})
    _, width = choose(sig, {"scheduler": "matmul", "block_n": 128})
    assert (stages.block_m, stages.block_n, stages.split_k, stages.stages) == (128, 64, 4, 3), stages
    assert (rows.block_m, rows.block_n, rows.split_k, rows.stages) == (64, 128, 3, 6), rows
    assert (width.block_m, width.block_n) == (64, 128), width
    _, one_row = choose(input_signature(plain_linear(), meta((64, 7168), (2112, 7168))),
                        {"scheduler": "matmul", "stages": 6})
    assert one_row.stages == 6, one_row
    # Up to SKINNY_TALL_M the one tile row is 128 wide: naming that width keeps it, another drops it.
    wide = input_signature(plain_linear(), meta((80, 7168), (2112, 7168)))
    _, same = choose(wide, {"scheduler": "matmul", "block_n": 128})
    _, other = choose(wide, {"scheduler": "matmul", "block_n": 64})
    assert (same.block_m, same.block_n, same.split_k) == (128, 128, 7), same
    assert (other.block_m, other.block_n) == (64, 64), other


@pytest.mark.parametrize("mnk,h100,h200", [
    ((64, 7168, 16384), (64, 128, 1), (64, 128, 2)),   # 56 columns: streams enough for the H100's DRAM, not the H200's
    ((64, 8192, 8192), (64, 128, 1), (64, 128, 2)),    # 64 columns
    ((64, 6144, 8192), (64, 128, 2), (64, 128, 2)),    # 48 columns: too few for either
    ((128, 4096, 8192), (128, 64, 2), (128, 64, 2)),   # 64 columns of 128 x 64: 2 splits fill the wave
    ((96, 4096, 8192), (128, 128, 4), (128, 128, 4)),  # 32 columns of 128 x 128: 4 splits fill the wave
    ((64, 10240, 8192), (64, 128, 1), (64, 128, 1)),   # 80 tiles: one split fills the wave
    ((64, 2112, 7168), (64, 144, 6), (64, 144, 6)),
    # 2 x 56 tiles, no split fits: too few streams for the H200, which leaves it to the cost model
    ((128, 7168, 16384), (64, 128, 1), (128, 176, 3)),
    ((128, 5120, 8192), (128, 160, 4), (128, 160, 4)),  # 2 x 40 tiles: too few for either
])
def test_skinny_splits_follow_the_devices_dram_rate(monkeypatch, mnk, h100, h200):
    m, n, k = mnk
    for target, decided in (("h100", h100), ("h200", h200)):
        monkeypatch.setenv(TARGET_ENV, target)
        sig = input_signature(plain_linear(), meta((m, k), (n, k)))
        assert sig.device == TARGETS[target]
        _, params = choose(sig, None)
        assert (params.block_m, params.block_n, params.split_k) == decided, (target, params)


def test_heuristics_size_waves_by_the_devices_sms():
    """On 114 SMs (an H100 PCIe) 120 tiles of 64 x 128 are more than a wave: 107 of 144 are not."""
    sig = input_signature(plain_linear(), meta((64, 4096), (15360, 4096)))
    _, on_132 = choose(sig, None)
    _, on_114 = choose(dataclasses.replace(sig, device=DeviceSig("H100 PCIe", 114, 2039)), None)
    assert (on_132.block_n, on_114.block_n) == (128, 144), (on_132, on_114)


def test_an_unknown_target_device_is_named(monkeypatch):
    monkeypatch.setenv(TARGET_ENV, "h300")
    with pytest.raises(FusionError, match="FUSER_MLIR_DEVICE='h300': expected one of h100, h200"):
        input_signature(plain_linear(), meta((64, 64), (64, 64)))


def test_skinny_widths_respect_b_kn_boxes():
    """b [K, N] loads 64-column boxes: 128 x 10240 skips 160 for 192 (2 x 54 tiles)."""
    with FusionDefinition() as fd:
        a, b = fd.define_tensor([-1, -1], BF16), fd.define_tensor([-1, -1], BF16)
        fd.add_output(fd.ops.matmul(a, b))
    _, params = choose(input_signature(fd, meta((128, 8192), (8192, 10240))), None)
    assert (params.block_m, params.block_n, params.split_k) == (64, 192, 1), params


def test_naming_128_row_tiles_leaves_a_skinny_problem_to_the_cost_model():
    _, named = choose(input_signature(plain_linear(), meta((64, 7168), (2112, 7168))),
                      {"scheduler": "matmul", "block_m": 128})
    assert (named.block_m, named.block_n, named.split_k) == (128, 192, 12), named


def plain_linear():
    with FusionDefinition() as fd:
        x, w = fd.define_tensor([-1, -1], BF16), fd.define_tensor([-1, -1], BF16)
        fd.add_output(fd.ops.linear(x, w))
    return fd


@pytest.mark.parametrize("m,n,k,split", [(64, 2112, 7168, True), (16, 1024, 16384, True), (4096, 4096, 4096, False),
                                         (1024, 10240, 8192, False), (64, 256, 64, False),
                                         (128, 7168, 16384, False),     # 112 tiles of 64 x 128: a wave
                                         (1024, 2112, 7168, False)])    # 112 tiles of 160 (measured: split slower)
def test_heuristic_splits_k_only_when_tiles_leave_sms_idle(m, n, k, split):
    sig = input_signature(plain_linear(), meta((m, k), (n, k)))
    scheduler, params = choose(sig, None)
    assert (params.split_k > 1) == split, params
    assert params.split_k <= -(-k // 64) and params.smem_bytes <= 227 * 1024
    launch = scheduler.launch(params, sig)
    tiles = -(-m // params.block_m) * -(-n // params.block_n)
    assert launch["tiles"] == tiles * params.split_k
    if params.cluster_split:      # the partials meet in distributed shared memory: no scratch
        assert launch["scratch"] == {} and "workspace" not in launch["views"]
    elif split:
        # per tile column, the 16-row slabs of M's rows (block_n floats each row), in rows of 256
        shape = (-(-n // params.block_n), -(-m // 16) * params.block_n // 16, 256)
        assert launch["scratch"] == {"workspace": ("f32", shape), "flags": ("i32", (tiles,))}
        assert launch["views"]["workspace"] == shape


def test_split_k_override_and_its_checks():
    sig = input_signature(plain_linear(), meta((64, 4096), (512, 4096)))
    _, params = choose(sig, {"scheduler": "matmul", "split_k": 5, "split_k_mode": "atomic"})
    assert (params.split_k, params.split_k_mode) == (5, "atomic")
    # the partial f32 tile shares the output tiles' memory: fewer stages fit than without split-K
    _, unsplit = choose(sig, {"scheduler": "matmul", "split_k": 1, "block_n": params.block_n})
    assert params.stages <= unsplit.stages and params.smem_bytes <= 227 * 1024
    with pytest.raises(FusionError, match="split_k_mode"):
        choose(sig, {"scheduler": "matmul", "split_k": 2, "split_k_mode": "sometimes"})
    # slots mode: a workspace slot per split and tile column (4 slabs of 16 rows for M = 64)
    scheduler, slots = choose(sig, {"scheduler": "matmul", "split_k": 5, "split_k_mode": "slots"})
    columns = -(-512 // slots.block_n)
    assert scheduler.launch(slots, sig)["scratch"]["workspace"] == \
        ("f32", (5 * columns, 4 * slots.block_n // 16, 256))
    with pytest.raises(FusionError, match=r"split_k in \[1, 32\]"):
        choose(sig, {"scheduler": "matmul", "split_k": 0})


SPLIT_K_PROTOCOLS = {
    # the last split waits for the others' releases
    "deterministic": (('"nvasync.wait_flag"', '"nvasync.reset_flag"', '"nvasync.tma_reduce"', '"nvasync.release_flag"',
                       '"global writes of nvasync.tma_reduce complete before nvasync.release_flag"',
                       '"acquire -> async-proxy global writes: nvasync.wait_flag -> nvasync.tma_store"'),
                      ('"nvasync.arrive_flag"',)),
    # the last split to arrive runs the epilogue: no split waits (spins) for another
    "atomic": (('"nvasync.arrive_flag"', '"nvasync.reset_flag"', '"nvasync.tma_reduce"',
                "complete before nvasync.arrive_flag", "acquire -> the group's later accesses: nvasync.arrive_flag",
                '"acquire -> async-proxy global writes: nvasync.arrive_flag -> nvasync.tma_'),   # store or reduce
               ('"nvasync.wait_flag"', '"nvasync.release_flag"')),
    # each split TMA-stores its partial into a slot of its own; the last to arrive folds them
    "slots": (('"nvasync.arrive_flag"', '"nvasync.reset_flag"', '"nvasync.tma_store"',
               '"global writes of nvasync.tma_store complete before nvasync.arrive_flag"',
               "acquire -> the group's later accesses: nvasync.arrive_flag"),
              ('"nvasync.wait_flag"', '"nvasync.release_flag"', '"nvasync.tma_reduce"')),
}


@pytest.mark.skipif(not ptxas.find_ptxas(), reason="ptxas not installed")
@pytest.mark.parametrize("mode", sorted(SPLIT_K_PROTOCOLS))
def test_split_k_kernel_assembles_with_its_protocol(private_cache, mode):
    fd = linear_gelu()
    compiled = fd.compile(meta((64, 4096), (512, 4096), (512,)),
                          schedule={"scheduler": "matmul", "split_k": 3, "split_k_mode": mode})
    ir_text = compiled.kernel_ir
    present, absent = SPLIT_K_PROTOCOLS[mode]
    for op in present:
        assert op in ir_text, op
    for op in absent:
        assert op not in ir_text, op
    assert "split_k_" not in ir_text
    assert ("cp.reduce.async.bulk.tensor.3d.global.shared::cta.add.tile.bulk_group" in compiled.ptx) == \
        (mode != "slots")
    assert compiled.artifact.cubin, "ptxas produced no cubin"
    assert [p.get("scratch") for p in compiled.artifact.meta["params"] if "scratch" in p] == \
        ["workspace", "workspace", "flags"]


def test_cluster_split_override_and_its_checks():
    """split_k_mode cluster: a tile's splits are one cluster of split_k CTAs, one tile each (grid
    per tile), no producer warpgroup and no workspace; split_k <= 8 and <= block_n / 8, any
    block_n that is a multiple of 8; naming the mode alone keeps the split count a cluster holds."""
    sig = input_signature(plain_linear(), meta((64, 7168), (2112, 7168)))
    scheduler, params = choose(sig, {"scheduler": "matmul", "block_n": 144, "split_k": 6, "split_k_mode": "cluster"})
    assert (params.cluster, params.threads, params.cluster_split) == (6, 128, True)
    launch, meta_ = scheduler.launch(params, sig), scheduler.meta(params)
    assert launch["tiles"] == 15 * 6 and launch["scratch"] == {} and "workspace" not in launch["views"]
    assert (meta_["grid"], meta_["cluster"], meta_["block"]) == ("per_tile", 6, [128, 1, 1])
    assert [p["kind"] for p in meta_["params"] if p.get("tensor") == "output0"] == ["pointer"]
    assert not [p for p in meta_["params"] if "scratch" in p]
    # Any wgmma width, slices as even as the 8-column groups divide: 9 groups over 8 CTAs, the last 2.
    _, odd = choose(sig, {"scheduler": "matmul", "block_n": 72, "split_k": 8, "split_k_mode": "cluster"})
    assert odd.slice_groups == 2
    assert odd.epilogue_bytes == 8 * 2 * 128 * 16
    for bad in ({"block_n": 16, "split_k": 4}, {"block_n": 128, "split_k": 16}):
        with pytest.raises(FusionError, match="split_k_mode cluster needs split_k <= 8"):
            choose(sig, {"scheduler": "matmul", "split_k_mode": "cluster", **bad})
    with pytest.raises(FusionError, match="cluster_m > 1 needs split_k 1"):
        choose(sig, {"scheduler": "matmul", "split_k_mode": "cluster", "split_k": 2, "cluster_m": 2})
    with pytest.raises(FusionError, match="block_n must be one of"):
        choose(sig, {"scheduler": "matmul", "block_n": 72, "split_k": 8})
    with pytest.raises(FusionError, match=r"a multiple of 8 up to 256"):
        choose(sig, {"scheduler": "matmul", "block_n": 100, "split_k": 2, "split_k_mode": "cluster"})
    long_k = input_signature(plain_linear(), meta((64, 16384), (1024, 16384)))    # atomic would take 16 splits
    _, named = choose(long_k, {"scheduler": "matmul", "split_k_mode": "cluster"})
    assert named.cluster_split and 2 <= named.split_k <= min(8, named.block_n // 8), named


@pytest.mark.skipif(not ptxas.find_ptxas(), reason="ptxas not installed")
def test_cluster_split_kernel_exchanges_partials_through_distributed_smem(private_cache):
    """The splits' K loops (consumer-issued loads: no warp roles), then each thread's 16-byte groups
    into the CTA owning their slice (st.shared::cluster), one cluster barrier, and the slices'
    epilogue stored element by element; every CTA started before the first distributed store."""
    fd = linear_gelu()
    compiled = fd.compile(meta((64, 4096), (512, 4096), (512,)),
                          schedule={"scheduler": "matmul", "block_n": 128, "split_k": 4, "split_k_mode": "cluster"})
    ir_text = compiled.kernel_ir
    assert '"nvasync.warp_role"' not in ir_text and "setmaxnreg" not in compiled.ptx
    assert ir_text.count('"nvasync.cluster_sync"') == 1
    assert '"RAW: nvasync.store_peer -> vector.load"' in ir_text
    assert '"peers started before the distributed store nvasync.store_peer"' in ir_text
    for op in ("tma_reduce", "arrive_flag", "wait_flag", "tma_store"):
        assert f'"nvasync.{op}"' not in ir_text, op
    ptx = compiled.ptx
    assert ".reqnctapercluster 4, 1, 1" in ptx and "barrier.cluster.arrive.relaxed.aligned" in ptx
    # Unequal slices: 10 groups of 80-wide tiles over 4 CTAs hold 2, 3, 2, 3 (the mapa ranks of the
    # 16-byte stores, one per group in order).
    uneven = fd.compile(meta((64, 4096), (512, 4096), (512,)),
                        schedule={"scheduler": "matmul", "block_n": 80, "split_k": 4, "split_k_mode": "cluster"})
    ranks = [int(r) for r in re.findall(r"mapa\.shared::cluster\.u64\s+%rd\d+, %rd\d+, (\d+);", uneven.ptx)]
    assert ranks == [0, 0, 1, 1, 1, 2, 2, 3, 3, 3], ranks
    assert ptx.count("st.shared::cluster.v4.b32") == 128 // 8       # one per column group, unrolled
    assert ptx.index("barrier.cluster.wait") < ptx.index("st.shared::cluster") < \
        ptx.index("barrier.cluster.arrive.aligned") < ptx.index("st.global.b16")
    assert compiled.artifact.cubin, "ptxas produced no cubin"


def test_cluster_override_and_its_checks():
    sig = input_signature(plain_linear(), meta((300, 4096), (512, 4096)))
    _, params = choose(sig, {"scheduler": "matmul", "cluster_m": 2})
    assert params.cluster_m == 2 and params.split_k == 1, "a cluster's tiles are unsplit"
    _, default = choose(sig, None)
    assert default.cluster_m == 1
    with pytest.raises(FusionError, match="cluster_m > 1 needs split_k 1"):
        choose(sig, {"scheduler": "matmul", "cluster_m": 2, "split_k": 2})
    with pytest.raises(FusionError, match=r"cluster_m one of \(1, 2\)"):
        choose(sig, {"scheduler": "matmul", "cluster_m": 4})
    with pytest.raises(FusionError, match="and l2_prefetch 0"):
        choose(sig, {"scheduler": "matmul", "cluster_m": 2, "l2_prefetch": 4})
    with pytest.raises(FusionError, match=r"l2_prefetch in \[0, 65536\]"):
        choose(sig, {"scheduler": "matmul", "l2_prefetch": -1})


@pytest.mark.skipif(not ptxas.find_ptxas(), reason="ptxas not installed")
@pytest.mark.parametrize("op, b_shape, b_box", [("linear", (768, 512), [96, 64]), ("matmul", (512, 768), [32, 64])])
def test_cluster_kernel_multicasts_b_over_two_ctas(private_cache, op, b_shape, b_box):
    """cluster_m 2: launched in clusters of 2 (.reqnctapercluster), units from %clusterid; B's box
    is half the tile (rows of [N, K], K rows of [K, N]), loaded by multicast; the consumers release
    B's stages in both CTAs; cluster barriers after the inits and before the invalidation."""
    with FusionDefinition() as fd:
        a, b = fd.define_tensor([-1, -1], BF16), fd.define_tensor([-1, -1], BF16)
        fd.add_output(getattr(fd.ops, op)(a, b))
    compiled = fd.compile(meta((300, 512), b_shape), schedule={"scheduler": "matmul", "cluster_m": 2, "block_n": 192})
    meta_ = compiled.artifact.meta
    assert meta_["cluster"] == 2 and meta_["params"][1]["box"] == b_box
    ir_text = compiled.kernel_ir
    assert ir_text.count('"nvasync.cluster_sync"') == 2 and '"nvasync.sync_threads"' not in ir_text
    assert '"nvasync.tma_load_multicast"' in ir_text and '"nvasync.mbarrier_arrive_cluster"' in ir_text
    for line in (".reqnctapercluster 2, 1, 1", "%clusterid.x", "%cluster_ctarank", ".multicast::cluster",
                 "mbarrier.arrive.shared::cluster.b64"):
        assert line in compiled.ptx, line
    assert compiled.artifact.cubin, "ptxas produced no cubin"


def silu_gate():
    with FusionDefinition() as fd:
        x, w, g = (fd.define_tensor([-1, -1], BF16) for _ in range(3))
        fd.add_output(fd.ops.mul(fd.ops.silu(fd.ops.linear(x, w)), g))
    return fd


def test_full_operands_by_tma_pair_with_outputs_of_their_dtype():
    sig = input_signature(silu_gate(), meta((4096, 512), (768, 512), (4096, 768)))
    _, params = choose(sig, None)
    assert params.tma_operands == 1 and params.tma_operand_tiles() == {2: 0}
    tensor_maps = [p["tensor"] for p in params.kernel_params() if p["kind"] == "tensormap"]
    assert tensor_maps == ["input0", "input1", "input2", "output0"]
    _, vector_loads = choose(sig, {"scheduler": "matmul", "tma_operands": 0})
    assert vector_loads.tma_operand_tiles() == {}
    assert [p["kind"] for p in vector_loads.kernel_params()][2] == "pointer"
    _, split = choose(sig, {"scheduler": "matmul", "split_k": 2})
    assert split.tma_operand_tiles() == {}, "a split tile's partials share the output tile's memory"
    with pytest.raises(FusionError, match="tma_operands is 0"):
        choose(sig, {"scheduler": "matmul", "tma_operands": 2})


@pytest.mark.skipif(not ptxas.find_ptxas(), reason="ptxas not installed")
def test_full_operand_arrives_by_tma_as_the_k_loop_ends(private_cache):
    """The gate's tile lands in the output's smem tile through a one-stage trailing pipeline around
    the K loop: the A producer loads it after the tile's A loads, the consumers wait for it after
    their K loop, a store warp stores the tile and its smem reads complete before the tile goes
    back for the next tile's load, and the epilogue reads it from shared memory."""
    compiled = silu_gate().compile(meta((4096, 512), (768, 512), (4096, 768)))
    assert compiled.params.tma_operand_tiles() == {2: 0}
    ir_text = compiled.kernel_ir
    consumer_at = ir_text.rindex('"nvasync.warp_role"')
    producer, consumer = ir_text[:consumer_at], ir_text[consumer_at:]
    assert producer.index('fuser.pipeline = "empty[operands]: wait"') > producer.rindex(
        'fuser.pipeline = "full[a]: arrive.expect_tx"'), "the producer loads the operand after the tile's A loads"
    assert '"nvasync.tma_load"(%arg2' in producer and '"nvasync.tma_load"(%arg2' not in consumer, \
        "the producer loads the gate (%arg2), the consumers do not"
    k_loop = consumer.index('fuser.pipeline = "full[a]: wait"')
    assert consumer.index('fuser.pipeline = "full[operands]: wait"') > k_loop, "the operand wait follows the K loop"
    assert '"nvasync.tma_store"(' not in consumer, "the consumers hand the tile to the store warp"
    read_done = producer.index('"WAR: nvasync.tma_store reads smem')
    assert producer.index('fuser.pipeline = "empty[operands]: arrive (offload thread)"') > read_done, \
        "the store warp hands the tile back after the store has read it"
    epilogue = compiled.ptx.split("wgmma.mma_async")[-1]
    assert "ld.global" not in epilogue, "the epilogue loads no global memory"
    # fuser-unroll-loops: a box's 16 in-place pairs are loaded before the first is stored.
    assert epilogue[:epilogue.index("st.shared.b32")].count("ld.shared.v2.b16") == 16
    assert compiled.artifact.cubin, "ptxas produced no cubin"
