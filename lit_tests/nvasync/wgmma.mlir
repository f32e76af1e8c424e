// nvasync.wgmma lowers to nvvm.wgmma.mma_async (m64nNk16, f32 accumulator, A row / B col =
// both K-major) and then to wgmma.mma_async.sync.aligned.m64nNk16.f32.{bf16|f16}.{bf16|f16}.
// Rules checked:
//   * N comes from B's shape (64 for the bf16 kernel, 32 for the f16 kernel), the element type
//     from A/B, the accumulator is N/2 f32 registers;
//   * accumulate = false gives scale-d zero (PTX predicate p = 0 != 0, false), accumulate = true
//     gives scale-d one (p = 1 != 0, true);
//   * swizzle 128 gives smem descriptors ((addr & 0x3ffff) >> 4) | 1 << 16 (LBO) | (1024 >> 4) << 32
//     (SBO = 8 rows of 128 B) | 1 << 62 (128-B swizzle), i.e. ... | 4611686293305360384.
// RUN: fuser-opt %s -p fuser-lower-nvasync | FileCheck %s --check-prefix=NVVM
// RUN: fuser-opt %s --emit=ptx -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx && %ptxas %t.ptx -o %t.cubin

// NVVM-NOT: nvasync.
// NVVM: gpu.func @k_bf16(
// NVVM: %[[MASK:.*]] = arith.constant 262143 : i64
// NVVM-NEXT: %[[AM:.*]] = arith.andi %{{.*}}, %[[MASK]] : i64
// NVVM-NEXT: %[[C4:.*]] = arith.constant 4 : i64
// NVVM-NEXT: %[[AS:.*]] = arith.shrui %[[AM]], %[[C4]] : i64
// NVVM-NEXT: %[[BITS:.*]] = arith.constant 4611686293305360384 : i64
// NVVM-NEXT: %[[ADESC:.*]] = arith.ori %[[AS]], %[[BITS]] : i64
// NVVM: %[[BDESC:.*]] = arith.ori %{{.*}}, %{{.*}} : i64
// NVVM-NEXT: nvvm.wgmma.mma_async %[[ADESC]], %[[BDESC]], %{{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <zero>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>] : !llvm.struct<([[ACC32:f32(, f32){31}]])> -> !llvm.struct<([[ACC32]])>
// NVVM: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %{{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>] : !llvm.struct<([[ACC32]])> -> !llvm.struct<([[ACC32]])>
// NVVM: gpu.func @k_f16(
// NVVM: arith.constant 4611686293305360384 : i64
// NVVM: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %{{.*}}, <m = 64, n = 32, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>] : !llvm.struct<(f32{{(, f32){15}[)]}}> -> !llvm.struct<(f32{{(, f32){15}[)]}}>
// NVVM-NOT: nvasync.

// PTX: .visible .entry k_bf16(
// PTX: setp.ne.b32 p, 0, 0;
// PTX-NEXT: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{[{](%r[0-9]+, ){31}%r[0-9]+[}]}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 0;
// PTX: setp.ne.b32 p, 1, 0;
// PTX-NEXT: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{[{](%r[0-9]+, ){31}%r[0-9]+[}]}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 0;
// PTX: .visible .entry k_f16(
// PTX: setp.ne.b32 p, 1, 0;
// PTX-NEXT: wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {{[{](%r[0-9]+, ){15}%r[0-9]+[}]}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 0;

!a = memref<64x16xbf16, #gpu.address_space<workgroup>>
!b = memref<64x16xbf16, #gpu.address_space<workgroup>>
!ah = memref<64x16xf16, #gpu.address_space<workgroup>>
!bh = memref<32x16xf16, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k_bf16(%out: memref<128x32xf32>) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %a = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !a
    %b = "nvasync.smem_buffer"() {offset = 2048 : i64} : () -> !b
    %z = arith.constant dense<0.0> : vector<32xf32>
    "nvasync.wgmma_fence"() : () -> ()
    %r0 = "nvasync.wgmma"(%a, %b, %z) {swizzle = 128 : i32, accumulate = false} : (!a, !b, vector<32xf32>) -> vector<32xf32>
    %r1 = "nvasync.wgmma"(%a, %b, %r0) {swizzle = 128 : i32, accumulate = true} : (!a, !b, vector<32xf32>) -> vector<32xf32>
    "nvasync.wgmma_commit"() : () -> ()
    "nvasync.wgmma_wait"() {pending = 0 : i32} : () -> ()
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    vector.store %r1, %out[%tid, %c0] : memref<128x32xf32>, vector<32xf32>
    gpu.return
  }
  gpu.func @k_f16(%out: memref<128x16xf32>) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %a = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !ah
    %b = "nvasync.smem_buffer"() {offset = 3072 : i64} : () -> !bh
    %z = arith.constant dense<1.0> : vector<16xf32>
    "nvasync.wgmma_fence"() : () -> ()
    %r = "nvasync.wgmma"(%a, %b, %z) {swizzle = 128 : i32, accumulate = true} : (!ah, !bh, vector<16xf32>) -> vector<16xf32>
    "nvasync.wgmma_commit"() : () -> ()
    "nvasync.wgmma_wait"() {pending = 0 : i32} : () -> ()
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    vector.store %r, %out[%tid, %c0] : memref<128x16xf32>, vector<16xf32>
    gpu.return
  }
}
}
