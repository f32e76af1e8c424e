// A kernel in upstream's NVGPU dialect, written the way MLIR's sm90 integration tests write them:
// a gpu.launch whose body loads a tile by TMA (`nvgpu.tma.async.load` on a host-built
// `!nvgpu.tensormap.descriptor`) completing on an `nvgpu.mbarrier.group`.  The lowering runs
// convert-nvgpu-to-nvvm before it outlines the launch (upstream's gpu-lower-to-nvvm-pipeline
// order: the descriptor must already be an !llvm.ptr when it becomes a kernel argument), so
// --emit=ptx and --emit=llvm take it with no extra passes, and ptxas assembles the PTX.
// RUN: fuser-opt %s --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas %t.ptx -o %t.cubin
// RUN: fuser-opt %s --emit=llvm | FileCheck %s --check-prefix=LLVM

// CHECK: .visible .entry tma_tile_kernel(
// CHECK: .reqntid 64, 1, 1
// CHECK: .shared .align 8 .b8 __mbarrier[8];
// CHECK: .shared .align 128 .b8 tile[4096];
// CHECK: mbarrier.init.shared.b64 [__mbarrier],
// CHECK: prefetch.tensormap
// CHECK: bar.sync 0;
// CHECK: mbarrier.arrive.expect_tx.shared.b64 {{.*}}[__mbarrier]
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes {{.*}}[__mbarrier];
// CHECK: mbarrier.try_wait.parity.shared.b64

// The host side keeps its launch, now passing the descriptor as a pointer; the kernel is NVVM.
// LLVM: llvm.call @mgpuTensorMapEncodeTiledMemref
// LLVM: gpu.launch_func @tma_tile_kernel::@tma_tile_kernel
// LLVM: gpu.module @tma_tile_kernel [#nvvm.target<
// LLVM: llvm.func @tma_tile_kernel(
// LLVM-NOT: nvgpu.
// LLVM: nvvm.cp.async.bulk.tensor.shared.cluster.global

!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
!tile = memref<64x32xf16, #gpu.address_space<workgroup>>
!tensormap = !nvgpu.tensormap.descriptor<tensor = !tile, swizzle = none, l2promo = none, oob = zero, interleave = none>

memref.global "private" @tile : !tile {alignment = 128}

// Copies column 0 of each 64-row tile of `src` into `dst`: one block per tile, one row per thread.
func.func @tma_tile(%src: memref<128x32xf16>, %dst: memref<128x32xf16>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %unranked = memref.cast %src : memref<128x32xf16> to memref<*xf16>
  %desc = nvgpu.tma.create.descriptor %unranked box[%c64, %c32] : memref<*xf16> -> !tensormap
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %c0 = arith.constant 0 : index
    %tile_bytes = arith.constant 4096 : index
    %phase = arith.constant false
    %ticks = arith.constant 10000000 : index
    %bars = nvgpu.mbarrier.create -> !barriers
    %smem = memref.get_global @tile : !tile
    %row0 = arith.muli %bx, %c64 : index
    %leader = arith.cmpi eq, %tx, %c0 : index
    scf.if %leader {
      nvgpu.mbarrier.init %bars[%c0], %c1 : !barriers
      nvgpu.tma.prefetch.descriptor %desc : !tensormap
    }
    gpu.barrier
    scf.if %leader {
      nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %tile_bytes : !barriers
      // TMA coordinates are innermost first: column 0, row row0.
      nvgpu.tma.async.load %desc[%c0, %row0], %bars[%c0] to %smem : !tensormap, !barriers -> !tile
    }
    nvgpu.mbarrier.try_wait.parity %bars[%c0], %phase, %ticks : !barriers
    %v = memref.load %smem[%tx, %c0] : !tile
    %row = arith.addi %row0, %tx : index
    memref.store %v, %dst[%row, %c0] : memref<128x32xf16>
    gpu.terminator
  }
  return
}
