// A row of 32768 bf16 elements takes one CTA of 512 threads, 8 units of 8 a thread.  The
// heuristic holds the row in shared memory (a buffer per unit, indexed by the thread) so ptxas fits
// the kernel in 64 registers, two CTAs an SM; the weight is loaded 2 units ahead of the stores, and
// the row streams past the L1 (two CTAs' rows, their loads in flight and the weight exceed the
// SM's 256 KB), which keeps the L1 for the weight.  Each thread reads back only what it stored, so
// fuser-insert-syncs derives no barrier for the row: the one barrier is the fold's.
// RUN: fuser-opt %s -p fuser-schedule | FileCheck %s --check-prefix=KERNEL
// RUN: fuser-opt %s -p fuser-schedule -p fuser-insert-syncs -p fuser-verify-syncs | FileCheck %s --check-prefix=SYNCED
// RUN: fuser-opt %s --emit=ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %ptxas %t.ptx -o %t.cubin

// KERNEL-LABEL: gpu.func @scaled_rows(
// KERNEL-SAME: gpu.known_block_size = array<i32: 512, 1, 1>
// KERNEL-COUNT-8: vector.store %{{.*}}, %{{.*}}[%[[AT:.*]]] : memref<4096xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// KERNEL-COUNT-8: vector.load %{{.*}}[%[[AT]]] : memref<4096xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// KERNEL: "nvasync.smem_buffer"() {offset = 65536 : i64} : () -> memref<16xf32, #gpu.address_space<workgroup>>
// KERNEL-COUNT-8: vector.load %{{.*}}[%[[AT]]] : memref<4096xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// KERNEL-NOT: vector.load
// KERNEL: gpu.return

// SYNCED-LABEL: gpu.func @scaled_rows(
// SYNCED-NOT: nvasync.sync_threads
// SYNCED: "nvasync.sync_threads"() {fuser.derived = "RAW: memref.store -> memref.load"}
// SYNCED-NOT: nvasync.sync_threads
// SYNCED: gpu.return

// PTX: .minnctapersm 2
// PTX-COUNT-8: ld.global.L1::no_allocate.v4.b32
// PTX-COUNT-8: st.shared.v4.b32
// PTX: bar.sync 0;
// PTX-NOT: bar.sync
// PTX: ret;
func.func @scaled_rows(%x: tensor<?x32768xbf16>, %w: tensor<32768xbf16>) -> tensor<?x32768xbf16> attributes {fusion.fusion} {
  %s = "fusion.reduce"(%x) {kind = "sum", axes = array<i64: 1>, keepdim = true} : (tensor<?x32768xbf16>) -> tensor<?x1xbf16>
  %sb = "fusion.broadcast"(%s) {dims = array<i64: 0, 1>} : (tensor<?x1xbf16>) -> tensor<?x32768xbf16>
  %wb = "fusion.broadcast"(%w) {dims = array<i64: 1>} : (tensor<32768xbf16>) -> tensor<?x32768xbf16>
  %d = "fusion.binary"(%x, %sb) {kind = "div"} : (tensor<?x32768xbf16>, tensor<?x32768xbf16>) -> tensor<?x32768xbf16>
  %y = "fusion.binary"(%d, %wb) {kind = "mul"} : (tensor<?x32768xbf16>, tensor<?x32768xbf16>) -> tensor<?x32768xbf16>
  return %y : tensor<?x32768xbf16>
}
