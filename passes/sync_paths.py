"""Paths between two operations in structured kernel IR, for the sync insertion passes.

A path from A to B runs forward in program order (A before B) or, when B comes first, around the
innermost scf.for holding both (A in iteration i, B in i + 1).  Along it, an op *surely runs* when
it sits directly in a block the path crosses, or inside a uniform scf.if whose condition is
implied by one guarding A or B (stage guards `r * S + s < n` of an unrolled pipeline: a later
stage running implies the earlier ones ran).  Ops under an `elect_one` guard run on the issuing
thread only; `PathOp.issuer` says so.

Ops inside a divergent scf.if surely run for A's and B's threads when the condition depends on
the thread index alone and selects whole warps that include theirs (`warps_taking`).

`insertion_point(path, accept)` is where a sync for the hazard goes: on the path, in the deepest
block above B whose threads the caller accepts (for a barrier: whole warps including A's and
B's, so the barrier can name them) and not inside a loop that does not also hold A -- the
outermost loop level covering the hazard.
"""
from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from .smem_model import (elect_op, is_divergent, linear, loop_step, op_key, reset_memo, structural_key,
                         threads_of, warps_taking)


# Memoized per pass step: the chain of enclosing blocks of an op (paths are asked for many access
# pairs).  Keys are the ops themselves (`==` is identity; `hash(op)` is structural -- name,
# operands, attributes, location -- so the clones a pipeline makes of one op share it and cannot
# key anything alone); `invalidate` clears the memo (and smem_model's) whenever the IR changes
# and at the start of every pass run.
_cache: dict = {}


def invalidate() -> None:
    _cache.clear()
    reset_memo()


def _block_ops(block):
    return [op_key(o) for o in block.operations]


def _block_of(op):
    """The block holding `op` (single-block regions, as structured kernel IR has)."""
    op = op_key(op)
    for region in op.parent.regions:
        for block in region.blocks:
            if any(o == op for o in block.operations):
                return block
    raise ValueError(f"{op.name} not found in its parent")


def chain(op):
    """[(block, op-in-block)] from op's own block up to the function's entry block."""
    key = ("chain", op_key(op))
    if key not in _cache:
        out = []
        current = op_key(op)
        while current.name != "gpu.func":
            out.append((_block_of(current), current))
            current = op_key(current.parent)
        _cache[key] = out
    return _cache[key]


@dataclass
class PathOp:
    op: object
    issuer: int | None    # the elect_one selecting the (single) thread that runs it, if any
    after_backedge: bool  # in the next iteration of the loop (loop-carried path)


@dataclass
class Path:
    ops: list             # PathOp, in execution order
    b_side: list          # (block, op) where the path enters each block on B's side, outermost first
    first_role: object    # the first warp role of b_side[0]'s block after A, before B's op there,
    #                       when A precedes every role between them (is not in one); else None


def find_path(a, b) -> Path | None:
    a, b = op_key(a), op_key(b)
    chain_a, chain_b = chain(a), chain(b)
    blocks_b = [blk for blk, _ in chain_b]
    k_a = next(i for i, (blk, _) in enumerate(chain_a) if blk in blocks_b)
    k_b = blocks_b.index(chain_a[k_a][0])
    lca = chain_a[k_a][0]
    order = _block_ops(lca)
    top_a, top_b = chain_a[k_a][1], chain_b[k_b][1]
    pos_a, pos_b = order.index(top_a), order.index(top_b)
    ends = _Ends(_guards(chain_a), _guards(chain_b), (threads_of(a), threads_of(b)))
    ops: list[PathOp] = []
    if pos_a < pos_b:
        for blk, inner in chain_a[:k_a]:
            ops += _tail(blk, inner, False, ends, 0)
        ops += _span(order[pos_a + 1:pos_b], False, ends, 0)
        for blk, inner in reversed(chain_b[:k_b]):
            ops += _head(blk, inner, False, ends, 0)
        roles = [op for op in order[pos_a + 1:pos_b] if op.name == "nvasync.warp_role"]
        first_role = roles[0] if roles and top_a.name != "nvasync.warp_role" else None
        return Path(ops, list(reversed(chain_b[:k_b + 1])), first_role)
    # Loop-carried: climb to the innermost scf.for body holding both.
    k = k_a
    while k < len(chain_a) and chain_a[k][0].owner.operation.name != "scf.for":
        k += 1
    if k >= len(chain_a):
        return None
    loop_block = chain_a[k][0]
    kb = blocks_b.index(loop_block)
    for blk, inner in chain_a[:k]:
        ops += _tail(blk, inner, False, ends, 1)
    ops += _tail(loop_block, chain_a[k][1], False, ends, 1)
    ops += _head(loop_block, chain_b[kb][1], True, ends, 1)
    for blk, inner in reversed(chain_b[:kb]):
        ops += _head(blk, inner, True, ends, 1)
    return Path(ops, list(reversed(chain_b[:kb + 1])), None)


@dataclass
class _Ends:
    guards_a: list        # uniform conditions holding whenever A runs
    guards_b: list        # ... whenever B runs
    threads: tuple        # the Threads running A and B


def _tail(block, inner, after_backedge, ends, db):
    ops = _block_ops(block)
    return _span(ops[ops.index(inner) + 1:], after_backedge, ends, db)


def _head(block, inner, after_backedge, ends, db):
    ops = _block_ops(block)
    return _span(ops[:ops.index(inner)], after_backedge, ends, db)


def _span(ops, after_backedge, ends, db):
    """Ops that surely run among `ops`, and inside their scf.ifs that every thread of A and B
    takes (implied uniform guards, thread conditions selecting warps that include theirs), plus
    what the issuer runs under its elect_one guard."""
    out = []
    offset = 1 if after_backedge else 0
    for op in ops:
        out.append(PathOp(op, threads_of(op).issuer, after_backedge))
        if op.name == "scf.if" and len(op.regions[0].blocks):
            cond = op.operands[0]
            if is_divergent(cond):
                warps = warps_taking(cond)
                taken = elect_op(cond) is not None or warps is not None and all(
                    t.within(warps) for t in ends.threads)
            else:
                taken = _implied(cond, offset, ends.guards_a, 0) or _implied(cond, offset, ends.guards_b, db)
            if taken:
                out += _span(_block_ops(op.regions[0].blocks[0]), after_backedge, ends, db)
    return out


def _guards(ch):
    """Uniform scf.if conditions that hold whenever the chain's op runs."""
    out = []
    for blk, _ in ch:
        owner = blk.owner.operation
        if owner.name == "scf.if" and not is_divergent(owner.operands[0]):
            out.append(owner.operands[0])
    return out


def _implied(cond, offset, guards, guard_offset) -> bool:
    """cond (evaluated `offset` iterations after A's) holds whenever one of `guards` (evaluated
    `guard_offset` iterations after A's) holds."""
    for g in guards:
        if g == cond and offset == guard_offset:
            return True
        c, h = _ult_form(cond), _ult_form(g)
        if c is None or h is None or c[1] != h[1] or c[0][0] != h[0][0] or c[0][1] != h[0][1]:
            continue
        iv, coeff, const = c[0]
        step = loop_step(iv) if iv is not None else 0
        if step is None:
            continue
        lhs_c = coeff * step * offset + const
        lhs_g = coeff * step * guard_offset + h[0][2]
        if coeff >= 0 and lhs_c <= lhs_g:
            return True
    return False


def _ult_form(cond):
    """((iv, coeff, const), bound key) for `arith.cmpi ult|slt (lin, bound)`."""
    if isinstance(cond, ir.BlockArgument) or op_key(cond.owner).name != "arith.cmpi":
        return None
    pred = ir.IntegerAttr(op_key(cond.owner).attributes["predicate"]).value
    if pred not in (2, 6):               # slt, ult
        return None
    lin = linear(cond.owner.operands[0])
    if lin is None:
        return None
    return lin, structural_key(cond.owner.operands[1])


def insertion_point(path: Path, accept) -> tuple | None:
    """(block, op) to insert before: the deepest block on B's side, entered through scf.ifs and
    warp roles (never a loop that does not hold A), whose threads `accept` takes (it is given the
    Threads reaching the block).  None when not even the innermost block holding both ends is
    acceptable: every point between them lies there or deeper.  In the block holding both, when A
    runs before the warp roles that come between them there, the point is before the first role,
    not after one: the roles of a block run concurrently, and a barrier after one would hold the
    others' warps until it ends (serialized, or a deadlock where that role waits on them)."""
    if not accept(threads_of(path.b_side[0][1])):
        return None
    point = path.b_side[0]
    for blk, inner in path.b_side[1:]:
        if blk.owner.operation.name not in ("scf.if", "nvasync.warp_role") or not accept(threads_of(inner)):
            break
        point = (blk, inner)
    if point == path.b_side[0] and path.first_role is not None:
        point = (point[0], path.first_role)
    return point
