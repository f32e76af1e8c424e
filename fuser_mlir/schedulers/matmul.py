"""The matmul scheduler: one `fusion.matmul` and its pointwise epilogue; decisions in plain Python
(the GPU machine runs this too); the kernel it builds is `matmul_kernel.py`.

The kernel.  C[M, N] = epilogue(A[M, K] @ B) with a's leading batch dims folded into M and B in
either layout, each read in place: [N, K] rows (operand kind `b`: fd.ops.linear's weight, or a
transposed view of a [K, N] matrix) feed wgmma's K-major B; [K, N] rows (`b_kn`: fd.ops.matmul's
b, or a transposed view of an [N, K] weight) are loaded as block_n / 64 boxes of [64 k, 64 n] and
feed wgmma's transposed (N-major) B.  A persistent grid walks output tiles
of block_m x block_n in grouped order (`group_m` tile rows per group, so the A and B tiles a wave
of CTAs reads stay in L2); per tile a K loop of BLOCK_K-wide steps, warp-specialized: a producer
warpgroup (added by fuser-pipeline-mbarriers) TMA-loads A and B (128-byte swizzle) into `stages`
buffers, and a consumer warpgroup per 64 tile rows (two for block_m 128, one for 64: skinny
problems, whose A rows would otherwise be half zero fill) runs wgmma m64n{block_n}k16.  After
the K loop each consumer thread applies the epilogue to its accumulator fragment, with the other
operands read from shared memory (full ones the A producer TMA-loads as the K loop ends) or
global memory, writes the results into shared memory in the 128-byte swizzled layout of the
output's TMA box, and one thread TMA-stores the tile; M, N and K tails fall out of the TMA boxes (zero-filled loads, clipped stores).  Every mbarrier, barrier, fence and wait is
derived by the passes.

Epilogue operands, by their shape right-aligned to the output [.., M, N] (contiguous, 16-byte
aligned; read in place, never expanded on the host):
  full   [.., M, N]: the element at (row, col) (pairs of columns in one load when N is even);
         with `tma_operands` (the default) one per output of its dtype arrives by TMA in that
         output's smem tile as the K loop ends (matmul_kernel.py; unsplit tiles only);
  col    [N] (leading dims 1): the element at col (a bias);
  row    [.., M, 1]: the element at row;
  one    every dim 1 (a 0-d tensor): the element at 0;
  value  a scalar input (fd.define_scalar): a kernel parameter.

A tile's output boxes are one swizzle row wide: 128 bytes where that divides block_n, else 64 or
32 (block_n 160 of bf16 is 5 boxes of 32 columns, 64-byte swizzle; 144 is 9 boxes of 16 columns,
32-byte swizzle, and 176 is 11 of them), so any width in BLOCK_NS
stores whole boxes; b [K, N] keeps 64-column boxes and so takes widths that are multiples of 64.

Heuristic (`choose_schedule`): for each block_n in BLOCK_NS, as many stages as fit beside the
output tiles (up to 6; storing a tile in two halves through half the memory, which fits a fourth
stage at 128 x 256, ran no faster: Nsight Compute at boost clocks, 4096^3 178.2-179.7 us against
178.6-180.5, 8192^3 1370-1380 against 1354-1365, where cuBLAS took 174.8-175.4 and 1366-1371; again
in another run, 180.4 against 181.7 at 4096^3 and 1749.7 against 1716.9 at 8192 x 10240 x 8192);
the estimated time is waves of tiles over the device's SMs (132 on the H100 and H200) x block_n x the
per-column cost of that width (TILE_COST, ONE_GROUP_TILE_COST unsplit where one raster group holds
every tile row; 2 stages cost TWO_STAGE_COST);
the cheapest wins, ties to the wider tile.  Wave quantization decides narrow problems: N = 2112
in 192-wide tiles is 11 columns of tiles, not 8.25.  When the tiles leave at least half the SMs
idle (at most half the SMs), split-K counts 1..min(32, K tiles) are weighed too (measured on the H100:
1024 x 2112 x 7168 in 88 tiles of 192 ran 56 us unsplit and 88 us in 3 splits, which the cost
below had put 26 % ahead; one measurement, not a fit): a unit costs its share of K tiles plus
UNIT_KTILES and, split, SPLIT_KTILES (estimates, not yet measured), times the waves of units;
the f32 partial tile shares the output tiles' memory, so fewer stages may fit.  `group_m` 8.
Skinny problems are decided before the cost model (`skinny_decisions`).  64 < M <= SKINNY_M takes
one tile row of 128-row tiles (two consumer warpgroups) in as many splits as one wave of units
holds, when that is at least 2, where 64-wide tiles in 2 splits fill the wave (N <= 4224 on 132
SMs): each weight column is streamed once, where two 64-row tile rows stream it twice.  The tiles
are SKINNY_WIDE_N = 128 wide up to SKINNY_TALL_M = 96 rows, TALL_BLOCK_N = 64 above.
128 x 128 (H200 probes, us alone after an L2 flush, fastest of 4, against the 64-row rule and
cuBLAS; M = 72, 80, 88, 96 x N, K = 1024 x 16384, 2048 x 32768, 2112 x 7168, 2560 x 8192, 3072 x
8192, 4096 x 8192): faster than the 64-row rule on all 24, e.g. 72 x 4096 x 8192 27.2 against 37.5
(24.7), 80 x 4096 x 8192 27.0 against 37.3 (26.1), 72 x 3072 x 8192 23.1 against 28.8 (21.2), 96 x
2048 x 32768 45.9 against 52.6 (44.0), 72 x 1024 x 16384 19.6 against 21.9 (16.7), 72 x 2112 x
7168 18.8 against 20.1 (16.1); 128 x 64 tiles beat it by 0.5-0.8 us at M = 96, N = 1024 and 2112,
and lost 8.9 us at N = 4096.  At M = 104 neither width won everywhere (128 x 128 ahead by 1.3-3.4
us at N = 2048, 3072, 4096, behind by 0.4-2.0 at 1024, 2112, 2560), so 128 x 64 stays above 96.
A second 64-row tile row a few rows deep is what the 64-row rule lost on: 64 x 128 tiles in 2
splits at N = 4096 took 37.0-37.8 us at M = 72 and 80, 28.3-28.4 at 88 and 96.  128 x 64 above 96
(same method, fastest of 5 rounds, against the 64-row rule and cuBLAS):
128 x 2112 x 7168 17.4-17.5 in 4 splits against 20.0-20.2 (15.9-16.3), 128 x 2560 x 8192 21.1
against 22.2 (20.6), 128 x 3072 x 8192 25.2 against 27.7 (22.0), 128 x 4096 x 8192 27.8 against
28.7 (29.5), 128 x 1024 x 16384 19.3-19.5 against 19.6-21.0 (18.3-19.4), 128 x 2048 x 32768
46.7-47.2 against 46.6-48.8 (41.3-41.8); 128 x 64 tiles in one more split than a wave holds ran
25-40 % slower.  At M = 96 (a quarter of the tile's rows zero-filled) 96 x 2112 x 7168 gained
(18.8 against 20.1) but 96 x 4096 x 8192 lost (37.0 against 29.3), and at N = 4096 the loss grows
as M falls: 30.6-31.2 us at M = 104, 37.3-37.5 at 88, 40.5-42.5 at 72-80 (27.6-28.1 at 112-128);
A zero-padded in memory to 128 rows (the same kernel at M = 128) ran 27.3 for M = 72's problem,
so the split kernel pays for rows past M, where one 64-row tile row does not (A of M = 8-48 rows
ran 0.2-2.9 us faster than the same kernel on A zero-padded to 64 rows, at 15 of 16 shapes).
Not understood: by Nsight Compute (same kernel, 2 splits) 96 x 4096 x 8192 took 37.9-38.4 us and
128 x 4096 x 8192 30.9-32.3 with the same DRAM reads (70-71 MB), L2 traffic (234-240 MB) and
instructions (5.13-5.16 M warp instructions), while 96 and 128 x 2112 x 7168 both took 19.4-19.9;
unsplit, 128 x 64 tiles took 41.0-41.5 us at M = 96, 112 and 128 alike, and in 2 splits 36.1,
28.5 and 27.6 (both modes; one probe run), so the loss needs the splits; nor the workspace's
column stride (M = 104 and 112 share 28 KB and ran 30.6-31.2 against 27.6-28.1).  What the slow
kernel waits on (Nsight Compute, 2 splits, atomic, 33.6-33.7 us at M = 96 against 26.3-27.0 at
112 and 128; reduce-add sectors in proportion to M, 147 / 172 / 197 K): 15.2 warp cycles an
issued instruction against 11.7-11.8, the consumers' spins on the stages' `full` barriers the
largest share of the stall samples (about a quarter), then the wgmma waits -- the stage data
arrives slower; why, still open.
Nor would clusters sharing the weights of two 64-row tile rows pay (cuBLAS's way at M = 128):
unsplit 64 x 128 tiles in clusters of 2 multicasting B ran no faster than without (H200, same
method: 128 x 7168 x 16384 84.3 against 84.1 us, 128 x 8192 x 8192 48.1 against 47.4, 128 x 5120
x 8192 43.5 against 42.8), so split tiles in clusters were not built.  Nor clusters of 2 adjacent
tile columns sharing A by multicast (a probe, branch probe-cluster-n: split and unsplit tiles, each
cluster's tile columns padded to whole clusters; correct on the H200, racecheck and synccheck
clean), though A is 2/3 of the L2 bytes of the 128 x 64 split kernel (128 x 2048 x 32768: 470 MB
through L2 against cuBLAS's 284): slower than the heuristic's kernel on 20 of 21 skinny shapes
(H200, Nsight Compute, medians of 3, M in {16, 64, 80, 96, 112, 128}; 0.86-0.97x, e.g. 128 x 2048 x
32768 46.3 us against 43.6, 128 x 1024 x 16384 19.1 against 17.6, 64 x 2112 x 7168 16.4 against
15.0; 112 x 2048 x 32768 45.7 against 47.0) -- each stage waits for both CTAs' releases, and odd
tile column counts lose a split to the padding.  Otherwise M <= SKINNY_M
takes 64-row tiles of the narrowest width whose tiles fit one wave of the device's SMs, in as many
splits as one wave of units holds -- unless the tile columns already draw the device's DRAM rate
(no width fits: the cost model decides).  With one tile row (M <= 64) the ring holds
SKINNY_STAGES = 4 stages, not the 6 that fit: on the H200 (two probe runs, us alone as above, 4
against 6 stages) 16 x 2112 x 7168 15.0 against 15.9, 16 x 1024 x 16384 15.8-16.0 against
16.7-16.9, 16 x 7168 x 16384 63.1 against 65.0, 32 x 2112 x 7168 15.5 against 16.4, 16 x 4096 x
4096 15.8 against 16.9, 64 x 2112 x 7168 16.5-16.6 against 17.1-17.4, 64 x 1024 x 16384
17.5-17.7 against 18.2-18.4, 64 x 4096 x 8192 25.1 against 26.1, 64 x 7168 x 16384 64.4-64.7
against 66.1-66.8, 64 x 2048 x 32768 and 64 x 6144 x 8192 within 1 % (3 and 5 stages in between;
with two 64-row tile rows 4 stages tied or lost: 128 x 2048 x 32768 50.5-51.2 against
46.6-48.8).  Splits in clusters, whose consumers issue their own loads, keep 4 too: up to 6 stages
against 4 where the cluster rule fires (H200, 16 shapes, fastest of 3) ran 0.8-4.5 % slower on
8 (64 x 4096 x 4096 17.3 against 16.5 us), 2-3.5 % faster on 2 (16 x 2048 x 8192 14.7 against
15.2), within 0.6 % on the rest.  Not measured on the H100.  64 x 64 tiles at M <= 64, in splits filling the wave:
faster at M = 64 (64 x 2112 x 7168 15.7-15.8 in 4 splits, 64 x 1024 x 16384 17.1 in 8) but slower
at M = 16 (16 x 2048 x 32768 46.3-47.8 against 40.3-40.9, 16 x 2112 x 7168 17.5 against 15.9),
so not taken.  A column's row tiles share its weights through L2, so
the columns are the weight streams, and each counts for SKINNY_STREAM_GBPS of the DRAM's rate:
unsplit when columns >= DRAM GB/s / SKINNY_STREAM_GBPS (52 on the H100, 75 on the H200).  A CTA
streaming alone draws about 50 GB/s (H200: 48-64 unsplit columns at 49.8-53.8 GB/s each, 32
columns of 128 x 4096 x 8192 at 50), so fewer columns leave DRAM bandwidth idle, and a split's
protocol (~4 us: matmul_kernel.py) is what splitting costs.  The constant sits between the
measured points: on the H100, 56 columns (64 x 7168 x 16384) ran 0.7 % slower alone and 3 % in
chains in 2 splits (below); on the H200 (probes, fastest of three rounds, us alone / in chains
of 8, against F.linear) 2 splits ran faster at 48-64 columns: 64 x 6144 x 8192 36.0 / 36.5
against 42.1 / 39.3 unsplit (F.linear 30.1 / 29.1), 64 x 7168 x 16384 66.9 / 68.2 against
78.1 / 74.9 (62.2 / 62.1), 16 x 7168 x 16384 63.7 / 67.0 against 77.9 / 81.6 (63.9 / 64.1),
64 x 8192 x 8192 41.2 / 39.6 against 42.7 / 40.1 (38.0 / 37.6), 64 x 8192 x 16384 72.9 / 71.7
against 78.3 / 75.4 (69.9 / 70.1), and 128 x 4096 x 8192 (64 tiles, 32 columns) 28.6 / 28.9
against 42.1 / 38.9 (26.9 / 25.6).  Fewer columns in two row tiles (M > 64) that no split fits
in a wave are left to the cost model, whose 128-row tiles stream each column once and split
(H200: 128 x 4352 x 16384, 34 columns, 50.9 / 48.9 us in its 128 x 176 tiles in 5 splits against
79.2 / 74.6 unsplit in 64 x 128; 128 x 5120 x 8192 33.8 / 32.1 against 42.4 / 39.5; 128 x 7168 x
16384 74.8 / 74.7 against 81.4 / 78.8; 96 and 128 x 10240 x 8192, 64 columns of 160, 52.3-54.9
alone either way, 52.3-55.0 in chains against 57.6-58.7; F.linear 48.4 / 47.6, 28.0 / 27.1,
77.7 / 71.8, 50.5-53.8 / 48.3-54.9).  Before this rule every device took 3 or more splits or
none (2 lost on the H100 at 56 columns); the H100 choices it changes -- 2 splits at 45-52 tiles
of M <= 64 and at 23-33 columns of M in 65..128, the cost model at 34-51 columns of M in
65..128 -- are not measured on the H100.
Measured on the H100 (M in {16, 64, 128} x (N, K) in {(2112, 7168), (1024, 16384), (2048, 32768),
(7168, 16384)}): 64 x 128 tiles were the fastest of
64 x {256, 192, 128, 64} or within 7 % of it on every shape (one run); at one wave of units
every width streams the same B bytes per unit, and a split's partial tile (its f32 store,
reduce-add and read-back) grows with the width.  Wider N (M in {64, 96, 128} x N in {10240,
14336, 28672}, K = 8192; one probe run): the narrowest width within a wave was the fastest of
the 8 unsplit 64- and 128-row variants or within 3 % of it, and at M = 96-128, N = 10240 (64 x
160 tiles, 64.2-65.0 us) it beat the cost model's 128 x 160 tiles in 2 splits (83.7-86.0 us;
unsplit 67.6-68.4).  8-34 tiles ran 1.5-3.7x faster in 3-16 splits than unsplit; 56 tiles
(N = 7168) no faster in 2 splits (64 x 7168 x 16384: 90.3 us unsplit, 94.9 split).  Again with
the L2 prefetch (fastest of three rounds, us alone / in chains of 8 calls): on an H100 88.8 / 90.2
unsplit, 89.4 / 93.1 in 2 splits; on an H200 78.9 / 75.1 unsplit and 66.9 / 68.1 in 2 splits,
against F.linear's 63.6 / 64.0.  Off the GPU, kernels are scheduled for the device that
$FUSER_MLIR_DEVICE names (schedulers.target_device); the decisions key the artifacts, so one
kernel serves every device whose heuristics pick it.
tools/bench_matmul.py's skinny table compares them with the 128-row tiles the cost model picks;
naming block_m 128 leaves every decision to it.  At M = 128, 128 x 128 tiles in as many splits as
a wave holds ran slower than 64 x 128 ones (H100, two runs): 128 x 1024 x 16384 25.5-26.0
us in 16 splits against 22.8-26.3, 128 x 2112 x 7168 24.0-24.1 in 7 against 21.7-22.1,
128 x 2048 x 32768 60.0-60.2 in 8 against 58.9-59.2; 64 x 160 tiles in 4 splits tied at 2112.
Again with the fragment-order workspace (H100, event-timed as the skinny table, atomic, three
rounds, one probe run): 128 x 1024 x 16384 in 64 x 128 tiles, 8 splits, 22.1-23.4 us against
24.9-31.4 for 128 x 128 in 16, 64 x 192 in 11, 64 x 256 in 16 and 128 x 256 in 32; 128 x 2112 x
7168 (3 splits) 20.8-20.9 against 21.7-25.2 for 64 x 176 in 5, 128 x 128 in 7, 128 x 176 in 11
and 64 x 256 in 7; 64 x 2112 x 7168 (7 splits) 19.6 against 20.6 (64 x 176 in 11) and 23.0
(64 x 256 in 14).  cuBLAS took 20.4-21.3, 18.7-19.6 and 17.9-18.8: its lead at M = 128 was
none of those tiles.  What it runs (H200, Nsight Compute launch statistics): the transposed problem
(the weights' rows as wgmma's M), split-K, and a reduce kernel -- at 128 x 2112 x 7168
`nvjet_sm90_tst_96x64_64x10_1x2_h_bz_splitK_TNN` (132 CTAs, 10 stages, clusters of 2) 13.2-13.4 us
plus `splitKreduce_kernel` 4.7, our 3-split 64 x 128 kernel 23.7-23.8 in the same run; 64-wide
tiles of the weights at every skinny shape measured (64 x 64, 80 x 64, 96 x 64, 128 x 64).
One 64-row tile row in splits (M <= 64) splits in clusters instead (`cluster_split_decisions`:
split_k_mode "cluster", the partials added through distributed shared memory, no workspace) where
a width up to 192 and a split count S <= 8 dividing its column groups keep every cluster resident
at once (RESIDENT_CLUSTERS, one CTA an SM, times the CTAs an SM holds by the kernel's shared
memory, at most 2), cover at least 2/3 of the SMs and give each split at most 24 K tiles -- the
most CTAs wins; where no such width fits and M > 16, CLUSTER_SPLIT_NARROW_N = 64-wide tiles do,
with up to 32 K tiles a split.  That fallback came once the clusters' K loops kept a wgmma group
in flight (H200, Nsight Compute, medians of 3, against the atomic mode it replaced): 64 x 1024 x
16384 in 64-wide tiles, 8 splits (16 clusters of 8, two CTAs an SM: 81 KB each) 14.7-14.8 us
against 16.3 (cuBLAS 16.1-16.3; 72-wide 14.6, 128-wide in 64 CTAs 15.2), 64 x 768 x 16384 13.5
against 14.5, 64 x 1024 x 4096 7.3 against 9.6, 64 x 1024 x 8192 10.0 against 12.1.  Not at M <=
16, where atomic mode stores one warp's slab of 16 rows and its protocol is cheap: 1 x 1024 x
16384 16.9 against 14.2, and 16 x 1024 x 16384 14.0 against 14.5 by kernel time but 16.6 against
15.9 by events.  At 64 x 2048 x 32768, 64-73 K tiles a split, clusters ran 39.9-41.2 against
atomic's 40.4 (the rule leaves it: 64 and more K tiles a split).  The cost model's widths keep
24 K tiles a split: 25-32 were not measured.  Why: the workspace protocol costs about 2.3 us a
kernel (a probe storing each split's partial as the output, no reduce: H200, us alone after an L2
flush, medians of six rounds of 40 calls: 64 x 2112 x 7168 14.2-14.5 against 16.5-16.6, 64 x 1024
x 16384 15.2-15.5 against 17.8-18.0, 1.3-1.4 at M = 16 where one warp's slab is stored, 1.8-2.0 at
K = 32768), which matters where a split's K loop is short.  Measured where the rule fires (H200, same method, fastest of 3, against the same
heuristic with split_k_mode "atomic" named, which keeps 64 x 128 tiles): 14 of 16 shapes faster,
e.g. 64 x 2112 x 7168 15.8 us against 16.6 (cuBLAS 17.0), 16 x 2112 x 7168 15.2 against 17.1
(15.8), 64 x 2112 x 1024 8.8 against 10.1, 64 x 2048 x 2048 9.7 against 11.3, 16 x 7168 x 4096 20.8
against 23.6, 64 x 1536 x 4096 11.1 against 12.4; 64 x 7168 x 4096 and 1024 equal, 64 x 5120 x 2048
(192-wide, 4 splits) 14.3 against 14.1, and 256-wide tiles in 8 splits 22.8 against 21.1 at 64 x
3072 x 8192 (the slowest of six configurations at 64 x 2112 x 7168 too), so wider ones are left
out.  A sweep of every fitting configuration on the skinny rows (one run): 144-wide tiles in 6
splits (90 CTAs) the fastest at N = 2112; at 64 x 1024 x 16384 16 clusters of 8 (one more than
resident) 17.1 against 17.7 but 16.4 against 15.9 at M = 16, and fewer CTAs slower, so the rule
leaves it; at K = 32768 (86 K tiles a split) none more than 0.5 % ahead; at M = 65-128 (128-row tiles)
every configuration slower (128 x 2112 x 7168: 18.8 against 17.6).  The kernel also takes any
width (a multiple of 8: no output boxes) and slices of unequal size, but a rule taking the most
CTAs over every width of 64-192 and split count ran mixed against this one (same 16 shapes, same
method): 1.5-8.8 % faster on 7 (64 x 7168 x 1024 in 112-wide tiles, 2 splits: 11.7 us against
12.7), 1.2-6.6 % slower on 6 (64 x 2048 x 2048 in 144-wide tiles, 8 splits: 10.2 against 9.6),
the rest within 0.5 %; and 64 and 16 x 1024 x 16384 in 72-wide tiles, 8 splits (15 clusters):
17.3 us against atomic mode's 17.7 and 16.0.  Not measured on the H100, whose resident clusters
are assumed the H200's.
Skinny kernels also prefetch their weights (`l2_prefetch`, SKINNY_L2_PREFETCH = 1): before the
grid-dependency wait the elected thread prefetches into L2 the B boxes of its first unit's first
K tile (`nvasync.tma_prefetch`, matmul_kernel.py), so the weights start streaming while the
prologue runs and, in a stream of kernels, while the previous kernel's memory operations drain
(its CTAs have exited: fuser-grid-dependency).  Measured with the previous kernel's trigger at
its entry, when this kernel's CTAs could start before it ended (H100, a probe
alternating the values in one process, three rounds, two runs; us a call alone after an L2 flush
and a spin, then in chains of 8 calls each on its own weights; l2_prefetch 0 / 1 / 2 / 4):
64 x 2112 x 7168 19.6-20.0 / 19.4-19.7 / 19.5-19.9 / 19.6-20.2 alone, 16.4-16.5 / 16.0-16.1 /
16.0 / 15.8-15.9 in chains; 64 x 1024 x 16384 20.8-21.0 / 20.5-20.9 / 20.8-21.1 / 21.1-21.4 and
17.7-17.9 / 17.2-17.3 / 17.6 / 17.6-17.7; 16 x 1024 x 16384 19.4-19.7 / 19.0-19.2 / 19.2-19.3 /
19.6-19.8 and 16.4-16.5 / 15.8-15.9 / 15.9-16.0 / 16.0-16.2; 64 x 2048 x 32768 54.5-55.0 /
54.3-54.6 alone and 52.5-53.3 / 51.9-52.7 in chains, 128 x 2112 x 7168 20.9-21.3 / 20.9-21.1
and 19.2-19.5 / 19.1-19.2, 64 x 7168 x 16384 (unsplit) 90.2-90.6 / 90.0-90.5 alone.  More
costs: 8, 16 or all of a unit's K tiles ran 0.5-4 us a call slower in chains
(tools/bench_chain.py --l2-prefetch, one run; 64 x 2112 x 7168 17.0 / 20.3-20.4 / 20.4-20.5
against 16.5-16.6 at 0; all of 64 x 2048 x 32768's, 134 MB of weights, 84.0-84.2 against
52.4-52.5), and the 4 K tiles after the first `stages` (a probe) 0.7-1.7 us slower alone: the
prefetches compete with the loads the kernel waits for.  Without the trigger (H200, chains as
above) 64 x 2112 x 7168 ran 14.0 us a call against 13.9 with it (passes/grid_dependency.py).  The
cost model's kernels (M > 128) keep 0 (not measured).
`fd.compile(inputs, schedule={"scheduler": "matmul", "block_n": 128, "block_m": 64, "stages": 4,
"group_m": 4, "split_k": 8, "split_k_mode": "deterministic", "l2_prefetch": 0})` overrides any of them; the others
are the heuristic's choice under those given.  `cluster_m: 2` runs the CTAs in clusters of 2 on
adjacent tile rows that share each B tile by TMA multicast (each CTA loads half of it into
both: a third less L2 traffic per CTA at 128 x 256 tiles); unsplit only.  The heuristic keeps
cluster_m 1: on the H100 (interleaved A/B of the same schedule with and without, 5-6 rounds,
medians) clusters ran 0.96-1.02x over the 14 plain and 6 fused benchmark rows -- 1.02x for the
8192 x 10240 x 8192 silu(y)*gate and residual add, 0.96-0.98x at N = 2112 and for 4096^3
bias+gelu and residual add --, so B's L2 traffic is not what bounds these shapes.  Clustered
kernels read full operands by vector loads (tma_operand_tiles); a probe lifting that (its kernels
verified) ran the same as the unclustered TMA-operand kernel (Nsight Compute, boost clocks, two
rounds, one H100): residual add 190.4-191.3 against 190.4-190.7 us at 4096^3 and 1747.6-1751.1
against 1751.7-1757.0 at 8192 x 10240 x 8192, silu(y) * gate 195.4-197.2 against 195.5-195.7 and
1773.0-1774.2 against 1770.0-1771.4.  Split-K
itself: matmul_kernel.py and passes/tma_reduce_store.py.  An earlier probe of a tile's splits as
one cluster, adding their accumulators through distributed shared memory in a tree of cluster
barriers, ran slower at 64 x 2112 x 7168 (H100: 31-37 us in clusters of 8, 22.1 us in 4-CTA
clusters of 128-wide tiles, 28.0 in 4-CTA clusters of 64-wide ones, against 21.4 in atomic mode);
its clusters outnumbered those resident at once -- 17 of 8 CTAs, 33 of 4, where an H200 holds 15
and 30 (cuOccupancyMaxActiveClusters for these kernels: 66, 39, 30, 22, 17, 15, 15 clusters of
2..8 CTAs) -- so a second wave likely ran.  split_k_mode "cluster" (matmul_kernel.py) exchanges the
partials in one step instead, each CTA reducing a slice of the tile.
Nor (one run, six skinny shapes, 3-8 splits, when atomic mode still had a designated last split):
giving the last split, which waited for the others' partials, 1.5-4x the K tiles of each other
split so the others' release would land while it still streams -- every share ran within 0.3 us
of the even one (64 x 2112 x 7168: 20.7-20.9 us); the kernel is DRAM-bound up to its last K tile
whoever loads it, and fewer CTAs stream slower at the end.  Nor two CTAs per SM of 64-row tiles,
so that one CTA's epilogue would overlap the other's main loop (Nsight Compute at boost clocks,
4096^3 and 8192 x 10240 x 8192, plain and the three fused rows): 64 x 192 in 2 stages and 64 x 128
in 3 or 4 took 1.4-2.2x as long as the heuristic's 128 x 256 kernel; 64 x 256 does not compile,
its wgmma needing 154 registers where two CTAs of 256 threads get 128.  Nor stream-K (a probe,
branch probe-stream-k): whole tiles for every round but the last two, the K tiles of the rest
dealt out evenly to the CTAs, a share adding its f32 partial into the tile's workspace slot and
the share completing the tile running the epilogue (atomic, no waits).  Correct (H200: its GPU
cases, the deadlock guard, racecheck and synccheck clean) but slower on every row measured
(H200, Nsight Compute at boost clocks, medians of 3, one run): plain 4096^3 204.5 us against 180.0,
8192^3 1376.9 against 1363.8, 4096 x 8192 x 28672 2933.6 against 2342.9, 1024 x 28672 x 8192 745.8
against 591.8.  Not measured apart, the likely costs: 128 KB f32 partials (reduce-added, then read
and cleared by the last share), and L2 reuse lost while CTAs run neighbouring tiles at different K
offsets (worst at K = 28672).
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace

from ..dialects.nvasync import SPLIT_K_MODES
from ..diagnostics import FusionError
from ..frontend.dtypes import DataType
from . import FusionSig, TensorSig, contradicted_kinds, is_integer

BLOCK_MS = (128, 64)            # tile rows: a consumer warpgroup per 64 rows (the rows of a wgmma)
CLUSTER_MS = (1, 2)             # CTAs per cluster along M (B multicast to both)
BLOCK_K = 64                    # one 128-byte swizzle row of 16-bit elements
SMEM_LIMIT = 227 * 1024
SM_SMEM = 228 * 1024            # an SM's shared memory, of which each resident CTA takes its own
CTA_RESERVED_SMEM = 1024        # and the 1 KB the driver reserves for it
BARRIER_BYTES = 1024            # the mbarrier arrays the pipelining pass adds (2 roles x full/empty)
COUNT_CELL_BYTES = 16           # atomic split-K: the i32 a split's issuer hands its arrival's count on in
BLOCK_NS = (256, 192, 176, 160, 144, 128)      # the cost model's widths
TALL_BLOCK_N = 64               # skinny problems of two 64-row tile rows take 128 x 64 tiles (skinny_decisions)
TILE_WIDTHS = BLOCK_NS + (TALL_BLOCK_N,)       # every width the kernel builds; a schedule may name any
CLUSTER_WIDTHS = tuple(range(8, 257, 8))       # split in clusters: any wgmma N (no output boxes)
# Time per column of a tile, relative to 256-wide tiles: tools/bench_matmul.py --variants on the
# H100 at shapes where wave quantization is negligible (8192 x 8192 x 28672, 8192 x 28672 x 8192,
# 4096 x 8192 x 28672): 192-wide tiles 1.08-1.10x, 128-wide 1.32-1.50x
# (tools/results/bench_matmul_h100.json); 160-wide 1.15-1.44x (8192^3, 4096 x 28672 x 8192,
# 8192 x 28672 x 8192, 8192 x 8192 x 28672 in one run).  144- and 176-wide: interpolated, not
# measured at these shapes.  At 4096 and 8192 x 2112 x 7168 (2112 = 12 x 176, cuBLAS's width
# there per Nsight Compute) the waves take 176: 190.8 and 383.8 us against 198.7 and 408.8 in
# 192-wide and cuBLAS's 179.6 and 383.3 (medians of six interleaved rounds, one probe run); 144
# ran 1.12x as long as 192 there.
TILE_COST = {256: 1.0, 192: 1.09, 176: 1.17, 160: 1.25, 144: 1.3, 128: 1.35}
# Unsplit, when one raster group holds every tile row (M <= BLOCK_M x group_m), 128-wide tiles cost
# less per column: at M = 1024, 1.00-1.14 over four shapes (1024 x {10240, 28672} x 8192,
# 1024 x 8192 x 28672, 1024 x 2112 x 7168; bench_matmul --variants and two probes), where
# 1024 x 10240 x 8192 ran 252 us in 128-wide tiles against 289-312 in 256-wide (3 runs agree);
# 160-wide likewise (1024 x 10240 x 8192: 738 TFLOP/s against 599 in 256-wide and 606 in 128-wide;
# 1024 x 2112 x 7168: 626 against 549 in 192-wide, one run); 144-wide too: 1024 x 2112 x 7168 in
# 120 tiles of 144 (0.91 of a wave) 54.5 us against 58.4 in 112 of 160 and cuBLAS's 56.1 (medians
# of five interleaved rounds, one probe run).
ONE_GROUP_TILE_COST = {**TILE_COST, 160: 1.1, 144: 1.1, 128: 1.1}
TWO_STAGE_COST = 1.3
# Split-K (a tile's K tiles shared by split_k work units, the partials added through an f32 workspace):
# a unit costs its share of K tiles plus UNIT_KTILES (pipeline fill, epilogue) and, when split, SPLIT_KTILES
# (storing/adding its partial, the last split's read of the sum), all in K tiles of work.
UNIT_KTILES = 2.0
SPLIT_KTILES = 2.0
MAX_SPLIT_K = 32
MAX_GROUP_M = 1024                      # tile rows a raster group (the kernel's i32 arithmetic)
# How a tile's splits combine (matmul_kernel.py): atomic (reduce-adds in any order), deterministic
# (reduce-adds in split order, a chain), slots (each split its own workspace slot, folded in split
# order).  Atomic measured 1.05-1.93x faster than deterministic on the skinny shapes
# (tools/results/bench_matmul_skinny_h100.json), whose serialized chain of reduce-adds costs more.
DEFAULT_SPLIT_K_MODE = "atomic"
ARRIVAL_MODES = ("atomic", "slots")     # the last split to arrive runs the epilogue (no designated split)
# cluster: a tile's splits are one thread block cluster that adds its partials through distributed
# shared memory, each CTA the epilogue of a slice of the tile (matmul_kernel.py); no workspace.
CLUSTER_SPLIT = "cluster"
SCHEDULE_SPLIT_K_MODES = SPLIT_K_MODES + (CLUSTER_SPLIT,)
MAX_CLUSTER_SPLIT = 8                   # the portable cluster size
# Clusters of 2..8 CTAs resident at once on 132 SMs (cuOccupancyMaxActiveClusters, H200, the skinny
# kernels' one CTA an SM; the H100 assumed alike): a GPC holds whole clusters only.
RESIDENT_CLUSTERS = {2: 66, 3: 39, 4: 30, 5: 22, 6: 17, 7: 15, 8: 15}
CLUSTER_SPLIT_MIN_SMS = 2 / 3           # cluster_split_decisions (module docstring)
CLUSTER_SPLIT_MAX_KTILES = 24
CLUSTER_SPLIT_MAX_N = 192               # 256-wide tiles lost in clusters (module docstring)
CLUSTER_SPLIT_NARROW_N = 64             # where no width of the cost model's fits (module docstring)
CLUSTER_SPLIT_NARROW_MAX_KTILES = 32
CLUSTER_SPLIT_NARROW_MIN_M = 17         # above one warp's slab of rows (module docstring)
# The most CTAs of a cluster split an SM was measured holding (module docstring); the clusters
# resident with two an SM are assumed twice RESIDENT_CLUSTERS, not queried.
CLUSTER_CTAS_PER_SM = 2
# The f32 workspace holds each tile's partial in fragment order (matmul_kernel.py): per slab of 16
# tile rows (one consumer warp's accumulator rows), lane l's 16-byte group j of its fragment at float
# (32 j + l) x 4, in rows of WORKSPACE_ROW floats -- so the last split reads (and clears) it with
# coalesced 16-byte loads, and a split's partial is one TMA box.
SLAB_ROWS = 16
WORKSPACE_ROW = 256
# Full epilogue operands by TMA: residual add within 1 % of vector loads (either way), silu(y) * gate
# 1-3 % faster at 4096^3 and 8192 x 10240 x 8192 (Nsight Compute; matmul_kernel.py).
TMA_OPERANDS = 1
SKINNY_M = 128                          # skinny_decisions
SKINNY_TALL_M = 96                      # above it, 128 x 64 tiles where splits fill a wave (module docstring)
SKINNY_WIDE_N = 128                     # 64 < M <= SKINNY_TALL_M: 128 x 128 tiles there
SKINNY_STAGES = 4                       # one 64-row tile row's ring depth (module docstring)
SKINNY_STREAM_GBPS = 64                 # the DRAM rate a weight stream counts for (module docstring)
SKINNY_L2_PREFETCH = 1                  # K tiles of B prefetched before the grid wait (module docstring)
MAX_STAGES = 6
MAX_L2_PREFETCH = 1 << 16               # K tiles (any more than a unit's are its all)
PRODUCER_REGS, CONSUMER_REGS = 40, 232      # 128 x 40 + 256 x 232 = 64512 of the SM's 65536
OUTPUT_DTYPES = ("f32", "f16", "bf16")
MATMUL_OPERANDS = ("a", "b", "b_kn")   # a [M, K]; b as [N, K] or as [K, N] rows
OPERAND_KINDS = MATMUL_OPERANDS + ("full", "col", "row", "one", "value")
SWIZZLE = 128                   # A's and B's boxes (wgmma operands)
BOX_SWIZZLES = (128, 64, 32)    # output boxes: the widest whose columns divide block_n


@dataclass(frozen=True)
class MatmulSchedule:
    dtype: str                            # a's and b's element type: bf16 | f16
    operands: tuple[str, ...]             # per fusion input, one of OPERAND_KINDS
    in_dtypes: tuple[str, ...]
    out_dtypes: tuple[str, ...]
    pairs: bool                           # full/col operands read two columns per load (N even)
    block_n: int = 256
    block_m: int = 128                    # one of BLOCK_MS
    stages: int = 3
    group_m: int = 8
    split_k: int = 1                      # work units per output tile, each over a slice of K
    split_k_mode: str = DEFAULT_SPLIT_K_MODE  # how the splits combine (SCHEDULE_SPLIT_K_MODES)
    cluster_m: int = 1                    # CTAs of a cluster on adjacent tile rows, sharing B by multicast
    tma_operands: int = 0                 # 1: full operands arrive by TMA in their output's tile (tma_operand_tiles)
    l2_prefetch: int = 0                  # K tiles of B a CTA's first unit prefetches into L2 before the grid wait

    @property
    def consumers(self) -> int:
        """Consumer threads: a warpgroup per 64 tile rows (the pipelining pass adds a producer
        warpgroup but to cluster splits: `threads`)."""
        return self.block_m * 2

    @property
    def cluster_split(self) -> bool:
        """A tile's splits form one cluster (split_k_mode "cluster"): one tile per cluster, its
        K loop pipelined by the consumers themselves, so the exchange after it stands in the
        kernel's top-level block where every thread of the cluster reaches its barrier."""
        return self.split_k > 1 and self.split_k_mode == CLUSTER_SPLIT

    @property
    def column_groups(self) -> int:
        """A consumer thread's 8-column groups of the tile (4 floats of its fragment each)."""
        return self.block_n // 8

    @property
    def slice_groups(self) -> int:
        """Cluster split: the most column groups a CTA's slice holds (CTA r holds groups
        [r G / S, (r + 1) G / S), G = column_groups: matmul_kernel.py)."""
        return -(-self.column_groups // self.split_k)

    @property
    def cluster(self) -> int:
        """CTAs per thread block cluster."""
        return self.split_k if self.cluster_split else self.cluster_m

    @property
    def threads(self) -> int:
        """The block: the consumers, and (warp-specialized K loop) the producer warpgroup."""
        return self.consumers + (0 if self.cluster_split else 128)

    def tma_operand_tiles(self) -> dict[int, int]:
        """{input j: output o} of the full epilogue operands that arrive by TMA into output o's smem
        tile (as the tile's K loop ends: matmul_kernel.py), each paired with an output of its dtype
        (the tile's layout); empty unless tma_operands, and for split-K or cluster_m > 1, whose
        tiles' memory the partials share or whose units pair CTAs."""
        if not self.tma_operands or self.split_k > 1 or self.cluster_m > 1:
            return {}
        free = list(enumerate(self.out_dtypes))
        tiles = {}
        for j, (kind, dtype) in enumerate(zip(self.operands, self.in_dtypes)):
            o = next((o for o, d in free if d == dtype), None) if kind == "full" else None
            if o is not None:
                tiles[j] = o
                free = [(k, d) for k, d in free if k != o]
        return tiles

    def out_box_cols(self, dtype: str) -> int:
        """Columns of an output's TMA box: one swizzle row of the widest
        span (128, 64 or 32 bytes) whose columns divide block_n, so a tile is whole boxes
        (block_n 160 of bf16: 5 boxes of 32 columns, 64-byte swizzle)."""
        itemsize = DataType(dtype).itemsize
        return next(span // itemsize for span in BOX_SWIZZLES if self.block_n % (span // itemsize) == 0)

    def box_swizzle(self, dtype: str) -> int:
        """The swizzle span in bytes of an output's TMA box: one box row."""
        return self.out_box_cols(dtype) * DataType(dtype).itemsize

    @property
    def slab_rows(self) -> int:
        """Workspace rows (of WORKSPACE_ROW floats) of one 16-row slab of a tile."""
        return SLAB_ROWS * self.block_n // WORKSPACE_ROW

    @property
    def partial_rows(self) -> int:
        """Workspace rows of one split's partial tile: its TMA box."""
        return self.block_m // SLAB_ROWS * self.slab_rows

    def workspace_shape(self, m: int, n: int) -> tuple[int, int, int]:
        """The workspace as the TMA sees it: per tile column (and per split in slots mode, each its
        own slot) the 16-row slabs of M's rows, in rows of WORKSPACE_ROW floats.  Slabs past M are
        not stored (TMA clips them)."""
        columns = math.ceil(n / self.block_n) * (self.split_k if self.split_k_mode == "slots" else 1)
        return columns, math.ceil(m / SLAB_ROWS) * self.slab_rows, WORKSPACE_ROW

    def b_box_cols(self) -> int:
        """b [K, N]: columns of a B box, one 128-byte swizzle row (wgmma's transposed B is laid out
        in whole rows of SWIZZLE bytes; block_n must be a multiple)."""
        return SWIZZLE // DataType(self.dtype).itemsize

    @property
    def stage_bytes(self) -> int:
        return (self.block_m + self.block_n) * BLOCK_K * DataType(self.dtype).itemsize

    @property
    def epilogue_bytes(self) -> int:
        """The output tiles, or a split's f32 partial tile when larger (they share the memory), and
        in atomic split-K the count cell after them; a cluster split's received slices instead."""
        outputs = sum(self.block_m * self.block_n * DataType(d).itemsize for d in self.out_dtypes)
        if self.split_k == 1:
            return outputs
        if self.cluster_split:      # the received slices: per split, slice_groups of 16 bytes a thread
            return self.split_k * self.slice_groups * self.consumers * 16
        cell = COUNT_CELL_BYTES if self.split_k_mode in ARRIVAL_MODES else 0
        return max(outputs, self.block_m * self.block_n * 4) + cell

    @property
    def smem_bytes(self) -> int:
        """An estimate (the artifact takes the kernel IR's): the stages, the epilogue tiles, barriers."""
        return self.stages * self.stage_bytes + self.epilogue_bytes + BARRIER_BYTES

    def kernel_params(self) -> list[dict]:
        """The kernel's parameters in order: tensor maps of a, b, the TMA-loaded epilogue operands
        and every output (a cluster split's outputs: global pointers); per other epilogue operand
        a global pointer or (value) the number; the split-K scratch; the i32 sizes M, N, K."""
        params = []
        by_tma = self.tma_operand_tiles()
        for j, (kind, dtype) in enumerate(zip(self.operands, self.in_dtypes)):
            tensor = f"input{j}"
            if j in by_tma:         # loaded as its output's tile is stored: the output's boxes
                params.append({"kind": "tensormap", "tensor": tensor, "dtype": dtype,
                               "box": [self.block_m, self.out_box_cols(dtype)], "swizzle": self.box_swizzle(dtype)})
            elif kind == "a":
                params.append({"kind": "tensormap", "tensor": tensor, "dtype": dtype, "box": [self.block_m, BLOCK_K],
                               "swizzle": SWIZZLE})
            elif kind == "b":       # multicast: each CTA of a cluster loads 1 / cluster_m of the tile's rows
                params.append({"kind": "tensormap", "tensor": tensor, "dtype": dtype,
                               "box": [self.block_n // self.cluster_m, BLOCK_K], "swizzle": SWIZZLE})
            elif kind == "b_kn":
                params.append({"kind": "tensormap", "tensor": tensor, "dtype": dtype,
                               "box": [BLOCK_K // self.cluster_m, self.b_box_cols()], "swizzle": SWIZZLE})
            elif kind == "value":
                params.append({"kind": "value", "tensor": tensor, "dtype": dtype})
            else:
                params.append({"kind": "pointer", "tensor": tensor, "dtype": dtype, "align": 16})
        order = sorted(params, key=lambda p: p["kind"] != "tensormap")      # tensor maps of a, b first
        if self.cluster_split:     # each CTA stores its slice element by element
            order += [{"kind": "pointer", "tensor": f"output{j}", "dtype": d, "align": DataType(d).itemsize}
                      for j, d in enumerate(self.out_dtypes)]
        else:
            order += [{"kind": "tensormap", "tensor": f"output{j}", "dtype": d,
                       "box": [self.block_m, self.out_box_cols(d)], "swizzle": self.box_swizzle(d)}
                      for j, d in enumerate(self.out_dtypes)]
        if self.split_k > 1 and not self.cluster_split:
            # buffers the runtime owns (launch "scratch"): zero at first use, left zero
            # (slots mode's workspace is left holding the partials: every slot is stored before it is read)
            order += [{"kind": "tensormap", "scratch": "workspace", "dtype": "f32",
                       "box": [1, self.partial_rows, WORKSPACE_ROW], "swizzle": 0},
                      {"kind": "pointer", "scratch": "workspace", "dtype": "f32", "align": 16},
                      {"kind": "pointer", "scratch": "flags", "dtype": "i32", "align": 4}]
        return order + [{"kind": "scalar", "type": "i32", "value": name} for name in ("m", "n", "k")]

    def to_json(self) -> dict:
        return asdict(self)


def _dims(sig: FusionSig):
    """(M, N, K) of the signature, -1 where unknown until launch."""
    out = sig.outputs[0].shape
    m = -1 if -1 in out[:-1] else math.prod(out[:-1])
    a = sig.inputs[sig.matmuls[0].a].shape
    return m, out[-1], a[-1]


def operand_kind(t: TensorSig, out_shape) -> str | None:
    """How the epilogue reads input `t` (module docstring), None when it cannot."""
    if t.scalar:
        return "value"
    shape = (1,) * (len(out_shape) - len(t.shape)) + tuple(t.shape)
    if len(shape) != len(out_shape):
        return None
    if shape == tuple(out_shape):
        return "full"
    if all(d == 1 for d in shape):
        return "one"
    if all(d == 1 for d in shape[:-1]) and shape[-1] == out_shape[-1]:
        return "col"
    if shape[-1] == 1 and shape[:-1] == tuple(out_shape[:-1]):
        return "row"
    return None


def matmul_reason(sig: FusionSig) -> str | None:
    """Why the matmul scheduler does not take `sig` (None when it does)."""
    if "matmul" not in sig.ops:
        return "no matmul in the fusion"
    others = sig.ops - {"matmul", "unary", "binary", "ternary", "cast", "broadcast"}
    if others or len(sig.matmuls) != 1:
        return (f"ops {', '.join(sorted(others))} do not fuse with a matmul" if others
                else f"{len(sig.matmuls)} matmuls; the scheduler takes one per fusion")
    mm = sig.matmuls[0]
    if mm.a is None or mm.b is None:
        return "the matmul's operands must be fusion inputs (cast or compute them in a fusion of their own)"
    if mm.a == mm.b:
        return "a and b are the same input"
    a, b = sig.inputs[mm.a], sig.inputs[mm.b]
    if a.dtype.value not in ("bf16", "f16"):
        return f"matmul inputs are {a.dtype.value}; the kernel multiplies bf16 or f16 (cast first)"
    shapes = {o.shape for o in sig.outputs}
    out = sig.outputs[0].shape
    if len(shapes) > 1 or out[:-1] != a.shape[:-1]:
        return f"every output must have the matmul's shape {list(a.shape[:-1]) + [out[-1]]}, got {sorted(shapes)}"
    bad = [o.dtype.value for o in sig.outputs if o.dtype.value not in OUTPUT_DTYPES]
    if bad:
        return f"outputs of dtype {', '.join(bad)}: the epilogue stores {', '.join(OUTPUT_DTYPES)} (cast first)"
    k = a.shape[-1]
    itemsize = a.dtype.itemsize
    if k == 0:
        return "K = 0: the matmul contracts nothing (torch gives zeros); not supported"
    for name, t in (("a", a), ("b", b)):
        if not t.aligned:
            return f"input {name}'s data pointer is not 16-byte aligned (TMA reads it)"
    if k > 0 and k * itemsize % 16:
        return (f"K = {k}: rows of a and b are {k * itemsize} bytes, TMA needs a multiple of 16; pad K to a "
                f"multiple of {16 // itemsize} (with zeros)")
    if a.strides is not None:
        return f"input a is not contiguous (strides {list(a.strides)}): pass a.contiguous()"
    name = "w" if mm.transpose_b else "b"
    if b_kind(sig) is None:
        return (f"{name} {list(b.shape)} has strides {list(b.strides)}: the kernel reads row-major "
                f"{name} or its transpose's row-major data; pass {name}.contiguous()")
    n = out[-1]
    if b_kind(sig) == "b_kn" and n > 0 and n * itemsize % 16:
        return (f"N = {n}: B is read as [K, N] rows of {n * itemsize} bytes, TMA needs a multiple of 16; "
                f"pad N to a multiple of {16 // itemsize}, or pass B as [N, K] rows")
    for o in sig.outputs:
        if n > 0 and n * o.dtype.itemsize % 16:
            return (f"N = {n}: output rows of {o.dtype.value} are {n * o.dtype.itemsize} bytes, TMA stores "
                    "need a multiple of 16")
    for j, t in enumerate(sig.inputs):
        if j in (mm.a, mm.b):
            continue
        kind = operand_kind(t, out)
        if kind is None:
            return (f"epilogue input {j} of shape {list(t.shape)} is neither [.., M, N], [N], [.., M, 1] nor "
                    f"a scalar against the output {list(out)}")
        if kind != "value" and (t.strides is not None or not t.aligned):
            return f"epilogue input {j} must be contiguous and 16-byte aligned"
    return None


def b_kind(sig: FusionSig) -> str | None:
    """How the kernel reads the matmul's b: `b` ([N, K] rows), `b_kn` ([K, N] rows), None (neither).
    A transposed view of a row-major matrix (strides (1, rows)) is the other layout's rows."""
    mm = sig.matmuls[0]
    b = sig.inputs[mm.b]
    given = "b" if mm.transpose_b else "b_kn"
    if b.strides is None:
        return given
    if len(b.shape) == 2 and tuple(b.strides) == (1, b.shape[0]):
        return "b_kn" if given == "b" else "b"
    return None


def skinny_decisions(m: int, n: int, ktiles: int, widths, device, tall: int | None, cluster_kernel,
                     narrow) -> dict:
    """block_m, block_n (of `widths`, or `tall` -- the width of one tile row of 128 rows, None
    where the user's schedule rules it out), split_k and l2_prefetch of a skinny problem on
    `device` (module docstring), and split_k_mode where it may split in clusters:
    `cluster_kernel(block_n, split_k)` is that kernel's schedule (None: no clusters), `narrow` the
    widths of the rule's fallback; else none."""
    if not 0 < m <= SKINNY_M or n <= 0:
        return {}
    if tall and m > 64 and device.sms // math.ceil(n / TALL_BLOCK_N) >= 2:
        # One tile row of 128 where 64-row tiles would take two, and 64-wide tiles in 2 splits fill
        # the wave: each weight column is streamed once, in splits that fill the wave.
        splits = min(MAX_SPLIT_K, ktiles, device.sms // math.ceil(n / tall))
        if splits >= 2:
            return {"block_m": 128, "block_n": tall, "split_k": splits, "l2_prefetch": SKINNY_L2_PREFETCH}
    for block_n in sorted(widths):              # the narrowest that fits: the most tiles in one wave
        columns = math.ceil(n / block_n)
        tiles = math.ceil(m / 64) * columns
        if tiles <= device.sms:
            # A tile column's row tiles share its weights through L2: the columns are the streams.
            splits = min(MAX_SPLIT_K, ktiles, device.sms // tiles)
            if columns >= device.dram_gbps / SKINNY_STREAM_GBPS:
                splits = 1
            elif splits == 1 and tiles > columns:
                return {}           # too few streams and no split fits the wave: the cost model's tiles
            if splits > 1 and tiles == columns and cluster_kernel:
                clustered = cluster_split_decisions(m, n, ktiles, widths, narrow, device, cluster_kernel)
                if clustered:
                    return {"block_m": 64, **clustered, "l2_prefetch": SKINNY_L2_PREFETCH}
            return {"block_m": 64, "block_n": block_n, "split_k": splits, "l2_prefetch": SKINNY_L2_PREFETCH}
    return {}


def resident_clusters(ctas: int, device, per_sm: int) -> int:
    """Clusters of `ctas` CTAs a device holds at once, `per_sm` CTAs an SM: RESIDENT_CLUSTERS
    (one an SM), measured for 132 SMs, scaled to the device's SMs and the CTAs an SM holds."""
    return RESIDENT_CLUSTERS[ctas] * per_sm * device.sms // 132


def cluster_split_decisions(m: int, n: int, ktiles: int, widths, narrow, device, cluster_kernel) -> dict:
    """block_n, split_k and split_k_mode "cluster" for one 64-row tile row (module docstring), or
    none: the most CTAs over `widths` up to CLUSTER_SPLIT_MAX_N, each split at most
    CLUSTER_SPLIT_MAX_KTILES K tiles -- or, where none fits and M >= CLUSTER_SPLIT_NARROW_MIN_M,
    over `narrow` (CLUSTER_SPLIT_NARROW_N where the schedule leaves the width open), at most
    CLUSTER_SPLIT_NARROW_MAX_KTILES -- and split counts S <= 8 dividing the width's column groups
    whose clusters are all resident at once (as many CTAs an SM as `cluster_kernel(block_n, S)`'s
    shared memory lets, at most CLUSTER_CTAS_PER_SM), at least CLUSTER_SPLIT_MIN_SMS of the SMs;
    of equal CTAs, the wider tile."""
    def fits(candidates, max_ktiles):
        for w in candidates:
            tiles = math.ceil(n / w)
            for s in range(2, min(MAX_CLUSTER_SPLIT, ktiles) + 1):
                if (w // 8) % s or tiles * s < CLUSTER_SPLIT_MIN_SMS * device.sms or math.ceil(ktiles / s) > max_ktiles:
                    continue
                per_sm = SM_SMEM // (cluster_kernel(w, s).smem_bytes + CTA_RESERVED_SMEM)
                if tiles <= resident_clusters(s, device, max(1, min(CLUSTER_CTAS_PER_SM, per_sm))):
                    yield tiles * s, w, s
    found = list(fits([w for w in widths if w <= CLUSTER_SPLIT_MAX_N], CLUSTER_SPLIT_MAX_KTILES))
    if not found and m >= CLUSTER_SPLIT_NARROW_MIN_M:
        found = list(fits(narrow, CLUSTER_SPLIT_NARROW_MAX_KTILES))
    if not found:
        return {}
    _, block_n, splits = max(found)
    return {"block_n": block_n, "split_k": splits, "split_k_mode": CLUSTER_SPLIT}


def choose_schedule(sig: FusionSig, **fixed) -> MatmulSchedule:
    """The heuristic (module docstring); `fixed` decisions are kept."""
    m, n, k = _dims(sig)
    base = dict(dtype=sig.inputs[sig.matmuls[0].a].dtype.value, operands=_operand_kinds(sig),
                in_dtypes=_dtypes(sig.inputs), out_dtypes=_dtypes(sig.outputs), pairs=n > 0 and n % 2 == 0)
    if not 1 <= fixed.get("split_k", 1) <= MAX_SPLIT_K:
        raise FusionError(f"matmul schedule: split_k in [1, {MAX_SPLIT_K}], got {fixed['split_k']}")
    ktiles = math.ceil(k / BLOCK_K) if k > 0 else 1
    mode = fixed.get("split_k_mode", DEFAULT_SPLIT_K_MODE)
    def whole_boxes(block_n):      # b [K, N] is loaded in boxes of one 128-byte row: widths of whole boxes only
        return b_kind(sig) != "b_kn" or block_n % MatmulSchedule(**base, block_n=block_n).b_box_cols() == 0
    widths = [w for w in BLOCK_NS if whole_boxes(w)]
    widths = [fixed["block_n"]] if "block_n" in fixed else widths
    clustered = fixed.get("cluster_m", 1) > 1     # a cluster's tiles are unsplit
    if fixed.get("block_m", 64) == 64 and not clustered:   # 128-row tiles named: the cost model decides the rest
        width = TALL_BLOCK_N if m > SKINNY_TALL_M else SKINNY_WIDE_N      # one tile row's (module docstring)
        tall = width if "block_m" not in fixed and fixed.get("block_n", width) == width else None
        # Splits in clusters unless the schedule names a split count or another mode.
        clusters = "split_k" not in fixed and fixed.get("split_k_mode", CLUSTER_SPLIT) == CLUSTER_SPLIT
        def cluster_kernel(block_n, splits):       # a cluster split's kernel, for its shared memory
            return MatmulSchedule(**base, block_n=block_n, block_m=64, split_k=splits, split_k_mode=CLUSTER_SPLIT,
                                  stages=fixed.get("stages", SKINNY_STAGES))
        narrow = () if "block_n" in fixed or not whole_boxes(CLUSTER_SPLIT_NARROW_N) else (CLUSTER_SPLIT_NARROW_N,)
        decided = skinny_decisions(m, n, ktiles, widths, sig.device, tall, cluster_kernel if clusters else None,
                                   narrow)
        if fixed.get("split_k_mode") == CLUSTER_SPLIT and decided.get("split_k_mode") != CLUSTER_SPLIT:
            decided.pop("split_k", None)    # the workspace modes' count may pass a cluster's: the cost model's
        fixed = {**decided, **fixed}
        mode = fixed.get("split_k_mode", DEFAULT_SPLIT_K_MODE)
    block_m = fixed.get("block_m", 128)
    # One 64-row tile row of a skinny problem streams deep enough in SKINNY_STAGES (module docstring).
    most_stages = SKINNY_STAGES if 0 < m <= 64 and block_m == 64 else MAX_STAGES
    candidates = []
    for block_n in ([fixed["block_n"]] if "block_n" in fixed else widths):
        tiles = math.ceil(m / block_m) * math.ceil(n / block_n) if m > 0 and n > 0 else None
        # Splitting pays only when the tiles leave half the SMs idle; sizes unknown until launch: no split.
        most_splits = min(MAX_CLUSTER_SPLIT, block_n // 8) if mode == CLUSTER_SPLIT else MAX_SPLIT_K
        splits = [fixed["split_k"]] if "split_k" in fixed else \
            [1] if tiles is None or tiles > sig.device.sms // 2 or clustered else range(1, min(most_splits, ktiles) + 1)
        for split_k in splits:
            probe = MatmulSchedule(**base, block_n=block_n, block_m=block_m, stages=1, split_k=split_k,
                                   split_k_mode=mode)
            room = SMEM_LIMIT - probe.epilogue_bytes - BARRIER_BYTES
            stages = fixed.get("stages", min(most_stages, room // probe.stage_bytes))
            if stages < 2 and "stages" not in fixed:
                continue
            # A large problem when sizes are unknown: waves x block_n is the same for every width.
            waves = math.ceil(tiles * split_k / sig.device.sms) if tiles else 1 / block_n
            per_unit = math.ceil(ktiles / split_k) + UNIT_KTILES + (SPLIT_KTILES if split_k > 1 else 0)
            one_group = split_k == 1 and tiles is not None and math.ceil(m / block_m) <= fixed.get("group_m", 8)
            tile_cost = (ONE_GROUP_TILE_COST if one_group else TILE_COST).get(block_n, 1.0)
            cost = waves * block_n * per_unit * tile_cost * (1.0 if stages >= 3 else TWO_STAGE_COST)
            candidates.append(((-cost, block_n, -split_k, stages),
                               MatmulSchedule(**base, block_n=block_n, block_m=block_m, stages=stages,
                                              group_m=fixed.get("group_m", 8),
                                              split_k=split_k, split_k_mode=mode,
                                              cluster_m=fixed.get("cluster_m", 1),
                                              tma_operands=fixed.get("tma_operands", TMA_OPERANDS),
                                              l2_prefetch=fixed.get("l2_prefetch", 0))))
    if not candidates:
        raise FusionError(f"the matmul scheduler cannot fit two stages beside {len(sig.outputs)} output tiles "
                          f"({base['out_dtypes']}) in shared memory")
    return max(candidates, key=lambda c: c[0])[1]


def _operand_kinds(sig: FusionSig) -> tuple[str, ...]:
    mm = sig.matmuls[0]
    return tuple("a" if j == mm.a else b_kind(sig) if j == mm.b else operand_kind(t, sig.outputs[0].shape)
                 for j, t in enumerate(sig.inputs))


def _dtypes(tensors) -> tuple[str, ...]:
    return tuple(t.dtype.value for t in tensors)


_DECISIONS = ("block_n", "block_m", "stages", "group_m", "split_k", "cluster_m", "tma_operands",
              "l2_prefetch")   # integers
_IN_RANGE = {"block_n": lambda v: v in CLUSTER_WIDTHS, "block_m": lambda v: v in BLOCK_MS,
             "stages": lambda v: 1 <= v <= 16,
             "group_m": lambda v: 1 <= v <= MAX_GROUP_M, "split_k": lambda v: 1 <= v <= MAX_SPLIT_K,
             "cluster_m": lambda v: v in CLUSTER_MS, "l2_prefetch": lambda v: 0 <= v <= MAX_L2_PREFETCH}


class _Matmul:
    name = "matmul"
    signature_facts = ("operands", "pairs")

    def can_schedule(self, sig: FusionSig) -> str | None:
        return matmul_reason(sig)

    def heuristic(self, sig: FusionSig) -> MatmulSchedule:
        return choose_schedule(sig)

    def encode(self, params: MatmulSchedule) -> dict:
        """The decisions, and what the signature fixed that the kernel depends on (so the
        artifact cache tells them apart): how each input is read, whether columns go in pairs."""
        return {**{k: getattr(params, k) for k in _DECISIONS}, "split_k_mode": params.split_k_mode,
                "operands": ",".join(params.operands), "pairs": int(params.pairs)}

    def decode(self, sig: FusionSig, fields: dict) -> MatmulSchedule:
        """The decisions from `fields`; `operands` and `pairs`, when given, as the API derived
        them from concrete shapes (fusion IR may say `?` where the API knew the size)."""
        fields = dict(fields)
        operands, pairs = fields.pop("operands", None), fields.pop("pairs", None)
        bad = [k for k in _DECISIONS if k in fields and not is_integer(fields[k])]
        if bad or set(fields) - set(_DECISIONS) - {"split_k_mode"} \
                or fields.get("split_k_mode", DEFAULT_SPLIT_K_MODE) not in SCHEDULE_SPLIT_K_MODES:
            raise FusionError(f"matmul schedule takes integer fields {', '.join(_DECISIONS)} and split_k_mode "
                              f"({' | '.join(SCHEDULE_SPLIT_K_MODES)}), got {fields}")
        if any(k in fields and not ok(fields[k]) for k, ok in _IN_RANGE.items()):    # before the heuristic uses them
            raise FusionError(f"matmul schedule {fields}: block_n is one of {TILE_WIDTHS} (split_k_mode cluster: "
                              f"a multiple of 8 up to 256), block_m one of {BLOCK_MS}, "
                              f"stages in [1, 16], group_m in [1, {MAX_GROUP_M}], split_k in [1, {MAX_SPLIT_K}], cluster_m one of "
                              f"{CLUSTER_MS}, l2_prefetch in [0, {MAX_L2_PREFETCH}]")
        params = choose_schedule(sig, **fields)
        if operands is not None:
            kinds = tuple(str(operands).split(","))
            mm = sig.matmuls[0]
            allowed = lambda j: ("a",) if j == mm.a else ("b", "b_kn") if j == mm.b \
                else OPERAND_KINDS[len(MATMUL_OPERANDS):]  # noqa: E731
            if len(kinds) != len(sig.inputs) or any(k not in allowed(j) for j, k in enumerate(kinds)):
                raise FusionError(f"matmul schedule: operands = {operands!r} does not describe these "
                                  f"{len(sig.inputs)} inputs (kinds: {', '.join(OPERAND_KINDS)})")
            # The epilogue operands' kinds follow from shapes; b's layout follows from strides, which
            # fusion IR does not carry (a transposed view reads as b_kn), so it is taken as given.
            derived = [k if j in (mm.a, mm.b) else params.operands[j] for j, k in enumerate(kinds)]
            problem = contradicted_kinds("operands", sig.inputs, kinds, derived)
            if problem:
                raise FusionError(f"matmul schedule: {problem}")
            params = replace(params, operands=kinds)
        if pairs is not None:
            params = replace(params, pairs=bool(pairs))
        if params.tma_operands not in (0, 1):
            raise FusionError(f"matmul schedule {fields}: tma_operands is 0 (epilogue operands by vector loads) "
                              "or 1 (full operands by TMA into their output's tile)")
        if params.cluster_m > 1 and (params.split_k > 1 or params.l2_prefetch):
            raise FusionError(f"matmul schedule {fields}: cluster_m > 1 needs split_k 1 (a split-K tile's splits "
                              "run in CTAs of their own) and l2_prefetch 0 (a cluster's B arrives by multicast)")
        if params.cluster_split and params.split_k > min(MAX_CLUSTER_SPLIT, params.column_groups):
            raise FusionError(f"matmul schedule {fields}: split_k_mode cluster needs split_k <= {MAX_CLUSTER_SPLIT} "
                              f"(the CTAs of a cluster) and <= block_n / 8 = {params.column_groups} (each CTA takes "
                              "at least one of a thread's 8-column groups)")
        if params.block_n not in TILE_WIDTHS and not params.cluster_split:
            raise FusionError(f"matmul schedule {fields}: block_n must be one of {TILE_WIDTHS} (whole TMA boxes "
                              "of the outputs) but in split_k_mode cluster with split_k > 1, whose tiles are stored "
                              "element by element")
        if "b_kn" in params.operands and params.block_n % params.b_box_cols():
            raise FusionError(f"matmul schedule {fields}: b read as [K, N] rows loads boxes of "
                              f"{params.b_box_cols()} columns, so block_n must be a multiple of {params.b_box_cols()}")
        if params.smem_bytes > SMEM_LIMIT:
            raise FusionError(f"matmul schedule {fields} needs about {params.smem_bytes} B of shared memory; "
                              f"a CTA may use {SMEM_LIMIT}")
        return params

    def build(self, func_op, params: MatmulSchedule, kernel_name: str, insertion_point):
        from .matmul_kernel import build_kernel

        return build_kernel(func_op, params, kernel_name, insertion_point)

    def launch(self, params: MatmulSchedule, sig: FusionSig) -> dict:
        """Tile count, the tensor maps' 2-D views and the kernel scalars for a concrete signature."""
        m, n, k = _dims(sig)
        tiles = math.ceil(m / params.block_m) * math.ceil(n / params.block_n)
        scratch = {}
        views = {}
        if params.split_k > 1 and tiles and not params.cluster_split:
            views["workspace"] = params.workspace_shape(m, n)
            scratch = {"workspace": ("f32", views["workspace"]), "flags": ("i32", (tiles,))}
        by_tma = params.tma_operand_tiles()
        for j, kind in enumerate(params.operands):
            if j in by_tma:
                views[f"input{j}"] = (m, n)
            elif kind == "a":
                views[f"input{j}"] = (m, k)
            elif kind == "b":
                views[f"input{j}"] = (n, k)
            elif kind == "b_kn":
                views[f"input{j}"] = (k, n)
        views.update({f"output{j}": (m, n) for j in range(len(sig.outputs))})
        # A cluster takes cluster_m adjacent tile rows (the last pair's second tile may lie past M).
        units = math.ceil(math.ceil(m / params.block_m) / params.cluster_m) * params.cluster_m \
            * math.ceil(n / params.block_n) if tiles else 0
        return {"views": views, "tiles": units * params.split_k, "scalars": {"m": m, "n": n, "k": k},
                "scratch": scratch}

    def meta(self, params: MatmulSchedule) -> dict:
        return {"params": params.kernel_params(), "block": [params.threads, 1, 1],
                "grid": "per_tile" if params.cluster_split else "persistent", "cluster": params.cluster,
                "dynamic_smem": params.smem_bytes,
                "schedule": params.to_json()}


SCHEDULER = _Matmul()
