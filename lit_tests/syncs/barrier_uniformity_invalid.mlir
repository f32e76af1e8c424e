// Rule (fuser-verify-syncs, barriers name the threads that reach them): `sync_threads` (bar.sync 0)
// waits for every thread of the CTA: never under a condition that is not block-uniform (a thread
// index test, an elect_one, loaded data, a loop -- scf.for or scf.while -- whose trip count differs
// between threads) nor in a warp role.  A `named_barrier` must be reached by whole warps and count
// exactly their threads; one id stands for one set of warps.  Uniform: constants, kernel
// arguments, block ids, IVs of loops with uniform bounds (@uniform_is_fine).  A `cluster_sync`
// waits for every thread of every CTA of the cluster: reached by every thread and only in the
// kernel's top-level block (uniformity over a cluster is not modelled).
// RUN: fuser-opt %s -p fuser-verify-syncs --split-input-file --verify-diagnostics

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @sync_threads_under_tid_test() kernel attributes {gpu.known_block_size = array<i32: 256, 1, 1>} {
    %c128 = arith.constant 128 : index
    %tid = gpu.thread_id x
    %lo = arith.cmpi ult, %tid, %c128 : index
    scf.if %lo {
      // expected-error @below {{barrier not reached by exactly the threads it names: 'nvasync.sync_threads' (bar.sync 0) waits for every thread of the CTA, but only warps [0, 4) reach it (a condition or warp role that is not block-uniform): a hang}}
      "nvasync.sync_threads"() : () -> ()
    }
    gpu.return
  }
}
}

// -----

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @named_barrier_wrong_count() kernel attributes {gpu.known_block_size = array<i32: 256, 1, 1>} {
    %c128 = arith.constant 128 : index
    %tid = gpu.thread_id x
    %lo = arith.cmpi ult, %tid, %c128 : index
    scf.if %lo {
      // expected-error @below {{named barrier 1 counts 256 threads but 128 reach it (warps [0, 4))}}
      "nvasync.named_barrier"() {id = 1 : i32, threads = 256 : i32} : () -> ()
    }
    gpu.return
  }
}
}

// -----

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @named_barrier_in_role_wrong_count() kernel attributes {gpu.known_block_size = array<i32: 384, 1, 1>} {
    "nvasync.warp_role"() ({
      // expected-error @below {{named barrier 2 counts 128 threads but 256 reach it (warps [4, 12))}}
      "nvasync.named_barrier"() {id = 2 : i32, threads = 128 : i32} : () -> ()
      gpu.yield
    }) {first_warp = 4 : i32, num_warps = 8 : i32} : () -> ()
    gpu.return
  }
}
}

// -----

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @named_barrier_not_whole_warps() kernel attributes {gpu.known_block_size = array<i32: 256, 1, 1>} {
    %c100 = arith.constant 100 : index
    %tid = gpu.thread_id x
    %few = arith.cmpi ult, %tid, %c100 : index
    scf.if %few {
      // expected-error @below {{named barrier 1 is reached by a subset of all threads, which is not a set of whole warps}}
      "nvasync.named_barrier"() {id = 1 : i32, threads = 128 : i32} : () -> ()
    }
    gpu.return
  }
}
}

// -----

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @sync_threads_in_role() kernel attributes {gpu.known_block_size = array<i32: 256, 1, 1>} {
    "nvasync.warp_role"() ({
      // expected-error @below {{but only warps [4, 8) reach it}}
      "nvasync.sync_threads"() : () -> ()
      gpu.yield
    }) {first_warp = 4 : i32, num_warps = 4 : i32} : () -> ()
    gpu.return
  }
}
}

// -----

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @sync_threads_under_elect() kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %e = "nvasync.elect_one"() : () -> i1
    scf.if %e {
      // expected-error @below {{but only the issuing thread of all threads reach it}}
      "nvasync.sync_threads"() : () -> ()
    }
    gpu.return
  }
}
}

// -----

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @sync_threads_under_loaded_flag(%flags: memref<128xi32>) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : i32
    %tid = gpu.thread_id x
    %f = memref.load %flags[%tid] : memref<128xi32>
    %set = arith.cmpi ne, %f, %c0 : i32
    scf.if %set {
      // expected-error @below {{but only a subset of all threads reach it}}
      "nvasync.sync_threads"() : () -> ()
    }
    gpu.return
  }
}
}

// -----

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @sync_threads_in_divergent_loop() kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %tid = gpu.thread_id x
    scf.for %i = %c0 to %tid step %c1 {
      // expected-error @below {{but only a subset of all threads reach it}}
      "nvasync.sync_threads"() : () -> ()
    }
    gpu.return
  }
}
}

// -----

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @sync_threads_under_loop_carried_tid() kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    %tid = gpu.thread_id x
    %last = scf.for %i = %c0 to %c4 step %c1 iter_args(%x = %c0) -> (index) {
      %y = arith.addi %x, %tid : index
      scf.yield %y : index
    }
    %big = arith.cmpi ugt, %last, %c64 : index
    scf.if %big {
      // expected-error @below {{but only a subset of all threads reach it}}
      "nvasync.sync_threads"() : () -> ()
    }
    gpu.return
  }
}
}

// -----

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @named_barrier_id_for_two_warp_sets() kernel attributes {gpu.known_block_size = array<i32: 256, 1, 1>} {
    "nvasync.warp_role"() ({
      "nvasync.named_barrier"() {id = 1 : i32, threads = 128 : i32} : () -> ()
      gpu.yield
    }) {first_warp = 0 : i32, num_warps = 4 : i32} : () -> ()
    "nvasync.warp_role"() ({
      // expected-error @below {{named barrier id 1 synchronizes warps [4, 8) here but warps [0, 4) at 'nvasync.named_barrier' at 170:7: one id must stand for one set of warps}}
      "nvasync.named_barrier"() {id = 1 : i32, threads = 128 : i32} : () -> ()
      gpu.yield
    }) {first_warp = 4 : i32, num_warps = 4 : i32} : () -> ()
    gpu.return
  }
}
}

// -----

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @named_barrier_block_size_unknown() kernel {
    // expected-error @below {{reached by every thread of a CTA whose size is unknown (no gpu.known_block_size)}}
    "nvasync.named_barrier"() {id = 1 : i32, threads = 128 : i32} : () -> ()
    gpu.return
  }
}
}

// -----

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @uniform_is_fine(%n: index, %m: i32) kernel attributes {gpu.known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    %bid = gpu.block_id x
    %grid = gpu.grid_dim x
    %tid = gpu.thread_id x
    %some_blocks = arith.cmpi ult, %bid, %n : index
    scf.if %some_blocks {
      scf.for %t = %bid to %n step %grid {
        %m_index = arith.index_cast %m : i32 to index
        %odd = arith.remui %t, %m_index : index
        %go = arith.cmpi eq, %odd, %c1 : index
        scf.if %go {
          "nvasync.sync_threads"() : () -> ()
        }
      }
    }
    %warp = arith.divui %tid, %c32 : index
    %upper = arith.cmpi uge, %warp, %c4 : index
    scf.if %upper {
      "nvasync.named_barrier"() {id = 3 : i32, threads = 128 : i32} : () -> ()
    } else {
      "nvasync.named_barrier"() {id = 4 : i32, threads = 128 : i32} : () -> ()
    }
    gpu.return
  }
}
}

// -----

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @sync_threads_in_divergent_while() kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %tid = gpu.thread_id x
    %r = scf.while (%i = %c0) : (index) -> index {
      %go = arith.cmpi ult, %i, %tid : index
      scf.condition(%go) %i : index
    } do {
    ^bb0(%j: index):
      // expected-error @below {{but only a subset of all threads reach it}}
      "nvasync.sync_threads"() : () -> ()
      %n = arith.addi %j, %c1 : index
      scf.yield %n : index
    }
    gpu.return
  }
}
}

// -----

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @cluster_sync_in_a_loop(%n: index) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>, nvvm.cluster_dim = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      // expected-error @below {{barrier not reached by exactly the threads it names: 'nvasync.cluster_sync' must stand in the kernel's top-level block}}
      "nvasync.cluster_sync"() : () -> ()
    }
    gpu.return
  }
}
}

// -----

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @cluster_sync_under_tid_test() kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>, nvvm.cluster_dim = array<i32: 2, 1, 1>} {
    %c64 = arith.constant 64 : index
    %tid = gpu.thread_id x
    %lo = arith.cmpi ult, %tid, %c64 : index
    scf.if %lo {
      // expected-error @below {{'nvasync.cluster_sync' waits for every thread of every CTA of the cluster, but only warps [0, 2) reach it: a hang}}
      "nvasync.cluster_sync"() : () -> ()
    }
    gpu.return
  }
}
}
