// The matmul scheduler on a linear + bias + gelu fusion (static N and K, M known only at launch):
// fuser-schedule writes a persistent kernel of 256 consumer threads whose K loop is a
// warp-specialized pipeline of TMA loads (roles "a" and "b") feeding 4 wgmma k-steps per stage on
// the consumer warpgroup's 64 rows of A (a subview at a dynamic row), and an epilogue that stores
// the fusion's result into 128-byte swizzled output boxes (loops marked fuser.unroll), which one
// elected thread TMA-stores -- and no barrier, fence, wait or mbarrier.  The passes then derive:
// the producer warpgroup (block 384, setmaxnreg 40 / 232), per stage one wgmma fence, 4 wgmma,
// a commit and a wait before the consumers' release; per tile the epilogue protocol: the
// issuer's bulk wait.read on the previous tile's store, a named barrier over the 256 consumers,
// the stores, one proxy fence, a named barrier, the TMA stores, one commit; wait.read 0 at exit.
// RUN: fuser-opt %s -p fuser-schedule | FileCheck %s --check-prefix=KERNEL
// RUN: fuser-opt %s -p fuser-verify-dialects -p fuser-schedule -p fuser-pipeline-mbarriers -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-flush-wgmma -p fuser-verify-syncs -p fuser-verify-pipelines | FileCheck %s --check-prefix=SYNCED
// RUN: fuser-opt %s --emit=ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %ptxas %t.ptx -o %t.cubin

func.func @linear_bias_gelu(%x: tensor<?x512xbf16>, %w: tensor<768x512xbf16>, %b: tensor<768xbf16>) -> tensor<?x768xbf16>
    attributes {fusion.fusion} {
  %y = "fusion.matmul"(%x, %w) {transpose_b = true} : (tensor<?x512xbf16>, tensor<768x512xbf16>) -> tensor<?x768xbf16>
  %bb = "fusion.broadcast"(%b) {dims = array<i64: 1>} : (tensor<768xbf16>) -> tensor<?x768xbf16>
  %s = "fusion.binary"(%y, %bb) {kind = "add"} : (tensor<?x768xbf16>, tensor<?x768xbf16>) -> tensor<?x768xbf16>
  %g = "fusion.unary"(%s) {kind = "gelu"} : (tensor<?x768xbf16>) -> tensor<?x768xbf16>
  return %g : tensor<?x768xbf16>
}

// The parameters: tensor maps of x and w, the bias pointer, the output's tensor map, M, N, K.
// KERNEL-LABEL: gpu.func @linear_bias_gelu(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: !llvm.ptr<1>, %arg3: !llvm.ptr, %arg4: i32, %arg5: i32, %arg6: i32)
// KERNEL-SAME: gpu.known_block_size = array<i32: 256, 1, 1>
// KERNEL-NOT: mbarrier
// KERNEL-NOT: barrier
// KERNEL: scf.for
// KERNEL: "nvasync.pipeline_load"({{.*}}) {role = "a"}
// KERNEL: "nvasync.pipeline_load"({{.*}}) {role = "b"}
// KERNEL: memref.subview %{{.*}}[%{{.*}}, 0] [64, 16] [1, 1]
// KERNEL-COUNT-4: "nvasync.wgmma"
// KERNEL: nvasync.pipeline = {consumer_regs = 232 : i64, mode = "warp_specialized", producer_regs = 40 : i64, stages = 3 : i64}
// KERNEL: vector.store
// KERNEL: } {fuser.unroll}
// KERNEL: "nvasync.tma_store"
// KERNEL-NOT: fence
// KERNEL-NOT: bulk_wait
// KERNEL: gpu.return

// SYNCED-LABEL: gpu.func @linear_bias_gelu(
// SYNCED-SAME: gpu.known_block_size = array<i32: 384, 1, 1>
// SYNCED: "nvasync.setmaxnreg"() {action = "dec", regs = 40 : i32}
// SYNCED: "nvasync.setmaxnreg"() {action = "inc", regs = 232 : i32}
// SYNCED: "nvasync.mbarrier_try_wait_parity"({{.*}}fuser.pipeline = "full[a]: wait"
// SYNCED: "nvasync.mbarrier_try_wait_parity"({{.*}}fuser.pipeline = "full[b]: wait"
// SYNCED: "nvasync.wgmma_fence"
// SYNCED: "nvasync.wgmma"(
// SYNCED-NOT: wgmma_{{fence|commit}}
// SYNCED: "nvasync.wgmma"(
// SYNCED-NOT: wgmma_{{fence|commit}}
// SYNCED: "nvasync.wgmma"(
// SYNCED-NOT: wgmma_{{fence|commit}}
// SYNCED: "nvasync.wgmma"(
// SYNCED-NEXT: "nvasync.wgmma_commit"
// SYNCED-NEXT: "nvasync.wgmma_wait"() {fuser.derived = "wgmma still reads its smem operands: wait before the empty-barrier arrive
// SYNCED-NEXT: "nvasync.warp_sync"
// SYNCED: "nvasync.bulk_wait"() {fuser.derived = "WAR: nvasync.tma_store reads smem -> vector.store", pending = 0 : i32, read = true}
// SYNCED: "nvasync.named_barrier"() {fuser.derived = "WAR: nvasync.tma_store -> vector.store", id = 1 : i32, threads = 256 : i32}
// SYNCED-NOT: barrier
// SYNCED: } {fuser.unroll}
// SYNCED-NOT: barrier
// SYNCED: "nvasync.fence_proxy_async"() {fuser.derived = "generic writes -> async proxy: vector.store -> nvasync.tma_store", space = "shared::cta"}
// SYNCED-NEXT: "nvasync.named_barrier"() {fuser.derived = "RAW: vector.store -> nvasync.tma_store", id = 1 : i32, threads = 256 : i32}
// SYNCED: "nvasync.tma_store"
// SYNCED: "nvasync.tma_store"
// SYNCED: "nvasync.tma_store"
// SYNCED: "nvasync.bulk_commit"
// SYNCED: "nvasync.sync_threads"() {fuser.derived = "WAR: nvasync.mbarrier_try_wait_parity -> nvasync.mbarrier_inval"}
// SYNCED: "nvasync.bulk_wait"() {fuser.derived = "TMA stores read smem until their group completes: wait before exit", pending = 0 : i32, read = true}

// PTX: .visible .entry linear_bias_gelu(
// PTX: .reqntid 384, 1, 1
// PTX: setmaxnreg.dec.sync.aligned.u32 40;
// PTX: setmaxnreg.inc.sync.aligned.u32 232;
// PTX: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// PTX: fence.proxy.async.shared::cta;
// PTX: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// PTX: cp.async.bulk.commit_group;
