// nvasync.wgmma with an N-major B (a rank-3 view: wgmma's transposed B, for b given [K, N]):
// the tile is N/64 column boxes of [64 k rows, 64 n] (128-byte rows, as TMA boxes of a [K, N]
// matrix with 128-byte swizzle lay them out), one after another.
// Rules checked:
//   * N = boxes x 64 (here 2 x 64 = 128), B's layout <row> (imm-trans-b = 1 in PTX), A's <row>;
//   * the B descriptor's leading byte offset is the box size (64 rows x 128 B = 8192 B, >> 4 =
//     512 at bits 16-29), its stride byte offset one 8-row atom (1024 B, >> 4 = 64 at bits
//     32-45), 128-byte swizzle (mode 1 at bits 62-63):
//     1 << 62 | 64 << 32 | 512 << 16 = 0x4000004002000000 = 4611686293338849280;
//   * the k-th 16-row slice (memref.subview %t[0, 16k, 0]) starts 16k rows = 2048k bytes in.
// (Misshapen N-major operands: wgmma_invalid.mlir.)
// RUN: fuser-opt %s -p fuser-lower-nvasync -p canonicalize -p cse | FileCheck %s --check-prefix=NVVM
// RUN: fuser-opt %s --emit=ptx -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx && %ptxas %t.ptx -o %t.cubin

// NVVM-LABEL: gpu.func @n_major_b(
// NVVM-DAG: %[[SW128:.*]] = arith.constant 4611686293305360384 : i64
// NVVM-DAG: %[[NMAJOR:.*]] = arith.constant 4611686293338849280 : i64
// NVVM-DAG: %[[C2048:.*]] = arith.constant 2048 : index
// NVVM: %[[A0D:.*]] = arith.ori %{{.*}}, %[[SW128]] : i64
// NVVM: %[[B0D:.*]] = arith.ori %{{.*}}, %[[NMAJOR]] : i64
// NVVM-NEXT: nvvm.wgmma.mma_async %[[A0D]], %[[B0D]], %{{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <zero>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
// NVVM: arith.addi %{{.*}}, %[[C2048]] : index
// NVVM: arith.ori %{{.*}}, %[[NMAJOR]] : i64
// NVVM-NEXT: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]

// PTX: .visible .entry n_major_b(
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{[{](%r[0-9]+, ){63}%r[0-9]+[}]}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 1;
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 0, 1;

!ta = memref<64x64xbf16, #gpu.address_space<workgroup>>
!tb = memref<2x64x64xbf16, #gpu.address_space<workgroup>>
!a0 = memref<64x16xbf16, strided<[64, 1]>, #gpu.address_space<workgroup>>
!a1 = memref<64x16xbf16, strided<[64, 1], offset: 16>, #gpu.address_space<workgroup>>
!b0 = memref<2x16x64xbf16, strided<[4096, 64, 1]>, #gpu.address_space<workgroup>>
!b1 = memref<2x16x64xbf16, strided<[4096, 64, 1], offset: 1024>, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @n_major_b(%out: memref<128x64xf32>) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %a = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !ta
    %b = "nvasync.smem_buffer"() {offset = 8192 : i64} : () -> !tb
    %a0 = memref.subview %a[0, 0] [64, 16] [1, 1] : !ta to !a0
    %a1 = memref.subview %a[0, 16] [64, 16] [1, 1] : !ta to !a1
    %b0 = memref.subview %b[0, 0, 0] [2, 16, 64] [1, 1, 1] : !tb to !b0
    %b1 = memref.subview %b[0, 16, 0] [2, 16, 64] [1, 1, 1] : !tb to !b1
    %z = arith.constant dense<0.0> : vector<64xf32>
    "nvasync.wgmma_fence"() : () -> ()
    %r0 = "nvasync.wgmma"(%a0, %b0, %z) {swizzle = 128 : i32, accumulate = false} : (!a0, !b0, vector<64xf32>) -> vector<64xf32>
    %r1 = "nvasync.wgmma"(%a1, %b1, %r0) {swizzle = 128 : i32, accumulate = true} : (!a1, !b1, vector<64xf32>) -> vector<64xf32>
    "nvasync.wgmma_commit"() : () -> ()
    "nvasync.wgmma_wait"() {pending = 0 : i32} : () -> ()
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    vector.store %r1, %out[%tid, %c0] : memref<128x64xf32>, vector<64xf32>
    gpu.return
  }
}
}
