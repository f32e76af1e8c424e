// Split-K in clusters (split_k_mode "cluster") on the skinny linear 64 x 2112 x 7168: 144-wide tiles
// (15 tile columns) in 6 splits, each tile's splits one cluster of 6 CTAs (.reqnctapercluster), one
// tile per cluster.  The consumers issue their own loads (a `pipelined` K loop: no warp roles), so
// the exchange after it stands in the kernel's top-level block: each thread sends its 18 column
// groups, 3 to each CTA (16-byte distributed stores into slot [rank] of the owner's `received`
// tile, 64 x 144 floats), and reads its 3 groups of every split back in split order.  The passes
// derive the rest: a relaxed cluster arrive first thing and its wait just before the first
// distributed store (the peers have started), one cluster barrier between the stores and the reads
// (release / acquire: no peer exits while stores into it may be in flight), and no workspace,
// semaphore or bulk group.  Each K step refills the stage the step before read, so its barrier
// waits for all wgmma groups but the newest (`wgmma.wait_group 1`): one group stays in flight across
// steps, and the accumulator's one flush comes after the loop, once the peers have started.  Every
// step's barrier also orders its stage wait before the mbarriers' inval: no barrier after the loop.
// RUN: fuser-opt %s -p fuser-schedule | FileCheck %s --check-prefix=KERNEL --implicit-check-not=split_k --implicit-check-not=barrier
// RUN: fuser-opt %s -p fuser-verify-dialects -p fuser-schedule -p fuser-tma-reduce-store -p fuser-pipeline-mbarriers -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-flush-wgmma -p fuser-verify-syncs -p fuser-verify-pipelines | FileCheck %s --check-prefix=SYNCED --implicit-check-not=warp_role --implicit-check-not=bulk_wait --implicit-check-not=cluster_sync --implicit-check-not=wgmma_wait
// RUN: fuser-opt %s --emit=ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --implicit-check-not=atom. --implicit-check-not=cp.reduce.async.bulk < %t.ptx
// RUN: %ptxas %t.ptx -o %t.cubin

func.func @cluster_split_linear(%x: tensor<64x7168xbf16>, %w: tensor<2112x7168xbf16>) -> tensor<64x2112xbf16>
    attributes {fusion.fusion, fusion.schedule = {scheduler = "matmul", block_m = 64, block_n = 144, split_k = 6, split_k_mode = "cluster"}} {
  %y = "fusion.matmul"(%x, %w) {transpose_b = true} : (tensor<64x7168xbf16>, tensor<2112x7168xbf16>) -> tensor<64x2112xbf16>
  return %y : tensor<64x2112xbf16>
}

// KERNEL-LABEL: gpu.func @cluster_split_linear(
// KERNEL-SAME: gpu.known_block_size = array<i32: 128, 1, 1>, nvvm.cluster_dim = array<i32: 6, 1, 1>
// KERNEL: "nvasync.cluster_rank"()
// KERNEL: gpu.cluster_id x
// KERNEL: "nvasync.wgmma"({{.*}}) -> vector<72xf32>
// KERNEL: nvasync.pipeline = {mode = "pipelined", prefetch = 3 : i64, stages = 4 : i64}
// KERNEL: "nvasync.store_peer"({{.*}}) : (vector<4xf32>, memref<9216xf32, #gpu.address_space<workgroup>>, i32, index) -> ()
// KERNEL-COUNT-3: vector.load {{.*}} : memref<9216xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// KERNEL: llvm.store {{.*}} {alignment = 2 : i64} : bf16, !llvm.ptr<1>
// KERNEL: gpu.return

// SYNCED-LABEL: gpu.func @cluster_split_linear(
// SYNCED-NEXT: "nvasync.cluster_arrive"() {fuser.derived = "peers started before the distributed store nvasync.store_peer"}
// SYNCED: "nvasync.wgmma_commit"
// SYNCED-NEXT: "nvasync.wgmma_wait"() {fuser.derived = "wgmma still reads its smem operands: wait before the barrier that releases them (nvasync.sync_threads), all but the newest group", pending = 1 : i32}
// SYNCED-NEXT: "nvasync.sync_threads"() {fuser.derived = "WAR: nvasync.wgmma -> nvasync.tma_load", fuser.wgmma_pending = 1 : i32}
// SYNCED-NEXT: scf.if
// SYNCED: "nvasync.wgmma_commit"
// SYNCED-NEXT: "nvasync.wgmma_wait"() {fuser.derived = "wgmma still reads its smem operands: wait before the barrier that releases them (nvasync.sync_threads), all but the newest group", pending = 1 : i32}
// SYNCED-NEXT: "nvasync.sync_threads"() {fuser.derived = "WAR: nvasync.wgmma -> nvasync.tma_load", fuser.wgmma_pending = 1 : i32}
// SYNCED-NEXT: scf.if
// SYNCED: "nvasync.wgmma_commit"
// SYNCED-NEXT: "nvasync.wgmma_wait"() {fuser.derived = "wgmma still reads its smem operands: wait before the barrier that releases them (nvasync.sync_threads), all but the newest group", pending = 1 : i32}
// SYNCED-NEXT: "nvasync.sync_threads"() {fuser.derived = "WAR: nvasync.wgmma -> nvasync.tma_load", fuser.wgmma_pending = 1 : i32}
// SYNCED-NEXT: scf.if
// SYNCED: "nvasync.wgmma_commit"
// SYNCED-NEXT: "nvasync.wgmma_wait"() {fuser.derived = "wgmma still reads its smem operands: wait before the barrier that releases them (nvasync.sync_threads), all but the newest group", pending = 1 : i32}
// SYNCED-NEXT: "nvasync.sync_threads"() {fuser.derived = "WAR: nvasync.wgmma -> nvasync.tma_load", fuser.wgmma_pending = 1 : i32}
// SYNCED-NEXT: scf.if
// SYNCED: "nvasync.mbarrier_inval"
// SYNCED: "nvasync.cluster_wait"() {fuser.derived = "peers started before the distributed store nvasync.store_peer"}
// SYNCED-NEXT: "nvasync.wgmma_wait"() {fuser.derived = "flush wgmma before reading the accumulator: scf.if", pending = 0 : i32}
// SYNCED: "nvasync.store_peer"
// SYNCED: "nvasync.cluster_sync"() {fuser.derived = "RAW: nvasync.store_peer -> vector.load"}
// SYNCED: gpu.return

// PTX: .visible .entry cluster_split_linear(
// PTX: .reqnctapercluster 6, 1, 1
// PTX: barrier.cluster.arrive.relaxed.aligned;
// PTX: barrier.cluster.wait.aligned;
// PTX-NEXT: wgmma.wait_group.sync.aligned 0;
// PTX-COUNT-18: st.shared::cluster.v4.b32
// PTX-NEXT: $L__BB
// PTX-NEXT: barrier.cluster.arrive.aligned;
// PTX-NEXT: barrier.cluster.wait.aligned;
// PTX: st.global.b16
// PTX-COUNT-4: wgmma.wait_group.sync.aligned 1;
// PTX-NOT: wgmma.wait_group.sync.aligned 0;
