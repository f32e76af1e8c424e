// fuser-schedule turns a column sum and max (a reduction of the leading dim) into an
// outer-reduction kernel: strips of 256 columns x splits of the rows, the CTA's rows folded
// through one smem store a thread, and each split's [2, 256] partial marked for a workspace slot
// of its own (split_k_store, mode slots); the last split of a strip marks split_k_wait.  The
// scheduler writes no barrier, fence, wait or semaphore access: fuser-tma-reduce-store writes the
// slots' TMA stores and the release, the sync passes the barriers, the proxy fence before the TMA
// store and the `wait_group 0` without .read before the release.  The heuristic's split count
// assumes 4 CTAs an SM (its register estimate), which the kernel asks ptxas for (.minnctapersm).
// RUN: fuser-opt %s -p fuser-schedule | FileCheck %s --check-prefix=KERNEL
// RUN: fuser-opt %s -p fuser-schedule -p fuser-tma-reduce-store -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-verify-syncs | FileCheck %s --check-prefix=SYNCED
// RUN: fuser-opt %s --emit=ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %ptxas %t.ptx -o %t.cubin

// KERNEL-LABEL: gpu.func @colstats(
// KERNEL-SAME: kernel attributes {gpu.known_block_size = array<i32: 256, 1, 1>, nvvm.minctasm = 4 : i32}
// KERNEL-NOT: nvasync.sync_threads
// KERNEL: scf.for
// KERNEL: arith.maximumf
// KERNEL: "nvasync.split_k_wait"(%{{.*}}, %{{.*}}) {splits = 8 : i32}
// KERNEL: vector.store %{{.*}} : memref<4x512xf32, #gpu.address_space<workgroup>>, vector<8xf32>
// KERNEL-COUNT-2: "nvasync.split_k_store"{{.*}}mode = "slots"
// KERNEL-NOT: nvasync.sync_threads
// KERNEL: gpu.return

// SYNCED-LABEL: gpu.func @colstats(
// SYNCED: "nvasync.wait_flag"(%{{.*}}, %{{.*}}) {for_group = true, fuser.split_k = "wait"}
// SYNCED: "nvasync.reset_flag"(%{{.*}}) {fuser.split_k = "wait"}
// SYNCED: "nvasync.sync_threads"() {fuser.derived = "acquire -> the group's later accesses: nvasync.wait_flag"}
// SYNCED: "nvasync.sync_threads"() {fuser.derived = "WAR: memref.load -> vector.store"}
// SYNCED-NEXT: vector.store
// SYNCED-NOT: "nvasync.bulk_wait"
// SYNCED: "nvasync.sync_threads"() {fuser.derived = "RAW: vector.store -> memref.load"}
// SYNCED: "nvasync.sync_threads"() {fuser.derived = "RAW: memref.store -> vector.load"}
// SYNCED: "nvasync.fence_proxy_async"() {fuser.derived = "generic writes -> async proxy: memref.store -> nvasync.tma_store", space = "shared::cta"}
// SYNCED-NEXT: "nvasync.sync_threads"() {fuser.derived = "RAW: memref.store -> nvasync.tma_store"}
// SYNCED-COUNT-2: "nvasync.tma_store"{{.*}}fuser.split_k = "slots"
// SYNCED-NEXT: "nvasync.bulk_commit"
// SYNCED: "nvasync.bulk_wait"() {fuser.derived = "global writes of nvasync.tma_store complete before nvasync.release_flag", pending = 0 : i32, read = false}
// SYNCED-NEXT: "nvasync.release_flag"{{.*}}fuser.split_k = "slots"
// SYNCED-NOT: nvasync.sync_threads
// SYNCED: gpu.return

// PTX: .minnctapersm 4
// PTX: ld.acquire.gpu.global.b32
// PTX: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// PTX: cp.async.bulk.wait_group{{[[:space:]]+}}0;
// PTX: red.release.gpu.global.add.s32
func.func @colstats(%x: tensor<?x4096xf32>) -> (tensor<4096xf32>, tensor<1x4096xf32>) attributes {fusion.fusion, fusion.schedule = {scheduler = "outer_reduction", splits = 8}} {
  %s = "fusion.reduce"(%x) {kind = "sum", axes = array<i64: 0>, keepdim = false} : (tensor<?x4096xf32>) -> tensor<4096xf32>
  %m = "fusion.reduce"(%x) {kind = "max", axes = array<i64: 0>, keepdim = true} : (tensor<?x4096xf32>) -> tensor<1x4096xf32>
  return %s, %m : tensor<4096xf32>, tensor<1x4096xf32>
}
