"""Folds of f32 values (sum, max, min) over a thread's lanes, a warp and a CTA: the combine step
every reduction kernel shares.  Call inside an MLIR context and insertion point.

`block_fold` leaves the total of a group of warps (by default the CTA) in each of its threads:
each warp folds by xor shuffles, lane 0 of each warp stores its partial into an smem slot of
threads/32 f32, lane w of every warp loads the partial of its group's warp w (the others the
identity) and the warp folds them by shuffles again (5 steps, not one load per warp).  The
barrier between the slot's stores and loads is not written here: fuser-insert-syncs derives it
(a generic write -> generic read hazard between threads).
"""
from __future__ import annotations

import math

from mlir import ir
from mlir.dialects import arith, gpu, memref

from ..dialects import nvasync
from .builders import i32, if_then, smem_type, to_index

WARP = 32
# What folds a reduction and where it starts (the sum of a mean or var too).
FOLD = {"sum": arith.addf, "mean": arith.addf, "var": arith.addf, "max": arith.maximumf, "min": arith.minimumf}
IDENTITY = {"sum": 0.0, "mean": 0.0, "var": 0.0, "max": -math.inf, "min": math.inf}


def identity(kind: str):
    return arith.constant(ir.F32Type.get(), IDENTITY[kind])


def tree(kind: str, values: list):
    """`values` folded pairwise (a tree: log depth, not a chain)."""
    fold = FOLD[kind]
    while len(values) > 1:
        values = [fold(a, b) for a, b in zip(values[::2], values[1::2])] + values[len(values) // 2 * 2:]
    return values[0]


def warp_fold(kind: str, value):
    """`value` folded over the warp's 32 lanes, in each of them (xor butterflies)."""
    for offset in (16, 8, 4, 2, 1):
        value = FOLD[kind](value, gpu.shuffle(value, i32(offset), i32(WARP), gpu.ShuffleMode.XOR)[0])
    return value


def slot_bytes(threads: int) -> int:
    """Shared memory a block_fold of `threads` threads uses (16-byte aligned)."""
    return 0 if threads <= WARP else -(-threads // WARP * 4 // 16) * 16


def block_fold(kind: str, value, tid, threads: int, slot_offset: int, group: int | None = None):
    """The fold of every thread's `value` over its group of `group` threads (a multiple of 32
    dividing `threads`, the CTA's threads by default; tid: i32), in every thread of the group; the
    smem slot at byte `slot_offset` (slot_bytes(threads) of them) is used once."""
    acc = warp_fold(kind, value)
    warps = (group or threads) // WARP
    if warps <= 1:
        return acc
    slot = nvasync.SmemBufferOp(smem_type([threads // WARP], "f32"), offset=slot_offset).buffer
    lane = arith.andi(tid, i32(WARP - 1))
    with if_then(arith.cmpi(arith.CmpIPredicate.eq, lane, i32(0))):
        memref.store(acc, slot, [to_index(arith.shrui(tid, i32(5)))])
    at = arith.minui(lane, i32(warps - 1))
    if warps < threads // WARP:         # from the group's first warp
        at = arith.addi(arith.andi(arith.shrui(tid, i32(5)), i32(-warps)), at)
    partial = memref.load(slot, [to_index(at)])
    # Lanes past the last warp hold the identity, so that every lane ends with the total.
    return warp_fold(kind, arith.select(arith.cmpi(arith.CmpIPredicate.ult, lane, i32(warps)), partial,
                                        identity(kind)))
