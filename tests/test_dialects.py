"""The fusion and nvasync dialects: loading, Python builders for every op, value checks, IRDL."""
import subprocess
import sys

import pytest

from fuser_mlir import dialects
from fuser_mlir.dialects import fusion, nvasync
from fuser_mlir.backend.pipeline import compile_to_ptx
from fuser_mlir.backend.ptxas import assemble

from helpers import kernel_module, smem_type


def test_import_does_not_load_mlir():
    code = "import sys, fuser_mlir, fuser_mlir.dialects, fuser_mlir.diagnostics; print('mlir' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_loading_is_idempotent_per_context(ctx):
    dialects.load_dialects(ctx)           # a second load would abort the process if unguarded
    dialects.load_dialects(ctx)
    assert ctx.is_registered_operation("nvasync.tma_load")
    assert ctx.is_registered_operation("fusion.matmul")


def test_irdl_text_loads_in_a_fresh_context():
    from mlir import ir
    from mlir.dialects import irdl

    with ir.Context() as fresh, ir.Location.unknown():
        module = ir.Module.parse(dialects.irdl_source())
        assert module.operation.verify()
        irdl.load_dialects(module)
        for op in nvasync.OPS:
            assert fresh.is_registered_operation(f"nvasync.{op.name}"), op.name
        for op in fusion.OPS:
            assert fresh.is_registered_operation(f"fusion.{op.name}"), op.name


def build_every_nvasync_op():
    """A kernel built only through the Python op classes, using every nvasync op."""
    from mlir import ir
    from mlir.dialects import arith, scf

    module, ip, block = kernel_module()
    desc, n, flag = block.arguments
    i64, bf16, f32 = ir.IntegerType.get_signless(64), ir.BF16Type.get(), ir.F32Type.get()
    with ip:
        bars = nvasync.SmemBufferOp(smem_type([2], i64), offset=0).buffer
        tile = nvasync.SmemBufferOp(smem_type([64, 64], bf16), offset=1024).buffer
        a = nvasync.SmemBufferOp(smem_type([64, 16], bf16), offset=9216).buffer
        b = nvasync.SmemBufferOp(smem_type([128, 16], bf16), offset=10240).buffer
        c0 = arith.constant(ir.IndexType.get(), 0)
        zero = arith.constant(ir.IntegerType.get_signless(32), 0)
        elected = nvasync.ElectOneOp(ir.IntegerType.get_signless(1)).elected
        nvasync.LaunchDependentsOp()
        nvasync.TmaPrefetchOp(desc, [n, zero])
        nvasync.GridDependencyWaitOp()
        nvasync.MbarrierInitOp(bars, c0, count=1)
        nvasync.FenceMbarrierInitOp()
        nvasync.SyncThreadsOp()
        branch = scf.IfOp(elected)
        with ir.InsertionPoint(branch.then_block):
            nvasync.MbarrierArriveExpectTxOp(bars, c0, bytes=8192)
            nvasync.TmaLoadOp(desc, tile, bars, c0, [n, zero])
            nvasync.TmaLoadMulticastOp(desc, tile, bars, c0, [n, zero], ctas=2)
            scf.YieldOp([])
        nvasync.MbarrierTryWaitParityOp(bars, c0, zero)
        nvasync.FenceProxyAsyncOp(space="shared::cta")
        nvasync.NamedBarrierOp(id=1, threads=128)
        nvasync.TmaStoreOp(desc, tile, [n, zero])
        nvasync.TmaReduceOp(desc, tile, [n, zero], kind="max")
        nvasync.BulkCommitOp()
        nvasync.BulkWaitOp(pending=0, read=False)
        nvasync.ReleaseFlagOp(flag, arith.constant(ir.IntegerType.get_signless(32), 1))
        nvasync.WaitFlagOp(flag, arith.constant(ir.IntegerType.get_signless(32), 1))
        nvasync.ArriveFlagOp(ir.IntegerType.get_signless(32), flag, arith.constant(ir.IntegerType.get_signless(32), 1))
        nvasync.ResetFlagOp(flag)
        nvasync.BulkWaitOp(pending=0, read=True)
        role = nvasync.WarpRoleOp(first_warp=4, num_warps=4)
        with ir.InsertionPoint(role.body.blocks.append()):
            nvasync.SetmaxnregOp(regs=232, action="inc")
            acc_ty = ir.VectorType.get([64], f32)
            acc = arith.constant(acc_ty, ir.DenseElementsAttr.get_splat(acc_ty, ir.FloatAttr.get(f32, 1.0)))
            nvasync.WgmmaFenceOp()
            nvasync.WgmmaOp(acc_ty, a, b, acc, swizzle=32, accumulate=True)
            nvasync.WgmmaCommitOp()
            nvasync.WgmmaWaitOp(pending=0)
            ir.Operation.create("gpu.yield")
        nvasync.WarpSyncOp()
        nvasync.MbarrierArriveOp(bars, c0)
        nvasync.MbarrierInvalOp(bars, c0)
        slots = nvasync.SmemBufferOp(smem_type([4], f32), offset=14336).buffer
        rank = nvasync.ClusterRankOp(ir.IntegerType.get_signless(32)).rank
        nvasync.ClusterArriveOp()
        nvasync.ClusterWaitOp()
        nvasync.StorePeerOp(arith.constant(f32, 2.0), slots, rank, c0)
        nvasync.MbarrierArriveClusterOp(bars, c0, rank)
        nvasync.ClusterSyncOp()
    return module


def test_builders_cover_every_nvasync_op_and_lower_to_ptx(ctx):
    module = build_every_nvasync_op()
    assert module.operation.verify()
    used = {op.split('"')[1] for op in str(module).split() if op.startswith('"nvasync.')}
    # pipeline_load, offload and the split-K marks exist only until fuser-pipeline-mbarriers and
    # fuser-tma-reduce-store rewrite them (tests/test_pipelines.py, lit_tests/pipeline, lit_tests/splitk)
    assert used == {f"nvasync.{op.name}" for op in nvasync.OPS} - {
        "nvasync.pipeline_load", "nvasync.offload", "nvasync.split_k_store", "nvasync.split_k_wait",
        "nvasync.split_k_last"}
    first = module.body.operations[0].regions[0].blocks[0].operations[0].regions[0].blocks[0].operations[0]
    assert isinstance(first.opview, nvasync.SmemBufferOp) and first.opview.offset == 0
    ptx = compile_to_ptx(module)["kernels"]
    for instruction in ("cp.reduce.async.bulk.tensor.2d.global.shared::cta.max", "elect.sync",
                        "cp.async.bulk.prefetch.tensor.2d.L2.global.tile",
                        "red.release.gpu.global.add.s32", "ld.acquire.gpu.global.b32",
                        "atom.acq_rel.gpu.global.add.u32",
                        "st.relaxed.gpu.global.b32",
                        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16", "setmaxnreg.inc",
                        "bar.warp.sync", "%cluster_ctarank", "mapa.shared::cluster.u64", "st.shared::cluster.b32",
                        "barrier.cluster.arrive.relaxed.aligned", "barrier.cluster.arrive.aligned",
                        "barrier.cluster.wait.aligned", "mbarrier.arrive.shared::cluster.b64",
                        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"):
        assert instruction in ptx
    assert len(assemble(ptx).cubin) > 0


def test_accessors_return_variadic_groups(ctx):
    module = build_every_nvasync_op()
    loads = [op for op in _walk(module) if op.name == "nvasync.tma_load"]
    load = loads[0].opview
    assert len(load.coords) == 2 and load.desc == load.operation.operands[0]


def _walk(module):
    from mlir import ir

    found = []
    module.operation.walk(lambda op: found.append(op) or ir.WalkResult.ADVANCE)
    return found


def test_builder_rejects_missing_attribute(ctx):
    module, ip, _ = kernel_module()
    with ip, pytest.raises(TypeError, match="missing attribute 'regs'"):
        nvasync.SetmaxnregOp(action="inc")


def test_fusion_builders_and_checks(ctx):
    from mlir import ir

    bf16 = ir.BF16Type.get()
    t = ir.RankedTensorType.get([ir.ShapedType.get_dynamic_size(), 8], bf16)
    module = ir.Module.parse(f"func.func @f(%x: {t}) attributes {{fusion.fusion}} {{ return }}")
    block = module.body.operations[0].regions[0].blocks[0]
    x = block.arguments[0]
    with ir.InsertionPoint(block.operations[0]):
        y = fusion.UnaryOp(t, x, kind="relu").result
        z = fusion.BinaryOp(t, x, y, kind="mul").result
        r = fusion.ReduceOp(ir.RankedTensorType.get([ir.ShapedType.get_dynamic_size()], bf16), z,
                            kind="sum", axes=[1]).result
        fusion.BroadcastOp(t, r, dims=[0])
        bad = fusion.ReduceOp(ir.RankedTensorType.get([8], bf16), z, kind="median", axes=[3])
    assert module.operation.verify()
    assert dialects.verify_op(y.owner) == []
    errors = dialects.verify_op(bad.operation)
    assert any("kind must be one of sum" in e for e in errors)


def test_fusion_pointwise_kinds_types_and_parameters(ctx):
    """Predicates give i1, integer kinds take i32/i64, scalar parameters are checked attributes."""
    from mlir import ir

    i64, i1 = ir.IntegerType.get_signless(64), ir.IntegerType.get_signless(1)
    t, b = ir.RankedTensorType.get([4], i64), ir.RankedTensorType.get([4], i1)
    module = ir.Module.parse(f"func.func @f(%x: {t}) attributes {{fusion.fusion}} {{ return }}")
    block = module.body.operations[0].regions[0].blocks[0]
    x = block.arguments[0]
    with ir.InsertionPoint(block.operations[0]):
        lt = fusion.BinaryOp(b, x, x, kind="lt").result
        picked = fusion.TernaryOp(t, lt, x, x, kind="where").result
        clamp = fusion.UnaryOp(t, picked, kind="clamp")
        clamp.operation.attributes["min"] = ir.IntegerAttr.get(i64, -3)
        exp = fusion.UnaryOp(t, x, kind="exp")
        wrong = fusion.UnaryOp(t, x, kind="clamp")
        wrong.operation.attributes["max"] = ir.FloatAttr.get(ir.F64Type.get(), 0.5)
    assert module.operation.verify()
    for ok in (lt.owner, picked.owner, clamp):
        assert dialects.verify_op(ok) == [], ok
    assert dialects.verify_op(exp) == ["'x' has element type i64; supported: f32, f16, bf16"]
    assert dialects.verify_op(wrong) == ["'max' must be an i64 attribute (the op is i64), got 5.000000e-01 : f64"]
    assert set(fusion.KINDS["binary"]) >= {"pow", "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or"}


@pytest.mark.parametrize("attrs, message", [
    ({"regs": 41, "action": "inc"}, "multiple of 8 in [24, 256]"),
    ({"regs": 16, "action": "inc"}, "multiple of 8 in [24, 256]"),
    ({"regs": 264, "action": "dec"}, "multiple of 8 in [24, 256]"),
    ({"regs": 40, "action": "up"}, "action must be 'inc' or 'dec'"),
])
def test_setmaxnreg_checks(ctx, attrs, message):
    module, ip, _ = kernel_module()
    with ip:
        op = nvasync.SetmaxnregOp(**attrs)
    assert any(message in e for e in dialects.verify_op(op.operation))


def test_valid_setmaxnreg_has_no_errors(ctx):
    module, ip, _ = kernel_module()
    with ip:
        op = nvasync.SetmaxnregOp(regs=24, action="dec")
    assert dialects.verify_op(op.operation) == []
