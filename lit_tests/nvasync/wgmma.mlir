// nvasync.wgmma lowers to nvvm.wgmma.mma_async (m64nNk16, f32 accumulator, A row / B col =
// both K-major) and then to wgmma.mma_async.sync.aligned.m64nNk16.f32.{bf16|f16}.{bf16|f16}.
// Rules checked:
//   * N comes from B's shape (64 for the bf16 kernel, 32 for the f16 kernel), the element type
//     from A/B, the accumulator is N/2 f32 registers;
//   * accumulate = false gives scale-d zero (PTX predicate p = 0 != 0, false), accumulate = true
//     gives scale-d one (p = 1 != 0, true);
//   * the smem descriptor is ((start address & 0x3ffff) >> 4) | 1 << 16 (LBO, unused by swizzled
//     K-major layouts) | (8 * swizzle >> 4) << 32 (SBO: 8 rows of `swizzle` bytes) | mode << 62
//     (1: 128-B, 2: 64-B, 3: 32-B swizzle):
//       128-B swizzle: 0x4000004000010000 = 4611686293305360384,
//        64-B swizzle: 0x8000002000010000 = -9223371899415756800 (as a signed i64),
//        32-B swizzle: 0xc000001000010000 = -4611685949707845632;
//   * the k-th 16-column slice of a 128-B swizzled 64-wide tile (memref.subview %t[0, 16k]) starts
//     32k bytes into the tile: the descriptor's start address moves by 32k (k = 1, 2, 3: +32, +64,
//     +96 bytes) and nothing else changes (the hardware swizzles the final address); a slice of
//     B's rows [64, 128) starts 64 rows = 8192 bytes into its tile.
// RUN: fuser-opt %s -p fuser-lower-nvasync -p canonicalize -p cse | FileCheck %s --check-prefix=NVVM
// RUN: fuser-opt %s --emit=ptx -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx && %ptxas %t.ptx -o %t.cubin

// NVVM-NOT: nvasync.
// NVVM-LABEL: gpu.func @k_steps_bf16(
// NVVM-DAG: %[[MASK:.*]] = arith.constant 262143 : i64
// NVVM-DAG: %[[C4:.*]] = arith.constant 4 : i64
// NVVM-DAG: %[[SW128:.*]] = arith.constant 4611686293305360384 : i64
// NVVM-DAG: %[[C32:.*]] = arith.constant 32 : index
// NVVM-DAG: %[[C64:.*]] = arith.constant 64 : index
// NVVM-DAG: %[[C96:.*]] = arith.constant 96 : index
// NVVM-DAG: %[[C8288:.*]] = arith.constant 8288 : index
// k = 0: A and B descriptors from the tiles' own addresses.
// NVVM: %[[A0P:.*]] = memref.extract_aligned_pointer_as_index
// NVVM-NEXT: %[[A0I:.*]] = arith.index_cast %[[A0P]] : index to i64
// NVVM-NEXT: %[[A0T:.*]] = llvm.inttoptr %[[A0I]]
// NVVM-NEXT: %[[A0A:.*]] = llvm.ptrtoint %[[A0T]]
// NVVM-NEXT: %[[A0M:.*]] = arith.andi %[[A0A]], %[[MASK]] : i64
// NVVM-NEXT: %[[A0S:.*]] = arith.shrui %[[A0M]], %[[C4]] : i64
// NVVM-NEXT: %[[A0D:.*]] = arith.ori %[[A0S]], %[[SW128]] : i64
// NVVM: %[[B0D:.*]] = arith.ori %{{.*}}, %[[SW128]] : i64
// NVVM-NEXT: nvvm.wgmma.mma_async %[[A0D]], %[[B0D]], %{{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <zero>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>] : !llvm.struct<([[ACC32:f32(, f32){31}]])> -> !llvm.struct<([[ACC32]])>
// k = 1, 2, 3: the start address moves by 32, 64, 96 bytes, in A and in B.
// NVVM: %[[A1P:.*]] = memref.extract_aligned_pointer_as_index
// NVVM-NEXT: arith.addi %[[A1P]], %[[C32]] : index
// NVVM: arith.ori %{{.*}}, %[[SW128]] : i64
// NVVM: %[[B1P:.*]] = memref.extract_aligned_pointer_as_index
// NVVM-NEXT: arith.addi %[[B1P]], %[[C32]] : index
// NVVM: arith.ori %{{.*}}, %[[SW128]] : i64
// NVVM-NEXT: nvvm.wgmma.mma_async {{.*}} D[<f32>, <one>], A[<bf16>, <one>, <row>]
// NVVM: %[[A2P:.*]] = memref.extract_aligned_pointer_as_index
// NVVM-NEXT: arith.addi %[[A2P]], %[[C64]] : index
// NVVM: %[[B2P:.*]] = memref.extract_aligned_pointer_as_index
// NVVM-NEXT: arith.addi %[[B2P]], %[[C64]] : index
// NVVM: nvvm.wgmma.mma_async {{.*}} D[<f32>, <one>], A[<bf16>, <one>, <row>]
// NVVM: %[[A3P:.*]] = memref.extract_aligned_pointer_as_index
// NVVM-NEXT: arith.addi %[[A3P]], %[[C96]] : index
// NVVM: %[[B3P:.*]] = memref.extract_aligned_pointer_as_index
// NVVM-NEXT: arith.addi %[[B3P]], %[[C96]] : index
// NVVM: nvvm.wgmma.mma_async {{.*}} D[<f32>, <one>], A[<bf16>, <one>, <row>]
// B rows [64, 128) at k = 3: 64 rows x 128 bytes + 96 bytes.
// NVVM: %[[B4P:.*]] = memref.extract_aligned_pointer_as_index
// NVVM-NEXT: arith.addi %[[B4P]], %[[C8288]] : index
// NVVM: nvvm.wgmma.mma_async {{.*}} D[<f32>, <one>], A[<bf16>, <one>, <row>]
// NVVM-LABEL: gpu.func @swizzles_f16(
// NVVM-DAG: arith.constant -9223371899415756800 : i64
// NVVM-DAG: arith.constant -4611685949707845632 : i64
// NVVM: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %{{.*}}, <m = 64, n = 32, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>] : !llvm.struct<(f32{{(, f32){15}[)]}}> -> !llvm.struct<(f32{{(, f32){15}[)]}}>
// NVVM: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %{{.*}}, <m = 64, n = 32, k = 16>
// NVVM-NOT: nvasync.

// PTX: .visible .entry k_steps_bf16(
// PTX: setp.ne.b32 p, 0, 0;
// PTX-NEXT: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{[{](%r[0-9]+, ){31}%r[0-9]+[}]}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 0;
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// PTX: .visible .entry swizzles_f16(
// PTX: setp.ne.b32 p, 1, 0;
// PTX-NEXT: wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {{[{](%r[0-9]+, ){15}%r[0-9]+[}]}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 0;

!ta = memref<64x64xbf16, #gpu.address_space<workgroup>>
!tb = memref<128x64xbf16, #gpu.address_space<workgroup>>
!a0 = memref<64x16xbf16, strided<[64, 1]>, #gpu.address_space<workgroup>>
!a1 = memref<64x16xbf16, strided<[64, 1], offset: 16>, #gpu.address_space<workgroup>>
!a2 = memref<64x16xbf16, strided<[64, 1], offset: 32>, #gpu.address_space<workgroup>>
!a3 = memref<64x16xbf16, strided<[64, 1], offset: 48>, #gpu.address_space<workgroup>>
!b4 = memref<64x16xbf16, strided<[64, 1], offset: 4144>, #gpu.address_space<workgroup>>
!h64 = memref<64x32xf16, #gpu.address_space<workgroup>>
!h64s = memref<64x16xf16, strided<[32, 1], offset: 16>, #gpu.address_space<workgroup>>
!hb64 = memref<32x32xf16, #gpu.address_space<workgroup>>
!hb64s = memref<32x16xf16, strided<[32, 1], offset: 16>, #gpu.address_space<workgroup>>
!h32 = memref<64x16xf16, #gpu.address_space<workgroup>>
!hb32 = memref<32x16xf16, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k_steps_bf16(%out: memref<128x32xf32>) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %a = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !ta
    %b = "nvasync.smem_buffer"() {offset = 8192 : i64} : () -> !tb
    %a0 = memref.subview %a[0, 0] [64, 16] [1, 1] : !ta to !a0
    %a1 = memref.subview %a[0, 16] [64, 16] [1, 1] : !ta to !a1
    %a2 = memref.subview %a[0, 32] [64, 16] [1, 1] : !ta to !a2
    %a3 = memref.subview %a[0, 48] [64, 16] [1, 1] : !ta to !a3
    %b0 = memref.subview %b[0, 0] [64, 16] [1, 1] : !tb to !a0
    %b1 = memref.subview %b[0, 16] [64, 16] [1, 1] : !tb to !a1
    %b2 = memref.subview %b[0, 32] [64, 16] [1, 1] : !tb to !a2
    %b3 = memref.subview %b[0, 48] [64, 16] [1, 1] : !tb to !a3
    %b4 = memref.subview %b[64, 48] [64, 16] [1, 1] : !tb to !b4
    %z = arith.constant dense<0.0> : vector<32xf32>
    "nvasync.wgmma_fence"() : () -> ()
    %r0 = "nvasync.wgmma"(%a0, %b0, %z) {swizzle = 128 : i32, accumulate = false} : (!a0, !a0, vector<32xf32>) -> vector<32xf32>
    %r1 = "nvasync.wgmma"(%a1, %b1, %r0) {swizzle = 128 : i32, accumulate = true} : (!a1, !a1, vector<32xf32>) -> vector<32xf32>
    %r2 = "nvasync.wgmma"(%a2, %b2, %r1) {swizzle = 128 : i32, accumulate = true} : (!a2, !a2, vector<32xf32>) -> vector<32xf32>
    %r3 = "nvasync.wgmma"(%a3, %b3, %r2) {swizzle = 128 : i32, accumulate = true} : (!a3, !a3, vector<32xf32>) -> vector<32xf32>
    %r4 = "nvasync.wgmma"(%a3, %b4, %r3) {swizzle = 128 : i32, accumulate = true} : (!a3, !b4, vector<32xf32>) -> vector<32xf32>
    "nvasync.wgmma_commit"() : () -> ()
    "nvasync.wgmma_wait"() {pending = 0 : i32} : () -> ()
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    vector.store %r4, %out[%tid, %c0] : memref<128x32xf32>, vector<32xf32>
    gpu.return
  }
  gpu.func @swizzles_f16(%out: memref<128x16xf32>) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %a = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !h64
    %b = "nvasync.smem_buffer"() {offset = 4096 : i64} : () -> !hb64
    %a32 = "nvasync.smem_buffer"() {offset = 6144 : i64} : () -> !h32
    %b32 = "nvasync.smem_buffer"() {offset = 8192 : i64} : () -> !hb32
    %a1 = memref.subview %a[0, 16] [64, 16] [1, 1] : !h64 to !h64s
    %b1 = memref.subview %b[0, 16] [32, 16] [1, 1] : !hb64 to !hb64s
    %z = arith.constant dense<1.0> : vector<16xf32>
    "nvasync.wgmma_fence"() : () -> ()
    %r = "nvasync.wgmma"(%a1, %b1, %z) {swizzle = 64 : i32, accumulate = true} : (!h64s, !hb64s, vector<16xf32>) -> vector<16xf32>
    %s = "nvasync.wgmma"(%a32, %b32, %r) {swizzle = 32 : i32, accumulate = true} : (!h32, !hb32, vector<16xf32>) -> vector<16xf32>
    "nvasync.wgmma_commit"() : () -> ()
    "nvasync.wgmma_wait"() {pending = 0 : i32} : () -> ()
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    vector.store %s, %out[%tid, %c0] : memref<128x16xf32>, vector<16xf32>
    gpu.return
  }
}
}
