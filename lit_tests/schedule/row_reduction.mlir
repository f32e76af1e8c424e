// fuser-schedule turns a softmax fusion (two reductions of the rows, an output per element and
// one per row) into a row-reduction kernel: one CTA per row, each reduction folded by warp
// shuffles, then across the 8 warps through its own smem slot (lane w loads warp w's partial,
// five more shuffles).  The scheduler writes no
// barrier; fuser-insert-syncs derives one per slot, between the warps' stores and the loads.
// RUN: fuser-opt %s -p fuser-schedule | FileCheck %s --check-prefix=KERNEL
// RUN: fuser-opt %s -p fuser-schedule -p fuser-insert-syncs -p fuser-verify-syncs | FileCheck %s --check-prefix=SYNCED
// RUN: fuser-opt %s --emit=ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %ptxas %t.ptx -o %t.cubin

// KERNEL-LABEL: gpu.func @softmax(
// KERNEL-SAME: %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: i32) kernel attributes {gpu.known_block_size = array<i32: 256, 1, 1>}
// KERNEL-NOT: nvasync.sync_threads
// KERNEL-COUNT-5: gpu.shuffle  xor
// KERNEL: "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<8xf32, #gpu.address_space<workgroup>>
// KERNEL: memref.load
// KERNEL-COUNT-5: gpu.shuffle  xor
// KERNEL-NOT: nvasync.sync_threads
// KERNEL-COUNT-5: gpu.shuffle  xor
// KERNEL: "nvasync.smem_buffer"() {offset = 32 : i64} : () -> memref<8xf32, #gpu.address_space<workgroup>>
// KERNEL: memref.load
// KERNEL-COUNT-5: gpu.shuffle  xor
// KERNEL-NOT: gpu.shuffle
// KERNEL-NOT: nvasync.sync_threads
// KERNEL: gpu.return

// SYNCED-LABEL: gpu.func @softmax(
// SYNCED: arith.maximumf
// SYNCED: memref.store %{{.*}}, %[[MAX:.*]][%{{.*}}] : memref<8xf32
// SYNCED: "nvasync.sync_threads"() {fuser.derived = "RAW: memref.store -> memref.load"}
// SYNCED-NEXT: memref.load %[[MAX]][
// SYNCED: memref.store %{{.*}}, %[[SUM:.*]][%{{.*}}] : memref<8xf32
// SYNCED: "nvasync.sync_threads"() {fuser.derived = "RAW: memref.store -> memref.load"}
// SYNCED-NEXT: memref.load %[[SUM]][
// SYNCED-NOT: nvasync.sync_threads
// SYNCED: gpu.return

// PTX: shfl.sync.bfly.b32
// PTX: bar.sync 0;
// PTX: bar.sync 0;
// PTX-NOT: bar.sync
// PTX: ret;
func.func @softmax(%x: tensor<?x4096xf32>) -> (tensor<?x4096xf32>, tensor<?x1xf32>) attributes {fusion.fusion} {
  %m = "fusion.reduce"(%x) {kind = "max", axes = array<i64: 1>, keepdim = true} : (tensor<?x4096xf32>) -> tensor<?x1xf32>
  %mb = "fusion.broadcast"(%m) {dims = array<i64: 0, 1>} : (tensor<?x1xf32>) -> tensor<?x4096xf32>
  %d = "fusion.binary"(%x, %mb) {kind = "sub"} : (tensor<?x4096xf32>, tensor<?x4096xf32>) -> tensor<?x4096xf32>
  %e = "fusion.unary"(%d) {kind = "exp"} : (tensor<?x4096xf32>) -> tensor<?x4096xf32>
  %s = "fusion.reduce"(%e) {kind = "sum", axes = array<i64: 1>, keepdim = true} : (tensor<?x4096xf32>) -> tensor<?x1xf32>
  %sb = "fusion.broadcast"(%s) {dims = array<i64: 0, 1>} : (tensor<?x1xf32>) -> tensor<?x4096xf32>
  %y = "fusion.binary"(%e, %sb) {kind = "div"} : (tensor<?x4096xf32>, tensor<?x4096xf32>) -> tensor<?x4096xf32>
  return %y, %s : tensor<?x4096xf32>, tensor<?x1xf32>
}
