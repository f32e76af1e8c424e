"""The matmul scheduler's kernel: a fusion func + a MatmulSchedule -> kernel IR (gpu + nvasync).

The kernel IR it writes (block_m x 2 consumer threads: a warpgroup per 64 tile rows;
fuser-pipeline-mbarriers adds the producer warpgroup), for the tiles t = blockIdx.x + i * gridDim.x
in grouped order:

    elected thread (l2_prefetch > 0): tma_prefetch into L2 B's boxes of the first l2_prefetch K
        tiles of this CTA's first work unit (fuser-grid-dependency's wait follows; matmul.py)
    for i in [0, my_tiles) {nvasync.pipeline = {trailing, stages 1}, with TMA-loaded operands}:
        (m0, n0) = the tile's origin
        pipeline_load OPERAND[m0 : +block_m, n0 : +block_n] into its output's tile (role "operands")
        acc = for kt in [0, ceil(K / 64)) iter_args(acc = 0) {nvasync.pipeline = {warp_specialized}}:
            pipeline_load A[m0 : m0+block_m, 64 kt : +64] (role "a")
            pipeline_load B[n0 : n0+block_n, 64 kt : +64] (role "b"; b given [K, N]: block_n / 64
                loads of B[64 kt : +64, n0 + 64 c : +64] into the column boxes c of one tile)
            4 x wgmma(A rows [64 wg, +64) k-slice j, B k-slice j, acc)     (wg: the consumer warpgroup;
                the [K, N] tile's k-slice is N-major: wgmma's transposed B)
        per fragment pair: the epilogue (kernel.body on the accumulator and loaded operands)
            -> the output tiles in shared memory, 128-byte swizzled
        elected thread: TMA-store every output box of the tile

The accumulator fragment of m64nNk16 (PTX ISA, "wgmma register fragment"): thread t of a
warpgroup holds rows 16 (t / 32) + (t % 32) / 4 + {0, 8} and columns 8 j + 2 (t % 4) + {0, 1};
element 4 j + 2 h + e is (row + 8 h, column 8 j + 2 (t % 4) + e).  A pair (e = 0, 1) is two
adjacent columns: one load of a full/col operand, one 4- or 8-byte shared-memory store.

Output tiles: per output, block_n / box_cols boxes of [block_m, box_cols] (one swizzle row each:
128 bytes, or 64 or 32 where 128-byte boxes do not divide block_n), written as TMA's swizzle lays
them out: the 16-byte chunk c of row r sits at chunk c ^ (r % 8) with 128-byte rows, c ^ ((r / 2)
% 4) with 64-byte rows, c ^ ((r / 4) % 2) with 32-byte rows (with 128-byte rows the 8 rows a warp's
store instruction covers hit 8 different chunks: no bank conflicts), and the hardware unswizzles
when it stores the box.

Out-of-range rows and columns of a tail tile compute on clamped operand addresses (always in
bounds) and are dropped by the TMA store.  The kernel writes no mbarrier, barrier, fence or wait.

TMA-loaded epilogue operands (MatmulSchedule.tma_operand_tiles: a full [M, N] operand paired with
an output of its dtype, unsplit tiles).  The operand's tile arrives by TMA in the output's smem
tile -- the same boxes, so it costs no shared memory (a separate 64 KB tile would not fit beside
three 48 KB stages and the output) -- and each thread reads its fragment pairs there before it
writes its results to the same places (`tile_slot`: no thread reads another's).  The tile loop is
a one-stage `trailing` pipeline around the K loop (fuser-pipeline-mbarriers): the A producer loads
the tile's operands right after the tile's last A loads, the stages ahead of the consumers, once
the previous tile's TMA store has read it; the consumers wait for them after the K loop.  The
store runs on a store warp, an `nvasync.offload` of one idle producer warp (`offloaded_store`):
the consumers hand it the written tile and go on to the next K loop; its elected lane stores the
boxes and waits for their smem reads (`wait_group.read`) before the tile goes back to the
consumers and to the next operand load -- so no consumer warp waits for the store's reads.
Decision: the store warp for these kernels only.  Where the consumers' issuer waited for those
reads right after its store, its warpgroup started the next K loop late: with that wait relaxed
in the PTX (racy, an upper bound; H200, Nsight Compute, three launches) residual add ran 1.7 % /
1.9 % faster at 4096^3 / 8192 x 10240 x 8192 and silu(y) * gate 1.5 % / 1.9 %.  The store warp
(same method, another H200): residual add 185.5 against 188.2 us and 1749.2 against 1764.2
(torch.compile's GEMM kernel 179.8, 1713.5: its call also copies C, below), silu(y) * gate 192.9
against 194.7 and 1770.7 against 1789.7; but
the plain GEMM 0.7 % / 1.7 % slower (180.7 -> 182.0, 1710.1 -> 1739.8), whose issuer waits for
its store's reads only before the next tile's epilogue writes, so it keeps its consumers' store.
Not the residual's DRAM bytes alone (probes, H200, Nsight Compute): the operand tile read from
L2 (every CTA loading rows m0 % 256) or a quarter of it (one box) ran residual add 183.1 / 183.2
us against 186.0 at 4096^3 (plain GEMM 179.7), but 1727.2 / 1728.2 against 1734.0 at 8192 x
10240 x 8192 (plain 1686.0).  Nor smem for a fourth stage: the output tile as a ring of two
64-column boxes, each stored as soon as written (32 KB where the tile takes 64), lets 128 x 256
tiles take 4 stages; plain GEMM 180.2 against 179.2 us at 4096^3 (3 stages in the same ring:
180.3), 1720.8 against 1706.1 at 8192 x 10240 x 8192, residual add (its operand by vector loads
then) 4.3-4.6 % slower, bias+gelu and silu(y) * gate 1.1-3.7 % slower.
Decision: trailing, measured against the previous kernel, in which the storing thread loaded the
next tile's operands right after its store (a one-stage `pipelined` loop: the load landed as the
next K loop started) -- H100, Nsight Compute at boost clocks, two alternating rounds each, one
run: residual add at 4096^3 187.7-187.9 us against 190.8-192.1, at 8192 x 10240 x 8192
1748.3-1748.7 against 1756.6-1758.4; silu(y) * gate 191.5-191.7 against 195.6-196.7 and
1768.1-1775.2 against 1773.9-1777.3.  What the operand still costs is its load, not the epilogue:
a probe whose producer loaded nothing (the epilogue reading whatever the tile held; same run,
another H100) took residual add 183.9 us at 4096^3 against 189.5-191.3 with the load and the plain
GEMM's 182.3, and 1732.1 at 8192 x 10240 x 8192 against 1773.7-1775.3 and 1726.6 (silu(y) * gate
187.8 against 193.0-195.6; 1753.7 against 1784.0-1798.0).  So running the epilogue elsewhere
(the offloaded epilogue, below) cannot close the gap to cuBLAS's C input; the load's bytes or its
latency after the K loop can.  Not an L2 `evict_first` hint on the operand's loads (a probe, two
rounds, one H100): residual add 185.3-186.8 us against 186.2-186.4 at 4096^3, 1737.1-1740.9
against 1735.8-1742.8 at 8192 x 10240 x 8192.  Nor its DRAM bytes: the raster order changes the
GEMM's DRAM reads far more than the operand adds, and the time hardly moves (H200, Nsight Compute,
three launches; fuser-pipeline-mbarriers also records the operand's loads spread over the K loop):
at 8192 x 10240 x 8192, group_m 16 / 8 (the heuristic) / 4 / 2 read 1.68 / 2.00 / 3.15 / 3.68 GB
and ran 1778-1782 / 1781-1787 / 1787-1791 / 1840-1843 us (torch.compile's cuBLAS: 1.69 GB,
1727-1730); at 4096^3, 182 / 220 / 214 / 208 MB and 188.1-189.1 / 188.0-188.4 / 187.7-189.1 /
188.2-190.0 (torch.compile: 182 MB, 179.9-180.4).  The measurements below were taken with the
previous kernel.
Why by TMA at all: the consumers run the epilogue while the tensor cores wait, and at 4096^3 every
CTA reaches it at once, so its global loads arrive together; a probe reading the operand from shared
memory without loading it (whatever the tile held) ran residual add in 217 us against 226 there.
Measured (H100, Nsight Compute, clocks locked, 3 launches x 2 rounds, two machines): residual add at
4096^3 227-234 us by TMA against 226-233 by vector loads (`tma_operands` 0), silu(y) * gate 230-236
against 234-243 (plain GEMM: 211-219); at 8192 x 10240 x 8192 2.00 against 2.01 ms and 2.02 against
2.06.  So at 4096^3 the TMA load gives back most of what reading smem saves.  Not the issuer's
wait.read right after its store: a racy probe without it ran the same (residual add 226-233).  What
the smem-only probe did not do is move the operand's bytes: every CTA still fetches its 64 KB tile
at once, now at the start of the next tile's K loop.
tools/bench_matmul.py --variants times both.

The epilogue runs while the tensor cores wait (both consumer warpgroups hold one tile), so its
instructions count: under Nsight Compute at 4096^3 (clocks locked) the plain GEMM (~150 epilogue
instructions a tile: cvt, st.shared, the TMA store) took 209 us, a silu or a full [M, N]
operand's add 224-225 us.  A full operand's element is addressed from its row's 64-bit start (one
product per fragment row: M x N may pass 2^31) plus the clamped i32 column (4 PTX instructions a
pair load, against 7 in 64-bit index arithmetic), and sigmoid/silu run on the flush-to-zero ex2
and rcp (kernel/scalar_math.py): in one ncu session, silu(y) * gate went from 247-252 us (34.3M
warp instructions) to 237-241 (28.5M), y + residual stayed at 226-231 (26.8M to 24.9M).
Tried and not kept (two alternating runs each, H100): an L2 prefetch of the full operands' tile
lines before the K loop (4096^3 and 8192 x 10240 x 8192: no change beyond the runs' +-5 %), and
for split-K a bulk L2 prefetch of the tile's workspace rows and semaphore by the last split before
its K loop (seven skinny shapes: all within 0.25 us, 64 x 2112 x 7168 20.8 us both ways).
Nor (Nsight Compute, clocks locked, two rounds): an L2 prefetch of the next tile's operand boxes
(`cp.async.bulk.prefetch.tensor`) by the issuer at K step 0, K / 2, or one box at each fifth of
the K loop: residual add at 4096^3 229-233 us against 229-234 without, silu(y) * gate 234-242
against 235-236.  Where the time goes instead (ncu source counters, 4096^3): the consumers' waits
on the A and B stages' `full` barriers take 11 % of the warp stall samples with the TMA-loaded
operand, 6 % in the plain GEMM and 5 % with vector loads (which pay in the epilogue's global
loads instead).  So the operand's 64 KB load, landing as the next K loop starts, delays that
loop's stage loads -- whether it hits L2 or not.
Nor an L2 prefetch that bypasses the TMA unit (`prefetch.global.L2`, two lines per consumer thread,
of the next tile's operand tile at the tile's start, at K step K / 2, or at K / 2 with evict_last;
Nsight Compute at boost clocks, two rounds, one H100): residual add and silu(y) * gate 2-6 us
slower at 4096^3 (residual add 197.8-199.6 against 194.0-194.1 us) and 14-33 us at 8192 x 10240 x
8192.  What cuBLAS runs for torch.compile's residual add at 4096^3 (ncu launch statistics):
`nvjet_sm90_tst_256x128_64x4_1x2_h_badd_coopA_TNT` -- 256 x 128 tiles, 4 stages, 384 threads, 168
registers, 213 KB of shared memory (four 48 KB stages leave about 21 KB for the epilogue, so its
output and C go through small subtiles), 2-CTA clusters; at ncu's locked clocks it took 208.0 us
with C and 208.3 without.  C costs it nothing inside the kernel because torch pays for it outside:
addmm first copies C into the output (a device-to-device memcpy, which Nsight Compute does not
measure: 16 us at 4096^3, 78 us at 8192 x 10240 x 8192 on an H200, torch.profiler), then the
kernel reduce-adds its product into it (TMA reduce-stores, 168 MB of them at the larger shape).
Where this kernel's remaining cost goes (H200, 8192 x 10240 x 8192, Nsight Compute, one run):
at the clocks ncu locks, residual add took 0.35 % more cycles than the plain GEMM (2.766 M
against 2.756 M; cuBLAS's badd kernel 2.738 M); at the clocks the GPU picks, where all three
ran power-limited near 1.55 GHz, 0.9 % more cycles at a 1.7 % lower clock (1.540 against 1.566
GHz: 1779 us against 1737, badd 1741).  Its L2 slices read 30 % more sectors (387 M against 298
M; badd 265 M) though the SMs receive only the operand's 5 M more (509 M against 503 M): the L2
request coalescer delivered 1.31 sectors per sector read (`lrc__average_xbar2gpc_sectors_op_read`)
against the plain GEMM's 1.69 (badd 1.77), as if the CTAs that share A and B tiles requested them
together less often.  Not measured: what spreads them.  A fourth stage alone is not it: 128 x 192 tiles in
3 and 4 stages (one ncu run at boost clocks) took 216.0 / 206.6 us plain at 4096^3 and 225.5 /
213.9 with the residual (128 x 256 in 3: 182.1 and 192.4), the operand's cost 9.5 and 7.3 us.
The operand's bytes are read once: at 4096^3 the residual-add kernel reads 220 MB from DRAM against
the plain GEMM's 187 MB (+33.5 MB: the 32 MB operand), at 39 % and 36 % of the DRAM's peak on
average (ncu, same run: 190.4 against 180.0 us).  Spreading the operand's box loads over the K
loop could not be measured: a PTX-edited kernel issuing them from the storing thread (a counter
and branches in the consumers' round loop) stopped at an illegal instruction on the H100 even
with those branches never taken; not pursued (the producer warp would be the place to issue them).
Nor the epilogue overlapped with the next tile's K loop by the same warpgroups (a probe, not
committed; two runs, Nsight Compute at the clocks the GPU picks): after its K
loop a tile's accumulator, rounded to the matmul's dtype, was staged in the output's smem tile,
and each of the next tile's first K steps ran the epilogue on one column chunk of it between
issuing its wgmmas and the wait before the stage release, the outputs stored from inside the
loop (the staged tile one memory for every stage: fuser-pipeline-mbarriers' rule for buffers used
outside a loop).  It ran 4-10 % slower than this kernel on every fused row, at every chunk size
(8, 16 or 64 columns a step): 4096^3 bias+gelu 214-220 us against 201, silu(y) * gate 216-223
against 198-199, residual add 209-217 against 197; 8192 x 10240 x 8192 1.87-1.98 ms against
1.78-1.81.  Not measured where the time went: the chunk work beside the wgmmas, the barrier each
chunk step carried (the sync passes could not tell that each thread reads back what it staged,
written and read through different views), or the staging pass.  With a static branch per chunk,
ptxas hoisted every chunk's addresses out of the loop and spilled; a chunk indexed by the K step
(one copy of its code) spilled nothing.
Nor can a fourth warpgroup run the epilogue while the consumers run the next K loop (a probe, not
committed): ptxas sizes every instruction against the kernel's register target, 65536 / 512 = 128
at 512 threads, and wgmma m64n256 needs 154 ("Insufficient registers (128) to compile
instruction"), whatever setmaxnreg grants the consumers; and setmaxnreg in branches whose code
paths merge again is ignored (C7507), so each warpgroup's budget holds only over code of its own.
Nor the epilogue on the producer warpgroup's two idle warps (`epilogue_warps` 2, built in 4f43941
and removed after measuring: an `nvasync.offload` of two warps, a tile behind the consumers, which
only staged the accumulator rounded to the matmul's dtype; 16-byte chunks, four in flight a thread;
registers 88 / 208): slower on every row (H100, Nsight Compute at boost clocks, one run, three
rounds, against this kernel): plain 1.009x / 1.017x the time at 4096^3 / 8192 x 10240 x 8192,
bias+gelu 1.032x / 1.006x, silu(y) * gate 1.059x / 1.017x, residual add 1.037x / 1.015x; not the
register budget (this kernel at 88 / 208 ran as fast).  And the epilogue it moves costs little:
1.6 and 5.5 us over the plain GEMM with the operand's load taken away (above).  The store warp
(above) runs on the same pass support (`nvasync.offload`, lit_tests/pipeline/offload.mlir).
What the epilogue costs, and why not pingpong (probes, not committed: this kernel with parts of
its epilogue behind a branch never taken; H200, Nsight Compute at boost clocks, medians of 3
launches, two alternating rounds).  The plain GEMM took 178.3 us at 4096^3, 174.9 without its TMA
stores and 171.6 without any epilogue (cuBLAS 174.8); 1681 / 1674 / 1649 at 8192 x 10240 x 8192
(cuBLAS 1675); 1345 / 1338 / 1320 at 8192^3 (cuBLAS 1357).  So the epilogue is all of the gap to
cuBLAS, and the smem writes (cvt, stores, the two barriers) cost more than the TMA stores at the
larger shapes.  Hiding it behind wgmmas needs a consumer that is not busy: CUTLASS's pingpong,
each consumer warpgroup a 64 x 256 tile of its own, the two alternating.  Its premise fails here.
One consumer warpgroup on 64 x 256 tiles (block_m 64, 4 stages, no epilogue) ran 233.5 us at
4096^3 and 1803 at 8192^3.  With the K loop's per-stage wgmma waits removed from its PTX (racy;
ptxas then waits once a round), it ran 193.5 / 1543.  The two-warpgroup kernel ran 173.6 / 1348
in the same run, so one warpgroup's K loop takes 1.11x / 1.14x as long.  That is more than the
plain GEMM's epilogue costs (1.04x / 1.02x); only the costliest epilogue might gain, bias+gelu at
4096^3 (197 us on another H200: 1.15x; 1.09x at 8192 x 10240 x 8192).  Nor storing each output box as soon as its columns are written (a
fence and barrier per box, the stores overlapping the later boxes' writes; H200, same method):
plain within 0.5 %, bias+gelu 2.3 % slower at 4096^3 (201-204 us against 196-198) and 0.8 % at
8192 x 10240 x 8192, silu(y) * gate the same at 4096^3 and 1.2 % faster at 8192 x 10240 x 8192,
residual add 0.5-0.7 % slower.

Clusters (cluster_m = 2): the CTAs of a cluster take adjacent tile rows of one tile column (a
cluster's work unit is a tile of cluster_m x block_m rows in the grouped order, over
gpu.cluster_id and the grid's clusters; CTA rank r takes rows r x block_m of it, wholly past M in
the last unit when the tile rows are odd: its loads zero-fill, its stores drop), so they read
the same B tile: the loop's pipeline marks role "b" multicast (`cluster`, `multicast`) and the B
descriptor's box is 1 / cluster_m of the tile's rows (fuser-pipeline-mbarriers makes each CTA
load its slice into both).  Trip counts come from cluster-uniform values only, as the protocol
needs (fuser-verify-pipelines checks it).

Split-K (split_k = S > 1): the work units are the tiles' splits, u = S * tile + s (a tile's splits
in adjacent CTAs, so their partials meet in L2); split s runs K tiles [s * kt / S, (s+1) * kt / S).
A split that adds its partial writes its accumulator, f32, into smem in the workspace's layout
(the outputs' memory; fragment order, matmul.py's WORKSPACE_ROW: a warp's 16-byte stores are
adjacent) and marks its addition into the tile's workspace tile, one TMA box, with
`nvasync.split_k_store`.  Deterministic mode: splits 0..S-2 add theirs, and split S-1 marks
`nvasync.split_k_wait` for them, then runs the epilogue on its accumulator plus the workspace.
Atomic mode has no designated last split: every split adds its partial and marks
`nvasync.split_k_last` (its arrival), which says whether it is the last to arrive; that one runs
the epilogue on the workspace (the sum of every partial) and clears what it read, so the workspace
is zero for the next launch.  No split waits for another.  Slots mode arrives the same way, but
each split stores its partial into a workspace slot of its own (`workspace_slab`) and the last to
arrive adds the slots in split order, whichever split it is: bitwise reproducible like
deterministic mode, without its chain of waits, for S times the workspace and S reads of it.  The
last split reads the workspace in the same fragment order, each thread its own 16-byte groups, a
warp 512 adjacent bytes a load.  fuser-tma-reduce-store writes the protocols.  Workspace and
semaphores are the runtime's scratch buffers (launch "scratch").

Split-K in clusters (split_k_mode "cluster", `cluster_split_tile`): a tile's S splits are one
thread block cluster, one tile per cluster (grid per tile), split = the CTA's cluster rank.  After
its K loop each consumer thread sends column group j of its fragment (elements 4 j .. 4 j + 3,
8 columns; G = block_n / 8 groups) to the CTA whose slice holds it -- CTA r holds groups
[r G / S, (r + 1) G / S), as even as G divides -- a 16-byte `store_peer` into slot
[split][group][thread] of that CTA's `received` buffer; then each CTA adds its slice's S slots
in split order (bitwise reproducible) and runs the epilogue on them, each element stored to
global memory where it lies inside M and N (no output boxes: block_n may be any multiple of 8).
No workspace, semaphore or bulk group: the passes derive the cluster barriers
(peers started before the first distributed store, the stores before the reads and before any
peer exits).  Those barriers must stand in the kernel's top-level block, reached by every thread
of the cluster, so the K loop is `pipelined` (the consumers issue their loads) rather than
warp-specialized, whose producer warps never reach the code after the loop.  That costs nothing
measurable: the atomic split kernels built so (a probe, branch probe-ws-vs-pipelined; H200, us
alone after an L2 flush, fastest of two alternating rounds) ran 0.0-0.3 us faster than
warp-specialized on 7 skinny shapes of M <= 64 (64 x 2112 x 7168 16.2 against 16.3) and 0.2 us
slower at 128 x 2112 x 7168.
"""
from __future__ import annotations

from contextlib import nullcontext

from mlir import ir
from mlir.dialects import arith, gpu, memref, scf, vector

from ..dialects import nvasync
from ..passes.unroll_loops import UNROLL_ATTR
from ..kernel import body
from ..kernel.builders import (build_kernel_with, elected_lane_of_warp0, gep, i32, if_then, if_then_else, index,
                               load_global, memory_type, smem_type, store_global, to_i32, to_index)
from ..frontend.dtypes import DataType
from .matmul import (ARRIVAL_MODES, BLOCK_K, CONSUMER_REGS, COUNT_CELL_BYTES, MATMUL_OPERANDS, PRODUCER_REGS,
                     SLAB_ROWS, WORKSPACE_ROW, MatmulSchedule)

WGMMA_K = 16


def build_kernel(func_op, schedule: MatmulSchedule, kernel_name: str, insertion_point):
    """Insert the kernel for fusion `func_op` as `gpu.func @kernel_name` at `insertion_point`
    (inside a gpu.module)."""
    return build_kernel_with(_KernelBuilder, func_op, schedule, kernel_name, schedule.consumers, insertion_point,
                             cluster=schedule.cluster)


class _KernelBuilder:
    def __init__(self, func_op, schedule: MatmulSchedule, params, args):
        self.func = func_op
        self.s = schedule
        by_tensor = {p["tensor"]: a for p, a in zip(params, args) if "tensor" in p}
        self.args = by_tensor
        self.scratch = {(p["scratch"], p["kind"]): a for p, a in zip(params, args) if "scratch" in p}
        self.kinds = {f"input{j}": k for j, k in enumerate(schedule.operands)}
        self.tma_tiles = {f"input{j}": o for j, o in schedule.tma_operand_tiles().items()}    # tensor -> output
        self.dtypes = {f"input{j}": d for j, d in enumerate(schedule.in_dtypes)}
        sizes = [a for p, a in zip(params, args) if p["kind"] == "scalar"]
        self.sizes_i32 = sizes[:2]                      # M, N as the i32 kernel scalars
        self.m, self.n, self.k = (to_index(a) for a in sizes)
        self.a_map = next(by_tensor[t] for t, k in self.kinds.items() if k == "a")
        self.b_map, self.b_kind = next((by_tensor[t], k) for t, k in self.kinds.items() if k in ("b", "b_kn"))
        self.matmul = next(op for op in func_op.regions[0].blocks[0].operations if op.operation.name == "fusion.matmul")

    # --- shared memory (one stage of A and B: fuser-pipeline-mbarriers makes the stage copies) ---
    def declare_buffers(self):
        s = self.s
        dtype = s.dtype
        itemsize = DataType(dtype).itemsize
        self.a_tile = nvasync.SmemBufferOp(smem_type([s.block_m, BLOCK_K], dtype), offset=0).buffer
        offset = s.block_m * BLOCK_K * itemsize
        if self.b_kind == "b":
            self.b_tile = nvasync.SmemBufferOp(smem_type([s.block_n, BLOCK_K], dtype), offset=offset).buffer
        else:   # column boxes of [BLOCK_K, cols], loaded one by one; the tile views all of them
            cols = s.b_box_cols()
            self.b_tile = nvasync.SmemBufferOp(smem_type([s.block_n // cols, BLOCK_K, cols], dtype),
                                               offset=offset).buffer
            self.b_boxes = [nvasync.SmemBufferOp(smem_type([BLOCK_K, cols], dtype),
                                                 offset=offset + c * BLOCK_K * cols * itemsize).buffer
                            for c in range(s.block_n // cols)]
        offset += s.block_n * BLOCK_K * itemsize
        # per output: its boxes of [block_m, box_cols] (a cluster split stores element by element)
        self.out_boxes = self.boxes(s.out_dtypes, offset) if not s.cluster_split else None
        # A split's f32 partial tile shares the memory of the output tiles (a tile writes one of them),
        # in the workspace's layout: its TMA box.
        self.partial = nvasync.SmemBufferOp(smem_type([1, s.partial_rows, WORKSPACE_ROW], "f32"),
                                            offset=offset).buffer if s.split_k > 1 and not s.cluster_split else None
        # Cluster split-K: the slices this CTA receives, [split][group][thread] x 4 floats (`exchange_index`).
        self.received = nvasync.SmemBufferOp(smem_type([s.epilogue_bytes // 4], "f32"),
                                             offset=offset).buffer if s.cluster_split else None
        if s.split_k > 1 and s.split_k_mode in ARRIVAL_MODES:     # where the arrival's count is handed on
            self.count_cell = nvasync.SmemBufferOp(smem_type([1], "i32"),
                                                   offset=offset + s.epilogue_bytes - COUNT_CELL_BYTES).buffer

    def boxes(self, dtypes, offset):
        """Per dtype, the [block_m, box_cols] smem boxes of one tile, one after another from `offset`."""
        found = []
        for dtype in dtypes:
            cols = self.s.out_box_cols(dtype)
            box_bytes = self.s.block_m * cols * DataType(dtype).itemsize
            found.append([nvasync.SmemBufferOp(smem_type([self.s.block_m, cols], dtype),
                                               offset=offset + b * box_bytes).buffer
                          for b in range(self.s.block_n // cols)])
            offset += self.s.block_n // cols * box_bytes
        return found

    # --- tiles -----------------------------------------------------------------------------------
    def tile_origin(self, tile):
        """(m0, n0) as i32 of tile number `tile` in grouped order: groups of `group_m` tile rows,
        walked column by column inside a group (Triton's "grouped ordering").  In a cluster the
        tiles are the cluster's: cluster_m tile rows each."""
        s = self.s
        t = to_i32(tile)
        tiles_m, tiles_n = to_i32(self.tiles_m), to_i32(self.tiles_n)
        per_group = arith.muli(i32(s.group_m), tiles_n)
        group = arith.divui(t, per_group)
        first_m = arith.muli(group, i32(s.group_m))
        rows = arith.minui(arith.subi(tiles_m, first_m), i32(s.group_m))
        within = arith.remui(t, per_group)
        tm = arith.addi(first_m, arith.remui(within, rows))
        tn = arith.divui(within, rows)
        return arith.muli(tm, i32(s.block_m * s.cluster_m)), arith.muli(tn, i32(s.block_n))

    # --- the main loop -----------------------------------------------------------------------------
    def main_loop(self, m0, n0, wg_row, first_ktile, ktiles):
        """The accumulator over K tiles [first_ktile, first_ktile + ktiles) (index values; None: 0)."""
        s = self.s
        acc_type = ir.VectorType.get([s.block_n // 2], ir.F32Type.get())
        zero = _zeros(acc_type)
        loop = scf.ForOp(index(0), ktiles, index(1), [zero])
        multicast = f', cluster = {s.cluster_m} : i64, multicast = "b"' if s.cluster_m > 1 else ""
        # A cluster split's exchange must stand in the kernel's top-level block: no warp roles.
        loop.operation.attributes["nvasync.pipeline"] = ir.Attribute.parse(
            f'{{stages = {s.stages} : i64, prefetch = {s.stages - 1} : i64, mode = "pipelined"}}'
            if s.cluster_split else
            f'{{stages = {s.stages} : i64, mode = "warp_specialized", producer_regs = {PRODUCER_REGS} : i64, '
            f'consumer_regs = {CONSUMER_REGS} : i64{multicast}}}')
        with ir.InsertionPoint(loop.body):
            kt = loop.induction_variable if first_ktile is None else arith.addi(first_ktile, loop.induction_variable)
            kx = arith.muli(to_i32(kt), i32(BLOCK_K))
            nvasync.PipelineLoadOp(self.a_map, self.a_tile, [m0, kx], role="a")
            if self.b_kind == "b":
                nvasync.PipelineLoadOp(self.b_map, self.b_tile, [n0, kx], role="b")
            for box, coords in zip(self.b_boxes if self.b_kind == "b_kn" else [], self.b_kn_coords(n0, kx)):
                nvasync.PipelineLoadOp(self.b_map, box, coords, role="b")
            acc = loop.inner_iter_args[0]
            for j in range(BLOCK_K // WGMMA_K):
                a = memref.subview(self.a_tile, [wg_row, WGMMA_K * j], [64, WGMMA_K], [1, 1])
                # B's k-slice j: K-major rows, or (b [K, N]) N-major across every column box
                b = memref.subview(self.b_tile, [0, WGMMA_K * j], [s.block_n, WGMMA_K], [1, 1]) \
                    if self.b_kind == "b" else \
                    memref.subview(self.b_tile, [0, WGMMA_K * j, 0], [s.block_n // s.b_box_cols(), WGMMA_K,
                                                                      s.b_box_cols()], [1, 1, 1])
                acc = nvasync.WgmmaOp(acc.type, a, b, acc, swizzle=128, accumulate=True).result
            scf.YieldOp([acc])
        return loop.results[0]

    def b_kn_coords(self, n0, kx):
        """b [K, N]: the coordinates of a K tile's column boxes, at K offset kx (i32 values)."""
        cols = self.s.b_box_cols()
        return [[kx, arith.addi(n0, i32(c * cols))] for c in range(self.s.block_n // cols)]

    def prefetch_b(self, issuer, unit, units, ktiles):
        """The elected thread prefetches into L2 the B boxes of the first `l2_prefetch` K tiles of
        this CTA's first work unit.  A prefetch moves nothing any thread observes, so it runs
        before fuser-grid-dependency's wait: the weights stream from DRAM during the prologue and
        while the previous kernel in the stream finishes (a line that kernel still writes is
        updated in L2, where its writes land: a prefetched line is never stale)."""
        with if_then(issuer), if_then(arith.cmpi(arith.CmpIPredicate.ult, unit, units)):
            tile, _, first, end = self.unit_k_range(unit, ktiles)
            _, n0 = self.tile_origin(tile)
            last = arith.minui(end, arith.addi(first, index(self.s.l2_prefetch)))
            loop = scf.ForOp(first, last, index(1))
            with ir.InsertionPoint(loop.body):
                kx = arith.muli(to_i32(loop.induction_variable), i32(BLOCK_K))
                for coords in self.b_kn_coords(n0, kx) if self.b_kind == "b_kn" else [[n0, kx]]:
                    nvasync.TmaPrefetchOp(self.b_map, coords)
                scf.YieldOp([])

    def unit_k_range(self, unit, ktiles):
        """(tile, split, first K tile, end K tile) of work unit `unit` (index values): split s of S
        takes K tiles [s * ktiles / S, (s + 1) * ktiles / S) of its tile, maybe none."""
        splits = index(self.s.split_k)
        tile, split = arith.divui(unit, splits), arith.remui(unit, splits)
        first = arith.divui(arith.muli(split, ktiles), splits)
        return tile, split, first, arith.divui(arith.muli(arith.addi(split, index(1)), ktiles), splits)

    # --- the epilogue ------------------------------------------------------------------------------
    def operand_pair(self, tensor, row, col, slot):
        """The compute-form values of epilogue operand `tensor` at (row, col) and (row, col + 1)
        (global indices, clamped into the tensor); a TMA-loaded one's from its output's tile in
        shared memory at `slot` (the fragment pair's place there: `tile_slot`)."""
        kind, arg = self.kinds[tensor], self.args[tensor]
        dtype = self.dtypes[tensor]
        if tensor in self.tma_tiles:
            box, indices = self.tile_slot(self.out_boxes[self.tma_tiles[tensor]], dtype, *slot)
            pair = vector.load(ir.VectorType.get([2], memory_type(dtype)), box, indices)
            loaded = body.to_compute(pair, dtype)
            return tuple(vector.extract(loaded, [], [e]) for e in range(2))
        if kind == "value":
            value = body.to_compute(arg, dtype)
            return value, value
        itemsize = DataType(dtype).itemsize
        # i32 indices (M, N < 2^31), widened once: a row's first element is an unsigned 64-bit
        # product (M x N may pass 2^31), its columns 32-bit offsets from there (one IMAD.WIDE each).
        m, n = self.sizes_i32
        wide = lambda v: arith.extui(ir.IntegerType.get_signless(64), v)  # noqa: E731

        def load(address, count):
            ty = ir.VectorType.get([count], memory_type(dtype)) if count > 1 else memory_type(dtype)
            loaded = body.to_compute(load_global(address, ty, count * itemsize), dtype)
            return [vector.extract(loaded, [], [e]) for e in range(count)] if count > 1 else [loaded]

        if kind == "one":
            value = load(arg, 1)[0]
            return value, value
        row = arith.minui(to_i32(row), arith.subi(m, i32(1)))
        if kind == "row":
            value = load(gep(arg, wide(row), dtype), 1)[0]
            return value, value
        start = gep(arg, arith.muli(wide(row), wide(n)), dtype) if kind == "full" else arg
        col = to_i32(col)
        if self.s.pairs:
            # N even and col even: clamping to N - 2 keeps the pair inside the row.
            return tuple(load(gep(start, wide(arith.minui(col, arith.subi(n, i32(2)))), dtype), 2))
        last_col = arith.subi(n, i32(1))
        return tuple(load(gep(start, wide(arith.minui(c, last_col)), dtype), 1)[0]
                     for c in (col, arith.addi(col, i32(1))))

    def epilogue(self, values, dtypes, boxes, m0, n0, tid, wg_row):
        """Every fragment pair through `values` into the tile's smem boxes (swizzled): `values(first,
        row, col, slot)` gives, per stored tensor (of `dtypes`, into `boxes`), the two values of
        fragment elements first + {0, 1} at global (row, col + {0, 1}), `slot` their place in a tile
        (`tile_slot`)."""
        def store(first, row, col, first_col, group_col, quad):
            slot = (row, first_col, group_col, quad)
            results = values(first, arith.addi(m0, row), arith.addi(n0, col), slot)
            for o, dtype in enumerate(dtypes):
                pair = vector.from_elements(ir.VectorType.get([2], results[o][0].type), results[o])
                box, indices = self.tile_slot(boxes[o], dtype, *slot)
                vector.store(body.to_memory(pair, dtype), box, indices)

        self.each_pair(min(self.s.out_box_cols(d) for d in dtypes) // 8, tid, wg_row, store)

    def each_pair(self, groups, tid, wg_row, build):
        """`build(first, row, col, first_col, group_col, quad)` for every fragment pair of this
        thread: elements first + {0, 1} at tile (row, col + {0, 1}), col = first_col + group_col.
        The `groups` column groups of one chunk (8 columns each) run as one loop marked
        `fuser.unroll` over both row halves h, so the sync passes see one pair per chunk (an index
        injective in (thread, iteration): no hazard between the pairs of one tile) and the lowering
        unrolls it."""
        row0, col0, quad = _fragment_origin(tid, wg_row)
        for chunk in range(self.s.block_n // 8 // groups):
            loop = scf.ForOp(index(0), index(2 * groups), index(1))
            loop.operation.attributes[UNROLL_ATTR] = ir.UnitAttr.get()
            with ir.InsertionPoint(loop.body):
                h = arith.divui(loop.induction_variable, index(groups))
                group = arith.remui(loop.induction_variable, index(groups))
                row = arith.addi(row0, arith.muli(h, index(8)))
                # Fragment elements 4 j + 2 h + {0, 1} of column group j = first_group + group: tile
                # row `row`, columns 8 j + col0 + {0, 1}.
                first_group = chunk * groups
                j = arith.addi(group, index(first_group))
                group_col = arith.addi(arith.muli(group, index(8)), col0)
                first = arith.addi(arith.muli(j, index(4)), arith.muli(h, index(2)))
                build(first, row, arith.addi(index(8 * first_group), group_col), 8 * first_group, group_col, quad)
                scf.YieldOp([])

    def fused_values(self, acc):
        """`values` of the fusion's outputs: the body on each accumulator element and the operands."""
        def values(first, row, col, slot):
            operands = {t: self.operand_pair(t, row, col, slot) for t, kind in self.kinds.items()
                        if kind not in MATMUL_OPERANDS}
            results = self.evaluate_elements(operands, _elements(acc, first))
            return [[results[0][o], results[1][o]] for o in range(len(self.s.out_dtypes))]

        return values

    def evaluate_elements(self, operands, sums):
        """Per element e: the fusion's outputs, its body on the matmul's value, the e-th of `sums`
        (an iterable), and each epilogue operand's operands[tensor][e]."""
        inputs = range(len(self.func.regions[0].blocks[0].arguments))
        lanes = lambda e: [operands[f"input{i}"][e] if f"input{i}" in operands else None for i in inputs]  # noqa: E731
        return [body.evaluate(self.func, lanes(e), {self.matmul.result: total}) for e, total in enumerate(sums)]

    def stage_partial(self, acc, tid):
        """This thread's accumulator into the partial tile, in the workspace's fragment order
        (`workspace_slab`): 16-byte group j (elements 4 j .. 4 j + 3) of lane l in warp w at float
        16 block_n w + 4 (32 j + l), a warp's stores adjacent.  One loop marked `fuser.unroll`
        (the sync passes see one store, an index injective in (thread, iteration))."""
        groups = self.s.block_n // 8
        warp, lane = arith.divui(tid, index(32)), arith.remui(tid, index(32))
        loop = scf.ForOp(index(0), index(groups), index(1))
        loop.operation.attributes[UNROLL_ATTR] = ir.UnitAttr.get()
        with ir.InsertionPoint(loop.body):
            j = loop.induction_variable
            # float 4 (32 j + l) of the warp's slab: row j / 2, column 4 (32 (j % 2) + l) of its rows
            row = arith.addi(arith.muli(warp, index(self.s.slab_rows)), arith.divui(j, index(2)))
            col = arith.muli(arith.addi(arith.muli(arith.remui(j, index(2)), index(32)), lane), index(4))
            group = vector.from_elements(ir.VectorType.get([4], ir.F32Type.get()),
                                         _elements(acc, arith.muli(j, index(4)), 4))
            vector.store(group, self.partial, [index(0), row, col])
            scf.YieldOp([])

    def workspace_slab(self, m0, n0, tid):
        """(inside, slot_start): whether this thread's 16 tile rows (its warp's slab) lie inside M,
        and `slot_start(slot)`, the workspace address of its first 16-byte group in slot `slot`
        (0 but in slots mode).  The workspace (matmul.py's `workspace_shape`) holds per tile column
        and slot the 16-row slabs of M's rows, each a warp's fragment in lane order; a slab past M
        is never stored."""
        slabs = arith.ceildivui(self.m, index(SLAB_ROWS))
        slab = arith.addi(arith.divui(m0, index(SLAB_ROWS)), arith.divui(tid, index(32)))
        lane_offset = arith.muli(arith.remui(tid, index(32)), index(4))

        def slot_start(slot):
            first = arith.muli(arith.addi(arith.muli(self.workspace_column(n0, slot), slabs), slab),
                               index(SLAB_ROWS * self.s.block_n))
            offset = arith.index_cast(ir.IntegerType.get_signless(64), arith.addi(first, lane_offset))
            return gep(self.scratch["workspace", "pointer"], offset, "f32")

        return arith.cmpi(arith.CmpIPredicate.ult, slab, slabs), slot_start

    def workspace_column(self, n0, slot):
        """The workspace's outermost coordinate of the tile at column n0 (index values): its tile
        column's, and in slots mode slot `slot` of that column's."""
        slots = self.s.split_k if self.s.split_k_mode == "slots" else 1
        return arith.addi(arith.muli(arith.divui(n0, index(self.s.block_n)), index(slots)), slot)

    def workspace_fragment(self, inside, slot_start):
        """This thread's accumulator fragment of the workspace tile: the splits' partials added
        there (atomic), those of every split but the last (deterministic), or (slots) the slots
        added in split order -- the same order in every launch, whichever split arrives last:
        bitwise reproducible.  A slot's loads are all issued before any use (a fragment's worth
        in flight), each 16 bytes, a warp's adjacent; a warp whose rows lie past M reads nothing.

        Decision: the workspace in fragment order.  It was row-major [M, N] (TMA boxes like the
        outputs'), read at the fragment's places: each warp load covered 8 rows, 8 lines for 256
        bytes, about 32 B/clk an SM -- ~0.5 us a 64 x 128 slot.  Measured against it (Nsight
        Compute, the tools/ncu_matmul.py --skinny rows, alternating, two rounds each).  H100:
        slots faster on all 12 rows (0.4-15.3 us), atomic on 10 (up to 7.2 us), deterministic on
        9 (up to 3.8 us), the other cells +0.0 to +0.9 us, the unchanged unsplit kernel's spread
        between the rounds; the heuristic 64 x 2112 x 7168 18.5-18.6 us against 19.3, 64 x 1024 x
        16384 19.6-19.7 against 20.4-20.5.  H200: every mode faster on every row (means);
        atomic 64 x 2112 x 7168 15.1 us against 16.0-16.2, slots 16.7-17.1 against 19.1-19.2
        and at 16 slots 20.7 against 24.9-25.1.
        Slots in a loop over the slots: every slot unrolled spilled; two slots an iteration
        spilled at odd counts and ran within 1 us of this either way (H100, row-major layout)."""
        f32x4 = ir.VectorType.get([4], ir.F32Type.get())
        acc_type = ir.VectorType.get([self.s.block_n // 2], ir.F32Type.get())
        i64 = ir.IntegerType.get_signless(64)

        def fragment(slot):
            start = slot_start(slot)
            groups = [load_global(gep(start, arith.constant(i64, 128 * j), "f32"), f32x4, 16)
                      for j in range(self.s.block_n // 8)]
            return vector.from_elements(acc_type, [vector.extract(groups[e // 4], [], [e % 4])
                                                   for e in range(self.s.block_n // 2)])

        read = scf.IfOp(inside, [acc_type], has_else=True)
        with ir.InsertionPoint(read.then_block):
            if self.s.split_k_mode != "slots":
                scf.YieldOp([fragment(index(0))])
            else:
                loop = scf.ForOp(index(0), index(self.s.split_k), index(1), [_zeros(acc_type)])
                with ir.InsertionPoint(loop.body):
                    scf.YieldOp([arith.addf(loop.inner_iter_args[0], fragment(loop.induction_variable))])
                scf.YieldOp([loop.results[0]])
        with ir.InsertionPoint(read.else_block):
            scf.YieldOp([_zeros(acc_type)])
        return read.results[0]

    def clear_workspace(self, inside, slot_start):
        """Atomic mode: zero the workspace groups this thread read, so the workspace is zero for
        the next launch.  After all of its loads (workspace_fragment), not group by group between
        them, where a global store sat between every two loads (addresses the compiler cannot
        tell apart), so no load could be issued before the previous one's store; before the
        epilogue (measured the same as after it: H100, Nsight Compute, two alternating rounds,
        every skinny row within 0.3 us but 128 x 1024 x 16384's spread).  The split-K protocol as
        a whole costs ~4 us on the H100 skinny shapes (64 x 2112 x 7168 in 12 splits: 25.4 us,
        21.0 without partials, reduce or wait)."""
        zero, i64 = _zeros(ir.VectorType.get([4], ir.F32Type.get())), ir.IntegerType.get_signless(64)
        with if_then(inside):
            start = slot_start(index(0))
            for j in range(self.s.block_n // 8):
                store_global(zero, gep(start, arith.constant(i64, 128 * j), "f32"), 16)

    def tile_slot(self, boxes, dtype, row, first_col: int, col, quad):
        """(box, indices) of two adjacent elements at tile (row, first_col + col) in their swizzled
        box of `boxes`.  The box is static: a loop of column groups stays inside one box of every
        tensor.  Stores and (TMA-loaded operands) loads of a pair compute it alike, so the sync
        passes see each thread touch only its own elements."""
        cols = self.s.out_box_cols(dtype)
        chunk = 16 // DataType(dtype).itemsize            # elements per 16-byte chunk
        box = boxes[first_col // cols]
        within = arith.addi(index(first_col % cols), col)
        # The chunk XOR of a span-byte swizzle: row % 8 (128 B), (row / 2) % 4 (64 B), (row / 4) % 2
        # (32 B); row % 8 == quad.
        shift = {128: 0, 64: 1, 32: 2}[self.s.box_swizzle(dtype)]
        swizzled = arith.xori(within, arith.muli(arith.shrui(quad, index(shift)), index(chunk)))
        return box, [row, swizzled]

    # --- the kernel --------------------------------------------------------------------------------
    def build(self):
        s = self.s
        self.declare_buffers()
        tid = gpu.thread_id(gpu.Dimension.x)
        issuer = elected_lane_of_warp0(tid)
        block, grid = gpu.block_id(gpu.Dimension.x), gpu.grid_dim(gpu.Dimension.x)
        rank = None
        if s.cluster_m > 1:     # the cluster's work units: cluster_m tile rows, each CTA one (rank)
            block = gpu.cluster_id(gpu.Dimension.x)
            grid = arith.divui(grid, index(s.cluster_m))
            rank = arith.muli(nvasync.ClusterRankOp(ir.IntegerType.get_signless(32)).rank, i32(s.block_m))
        self.tiles_m = arith.ceildivui(self.m, index(s.block_m * s.cluster_m))
        self.tiles_n = arith.ceildivui(self.n, index(s.block_n))
        units = arith.muli(arith.muli(self.tiles_m, self.tiles_n), index(s.split_k))
        ktiles = arith.ceildivui(self.k, index(BLOCK_K))
        wg_row = arith.muli(arith.divui(tid, index(128)), index(64))     # the consumer warpgroup's A rows
        if s.l2_prefetch:
            self.prefetch_b(issuer, block, units, ktiles)
        # A cluster split's unit is this CTA's, from the cluster id and rank: fuser-verify-pipelines
        # evaluates those per CTA of a cluster (block ids it rejects in cluster kernels).
        if s.cluster_split:
            rank = to_index(nvasync.ClusterRankOp(ir.IntegerType.get_signless(32)).rank)
            unit = arith.addi(arith.muli(gpu.cluster_id(gpu.Dimension.x), index(s.split_k)), rank)
            self.cluster_split_tile(unit, ktiles, tid, wg_row)
            return
        my_units = arith.ceildivui(arith.subi(units, block), grid)
        loop = scf.ForOp(index(0), my_units, index(1))
        if self.tma_tiles:      # a tile's operands load as its K loop ends (the A producer issues them)
            loop.operation.attributes["nvasync.pipeline"] = ir.Attribute.parse(
                '{stages = 1 : i64, mode = "trailing"}')
        with ir.InsertionPoint(loop.body):
            # A tile's splits are consecutive units (adjacent CTAs: their partials meet in L2).
            unit = arith.addi(block, arith.muli(loop.induction_variable, grid))
            if s.split_k == 1:
                m0, n0 = self.tile_origin(unit)
                m0 = m0 if rank is None else arith.addi(m0, rank)
                for tensor, o in self.tma_tiles.items():
                    cols = s.out_box_cols(self.dtypes[tensor])
                    for b, box in enumerate(self.out_boxes[o]):
                        nvasync.PipelineLoadOp(self.args[tensor], box, [m0, arith.addi(n0, i32(b * cols))],
                                               role="operands")
                acc = self.main_loop(m0, n0, wg_row, None, ktiles)
                self.epilogue(self.fused_values(acc), s.out_dtypes, self.out_boxes, to_index(m0), to_index(n0),
                              tid, wg_row)
                if self.tma_tiles:
                    self.offloaded_store(m0, n0)
                else:
                    self.store_outputs(issuer, m0, n0)
            else:
                tile, split, first_ktile, end_ktile = self.unit_k_range(unit, ktiles)
                m0, n0 = self.tile_origin(tile)
                acc = self.main_loop(m0, n0, wg_row, first_ktile, arith.subi(end_ktile, first_ktile))
                flag = gep(self.scratch["flags", "pointer"], arith.index_cast(ir.IntegerType.get_signless(64), tile), "i32")
                if s.split_k_mode in ARRIVAL_MODES:      # the last split to arrive runs the epilogue
                    self.add_partial(acc, flag, split, issuer, m0, n0, tid)
                    last = nvasync.SplitKLastOp(ir.IntegerType.get_signless(1), flag, issuer, self.count_cell,
                                                splits=s.split_k).last
                    with if_then(last):             # on the workspace alone: its partial is in it too
                        self.finish_split_tile(None, issuer, m0, n0, tid, wg_row)
                else:                               # the tile's last split waits for the others
                    last, rest = if_then_else(arith.cmpi(arith.CmpIPredicate.eq, split, index(s.split_k - 1)))
                    with last:
                        nvasync.SplitKWaitOp(flag, issuer, splits=s.split_k)
                        self.finish_split_tile(acc, issuer, m0, n0, tid, wg_row)
                    with rest:
                        self.add_partial(acc, flag, split, issuer, m0, n0, tid)
            scf.YieldOp([])

    def add_partial(self, acc, flag, split, issuer, m0, n0, tid):
        """Split `split`'s accumulator into the partial tile, marked to be added into the workspace
        (its slot's slabs of the tile's rows, `workspace_slab`)."""
        s = self.s
        self.stage_partial(acc, tid)
        with if_then(issuer):      # one mark: fuser-tma-reduce-store's unit
            column = to_i32(self.workspace_column(to_index(n0), split if s.split_k_mode == "slots" else index(0)))
            row = arith.muli(arith.divui(m0, i32(SLAB_ROWS)), i32(s.slab_rows))
            nvasync.SplitKStoreOp(self.scratch["workspace", "tensormap"], self.partial, flag, to_i32(split),
                                  [column, row, i32(0)], mode=s.split_k_mode)

    def finish_split_tile(self, acc, issuer, m0, n0, tid, wg_row):
        """The last split: the epilogue on `acc` plus the workspace tile's fragment (acc None: the
        fragment alone), the outputs stored; in atomic mode the workspace cleared for the next
        launch."""
        s = self.s
        m0_, n0_ = to_index(m0), to_index(n0)
        inside, slot_start = self.workspace_slab(m0_, n0_, tid)
        total = self.workspace_fragment(inside, slot_start)
        if acc is not None:
            total = arith.addf(acc, total)
        if s.split_k_mode == "atomic":
            self.clear_workspace(inside, slot_start)
        self.epilogue(self.fused_values(total), s.out_dtypes, self.out_boxes, m0_, n0_, tid, wg_row)
        self.store_outputs(issuer, m0, n0)

    # --- split-K in clusters ---------------------------------------------------------------------------
    def cluster_split_tile(self, unit, ktiles, tid, wg_row):
        """Work unit `unit` (this CTA: one per unit, a tile's splits one cluster, split = cluster
        rank): its K tiles, then the exchange -- each thread sends the column groups of slice r
        to the CTA of rank r -- and the epilogue of this CTA's slice on the sum of what it
        received.  A warp whose 16 rows lie past M sends and stores nothing."""
        tile, split, first_ktile, end_ktile = self.unit_k_range(unit, ktiles)
        m0, n0 = self.tile_origin(tile)
        acc = self.main_loop(m0, n0, wg_row, first_ktile, arith.subi(end_ktile, first_ktile))
        warp_row = arith.addi(to_index(m0), arith.muli(arith.divui(tid, index(32)), index(SLAB_ROWS)))
        inside = arith.cmpi(arith.CmpIPredicate.ult, warp_row, self.m)
        with if_then(inside):
            self.send_slices(acc, split, tid)
        with if_then(inside):
            self.slice_epilogue(split, to_index(m0), to_index(n0), tid, wg_row)

    def exchange_index(self, split, group, tid):
        """Where in `received` the 4 floats of column group `group` of a slice from split `split`,
        thread `tid` lie: [split][group][thread], a warp's 16-byte groups adjacent."""
        return arith.muli(arith.addi(arith.muli(arith.addi(arith.muli(split, index(self.s.slice_groups)), group),
                                                index(self.s.consumers)), tid), index(4))

    def slice_start(self, rank):
        """The first column group of CTA `rank`'s slice: rank G / S (an index value)."""
        return arith.divui(arith.muli(rank, index(self.s.column_groups)), index(self.s.split_k))

    def send_slices(self, acc, split, tid):
        """Column group j of this thread's fragment (elements 4 j .. 4 j + 3) into the CTA whose
        slice holds it, r = ((j + 1) S - 1) / G (the last r with slice_start(r) <= j), at this
        split's place (distributed shared memory, 16-byte stores).  One loop marked
        `fuser.unroll`."""
        s = self.s
        loop = scf.ForOp(index(0), index(s.column_groups), index(1))
        loop.operation.attributes[UNROLL_ATTR] = ir.UnitAttr.get()
        with ir.InsertionPoint(loop.body):
            j = loop.induction_variable
            owner = arith.divui(arith.subi(arith.muli(arith.addi(j, index(1)), index(s.split_k)), index(1)),
                                index(s.column_groups))
            group = vector.from_elements(ir.VectorType.get([4], ir.F32Type.get()),
                                         _elements(acc, arith.muli(j, index(4)), 4))
            nvasync.StorePeerOp(group, self.received, to_i32(owner),
                                self.exchange_index(split, arith.subi(j, self.slice_start(owner)), tid))
            scf.YieldOp([])

    def slice_epilogue(self, rank, m0, n0, tid, wg_row):
        """Per column group q of slice `rank` (groups slice_start(rank) + q): the sum of every
        split's 4 floats in split order (the same order in every launch: bitwise reproducible),
        the epilogue on them, each output element stored where it lies inside M and N."""
        s = self.s
        first = self.slice_start(rank)
        groups = arith.subi(self.slice_start(arith.addi(rank, index(1))), first) \
            if s.column_groups % s.split_k else None        # the slice's groups where they differ
        row0, col0, _ = _fragment_origin(tid, wg_row)
        f32x4 = ir.VectorType.get([4], ir.F32Type.get())
        i64 = ir.IntegerType.get_signless(64)
        for q in range(s.slice_groups):
            # Slices of unequal size (G not a multiple of S): the last group is only some slices'.
            uneven = groups is not None and q == s.slice_groups - 1
            with if_then(arith.cmpi(arith.CmpIPredicate.ult, index(q), groups)) if uneven else nullcontext():
                total = None
                for split in range(s.split_k):
                    part = vector.load(f32x4, self.received, [self.exchange_index(index(split), index(q), tid)])
                    total = part if total is None else arith.addf(total, part)
                col = arith.addi(n0, arith.addi(arith.muli(arith.addi(first, index(q)), index(8)), col0))
                values = self.fused_values(total)
                for h in range(2):
                    row = arith.addi(arith.addi(m0, row0), index(8 * h))
                    results = values(index(2 * h), row, col, None)
                    for e in range(2):
                        c = arith.addi(col, index(e))
                        inside = arith.andi(arith.cmpi(arith.CmpIPredicate.ult, row, self.m),
                                            arith.cmpi(arith.CmpIPredicate.ult, c, self.n))
                        with if_then(inside):
                            offset = arith.index_cast(i64, arith.addi(arith.muli(row, self.n), c))
                            for o, dtype in enumerate(s.out_dtypes):
                                store_global(body.to_memory(results[o][e], dtype),
                                             gep(self.args[f"output{o}"], offset, dtype), DataType(dtype).itemsize)

    def offloaded_store(self, m0, n0):
        """`nvasync.offload` of one warp: its elected lane TMA-stores the tile's output boxes."""
        offload = nvasync.OffloadOp(warps=1)
        block = offload.operation.regions[0].blocks.append(ir.IndexType.get())
        with ir.InsertionPoint(block):
            self.store_outputs(nvasync.ElectOneOp(ir.IntegerType.get_signless(1)).elected, m0, n0)
            gpu.YieldOp([])

    def store_outputs(self, issuer, m0, n0):
        """The elected thread TMA-stores every output box of the tile."""
        with if_then(issuer):
            for o, dtype in enumerate(self.s.out_dtypes):
                cols = self.s.out_box_cols(dtype)
                for b, box in enumerate(self.out_boxes[o]):
                    nvasync.TmaStoreOp(self.args[f"output{o}"], box, [m0, arith.addi(n0, i32(b * cols))])


def _fragment_origin(tid, wg_row):
    """(row, col, quad) of this thread's first accumulator fragment pair in the tile (elements 0, 1
    of m64nNk16's fragment; module docstring): the pairs of column group j and row half h lie at
    (row + 8 h, col + 8 j); quad = row % 8."""
    lane = arith.remui(tid, index(32))
    quad = arith.divui(lane, index(4))
    warp_row = arith.muli(arith.remui(arith.divui(tid, index(32)), index(4)), index(16))
    return arith.addi(arith.addi(wg_row, warp_row), quad), arith.muli(arith.remui(lane, index(4)), index(2)), quad


def _zeros(vector_type):
    zero = ir.FloatAttr.get(ir.F32Type.get(), 0.0)
    return arith.constant(vector_type, ir.DenseElementsAttr.get_splat(vector_type, zero))


def _elements(acc, first, count=2):
    """Accumulator fragment elements first .. first + count - 1 (a dynamic position, folded once
    unrolled)."""
    return [vector.extract(acc, [arith.addi(first, index(e))], [ir.ShapedType.get_dynamic_size()])
            for e in range(count)]
