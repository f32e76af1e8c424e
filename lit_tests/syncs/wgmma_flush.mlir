// Rule (fuser-flush-wgmma): one wgmma.fence per group of consecutive wgmma, one commit after the
// group, and a single wait_group 0 before the first reader of the accumulators -- the second
// reader gets none.  Two independent mma chains read after both are issued share that flush.
// RUN: fuser-opt %s -p fuser-insert-syncs -p fuser-flush-wgmma | FileCheck %s
// RUN: fuser-opt %s -p fuser-insert-syncs -p fuser-flush-wgmma -p fuser-verify-syncs -o /dev/null

// CHECK-LABEL: gpu.func @two_chains
// CHECK: "nvasync.wgmma_fence"() {fuser.derived
// CHECK-NEXT: "nvasync.wgmma"
// CHECK-NEXT: "nvasync.wgmma"
// CHECK-NEXT: "nvasync.wgmma_commit"() {fuser.derived
// CHECK-NEXT: "nvasync.wgmma_wait"() {fuser.derived = "flush wgmma before reading the accumulator{{.*}}pending = 0
// CHECK-NEXT: vector.extract
// CHECK-NOT: nvasync.wgmma_wait
// CHECK: vector.extract
// CHECK-NOT: nvasync.wgmma_wait
// CHECK: gpu.return
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @two_chains(%out: memref<2xf32>) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %a = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> memref<64x16xbf16, #gpu.address_space<workgroup>>
    %b = "nvasync.smem_buffer"() {offset = 3072 : i64} : () -> memref<64x16xbf16, #gpu.address_space<workgroup>>
    %z = arith.constant dense<0.0> : vector<32xf32>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %r1 = "nvasync.wgmma"(%a, %b, %z) {swizzle = 32 : i32, accumulate = false} : (memref<64x16xbf16, #gpu.address_space<workgroup>>, memref<64x16xbf16, #gpu.address_space<workgroup>>, vector<32xf32>) -> vector<32xf32>
    %r2 = "nvasync.wgmma"(%b, %a, %z) {swizzle = 32 : i32, accumulate = false} : (memref<64x16xbf16, #gpu.address_space<workgroup>>, memref<64x16xbf16, #gpu.address_space<workgroup>>, vector<32xf32>) -> vector<32xf32>
    %x = vector.extract %r1[0] : f32 from vector<32xf32>
    memref.store %x, %out[%c0] : memref<2xf32>
    %y = vector.extract %r2[0] : f32 from vector<32xf32>
    memref.store %y, %out[%c1] : memref<2xf32>
    gpu.return
  }
}
}
