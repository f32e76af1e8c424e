// fuser-verify-pipelines reports each broken element of an mbarrier protocol, at the op concerned,
// naming the trip count and the thread class that exposes it.
// RUN: fuser-opt %s --split-input-file --verify-diagnostics -p fuser-verify-pipelines

// A correct single-stage protocol: no error.
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

// Init count 2, but one arrival per phase: the consumers wait forever.
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
      "nvasync.mbarrier_init"(%full, %c0) {count = 2 : i32} : (memref<1xi64, #gpu.address_space<workgroup>>, index) -> ()
    }
    "nvasync.sync_threads"() : () -> ()
    scf.for %i = %c0 to %n step %c1 {
      scf.if %issuer {
        "nvasync.mbarrier_arrive_expect_tx"(%full, %c0) {bytes = 128 : i32} : (memref<1xi64, #gpu.address_space<workgroup>>, index) -> ()
        "nvasync.tma_load"(%desc, %buf, %full, %c0, %c0_i32) : (!llvm.ptr, memref<32xf32, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>, index, i32) -> ()
      }
      %p = arith.index_cast %i : index to i32
      %parity = arith.andi %p, %c1_i32 : i32
      // expected-error @below {{deadlock}}
      "nvasync.mbarrier_try_wait_parity"(%full, %c0, %parity) : (memref<1xi64, #gpu.address_space<workgroup>>, index, i32) -> ()
      "nvasync.sync_threads"() : () -> ()
    }
    "nvasync.sync_threads"() : () -> ()
    gpu.return
  }
}
}

// -----

// expect-tx announces half the box: the phase never completes.
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
        "nvasync.mbarrier_arrive_expect_tx"(%full, %c0) {bytes = 64 : i32} : (memref<1xi64, #gpu.address_space<workgroup>>, index) -> ()
        "nvasync.tma_load"(%desc, %buf, %full, %c0, %c0_i32) : (!llvm.ptr, memref<32xf32, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>, index, i32) -> ()
      }
      %p = arith.index_cast %i : index to i32
      %parity = arith.andi %p, %c1_i32 : i32
      // expected-error @below {{expect-tx announces 64 bytes and the loads deliver 128}}
      "nvasync.mbarrier_try_wait_parity"(%full, %c0, %parity) : (memref<1xi64, #gpu.address_space<workgroup>>, index, i32) -> ()
      "nvasync.sync_threads"() : () -> ()
    }
    "nvasync.sync_threads"() : () -> ()
    gpu.return
  }
}
}

// -----

// expect-tx announces more than the box: the phase never completes.
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
        "nvasync.mbarrier_arrive_expect_tx"(%full, %c0) {bytes = 256 : i32} : (memref<1xi64, #gpu.address_space<workgroup>>, index) -> ()
        "nvasync.tma_load"(%desc, %buf, %full, %c0, %c0_i32) : (!llvm.ptr, memref<32xf32, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>, index, i32) -> ()
      }
      %p = arith.index_cast %i : index to i32
      %parity = arith.andi %p, %c1_i32 : i32
      // expected-error @below {{expect-tx announces 256 bytes and the loads deliver 128}}
      "nvasync.mbarrier_try_wait_parity"(%full, %c0, %parity) : (memref<1xi64, #gpu.address_space<workgroup>>, index, i32) -> ()
      "nvasync.sync_threads"() : () -> ()
    }
    "nvasync.sync_threads"() : () -> ()
    gpu.return
  }
}
}

// -----

// Parity inverted: the first wait passes before any data arrived, the next never does.
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
      // expected-error @below {{deadlock}}
      "nvasync.mbarrier_try_wait_parity"(%full, %c0, %c1_i32) : (memref<1xi64, #gpu.address_space<workgroup>>, index, i32) -> ()
      "nvasync.sync_threads"() : () -> ()
    }
    "nvasync.sync_threads"() : () -> ()
    gpu.return
  }
}
}

// -----

// No arrive.expect_tx: the load's bytes complete no phase.
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
        "nvasync.tma_load"(%desc, %buf, %full, %c0, %c0_i32) : (!llvm.ptr, memref<32xf32, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>, index, i32) -> ()
      }
      %p = arith.index_cast %i : index to i32
      %parity = arith.andi %p, %c1_i32 : i32
      // expected-error @below {{deadlock}}
      "nvasync.mbarrier_try_wait_parity"(%full, %c0, %parity) : (memref<1xi64, #gpu.address_space<workgroup>>, index, i32) -> ()
      "nvasync.sync_threads"() : () -> ()
    }
    "nvasync.sync_threads"() : () -> ()
    gpu.return
  }
}
}

// -----

// No barrier after init: other threads may wait on an uninitialised mbarrier.
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
    scf.for %i = %c0 to %n step %c1 {
      scf.if %issuer {
        "nvasync.mbarrier_arrive_expect_tx"(%full, %c0) {bytes = 128 : i32} : (memref<1xi64, #gpu.address_space<workgroup>>, index) -> ()
        "nvasync.tma_load"(%desc, %buf, %full, %c0, %c0_i32) : (!llvm.ptr, memref<32xf32, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>, index, i32) -> ()
      }
      %p = arith.index_cast %i : index to i32
      %parity = arith.andi %p, %c1_i32 : i32
      // expected-error @below {{used before it is initialised}}
      "nvasync.mbarrier_try_wait_parity"(%full, %c0, %parity) : (memref<1xi64, #gpu.address_space<workgroup>>, index, i32) -> ()
      "nvasync.sync_threads"() : () -> ()
    }
    "nvasync.sync_threads"() : () -> ()
    gpu.return
  }
}
}

// -----

// Invalidated while other threads may still wait on it: the loop's barrier comes before its
// wait, and none follows the loop.
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
      "nvasync.sync_threads"() : () -> ()
      scf.if %issuer {
        "nvasync.mbarrier_arrive_expect_tx"(%full, %c0) {bytes = 128 : i32} : (memref<1xi64, #gpu.address_space<workgroup>>, index) -> ()
        "nvasync.tma_load"(%desc, %buf, %full, %c0, %c0_i32) : (!llvm.ptr, memref<32xf32, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>, index, i32) -> ()
      }
      %p = arith.index_cast %i : index to i32
      %parity = arith.andi %p, %c1_i32 : i32
      "nvasync.mbarrier_try_wait_parity"(%full, %c0, %parity) : (memref<1xi64, #gpu.address_space<workgroup>>, index, i32) -> ()
    }
    scf.if %issuer {
      // expected-error @below {{invalidated while}}
      "nvasync.mbarrier_inval"(%full, %c0) : (memref<1xi64, #gpu.address_space<workgroup>>, index) -> ()
    }
    gpu.return
  }
}
}

// -----

// A loop around protocol ops that the check cannot run: a zero step, a huge constant trip count.
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%n: index) kernel attributes {gpu.known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %bar = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<1xi64, #gpu.address_space<workgroup>>
    // expected-error @below {{a loop of step 0 from 0 to}}
    scf.for %i = %c0 to %n step %c0 {
      "nvasync.sync_threads"() : () -> ()
    }
    "nvasync.mbarrier_inval"(%bar, %c0) : (memref<1xi64, #gpu.address_space<workgroup>>, index) -> ()
    gpu.return
  }
}
}

// -----

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k() kernel attributes {gpu.known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %big = arith.constant 1000000000 : index
    %bar = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<1xi64, #gpu.address_space<workgroup>>
    // expected-error @below {{a loop of step 1 from 0 to 1000000000 around mbarrier protocol: this check runs loops of a positive step and at most 65536 iterations}}
    scf.for %i = %c0 to %big step %c1 {
      "nvasync.sync_threads"() : () -> ()
    }
    "nvasync.mbarrier_inval"(%bar, %c0) : (memref<1xi64, #gpu.address_space<workgroup>>, index) -> ()
    gpu.return
  }
}
}
