// fuser-pipeline-mbarriers rejects, at the loop, options and kernels it cannot pipeline.
// RUN: fuser-opt %s --split-input-file --verify-diagnostics -p fuser-pipeline-mbarriers

// stages out of range
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%d: !llvm.ptr, %n: index) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c0_i32 = arith.constant 0 : i32
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<32x32xf32, #gpu.address_space<workgroup>>
    // expected-error @below {{stages must be an integer in [1, 16], got 0}}
    scf.for %i = %c0 to %n step %c1 {
      "nvasync.pipeline_load"(%d, %buf, %c0_i32, %c0_i32) {role = "a"} : (!llvm.ptr, memref<32x32xf32, #gpu.address_space<workgroup>>, i32, i32) -> ()
    } {nvasync.pipeline = {stages = 0 : i64}}
    gpu.return
  }
}
}

// -----

// prefetch beyond stages
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%d: !llvm.ptr, %n: index) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c0_i32 = arith.constant 0 : i32
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<32x32xf32, #gpu.address_space<workgroup>>
    // expected-error @below {{prefetch must be an integer in [1, stages = 2], got 3}}
    scf.for %i = %c0 to %n step %c1 {
      "nvasync.pipeline_load"(%d, %buf, %c0_i32, %c0_i32) {role = "a"} : (!llvm.ptr, memref<32x32xf32, #gpu.address_space<workgroup>>, i32, i32) -> ()
    } {nvasync.pipeline = {stages = 2 : i64, prefetch = 3 : i64}}
    gpu.return
  }
}
}

// -----

// unknown mode
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%d: !llvm.ptr, %n: index) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c0_i32 = arith.constant 0 : i32
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<32x32xf32, #gpu.address_space<workgroup>>
    // expected-error @below {{mode must be one of pipelined, warp_specialized}}
    scf.for %i = %c0 to %n step %c1 {
      "nvasync.pipeline_load"(%d, %buf, %c0_i32, %c0_i32) {role = "a"} : (!llvm.ptr, memref<32x32xf32, #gpu.address_space<workgroup>>, i32, i32) -> ()
    } {nvasync.pipeline = {stages = 2 : i64, mode = "eager"}}
    gpu.return
  }
}
}

// -----

// unknown option
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%d: !llvm.ptr, %n: index) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c0_i32 = arith.constant 0 : i32
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<32x32xf32, #gpu.address_space<workgroup>>
    // expected-error @below {{unknown pipeline option(s) depth}}
    scf.for %i = %c0 to %n step %c1 {
      "nvasync.pipeline_load"(%d, %buf, %c0_i32, %c0_i32) {role = "a"} : (!llvm.ptr, memref<32x32xf32, #gpu.address_space<workgroup>>, i32, i32) -> ()
    } {nvasync.pipeline = {stages = 2 : i64, depth = 3 : i64}}
    gpu.return
  }
}
}

// -----

// one budget only
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%d: !llvm.ptr, %n: index) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c0_i32 = arith.constant 0 : i32
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<32x32xf32, #gpu.address_space<workgroup>>
    // expected-error @below {{give both producer_regs and consumer_regs}}
    scf.for %i = %c0 to %n step %c1 {
      "nvasync.pipeline_load"(%d, %buf, %c0_i32, %c0_i32) {role = "a"} : (!llvm.ptr, memref<32x32xf32, #gpu.address_space<workgroup>>, i32, i32) -> ()
    } {nvasync.pipeline = {stages = 2 : i64, mode = "warp_specialized", producer_regs = 40 : i64}}
    gpu.return
  }
}
}

// -----

// budget over the register file
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%d: !llvm.ptr, %n: index) kernel attributes {gpu.known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c0_i32 = arith.constant 0 : i32
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<32x32xf32, #gpu.address_space<workgroup>>
    // 96 x 128 + 208 x 256 = 65536 fits the SM but not the 168 x 384 registers the launch holds,
    // and setmaxnreg.inc only takes what a dec gave back: it hung on the H100.
    // expected-error @below {{register budget 128 x 96 + 256 x 208 = 65536 exceeds the 64512 registers a launch of 384 threads holds (168 each): setmaxnreg.inc would wait forever}}
    scf.for %i = %c0 to %n step %c1 {
      "nvasync.pipeline_load"(%d, %buf, %c0_i32, %c0_i32) {role = "a"} : (!llvm.ptr, memref<32x32xf32, #gpu.address_space<workgroup>>, i32, i32) -> ()
    } {nvasync.pipeline = {stages = 2 : i64, mode = "warp_specialized", producer_regs = 96 : i64, consumer_regs = 208 : i64}}
    gpu.return
  }
}
}

// -----

// consumers not whole warpgroups
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%d: !llvm.ptr, %n: index) kernel attributes {gpu.known_block_size = array<i32: 96, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c0_i32 = arith.constant 0 : i32
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<32x32xf32, #gpu.address_space<workgroup>>
    // expected-error @below {{needs whole consumer warpgroups}}
    scf.for %i = %c0 to %n step %c1 {
      "nvasync.pipeline_load"(%d, %buf, %c0_i32, %c0_i32) {role = "a"} : (!llvm.ptr, memref<32x32xf32, #gpu.address_space<workgroup>>, i32, i32) -> ()
    } {nvasync.pipeline = {stages = 2 : i64, mode = "warp_specialized"}}
    gpu.return
  }
}
}

// -----

// shared memory overflow
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%d: !llvm.ptr, %n: index) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c0_i32 = arith.constant 0 : i32
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<128x256xf32, #gpu.address_space<workgroup>>
    // expected-error @below {{bytes of shared memory; a CTA may use 232448}}
    scf.for %i = %c0 to %n step %c1 {
      "nvasync.pipeline_load"(%d, %buf, %c0_i32, %c0_i32) {role = "a"} : (!llvm.ptr, memref<128x256xf32, #gpu.address_space<workgroup>>, i32, i32) -> ()
    } {nvasync.pipeline = {stages = 4 : i64}}
    gpu.return
  }
}
}

// -----

// lower bound not 0
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%d: !llvm.ptr, %n: index) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c0_i32 = arith.constant 0 : i32
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<32x32xf32, #gpu.address_space<workgroup>>
    // expected-error @below {{must run from 0 with step 1}}
    scf.for %i = %c1 to %n step %c1 {
      "nvasync.pipeline_load"(%d, %buf, %c0_i32, %c0_i32) {role = "a"} : (!llvm.ptr, memref<32x32xf32, #gpu.address_space<workgroup>>, i32, i32) -> ()
    } {nvasync.pipeline = {stages = 2 : i64}}
    gpu.return
  }
}
}

// -----

// a pipelined loop under a condition: its phases are counted per run of the loop, so it may sit in loops only
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%d: !llvm.ptr, %n: index, %go: i1) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c0_i32 = arith.constant 0 : i32
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<32x32xf32, #gpu.address_space<workgroup>>
    scf.if %go {
      // expected-error @below {{a pipelined loop may be nested in scf.for loops only, not in 'scf.if'}}
      scf.for %i = %c0 to %n step %c1 {
        "nvasync.pipeline_load"(%d, %buf, %c0_i32, %c0_i32) {role = "a"} : (!llvm.ptr, memref<32x32xf32, #gpu.address_space<workgroup>>, i32, i32) -> ()
      } {nvasync.pipeline = {stages = 2 : i64}}
    }
    gpu.return
  }
}
}

// -----

// a load whose coordinate the loop carries: producers run ahead of the consumers computing it
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%d: !llvm.ptr, %n: index) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c0_i32 = arith.constant 0 : i32
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<32x32xf32, #gpu.address_space<workgroup>>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%row = %c0_i32) -> i32 {
      // expected-error @below {{the load's coordinates depend on a value the loop carries}}
      "nvasync.pipeline_load"(%d, %buf, %row, %c0_i32) {role = "a"} : (!llvm.ptr, memref<32x32xf32, #gpu.address_space<workgroup>>, i32, i32) -> ()
      %next = arith.addi %row, %row : i32
      scf.yield %next : i32
    } {nvasync.pipeline = {stages = 2 : i64}}
    gpu.return
  }
}
}

// -----

// warp specialized: a tile coordinate loaded from memory in the tile loop cannot be recomputed by the producer
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%d: !llvm.ptr, %n: index, %tiles: index, %order: memref<64xi32>) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c0_i32 = arith.constant 0 : i32
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<32x32xf32, #gpu.address_space<workgroup>>
    scf.for %t = %c0 to %tiles step %c1 {
      %x = memref.load %order[%t] : memref<64xi32>
      // expected-error @below {{the loads' coordinates or trip counts depend on 'memref.load'}}
      scf.for %i = %c0 to %n step %c1 {
        "nvasync.pipeline_load"(%d, %buf, %c0_i32, %x) {role = "a"} : (!llvm.ptr, memref<32x32xf32, #gpu.address_space<workgroup>>, i32, i32) -> ()
      } {nvasync.pipeline = {stages = 2 : i64, mode = "warp_specialized"}}
    }
    gpu.return
  }
}
}

// -----

// a view of a pipelined buffer made outside the loop would be the same memory in every stage
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%d: !llvm.ptr, %n: index) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c0_i32 = arith.constant 0 : i32
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<32x32xf32, #gpu.address_space<workgroup>>
    // expected-error @below {{'memref.subview' makes a view of shared memory outside the pipelined loop that the loop uses}}
    %row = memref.subview %buf[0, 0] [1, 32] [1, 1] : memref<32x32xf32, #gpu.address_space<workgroup>> to memref<32xf32, strided<[1]>, #gpu.address_space<workgroup>>
    scf.for %i = %c0 to %n step %c1 {
      "nvasync.pipeline_load"(%d, %buf, %c0_i32, %c0_i32) {role = "a"} : (!llvm.ptr, memref<32x32xf32, #gpu.address_space<workgroup>>, i32, i32) -> ()
      %v = memref.load %row[%c0] : memref<32xf32, strided<[1]>, #gpu.address_space<workgroup>>
    } {nvasync.pipeline = {stages = 2 : i64}}
    gpu.return
  }
}
}

// -----

// multicast roles without a cluster
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%d: !llvm.ptr, %n: index) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c0_i32 = arith.constant 0 : i32
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<32x32xf32, #gpu.address_space<workgroup>>
    // expected-error @below {{multicast roles need cluster > 1, and a cluster needs multicast roles}}
    scf.for %i = %c0 to %n step %c1 {
      "nvasync.pipeline_load"(%d, %buf, %c0_i32, %c0_i32) {role = "a"} : (!llvm.ptr, memref<32x32xf32, #gpu.address_space<workgroup>>, i32, i32) -> ()
    } {nvasync.pipeline = {stages = 2 : i64, mode = "warp_specialized", multicast = "a"}}
    gpu.return
  }
}
}

// -----

// a multicast over more CTAs than the kernel's clusters hold
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%d: !llvm.ptr, %n: index) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>, nvvm.cluster_dim = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c0_i32 = arith.constant 0 : i32
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<32x32xf32, #gpu.address_space<workgroup>>
    // expected-error @below {{the pipeline multicasts over 4 CTAs, but the kernel launches in clusters of 2 (nvvm.cluster_dim)}}
    scf.for %i = %c0 to %n step %c1 {
      "nvasync.pipeline_load"(%d, %buf, %c0_i32, %c0_i32) {role = "a"} : (!llvm.ptr, memref<32x32xf32, #gpu.address_space<workgroup>>, i32, i32) -> ()
    } {nvasync.pipeline = {stages = 2 : i64, mode = "warp_specialized", cluster = 4 : i64, multicast = "a"}}
    gpu.return
  }
}
}

// -----

// a pipelined loop around another with more than one stage (its stage copies would duplicate the
// inner loop's buffers)
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%d: !llvm.ptr, %n: index) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c0_i32 = arith.constant 0 : i32
    %tile = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<32x32xf32, #gpu.address_space<workgroup>>
    %buf = "nvasync.smem_buffer"() {offset = 4096 : i64} : () -> memref<32x32xf32, #gpu.address_space<workgroup>>
    // expected-error @below {{a pipelined loop around another runs mode 'pipelined' or 'trailing' with stages = 1}}
    scf.for %t = %c0 to %n step %c1 {
      "nvasync.pipeline_load"(%d, %tile, %c0_i32, %c0_i32) {role = "tile"} : (!llvm.ptr, memref<32x32xf32, #gpu.address_space<workgroup>>, i32, i32) -> ()
      scf.for %i = %c0 to %n step %c1 {
        "nvasync.pipeline_load"(%d, %buf, %c0_i32, %c0_i32) {role = "a"} : (!llvm.ptr, memref<32x32xf32, #gpu.address_space<workgroup>>, i32, i32) -> ()
      } {nvasync.pipeline = {stages = 2 : i64}}
    } {nvasync.pipeline = {stages = 2 : i64}}
    gpu.return
  }
}
}

// -----

// a load into a buffer the kernel also uses outside the loop: the stages would share it
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%d: !llvm.ptr, %n: index) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c0_i32 = arith.constant 0 : i32
    %f = arith.constant 1.0 : f32
    // expected-error @below {{a pipelined loop's load writes an smem buffer the kernel also uses outside the loop; each stage needs its own}}
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<32x32xf32, #gpu.address_space<workgroup>>
    memref.store %f, %buf[%c0, %c0] : memref<32x32xf32, #gpu.address_space<workgroup>>
    scf.for %i = %c0 to %n step %c1 {
      "nvasync.pipeline_load"(%d, %buf, %c0_i32, %c0_i32) {role = "a"} : (!llvm.ptr, memref<32x32xf32, #gpu.address_space<workgroup>>, i32, i32) -> ()
    } {nvasync.pipeline = {stages = 2 : i64}}
    gpu.return
  }
}
}

// -----

// an offload outside the tile loop around the warp-specialized loop: its handoffs' phases are the
// tile loop's iterations
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%d: !llvm.ptr, %n: index) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c0_i32 = arith.constant 0 : i32
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<32x32xf32, #gpu.address_space<workgroup>>
    scf.for %i = %c0 to %n step %c1 {
      "nvasync.pipeline_load"(%d, %buf, %c0_i32, %c0_i32) {role = "a"} : (!llvm.ptr, memref<32x32xf32, #gpu.address_space<workgroup>>, i32, i32) -> ()
    } {nvasync.pipeline = {stages = 2 : i64, mode = "warp_specialized"}}
    // expected-error @below {{an nvasync.offload runs in the body of the one loop (from 0, step 1) around the warp-specialized loop, at the kernel's top level}}
    "nvasync.offload"() ({
    ^bb0(%u: index):
      gpu.yield
    }) {warps = 2 : i32} : () -> ()
    gpu.return
  }
}
}

// -----

// three producer roles and two offload warps: more than the producer warpgroup's four warps
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%d: !llvm.ptr, %n: index, %tiles: index) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c0_i32 = arith.constant 0 : i32
    %a = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<32x32xf32, #gpu.address_space<workgroup>>
    %b = "nvasync.smem_buffer"() {offset = 4096 : i64} : () -> memref<32x32xf32, #gpu.address_space<workgroup>>
    %c = "nvasync.smem_buffer"() {offset = 8192 : i64} : () -> memref<32x32xf32, #gpu.address_space<workgroup>>
    scf.for %t = %c0 to %tiles step %c1 {
      // expected-error @below {{3 producer roles and 2 offload warps; a producer warpgroup has 4 warps}}
      scf.for %i = %c0 to %n step %c1 {
        "nvasync.pipeline_load"(%d, %a, %c0_i32, %c0_i32) {role = "a"} : (!llvm.ptr, memref<32x32xf32, #gpu.address_space<workgroup>>, i32, i32) -> ()
        "nvasync.pipeline_load"(%d, %b, %c0_i32, %c0_i32) {role = "b"} : (!llvm.ptr, memref<32x32xf32, #gpu.address_space<workgroup>>, i32, i32) -> ()
        "nvasync.pipeline_load"(%d, %c, %c0_i32, %c0_i32) {role = "c"} : (!llvm.ptr, memref<32x32xf32, #gpu.address_space<workgroup>>, i32, i32) -> ()
      } {nvasync.pipeline = {stages = 2 : i64, mode = "warp_specialized"}}
      "nvasync.offload"() ({
      ^bb0(%u: index):
        gpu.yield
      }) {warps = 2 : i32} : () -> ()
    }
    gpu.return
  }
}
}

// -----

// a trailing loop around a loop that is not warp-specialized: no producer to issue its loads
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%d: !llvm.ptr, %n: index) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c0_i32 = arith.constant 0 : i32
    %tile = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<32x32xf32, #gpu.address_space<workgroup>>
    %buf = "nvasync.smem_buffer"() {offset = 4096 : i64} : () -> memref<32x32xf32, #gpu.address_space<workgroup>>
    // expected-error @below {{a 'trailing' pipelined loop has stages = 1 and directly holds a warp_specialized loop}}
    scf.for %t = %c0 to %n step %c1 {
      "nvasync.pipeline_load"(%d, %tile, %c0_i32, %c0_i32) {role = "tile"} : (!llvm.ptr, memref<32x32xf32, #gpu.address_space<workgroup>>, i32, i32) -> ()
      scf.for %i = %c0 to %n step %c1 {
        "nvasync.pipeline_load"(%d, %buf, %c0_i32, %c0_i32) {role = "a"} : (!llvm.ptr, memref<32x32xf32, #gpu.address_space<workgroup>>, i32, i32) -> ()
      } {nvasync.pipeline = {stages = 2 : i64}}
    } {nvasync.pipeline = {stages = 1 : i64, mode = "trailing"}}
    gpu.return
  }
}
}

// -----

// a trailing loop with no pipelined loop in it
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%d: !llvm.ptr, %n: index) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c0_i32 = arith.constant 0 : i32
    %tile = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<32x32xf32, #gpu.address_space<workgroup>>
    // expected-error @below {{a 'trailing' pipelined loop's loads are issued by the producer of a warp-specialized loop directly in its body; it has none}}
    scf.for %t = %c0 to %n step %c1 {
      "nvasync.pipeline_load"(%d, %tile, %c0_i32, %c0_i32) {role = "tile"} : (!llvm.ptr, memref<32x32xf32, #gpu.address_space<workgroup>>, i32, i32) -> ()
    } {nvasync.pipeline = {stages = 1 : i64, mode = "trailing"}}
    gpu.return
  }
}
}

// -----

// a trailing loop whose loads share a role with the inner loop's
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%d: !llvm.ptr, %n: index) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c0_i32 = arith.constant 0 : i32
    %tile = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<32x32xf32, #gpu.address_space<workgroup>>
    %buf = "nvasync.smem_buffer"() {offset = 4096 : i64} : () -> memref<32x32xf32, #gpu.address_space<workgroup>>
    // expected-error @below {{a 'trailing' loop's loads are one role of their own, not the inner loop's; got a}}
    scf.for %t = %c0 to %n step %c1 {
      "nvasync.pipeline_load"(%d, %tile, %c0_i32, %c0_i32) {role = "a"} : (!llvm.ptr, memref<32x32xf32, #gpu.address_space<workgroup>>, i32, i32) -> ()
      scf.for %i = %c0 to %n step %c1 {
        "nvasync.pipeline_load"(%d, %buf, %c0_i32, %c0_i32) {role = "a"} : (!llvm.ptr, memref<32x32xf32, #gpu.address_space<workgroup>>, i32, i32) -> ()
      } {nvasync.pipeline = {stages = 2 : i64, mode = "warp_specialized"}}
    } {nvasync.pipeline = {stages = 1 : i64, mode = "trailing"}}
    gpu.return
  }
}
}

// -----

// a trailing loop inside another loop: its iterations would not number its handoff's phases
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%d: !llvm.ptr, %n: index) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c0_i32 = arith.constant 0 : i32
    %tile = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<32x32xf32, #gpu.address_space<workgroup>>
    %buf = "nvasync.smem_buffer"() {offset = 4096 : i64} : () -> memref<32x32xf32, #gpu.address_space<workgroup>>
    scf.for %b = %c0 to %n step %c1 {
      // expected-error @below {{a 'trailing' loop runs at the kernel's top level: its iterations number the phases of its handoff}}
      scf.for %t = %c0 to %n step %c1 {
        "nvasync.pipeline_load"(%d, %tile, %c0_i32, %c0_i32) {role = "tile"} : (!llvm.ptr, memref<32x32xf32, #gpu.address_space<workgroup>>, i32, i32) -> ()
        scf.for %i = %c0 to %n step %c1 {
          "nvasync.pipeline_load"(%d, %buf, %c0_i32, %c0_i32) {role = "a"} : (!llvm.ptr, memref<32x32xf32, #gpu.address_space<workgroup>>, i32, i32) -> ()
        } {nvasync.pipeline = {stages = 2 : i64, mode = "warp_specialized"}}
      } {nvasync.pipeline = {stages = 1 : i64, mode = "trailing"}}
    }
    gpu.return
  }
}
}

// -----

// a pipeline_load outside any pipelined loop: nothing derives its barriers
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%d: !llvm.ptr) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %c0_i32 = arith.constant 0 : i32
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<32x32xf32, #gpu.address_space<workgroup>>
    // expected-error @below {{an nvasync.pipeline_load outside any loop marked nvasync.pipeline: no pipeline derives its barriers}}
    "nvasync.pipeline_load"(%d, %buf, %c0_i32, %c0_i32) {role = "a"} : (!llvm.ptr, memref<32x32xf32, #gpu.address_space<workgroup>>, i32, i32) -> ()
    gpu.return
  }
}
}

// -----

// the load's buffer is made inside the loop: no stage copies can be made of it
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%d: !llvm.ptr, %n: index) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c0_i32 = arith.constant 0 : i32
    scf.for %i = %c0 to %n step %c1 {
      %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<32x32xf32, #gpu.address_space<workgroup>>
      // expected-error @below {{a pipelined loop's load writes an smem buffer that is not an nvasync.smem_buffer made before the loop}}
      "nvasync.pipeline_load"(%d, %buf, %c0_i32, %c0_i32) {role = "a"} : (!llvm.ptr, memref<32x32xf32, #gpu.address_space<workgroup>>, i32, i32) -> ()
    } {nvasync.pipeline = {stages = 2 : i64, mode = "pipelined"}}
    gpu.return
  }
}
}
