// A kernel's block size must be a CUDA block (fuser-verify-dialects): the NVVM lowering takes it on
// trust -- a negative size aborted LLVM (an APInt assertion) in --emit=ptx -- and the sync passes
// enumerate its threads.  Either name gpu.func's size goes by is checked.
// RUN: fuser-opt %s --split-input-file --verify-diagnostics
// RUN: not fuser-opt %s --split-input-file --emit=ptx 2>&1 | FileCheck %s

// CHECK: error: 'gpu.func' op gpu.known_block_size [-1, 1, 1] is not a CUDA block
// CHECK: error: 'gpu.func' op known_block_size [0, 1, 1] is not a CUDA block
// CHECK: error: 'gpu.func' op gpu.known_block_size [32, 32, 2] is not a CUDA block
module attributes {gpu.container_module} {
gpu.module @kernels {
  // expected-error @below {{gpu.known_block_size [-1, 1, 1] is not a CUDA block: x and y in [1, 1024], z in [1, 64], at most 1024 threads}}
  gpu.func @negative(%p: memref<32xf32>) kernel attributes {gpu.known_block_size = array<i32: -1, 1, 1>} {
    %t = gpu.thread_id x
    %v = memref.load %p[%t] : memref<32xf32>
    memref.store %v, %p[%t] : memref<32xf32>
    gpu.return
  }
}
}

// -----

module attributes {gpu.container_module} {
gpu.module @kernels {
  // expected-error @below {{known_block_size [0, 1, 1] is not a CUDA block}}
  gpu.func @empty(%p: memref<32xf32>) kernel attributes {known_block_size = array<i32: 0, 1, 1>} {
    %t = gpu.thread_id x
    %v = memref.load %p[%t] : memref<32xf32>
    memref.store %v, %p[%t] : memref<32xf32>
    gpu.return
  }
}
}

// -----

module attributes {gpu.container_module} {
gpu.module @kernels {
  // expected-error @below {{gpu.known_block_size [32, 32, 2] is not a CUDA block}}
  gpu.func @too_many_threads(%p: memref<32xf32>) kernel attributes {gpu.known_block_size = array<i32: 32, 32, 2>} {
    %t = gpu.thread_id x
    %v = memref.load %p[%t] : memref<32xf32>
    memref.store %v, %p[%t] : memref<32xf32>
    gpu.return
  }
}
}
