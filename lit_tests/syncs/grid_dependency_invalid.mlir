// Rule (fuser-verify-syncs, the previous kernel in the stream): a kernel holding
// `grid_dependency_wait` is launched while the kernel before it may still run, so its one wait
// must sit in the kernel's top-level block (every thread runs it) and no op before it there may
// access global memory -- a load, a store, a TMA copy, in the op or in its regions.
// RUN: fuser-opt %s -p fuser-verify-syncs --split-input-file --verify-diagnostics

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @load_before_wait(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>) kernel attributes {gpu.known_block_size = array<i32: 32, 1, 1>} {
    %v = llvm.load %in : !llvm.ptr<1> -> f32
    // expected-error @below {{unsynchronized hazard: 'llvm.load' at 10:10 may access global memory before nvasync.grid_dependency_wait: the previous kernel in the stream may still be running}}
    "nvasync.grid_dependency_wait"() : () -> ()
    llvm.store %v, %out : f32, !llvm.ptr<1>
    gpu.return
  }
}
}

// -----

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @store_in_a_branch_before_wait(%out: !llvm.ptr<1>) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %c32 = arith.constant 32 : index
    %one = arith.constant 1.0 : f32
    %tid = gpu.thread_id x
    %lo = arith.cmpi ult, %tid, %c32 : index
    scf.if %lo {
      llvm.store %one, %out : f32, !llvm.ptr<1>
    }
    // expected-error @below {{'llvm.store' at 29:7 may access global memory before nvasync.grid_dependency_wait}}
    "nvasync.grid_dependency_wait"() : () -> ()
    gpu.return
  }
}
}

// -----

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @wait_in_a_branch(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>) kernel attributes {gpu.known_block_size = array<i32: 64, 1, 1>} {
    %c32 = arith.constant 32 : index
    %tid = gpu.thread_id x
    %lo = arith.cmpi ult, %tid, %c32 : index
    scf.if %lo {
      // expected-error @below {{a kernel launched as a programmatic dependent needs exactly one nvasync.grid_dependency_wait, in its top-level block: every thread waits}}
      "nvasync.grid_dependency_wait"() : () -> ()
    }
    %v = llvm.load %in : !llvm.ptr<1> -> f32
    llvm.store %v, %out : f32, !llvm.ptr<1>
    gpu.return
  }
}
}
