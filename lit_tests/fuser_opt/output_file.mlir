// -o FILE writes the output (MLIR, LLVM-dialect IR or PTX) to FILE instead of stdout; stdout
// stays empty.  Without -o (or with -o -) the output goes to stdout.
// RUN: rm -f %t.mlir %t.ptx
// RUN: fuser-opt %s -p fuser-lower-nvasync -o %t.mlir | count 0
// RUN: FileCheck %s --check-prefix=MLIR < %t.mlir
// RUN: fuser-opt %s --emit=ptx -o %t.ptx | count 0
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %ptxas %t.ptx -o %t.cubin
// RUN: fuser-opt %s -o - | FileCheck %s --check-prefix=STDOUT

// MLIR: gpu.func @k
// MLIR: nvvm.wgmma.fence.aligned
// PTX: .visible .entry k(
// PTX: wgmma.fence.sync.aligned;
// STDOUT: "nvasync.wgmma_fence"

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k() kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    "nvasync.wgmma_fence"() : () -> ()
    gpu.return
  }
}
}
