// A kernel written in upstream dialects with gpu.func's `known_block_size`: convert-gpu-to-nvvm
// turns it into `.maxntid`, fuser-kernel-abi into `.reqntid` + `.minnctapersm` (the register cap
// setmaxnreg needs).  ptxas rejects `.maxntid` next to `.reqntid`, so only `.reqntid` may remain;
// ptxas assembles the PTX and, seeing the cap, does not ignore setmaxnreg (no warning at all).
// RUN: fuser-opt %s --emit=ptx -o %t.ptx
// RUN: FileCheck %s --implicit-check-not=.maxntid < %t.ptx
// RUN: %ptxas %t.ptx -o %t.cubin 2>&1 | count 0

// CHECK: .visible .entry k(
// CHECK: .reqntid 256, 1, 1
// CHECK-NEXT: .minnctapersm 1
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%p: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    nvvm.setmaxregister increase 232
    %t = gpu.thread_id x
    %v = memref.load %p[%t] : memref<256xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %p[%t] : memref<256xf32>
    gpu.return
  }
}
}
