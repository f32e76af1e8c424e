// Rule (fuser-insert-syncs, a hazard no barrier can order): both ends of a cross-thread hazard
// sit in one branch on `tid < 100`, which splits warp 3.  Every point between them is inside the
// branch, where neither bar.sync 0 (every thread of the CTA) nor a named barrier (whole warps)
// names the threads that arrive -- either would hang -- and no point outside the branch separates
// them: the pass reports the hazard at its second access instead of emitting a hanging barrier.
// The same holds for the issuing thread's mbarrier init and its first use in one elect_one branch
// (the init needs a barrier before any use, and a barrier under the issue predicate hangs).
// RUN: fuser-opt %s -p fuser-insert-syncs --split-input-file --verify-diagnostics

!smem = memref<256xf32, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @not_whole_warps(%out: memref<256xf32>) kernel attributes {gpu.known_block_size = array<i32: 256, 1, 1>} {
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !smem
    %c99 = arith.constant 99 : index
    %c100 = arith.constant 100 : index
    %tid = gpu.thread_id x
    %few = arith.cmpi ult, %tid, %c100 : index
    scf.if %few {
      %v = memref.load %out[%tid] : memref<256xf32>
      memref.store %v, %buf[%tid] : !smem
      %rev = arith.subi %c99, %tid : index
      // expected-error @below {{no barrier can order the RAW hazard memref.store@21:7 -> memref.load@24:12: every point between them is reached only by a subset of all threads, and a barrier must name the threads reaching it}}
      %x = memref.load %buf[%rev] : !smem
      memref.store %x, %out[%tid] : memref<256xf32>
    }
    gpu.return
  }
}
}

// -----

!bars = memref<1xi64, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @init_and_use_in_one_branch() kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %bars = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !bars
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %tid = gpu.thread_id x
    %w0 = arith.cmpi ult, %tid, %c32 : index
    %el = "nvasync.elect_one"() : () -> i1
    %e = arith.andi %w0, %el : i1
    scf.if %e {
      "nvasync.mbarrier_init"(%bars, %c0) {count = 1 : i32} : (!bars, index) -> ()
      // expected-error @below {{no barrier can order the RAW hazard nvasync.mbarrier_init@46:7 -> nvasync.mbarrier_arrive@48:7: every point between them is reached only by the issuing thread of all threads}}
      "nvasync.mbarrier_arrive"(%bars, %c0) : (!bars, index) -> ()
    }
    gpu.return
  }
}
}
