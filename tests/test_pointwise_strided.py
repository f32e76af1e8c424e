"""The strided pointwise scheduler (pointwise_strided) on CPU: which scheduler and access modes
each kind of input gets, the launch scalars, kernels that ptxas accepts for every mode and rank
0-4 with no derived sync, cache keys that tell the modes apart, and `schedule=` overrides.
(tests/gpu/test_strided.py runs the kernels on the H100.)"""
import re
import pytest
import torch
from mlir import ir

from fuser_mlir import DataType, FusionDefinition, FusionError
from fuser_mlir.api import signature_key
from fuser_mlir.backend.pipeline import SYNC_PASSES, PassPipeline
from fuser_mlir.backend.ptxas import assemble
from fuser_mlir.compiler import check_alignment, choose, input_signature
from fuser_mlir.dialects import new_context
from fuser_mlir.schedulers import FusionSig, TensorSig

BF16, F32 = torch.bfloat16, torch.float32


pytestmark = pytest.mark.usefixtures("private_cache")


def mul_relu(*ranks, dtype=DataType.BFloat16):
    """relu(in0) * in1 * ... over inputs of these ranks (torch broadcasting)."""
    with FusionDefinition() as fd:
        inputs = [fd.define_tensor([-1] * r, dtype) for r in ranks]
        out = fd.ops.relu(inputs[0])
        for t in inputs[1:]:
            out = fd.ops.mul(out, t)
        fd.add_output(out)
    return fd


def rand(*shape, dtype=BF16):
    return torch.randn(shape).to(dtype)


def decide(inputs, schedule=None):
    fd = mul_relu(*(t.dim() for t in inputs), dtype={BF16: DataType.BFloat16, F32: DataType.Float}[inputs[0].dtype])
    sig = input_signature(fd, inputs)
    scheduler, params = choose(sig, schedule)
    return scheduler, params, scheduler.launch(params, sig)


# (name, inputs, rank of the collapsed view, input modes, output modes, vector width)
MODES = [
    ("bias [N] over [M, N]", lambda: [rand(300, 1024), rand(1024)], 2, ("vector", "vector"), ("vector",), 8),
    ("[M, 1] over [M, N]", lambda: [rand(300, 1024), rand(300, 1)], 2, ("vector", "splat"), ("vector",), 8),
    ("0-d operand", lambda: [rand(300, 1024), rand()], 1, ("vector", "splat"), ("vector",), 8),
    ("size-1 dims in 3-D", lambda: [rand(4, 1, 6), rand(1, 5, 1)], 3, ("vector", "splat"), ("vector",), 2),
    ("rank 4, alternating broadcasts", lambda: [rand(3, 1, 5, 1), rand(1, 4, 1, 6)], 4, ("splat", "vector"),
     ("vector",), 2),
    ("transposed", lambda: [rand(96, 64).t(), rand(64, 96)], 2, ("gather", "vector"), ("vector",), 8),
    ("sliced, rows aligned", lambda: [rand(64, 72)[:, :64], rand(64, 64)], 2, ("vector", "vector"), ("vector",), 8),
    ("sliced, misaligned", lambda: [rand(64, 72)[:, 3:67], rand(64, 64)], 2, ("gather", "vector"), ("vector",), 8),
    ("misaligned pointer x[1:]", lambda: [rand(4097)[1:], rand(4096)], 1, ("gather", "vector"), ("vector",), 8),
    ("expanded view", lambda: [rand(1, 64).expand(32, 64), rand(32, 64)], 2, ("vector", "vector"), ("vector",), 8),
    ("ragged rows", lambda: [rand(129, 333), rand(333)], 2, ("gather", "vector"), ("scalar",), 8),
    ("f32, short rows", lambda: [rand(100, 6, dtype=F32), rand(6, dtype=F32)], 2, ("vector", "vector"),
     ("vector",), 2),
    ("zero-size with a broadcast", lambda: [rand(0, 64), rand(64)], 2, ("vector", "vector"), ("vector",), 8),
]


@pytest.mark.parametrize("name, inputs, rank, in_modes, out_modes, vector", MODES, ids=[m[0] for m in MODES])
def test_heuristic_access_modes(name, inputs, rank, in_modes, out_modes, vector):
    scheduler, params, _ = decide(inputs())
    assert scheduler.name == "pointwise_strided"
    assert (params.rank, params.in_modes, params.out_modes, params.vector) == (rank, in_modes, out_modes, vector)


@pytest.mark.parametrize("inputs", [
    lambda: [rand(300, 1024), rand(300, 1024)],
    lambda: [rand(4097), rand(4097)],                    # ragged rows: TMA's flat view
    lambda: [rand(0, 8), rand(0, 8)],                    # zero-size: contiguous and aligned
], ids=["dense", "dense ragged", "zero-size"])
def test_dense_inputs_take_the_strided_scheduler_one_cta_per_step(inputs):
    """Dense tensors run the strided scheduler too (measured faster than the TMA pipelines): one
    CTA per grid step of 8 elements per thread; the TMA scheduler takes them when named."""
    scheduler, params, launch = decide(inputs())
    assert scheduler.name == "pointwise_strided" and params.in_modes == ("vector", "vector")
    assert (params.persistent, params.unroll * params.vector) == (0, 8)
    assert scheduler.meta(params)["grid"] == "per_tile"
    assert launch["tiles"] == -(-launch["scalars"].get("units", 0) // params.step_units)
    assert decide(inputs(), {"scheduler": "pointwise"})[0].name == "pointwise"


def test_f32_steps_are_two_vectors_per_thread():
    params = decide([rand(300, 1024, dtype=F32), rand(300, 1024, dtype=F32)])[1]
    assert (params.vector, params.unroll) == (4, 2)


def test_meta_tensors_decide_like_real_ones():
    """A meta tensor's alignment is its storage offset's: build_artifacts can describe x[1:]."""
    meta = [torch.empty(4097, dtype=BF16, device="meta")[1:], torch.empty(4096, dtype=BF16, device="meta")]
    assert decide(meta)[1] == decide([rand(4097)[1:], rand(4096)])[1]


def test_launch_scalars_are_the_view_sizes_and_strides():
    """x = base[6, 5, 4].permute(2, 0, 1) (strides 1, 20, 4) times y [5]: rank 3, x gathered."""
    x = rand(6, 5, 4).permute(2, 0, 1)
    _, params, launch = decide([x, rand(5)])
    assert (params.rank, params.in_modes) == (3, ("gather", "vector"))
    cols, chunks = 5, 1                                      # vector 1: 5 is odd and short
    assert params.vector == 1
    assert launch["scalars"] == {"units": 4 * 6 * 5 * chunks, "cols": cols, "chunks": 5, "size1": 6,
                                 "stride0_0": 1, "stride0_1": 20, "stride0_2": 4, "stride1_0": 0, "stride1_1": 0}
    assert launch["tiles"] == 1


def test_zero_size_launches_nothing():
    _, _, launch = decide([rand(0, 64), rand(64)])
    assert launch["tiles"] == 0
    _, _, launch = decide([rand(0, 8), rand(0, 8)])
    assert launch["tiles"] == 0


def compile_ok(fd, inputs, schedule=None):
    compiled = fd.compile(inputs, schedule=schedule)
    assembled = assemble(compiled.ptx)
    assert "0 bytes spill stores" in assembled.log, assembled.log
    return compiled


# (name, fusion input ranks, inputs) for every mode and every output rank 0-4.
KERNELS = [
    ("rank0", (0, 0), lambda: [rand(), rand()]),
    ("rank1 gather+vector", (1, 1), lambda: [rand(4097)[1:], rand(4096)]),
    ("rank2 vector+vector bias", (2, 1), lambda: [rand(300, 1024), rand(1024)]),
    ("rank2 gather+splat", (2, 2), lambda: [rand(96, 64).t(), rand(64, 1)]),
    ("rank3 vector+splat", (3, 3), lambda: [rand(4, 1, 6), rand(1, 5, 1)]),
    ("rank4 splat+vector", (4, 4), lambda: [rand(3, 1, 5, 1), rand(1, 4, 1, 6)]),
]


@pytest.mark.parametrize("name, ranks, inputs", KERNELS, ids=[k[0] for k in KERNELS])
def test_kernel_assembles_without_sync_or_smem(name, ranks, inputs):
    compiled = compile_ok(mul_relu(*ranks), inputs(), schedule={"scheduler": "pointwise_strided"})
    params = compiled.params
    assert compiled.scheduler.name == "pointwise_strided" and params.rank == max(1, len(ranks) and ranks[0])
    ir_text, ptx = compiled.kernel_ir, compiled.ptx
    assert "fuser.derived" not in ir_text and "workgroup" not in ir_text
    # No nvasync op but the wait for the previous kernel in the stream (fuser-grid-dependency).
    assert set(re.findall(r'"(nvasync\.\w+)"', ir_text)) == {"nvasync.grid_dependency_wait"}
    assert ".shared" not in ptx and "bar.sync" not in ptx and "cp.async" not in ptx
    wide = "ld.global.v4.b32" in ptx
    assert wide == ("vector" in params.in_modes and params.vector == 8), "16-byte loads exactly in vector mode"
    assert compiled.artifact.meta["dynamic_smem"] == 0
    kinds = [p["kind"] for p in compiled.artifact.meta["params"]]
    assert kinds == ["pointer"] * 3 + ["scalar"] * (len(kinds) - 3)


def test_sync_passes_insert_nothing():
    """The kernel IR is identical before and after the sync passes (and their verifier is clean)."""
    fd = mul_relu(2, 2, 0)
    compiled = fd.compile([rand(64, 100)[:, :96].t(), rand(96, 1), rand()])
    with new_context(), ir.Location.unknown():
        module = ir.Module.parse(compiled.fusion_ir)
        PassPipeline(["fuser-verify-dialects", "fuser-schedule"]).run(module)
        before = str(module)
        PassPipeline(SYNC_PASSES).run(module)
        assert str(module) == before


def test_gpu_float_dtypes_and_two_outputs_assemble():
    """f32 and f16 storage, a bool condition splatted along rows and two outputs."""
    with FusionDefinition() as fd:
        c = fd.define_tensor([-1, 1], DataType.Bool)
        x = fd.define_tensor([-1, -1], DataType.Half)
        y = fd.define_tensor([-1], DataType.Float)
        fd.add_output(fd.ops.where(c, x, y))
        fd.add_output(fd.ops.cast(fd.ops.sigmoid(x), DataType.Half))
    compiled = compile_ok(fd, [torch.rand(33, 1) < 0.5, rand(33, 520, dtype=torch.float16), rand(520, dtype=F32)])
    assert compiled.params.in_modes == ("splat", "vector", "vector")
    assert compiled.params.out_modes == ("vector", "vector")


def test_cache_keys_tell_access_modes_apart():
    """Rows read as vectors, misaligned and transposed inputs of one shape, and a dense one (TMA):
    four launch keys.  Misaligned and transposed are both gathered (their strides are kernel
    scalars): one kernel, another than the vector one.  A fresh tensor of the same signature
    reuses its key."""
    fd = mul_relu(2, 1)
    bias = rand(64)
    variants = {"vector": rand(64, 72)[:, :64], "misaligned": rand(64 * 64 + 1).view(-1)[1:].view(64, 64),
                "transposed": rand(64, 64).t(), "dense": rand(64, 64)}
    compiled = {name: fd.compile([x, bias]) for name, x in variants.items() if name != "dense"}
    assert [c.params.in_modes[0] for c in compiled.values()] == ["vector", "gather", "gather"]
    keys = {name: c.artifact.key for name, c in compiled.items()}
    assert keys["misaligned"] == keys["transposed"] != keys["vector"]
    assert compiled["misaligned"].launch["scalars"] != compiled["transposed"].launch["scalars"]
    keys = {name: signature_key([x, bias]) for name, x in variants.items()}
    assert len(set(keys.values())) == 4
    assert signature_key([rand(64, 72)[:, :64], rand(64)]) == keys["vector"]
    assert signature_key([rand(64, 64).t(), bias]) == keys["transposed"]
    assert signature_key([rand(64, 64), bias]) == keys["dense"]


def test_same_modes_share_one_kernel_across_shapes_and_strides():
    fd = mul_relu(2, 1)
    a = fd.compile([rand(300, 1024), rand(1024)])
    b = fd.compile([rand(256, 40)[:7, :8 * 4], rand(32)])          # sliced rows, 80-byte row stride
    assert a.params == b.params and a.artifact.key == b.artifact.key
    assert a.launch["scalars"] != b.launch["scalars"]


def test_schedule_selects_and_overrides():
    dense = [rand(300, 1024), rand(300, 1024)]
    _, params, _ = decide(dense, {"scheduler": "pointwise_strided"})
    assert params.in_modes == ("vector", "vector") and params.rank == 1
    _, params, _ = decide(dense, {"scheduler": "pointwise_strided", "unroll": 2, "threads": 128})
    assert (params.unroll, params.threads) == (2, 128)
    with pytest.raises(FusionError, match=r"scheduler 'pointwise' cannot take this fusion: input 1 of shape \[1024\]"):
        decide([rand(300, 1024), rand(1024)], {"scheduler": "pointwise"})
    with pytest.raises(FusionError, match="has no decision stages"):
        decide(dense, {"scheduler": "pointwise_strided", "stages": 2})
    with pytest.raises(FusionError, match="needs a 'scheduler' name"):
        decide(dense, {"unroll": 2})
    with pytest.raises(FusionError, match="no scheduler named 'tiled'"):
        decide(dense, {"scheduler": "tiled"})
    with pytest.raises(FusionError, match="input 0 cannot be read in mode 'vector'"):
        decide([rand(4097)[1:], rand(4096)], {"scheduler": "pointwise_strided", "in_modes": "vector,vector"})


def test_execute_keys_launchers_by_schedule():
    """`schedule=` is part of the launcher cache key (no GPU here: the key is computed first)."""
    x = [rand(8, 64), rand(8, 64)]
    assert signature_key(x) == signature_key([t.clone() for t in x])
    if torch.cuda.is_available():
        pytest.skip("needs a machine without a GPU to observe the error")
    fd = mul_relu(2, 2)
    with pytest.raises(FusionError, match="no CUDA GPU"):
        fd.execute(x, schedule={"scheduler": "pointwise_strided"})


def test_compiled_run_checks_the_signature():
    fd = mul_relu(2, 1)
    compiled = fd.compile([rand(8, 64), rand(64)])
    with pytest.raises(FusionError, match="compiled for inputs"):
        compiled.run([rand(64, 8).t(), rand(64)])


def test_pointer_alignment_is_checked_against_the_signature():
    """Launches write input addresses unchecked: a kernel may read an input with wider accesses
    only where the signature guarantees the alignment."""
    def sig(aligned):
        t = TensorSig((64, 64), DataType.BFloat16, aligned=aligned)
        return FusionSig(frozenset({"binary"}), (t,), (t,))

    def params(align):
        return [{"kind": "pointer", "tensor": "input0", "dtype": "bf16", "align": align},
                {"kind": "pointer", "tensor": "output0", "dtype": "bf16", "align": 16}]

    check_alignment(sig(True), params(16), "s")
    check_alignment(sig(False), params(2), "s")
    with pytest.raises(FusionError, match="reads input0 with 16-byte accesses.*only known to be 2-byte aligned"):
        check_alignment(sig(False), params(16), "s")
    with pytest.raises(FusionError, match="only known to be 16-byte aligned"):
        check_alignment(sig(True), params(32), "s")


FUSION_IR = """
func.func @bias(%x: tensor<?x512xbf16>, %b: tensor<512xbf16>) -> tensor<?x512xbf16> attributes {fusion.fusion@ATTR@} {
  %bb = "fusion.broadcast"(%b) {dims = array<i64: @DIMS@>} : (tensor<512xbf16>) -> tensor<?x512xbf16>
  %y = "fusion.binary"(%x, %bb) {kind = "add"} : (tensor<?x512xbf16>, tensor<?x512xbf16>) -> tensor<?x512xbf16>
  return %y : tensor<?x512xbf16>
}
"""


def schedule_fusion_ir(attr="", dims="1", text=FUSION_IR):
    text = text.replace("@ATTR@", attr).replace("@DIMS@", dims)
    with new_context(), ir.Location.unknown():
        module = ir.Module.parse(text)
        PassPipeline(["fuser-verify-dialects", "fuser-schedule"]).run(module)
        return str(module)


def test_fuser_schedule_picks_strided_for_broadcasts_and_reads_string_fields():
    kernel = schedule_fusion_ir()
    assert "gpu.func @bias(%arg0: !llvm.ptr<1>, %arg1: !llvm.ptr<1>, %arg2: !llvm.ptr<1>" in kernel
    attr = (', fusion.schedule = {scheduler = "pointwise_strided", rank = 2, vector = 4, unroll = 1, '
            'threads = 64, in_modes = "gather,splat", out_modes = "scalar"}')
    kernel = schedule_fusion_ir(attr)
    assert "array<i32: 64, 1, 1>" in kernel and "vector<" not in kernel.split("gpu.func")[1].split("llvm.load")[1][:80]


def test_broadcast_that_is_not_right_aligned_is_refused():
    text = FUSION_IR.replace("512xbf16", "8xbf16").replace("?x512", "8x8")
    with pytest.raises(Exception, match="broadcasts right-aligned"):
        schedule_fusion_ir(dims="0", text=text)
