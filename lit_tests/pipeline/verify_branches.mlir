// fuser-verify-pipelines through branches: a named barrier inside a branch that selects whole warps
// is a rendezvous of those warps only, and an integer an scf.if yields (a trip count chosen by a
// uniform condition) is the taken region's value; a uniform branch no trip count decides is explored
// both ways, each side with its own trip counts; one on a value computed from a trip count twice is
// decided by it.
// RUN: fuser-opt %s --split-input-file --verify-diagnostics -p fuser-verify-pipelines

// Warp 0 alone syncs on named barrier 1 (32 threads) between its waits: no error.
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%desc: !llvm.ptr, %n: index) kernel attributes {gpu.known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %c32 = arith.constant 32 : index
    %w0 = arith.cmpi ult, %tid, %c32 : index
    %e = "nvasync.elect_one"() : () -> i1
    %issuer = arith.andi %w0, %e : i1
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<32xf32, #gpu.address_space<workgroup>>
    %full = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> memref<1xi64, #gpu.address_space<workgroup>>
    scf.if %issuer {
      "nvasync.mbarrier_init"(%full, %c0) {count = 1 : i32} : (memref<1xi64, #gpu.address_space<workgroup>>, index) -> ()
    }
    "nvasync.sync_threads"() : () -> ()
    scf.for %i = %c0 to %n step %c1 {
      scf.if %issuer {
        "nvasync.mbarrier_arrive_expect_tx"(%full, %c0) {bytes = 128 : i32} : (memref<1xi64, #gpu.address_space<workgroup>>, index) -> ()
        "nvasync.tma_load"(%desc, %buf, %full, %c0, %c0_i32) : (!llvm.ptr, memref<32xf32, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>, index, i32) -> ()
      }
      %p = arith.index_cast %i : index to i32
      %parity = arith.andi %p, %c1_i32 : i32
      "nvasync.mbarrier_try_wait_parity"(%full, %c0, %parity) : (memref<1xi64, #gpu.address_space<workgroup>>, index, i32) -> ()
      scf.if %w0 {
        "nvasync.named_barrier"() {id = 1 : i32, threads = 32 : i32} : () -> ()
      }
      "nvasync.sync_threads"() : () -> ()
    }
    "nvasync.sync_threads"() : () -> ()
    scf.if %issuer {
      "nvasync.mbarrier_inval"(%full, %c0) : (memref<1xi64, #gpu.address_space<workgroup>>, index) -> ()
    }
    gpu.return
  }
}
}

// -----

// The same barrier, but warp 0 then waits for an arrival no thread makes: the deadlock is at the
// wait, not at the barrier (which warp 1 never reaches, and need not).
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k() kernel attributes {gpu.known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c0_i32 = arith.constant 0 : i32
    %tid = gpu.thread_id x
    %c32 = arith.constant 32 : index
    %w0 = arith.cmpi ult, %tid, %c32 : index
    %e = "nvasync.elect_one"() : () -> i1
    %issuer = arith.andi %w0, %e : i1
    %full = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> memref<1xi64, #gpu.address_space<workgroup>>
    scf.if %issuer {
      "nvasync.mbarrier_init"(%full, %c0) {count = 1 : i32} : (memref<1xi64, #gpu.address_space<workgroup>>, index) -> ()
    }
    "nvasync.sync_threads"() : () -> ()
    scf.if %w0 {
      "nvasync.named_barrier"() {id = 1 : i32, threads = 32 : i32} : () -> ()
      // expected-error @below {{deadlock}}
      "nvasync.mbarrier_try_wait_parity"(%full, %c0, %c0_i32) : (memref<1xi64, #gpu.address_space<workgroup>>, index, i32) -> ()
    }
    gpu.return
  }
}
}

// -----

// The trip count is an scf.if's result (n when n > 2, else 0): each trip count explored is the
// taken region's value, and the protocol is right for every one.
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%desc: !llvm.ptr, %n: index) kernel attributes {gpu.known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %c32 = arith.constant 32 : index
    %w0 = arith.cmpi ult, %tid, %c32 : index
    %e = "nvasync.elect_one"() : () -> i1
    %issuer = arith.andi %w0, %e : i1
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<32xf32, #gpu.address_space<workgroup>>
    %full = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> memref<1xi64, #gpu.address_space<workgroup>>
    %big = arith.cmpi ugt, %n, %c2 : index
    %trips = scf.if %big -> (index) {
      scf.yield %n : index
    } else {
      scf.yield %c0 : index
    }
    scf.if %issuer {
      "nvasync.mbarrier_init"(%full, %c0) {count = 1 : i32} : (memref<1xi64, #gpu.address_space<workgroup>>, index) -> ()
    }
    "nvasync.sync_threads"() : () -> ()
    scf.for %i = %c0 to %trips step %c1 {
      scf.if %issuer {
        "nvasync.mbarrier_arrive_expect_tx"(%full, %c0) {bytes = 128 : i32} : (memref<1xi64, #gpu.address_space<workgroup>>, index) -> ()
        "nvasync.tma_load"(%desc, %buf, %full, %c0, %c0_i32) : (!llvm.ptr, memref<32xf32, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>, index, i32) -> ()
      }
      %p = arith.index_cast %i : index to i32
      %parity = arith.andi %p, %c1_i32 : i32
      "nvasync.mbarrier_try_wait_parity"(%full, %c0, %parity) : (memref<1xi64, #gpu.address_space<workgroup>>, index, i32) -> ()
      "nvasync.sync_threads"() : () -> ()
    }
    "nvasync.sync_threads"() : () -> ()
    scf.if %issuer {
      "nvasync.mbarrier_inval"(%full, %c0) : (memref<1xi64, #gpu.address_space<workgroup>>, index) -> ()
    }
    gpu.return
  }
}
}

// -----

// As above with the parity stuck at 0: the second iteration re-observes the first phase, which only
// trip counts past 2 (the taken region's n) reach.
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%desc: !llvm.ptr, %n: index) kernel attributes {gpu.known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c0_i32 = arith.constant 0 : i32
    %tid = gpu.thread_id x
    %c32 = arith.constant 32 : index
    %w0 = arith.cmpi ult, %tid, %c32 : index
    %e = "nvasync.elect_one"() : () -> i1
    %issuer = arith.andi %w0, %e : i1
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<32xf32, #gpu.address_space<workgroup>>
    %full = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> memref<1xi64, #gpu.address_space<workgroup>>
    %big = arith.cmpi ugt, %n, %c2 : index
    %trips = scf.if %big -> (index) {
      scf.yield %n : index
    } else {
      scf.yield %c0 : index
    }
    scf.if %issuer {
      "nvasync.mbarrier_init"(%full, %c0) {count = 1 : i32} : (memref<1xi64, #gpu.address_space<workgroup>>, index) -> ()
    }
    "nvasync.sync_threads"() : () -> ()
    scf.for %i = %c0 to %trips step %c1 {
      scf.if %issuer {
        "nvasync.mbarrier_arrive_expect_tx"(%full, %c0) {bytes = 128 : i32} : (memref<1xi64, #gpu.address_space<workgroup>>, index) -> ()
        "nvasync.tma_load"(%desc, %buf, %full, %c0, %c0_i32) : (!llvm.ptr, memref<32xf32, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>, index, i32) -> ()
      }
      // expected-error @below {{trip count 3}}
      "nvasync.mbarrier_try_wait_parity"(%full, %c0, %c0_i32) : (memref<1xi64, #gpu.address_space<workgroup>>, index, i32) -> ()
      "nvasync.sync_threads"() : () -> ()
    }
    "nvasync.sync_threads"() : () -> ()
    scf.if %issuer {
      "nvasync.mbarrier_inval"(%full, %c0) : (memref<1xi64, #gpu.address_space<workgroup>>, index) -> ()
    }
    gpu.return
  }
}
}

// -----

// A uniform branch that no trip count decides (block 0 or not) is explored both ways, and each side's
// own trip count (n, m) with it: its protocol is right for every one.
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%desc: !llvm.ptr, %n: index, %m: index) kernel attributes {gpu.known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c32 = arith.constant 32 : index
    %w0 = arith.cmpi ult, %tid, %c32 : index
    %e = "nvasync.elect_one"() : () -> i1
    %issuer = arith.andi %w0, %e : i1
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<32xf32, #gpu.address_space<workgroup>>
    %full = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> memref<1xi64, #gpu.address_space<workgroup>>
    %first = arith.cmpi eq, %bid, %c0 : index
    scf.if %issuer {
      "nvasync.mbarrier_init"(%full, %c0) {count = 1 : i32} : (memref<1xi64, #gpu.address_space<workgroup>>, index) -> ()
    }
    "nvasync.sync_threads"() : () -> ()
    scf.if %first {
      scf.for %i = %c0 to %n step %c1 {
        scf.if %issuer {
          "nvasync.mbarrier_arrive_expect_tx"(%full, %c0) {bytes = 128 : i32} : (memref<1xi64, #gpu.address_space<workgroup>>, index) -> ()
          "nvasync.tma_load"(%desc, %buf, %full, %c0, %c0_i32) : (!llvm.ptr, memref<32xf32, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>, index, i32) -> ()
        }
        %p = arith.index_cast %i : index to i32
        %parity = arith.andi %p, %c1_i32 : i32
        "nvasync.mbarrier_try_wait_parity"(%full, %c0, %parity) : (memref<1xi64, #gpu.address_space<workgroup>>, index, i32) -> ()
        "nvasync.sync_threads"() : () -> ()
      }
    } else {
      scf.for %i = %c0 to %m step %c1 {
        scf.if %issuer {
          "nvasync.mbarrier_arrive_expect_tx"(%full, %c0) {bytes = 128 : i32} : (memref<1xi64, #gpu.address_space<workgroup>>, index) -> ()
          "nvasync.tma_load"(%desc, %buf, %full, %c0, %c0_i32) : (!llvm.ptr, memref<32xf32, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>, index, i32) -> ()
        }
        %p = arith.index_cast %i : index to i32
        %parity = arith.andi %p, %c1_i32 : i32
        "nvasync.mbarrier_try_wait_parity"(%full, %c0, %parity) : (memref<1xi64, #gpu.address_space<workgroup>>, index, i32) -> ()
        "nvasync.sync_threads"() : () -> ()
      }
    }
    "nvasync.sync_threads"() : () -> ()
    scf.if %issuer {
      "nvasync.mbarrier_inval"(%full, %c0) : (memref<1xi64, #gpu.address_space<workgroup>>, index) -> ()
    }
    gpu.return
  }
}
}

// -----

// As above with the else side's parity stuck at 0: found at its own trip count m = 2.
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%desc: !llvm.ptr, %n: index, %m: index) kernel attributes {gpu.known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c32 = arith.constant 32 : index
    %w0 = arith.cmpi ult, %tid, %c32 : index
    %e = "nvasync.elect_one"() : () -> i1
    %issuer = arith.andi %w0, %e : i1
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<32xf32, #gpu.address_space<workgroup>>
    %full = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> memref<1xi64, #gpu.address_space<workgroup>>
    %first = arith.cmpi eq, %bid, %c0 : index
    scf.if %issuer {
      "nvasync.mbarrier_init"(%full, %c0) {count = 1 : i32} : (memref<1xi64, #gpu.address_space<workgroup>>, index) -> ()
    }
    "nvasync.sync_threads"() : () -> ()
    scf.if %first {
      scf.for %i = %c0 to %n step %c1 {
        scf.if %issuer {
          "nvasync.mbarrier_arrive_expect_tx"(%full, %c0) {bytes = 128 : i32} : (memref<1xi64, #gpu.address_space<workgroup>>, index) -> ()
          "nvasync.tma_load"(%desc, %buf, %full, %c0, %c0_i32) : (!llvm.ptr, memref<32xf32, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>, index, i32) -> ()
        }
        %p = arith.index_cast %i : index to i32
        %parity = arith.andi %p, %c1_i32 : i32
        "nvasync.mbarrier_try_wait_parity"(%full, %c0, %parity) : (memref<1xi64, #gpu.address_space<workgroup>>, index, i32) -> ()
        "nvasync.sync_threads"() : () -> ()
      }
    } else {
      scf.for %i = %c0 to %m step %c1 {
        scf.if %issuer {
          "nvasync.mbarrier_arrive_expect_tx"(%full, %c0) {bytes = 128 : i32} : (memref<1xi64, #gpu.address_space<workgroup>>, index) -> ()
          "nvasync.tma_load"(%desc, %buf, %full, %c0, %c0_i32) : (!llvm.ptr, memref<32xf32, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>, index, i32) -> ()
        }
        // expected-error @below {{parity aliasing}}
        "nvasync.mbarrier_try_wait_parity"(%full, %c0, %c0_i32) : (memref<1xi64, #gpu.address_space<workgroup>>, index, i32) -> ()
        "nvasync.sync_threads"() : () -> ()
      }
    }
    "nvasync.sync_threads"() : () -> ()
    scf.if %issuer {
      "nvasync.mbarrier_inval"(%full, %c0) : (memref<1xi64, #gpu.address_space<workgroup>>, index) -> ()
    }
    gpu.return
  }
}
}

// -----

// A branch on a value computed from one trip count twice (the issuer loads in iteration
// n - n / 2 - 1 only; every thread waits once after the loop when n > 0) is decided by that trip
// count, not explored both ways as a condition of its own: no error.
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%desc: !llvm.ptr, %n: index) kernel attributes {gpu.known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c0_i32 = arith.constant 0 : i32
    %tid = gpu.thread_id x
    %c32 = arith.constant 32 : index
    %w0 = arith.cmpi ult, %tid, %c32 : index
    %e = "nvasync.elect_one"() : () -> i1
    %issuer = arith.andi %w0, %e : i1
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<32xf32, #gpu.address_space<workgroup>>
    %full = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> memref<1xi64, #gpu.address_space<workgroup>>
    %half = arith.divui %n, %c2 : index
    %rest = arith.subi %n, %half : index
    %at = arith.subi %rest, %c1 : index
    %any = arith.cmpi ugt, %n, %c0 : index
    scf.if %issuer {
      "nvasync.mbarrier_init"(%full, %c0) {count = 1 : i32} : (memref<1xi64, #gpu.address_space<workgroup>>, index) -> ()
    }
    "nvasync.sync_threads"() : () -> ()
    scf.for %i = %c0 to %n step %c1 {
      %hit = arith.cmpi eq, %i, %at : index
      %load = arith.andi %hit, %issuer : i1
      scf.if %load {
        "nvasync.mbarrier_arrive_expect_tx"(%full, %c0) {bytes = 128 : i32} : (memref<1xi64, #gpu.address_space<workgroup>>, index) -> ()
        "nvasync.tma_load"(%desc, %buf, %full, %c0, %c0_i32) : (!llvm.ptr, memref<32xf32, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>, index, i32) -> ()
      }
    }
    scf.if %any {
      "nvasync.mbarrier_try_wait_parity"(%full, %c0, %c0_i32) : (memref<1xi64, #gpu.address_space<workgroup>>, index, i32) -> ()
    }
    "nvasync.sync_threads"() : () -> ()
    scf.if %issuer {
      "nvasync.mbarrier_inval"(%full, %c0) : (memref<1xi64, #gpu.address_space<workgroup>>, index) -> ()
    }
    gpu.return
  }
}
}
