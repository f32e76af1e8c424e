// The matmul scheduler on a skinny linear (M = 64, N = 2112, K = 7168) in atomic mode (named: the
// heuristic splits this one in clusters, matmul_cluster_split.mlir): 64-row tiles, one consumer
// warpgroup (block 128, 256 with the producer warpgroup the pipelining pass adds), 128-wide tiles
// in 7 splits (17 tiles x 7 = 119 units: one wave of 132 SMs), a ring of 4 stages (one tile row:
// SKINNY_STAGES).  At M = 128 (@tall_skinny_linear): one tile row of 128 x 64 tiles, two consumer
// warpgroups of m64n64, 4 splits (33 x 4 = 132 units), 6 stages; at M = 80 (@wide_skinny_linear):
// one tile row of 128 x 128 tiles (m64n128), 7 splits (17 x 7 = 119 units), 5 stages, a partial of
// 64 rows of 256 floats.  The scheduler stages each split's
// f32 partial in the workspace's fragment order (16-byte stores, one box of 32 rows of 256 floats),
// marks its store and its arrival (atomic mode: the last split to arrive runs the epilogue, reading
// the sum with 16-byte loads and clearing it with 16-byte stores); the passes derive the rest:
// empty barriers counting the 4 consumer warps, the partial's reduce-add completed (wait without
// .read) before the issuing thread's arrival (atom.acq_rel), the global proxy fence after it, the
// count handed on through an smem cell behind the named barrier over the 128 consumers, the flag
// reset by the last split's issuer (a plain store), and the others.
// RUN: fuser-opt %s -p fuser-schedule | FileCheck %s --check-prefix=KERNEL
// RUN: fuser-opt %s -p fuser-verify-dialects -p fuser-schedule -p fuser-tma-reduce-store -p fuser-pipeline-mbarriers -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-flush-wgmma -p fuser-verify-syncs -p fuser-verify-pipelines | FileCheck %s --check-prefix=SYNCED
// RUN: fuser-opt %s --emit=ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %ptxas %t.ptx -o %t.cubin

func.func @skinny_linear(%x: tensor<64x7168xbf16>, %w: tensor<2112x7168xbf16>) -> tensor<64x2112xbf16>
    attributes {fusion.fusion, fusion.schedule = {scheduler = "matmul", split_k_mode = "atomic"}} {
  %y = "fusion.matmul"(%x, %w) {transpose_b = true} : (tensor<64x7168xbf16>, tensor<2112x7168xbf16>) -> tensor<64x2112xbf16>
  return %y : tensor<64x2112xbf16>
}

func.func @tall_skinny_linear(%x: tensor<128x7168xbf16>, %w: tensor<2112x7168xbf16>) -> tensor<128x2112xbf16>
    attributes {fusion.fusion} {
  %y = "fusion.matmul"(%x, %w) {transpose_b = true} : (tensor<128x7168xbf16>, tensor<2112x7168xbf16>) -> tensor<128x2112xbf16>
  return %y : tensor<128x2112xbf16>
}

func.func @wide_skinny_linear(%x: tensor<80x7168xbf16>, %w: tensor<2112x7168xbf16>) -> tensor<80x2112xbf16>
    attributes {fusion.fusion} {
  %y = "fusion.matmul"(%x, %w) {transpose_b = true} : (tensor<80x7168xbf16>, tensor<2112x7168xbf16>) -> tensor<80x2112xbf16>
  return %y : tensor<80x2112xbf16>
}

// KERNEL-LABEL: gpu.func @skinny_linear(
// KERNEL-SAME: gpu.known_block_size = array<i32: 128, 1, 1>
// KERNEL: "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<64x64xbf16
// KERNEL-NEXT: "nvasync.smem_buffer"() {offset = 8192 : i64} : () -> memref<128x64xbf16
// KERNEL-NOT: barrier
// KERNEL: "nvasync.wgmma"({{.*}}) -> vector<64xf32>
// KERNEL: nvasync.pipeline = {consumer_regs = 232 : i64, mode = "warp_specialized", producer_regs = 40 : i64, stages = 4 : i64}
// KERNEL: vector.store {{.*}} : memref<1x32x256xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// KERNEL: "nvasync.split_k_store"({{.*}}) {mode = "atomic"} : (!llvm.ptr, memref<1x32x256xf32
// KERNEL-NOT: split_k_store
// KERNEL: "nvasync.split_k_last"(%{{.*}}, %{{.*}}, %{{.*}}) {splits = 7 : i32}
// KERNEL-NOT: fence
// KERNEL: gpu.return

// KERNEL-LABEL: gpu.func @tall_skinny_linear(
// KERNEL-SAME: gpu.known_block_size = array<i32: 256, 1, 1>
// KERNEL: "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<128x64xbf16
// KERNEL-NEXT: "nvasync.smem_buffer"() {offset = 16384 : i64} : () -> memref<64x64xbf16
// KERNEL: "nvasync.wgmma"({{.*}}) -> vector<32xf32>
// KERNEL: nvasync.pipeline = {consumer_regs = 232 : i64, mode = "warp_specialized", producer_regs = 40 : i64, stages = 6 : i64}
// KERNEL: "nvasync.split_k_last"(%{{.*}}, %{{.*}}, %{{.*}}) {splits = 4 : i32}

// KERNEL-LABEL: gpu.func @wide_skinny_linear(
// KERNEL-SAME: gpu.known_block_size = array<i32: 256, 1, 1>
// KERNEL: "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<128x64xbf16
// KERNEL-NEXT: "nvasync.smem_buffer"() {offset = 16384 : i64} : () -> memref<128x64xbf16
// KERNEL: "nvasync.wgmma"({{.*}}) -> vector<64xf32>
// KERNEL: nvasync.pipeline = {consumer_regs = 232 : i64, mode = "warp_specialized", producer_regs = 40 : i64, stages = 5 : i64}
// KERNEL: "nvasync.split_k_store"({{.*}}) {mode = "atomic"} : (!llvm.ptr, memref<1x64x256xf32
// KERNEL: "nvasync.split_k_last"(%{{.*}}, %{{.*}}, %{{.*}}) {splits = 7 : i32}

// SYNCED-LABEL: gpu.func @skinny_linear(
// SYNCED-SAME: gpu.known_block_size = array<i32: 256, 1, 1>
// SYNCED: "nvasync.mbarrier_init"({{.*}}) {count = 4 : i32, fuser.pipeline = "empty[a]: init (4 arrivals: one per consumer warp)"}
// SYNCED: "nvasync.setmaxnreg"() {action = "dec", regs = 40 : i32}
// SYNCED: "nvasync.setmaxnreg"() {action = "inc", regs = 232 : i32}
// SYNCED: "nvasync.named_barrier"() {fuser.derived = "RAW: vector.store -> nvasync.tma_reduce", id = 1 : i32, threads = 128 : i32}
// SYNCED: "nvasync.tma_reduce"({{.*}}) {fuser.split_k = "atomic", kind = "add"}
// SYNCED-NOT: "nvasync.tma_reduce"
// SYNCED: "nvasync.bulk_wait"() {fuser.derived = "global writes of {{.*}} complete before nvasync.arrive_flag", pending = 0 : i32, read = false}
// SYNCED-NEXT: %[[OLD:.*]] = "nvasync.arrive_flag"(%[[FLAG:.*]], %{{.*}}) {for_group = true, fuser.split_k = "last"}
// SYNCED-NEXT: "nvasync.fence_proxy_async"() {fuser.derived = "acquire -> async-proxy global writes: nvasync.arrive_flag -> {{.*}}", space = "global"}
// SYNCED-NEXT: memref.store %[[OLD]]
// SYNCED: "nvasync.named_barrier"() {fuser.derived = "acquire -> the group's later accesses: nvasync.arrive_flag", id = 1 : i32, threads = 128 : i32}
// SYNCED-NEXT: memref.load
// SYNCED: "nvasync.reset_flag"(%[[FLAG]]) {fuser.split_k = "last"}
// SYNCED: "nvasync.fence_proxy_async"() {fuser.derived = "generic writes -> async proxy: {{.*}}", space = "shared::cta"}
// SYNCED-NEXT: "nvasync.named_barrier"() {fuser.derived = "RAW: vector.store -> nvasync.tma_store", id = 1 : i32, threads = 128 : i32}

// PTX: .visible .entry skinny_linear(
// PTX: .reqntid 256, 1, 1
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// PTX-NOT: ld.acquire
// PTX: bar.sync{{[[:space:]]+}}1, 128;
// PTX-COUNT-16: st.shared.v4.b32
// PTX: cp.reduce.async.bulk.tensor.3d.global.shared::cta.add.tile.bulk_group
// PTX: cp.async.bulk.wait_group{{[[:space:]]+}}0;
// PTX: atom.acq_rel.gpu.global.add.u32
// PTX: fence.proxy.async.global;
// PTX: st.relaxed.gpu.global.b32 [%rd{{[0-9]+}}], 0;
// PTX-COUNT-16: ld.global.v4.b32
// PTX-COUNT-16: st.global.v4.b32
// PTX-NOT: red.release
