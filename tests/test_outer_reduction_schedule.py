"""The outer-reduction scheduler (reductions of leading dims and of every dim), on this machine:
the GPU cases (tests/gpu/test_outer_reductions.py) compile to PTX ptxas accepts with the derived
syncs and nothing more (no barrier between quantities, the slots' TMA store, wait without .read
and release from fuser-tma-reduce-store and the sync passes); the heuristic's choices; what the
scheduler cannot take is a named error."""
import dataclasses
import sys
from pathlib import Path

import pytest
import torch

from fuser_mlir import DataType, FusionDefinition, FusionError
from fuser_mlir.backend.ptxas import assemble
from fuser_mlir.compiler import input_signature
from fuser_mlir.diagnostics import CompileError
from fuser_mlir.schedulers import DeviceSig

sys.path.insert(0, str(Path(__file__).parent / "gpu"))
from cases import OUTER_CASES, reduction_inputs  # noqa: E402

F32, BF16 = DataType.Float, DataType.BFloat16
BY_NAME = {name: (build, shape, schedule) for name, build, shape, schedule in OUTER_CASES}


def fusion(shape, build, dtype=BF16):
    with FusionDefinition() as fd:
        x = fd.define_tensor([-1] * len(shape), dtype)
        outs = build(fd.ops, x)
        for out in outs if isinstance(outs, list) else [outs]:
            fd.add_output(out)
    return fd


def meta(shape, dtype=torch.bfloat16):
    return [torch.empty(shape, dtype=dtype, device="meta")]


@pytest.mark.parametrize("name", list(BY_NAME))
def test_gpu_cases_compile_with_the_derived_protocol_and_no_extra_barrier(name):
    build, shape, schedule = BY_NAME[name]
    fd = build()
    compiled = fd.compile(reduction_inputs(fd, shape, "meta"), schedule=schedule)
    ir, s = compiled.kernel_ir, compiled.params
    assert compiled.scheduler.name == "outer_reduction"
    barriers = ir.count('"nvasync.sync_threads"')
    # Per unit at most: red written after the last unit read it, red read after this unit wrote it,
    # then the totals read by other threads (epilogue; none where each thread reads what it wrote)
    # or TMA-stored (other splits), and the last split's acquire handed on to the CTA; a full
    # reduction's CTA folds add one each, and its partial one.
    most = 3 + 2 * (s.splits > 1) + (s.quantities + (s.splits > 1) if s.full else 0)
    assert 2 <= barriers <= most, ir
    assert "WAW" not in ir, "quantities live in disjoint buffers: no barrier between their stores"
    if s.splits > 1:
        stores = 1 if s.full else s.quantities          # a full reduction's quantities share one box
        assert ir.count('"nvasync.tma_store"') == stores
        assert ir.count('fuser.split_k = "slots"') == stores + 1          # the stores and one release
        assert "pending = 0 : i32, read = false" in ir and '"nvasync.wait_flag"' in ir
        assert ir.count("acquire -> the group's later accesses") == 1
        assert "nvasync.tma_reduce" not in ir and "split_k_store" not in ir
    else:
        assert "nvasync.tma_store" not in ir and "release_flag" not in ir
    # The split count assumes ctas_per_sm CTAs an SM: ptxas is asked for them and must not spill.
    assert f".minnctapersm {s.ctas_per_sm}" in compiled.ptx
    assert " 0 bytes spill stores" in assemble(compiled.ptx).log


@pytest.mark.parametrize("shape, dims, expected", [
    ((4096, 4096), 0, (False, 8, 32, 16)),      # 16 strips of 256 columns x 16: half a round of 4 CTAs an SM
    ((32768, 8192), 0, (False, 8, 32, 8)),      # 32 strips: 256 units (544 left a second round of 16)
    ((4096, 1024), 0, (False, 8, 32, 32)),      # 4 strips: 4 x unroll rows a thread bound the splits
    ((65536, 8), 0, (False, 8, 1, 16)),         # narrow: one thread across, 256 rows at a time
    ((1000, 3), 0, (False, 1, 4, 1)),           # 3 columns: vector 1, a strip of 4 (16 bytes of f32)
    ((1 << 20,), None, (True, 8, 32, 64)),      # full: [4096, 256] rows, 64 splits of 2 x unroll rows a thread
    ((1001, 1003), None, (True, 1, 256, 490)),  # 1004003 is odd: vector 1, 3922 rows of 256
    ((32768, 32768), None, (True, 8, 32, 528)),  # one round: 4 CTAs on each of 132 SMs
    ((4096, 4096), (0, 1), (True, 8, 32, 528)),
])
def test_heuristic(shape, dims, expected):
    fd = fusion(shape, lambda o, x: o.sum(x, dims))
    s = fd.compile(meta(shape)).params
    assert (s.full, s.vector, s.tx, s.splits) == expected


def test_a_round_is_the_devices_sms():
    """A full reduction's splits fill one round: 4 CTAs on each SM of the device."""
    from fuser_mlir.schedulers.outer_reduction import SCHEDULER

    sig = input_signature(fusion((32768, 32768), lambda o, x: o.sum(x, None)), meta((32768, 32768)))
    assert SCHEDULER.heuristic(dataclasses.replace(sig, device=DeviceSig("H100 PCIe", 114, 2039))).splits == 4 * 114


def test_leading_dims_and_every_dim_go_to_outer_reduction_and_the_last_dim_to_row_reduction():
    picks = {dims: fusion((64, 32), lambda o, x, d=dims: o.sum(x, d)).compile(meta((64, 32))).scheduler.name
             for dims in (0, None, 1)}
    assert picks == {0: "outer_reduction", None: "outer_reduction", 1: "row_reduction"}


def test_what_it_cannot_take_is_named():
    # The result broadcast back over the reduced rows: a full-shape output.
    fd = fusion((64, 32), lambda o, x: o.sub(x, o.mean(x, 0, keepdim=True)))
    with pytest.raises(FusionError, match="broadcast its result back"):
        fd.compile(meta((64, 32)), schedule={"scheduler": "outer_reduction"})
    # A reduction of a value computed from another reduction: also a second pass (found as the
    # kernel is built, reported by fuser-schedule).
    fd = fusion((64, 32), lambda o, x: o.sum(o.sub(x, o.mean(x, 0, keepdim=True)), 0))
    with pytest.raises(CompileError, match="fuser-schedule: outer_reduction: .*another reduction's result"):
        fd.compile(meta((64, 32)))
    # Middle dims only.
    fd = fusion((4, 64, 32), lambda o, x: o.sum(x, 1))
    with pytest.raises(FusionError, match="same leading dims"):
        fd.compile(meta((4, 64, 32)), schedule={"scheduler": "outer_reduction"})
    with pytest.raises(FusionError, match="out of range"):
        fusion((64, 32), lambda o, x: o.sum(x, 0)).compile(meta((64, 32)), schedule={"scheduler": "outer_reduction",
                                                                                     "tx": 3})


def test_empty_kept_dims_launch_nothing_and_folding_nothing_is_an_error():
    from fuser_mlir.schedulers.outer_reduction import SCHEDULER

    fd = fusion((64, 32), lambda o, x: o.sum(x, 0))
    params = fd.compile(meta((64, 32))).params
    assert SCHEDULER.launch(params, input_signature(fd, meta((64, 0))))["tiles"] == 0
    with pytest.raises(FusionError, match="folds no elements"):
        SCHEDULER.launch(params, input_signature(fd, meta((0, 32))))
