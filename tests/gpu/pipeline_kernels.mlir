// Test-only kernels for tests/gpu/test_pipeline_kernels.py: a persistent tile loop around a K loop
// pipelined by fuser-pipeline-mbarriers, in both modes.  Each CTA takes tiles t = bid + j * grid;
// tile t is 128 columns of two f32 matrices A and B of R rows (R <= 32 * n: the TMA box rows past
// R are zero-filled; coordinates are outermost first: row, column); consumer thread c of tile t sums A[r, 128t + c] * B[r, 128t + c] over the
// n K-steps of 32 rows into a register carried by the K loop, then stores it to out[128t + c]:
// out = (A * B).sum(0).  The K loop loads one 32 x 128 box of A (role "a") and one of B (role
// "b") per step; in warp_specialized mode each role is a producer warp with its own barriers.
// Trip counts n and tiles are kernel arguments, so one build runs every edge case.
// The GPU machine has no MLIR: the PTX is committed next to this file.  Regenerate it with
//   fuser-opt tests/gpu/pipeline_kernels.mlir --emit=ptx -o tests/gpu/pipeline_kernels.ptx
// (--emit=ptx derives the pipelines and every barrier, fence and wait; tests/test_pipeline_kernels_build.py
// checks that the PTX is up to date and that ptxas assembles it).
// Launch: block 128 (pipelined) or 256 (warp_specialized); parameters: the tensor maps of A and B
// (R x 128*tiles f32, box 32 x 128), n, tiles, out (f32 pointer).

!box = memref<32x128xf32, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @colsum_dot_pipelined(%da: !llvm.ptr, %db: !llvm.ptr, %n: index, %tiles: index, %out: !llvm.ptr<1>) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %a = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !box
    %b = "nvasync.smem_buffer"() {offset = 16384 : i64} : () -> !box
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %zero = arith.constant 0.0 : f32
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %grid = gpu.grid_dim x
    %has = arith.cmpi ult, %bid, %tiles : index
    %left = arith.subi %tiles, %bid : index
    %share = arith.ceildivui %left, %grid : index
    %mine = arith.select %has, %share, %c0 : index
    scf.for %j = %c0 to %mine step %c1 {
      %jg = arith.muli %j, %grid : index
      %t = arith.addi %bid, %jg : index
      %t128 = arith.muli %t, %c128 : index
      %x = arith.index_cast %t128 : index to i32
      %sum = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> f32 {
        %k32 = arith.muli %k, %c32 : index
        %y = arith.index_cast %k32 : index to i32
        "nvasync.pipeline_load"(%da, %a, %y, %x) {role = "a"} : (!llvm.ptr, !box, i32, i32) -> ()
        "nvasync.pipeline_load"(%db, %b, %y, %x) {role = "b"} : (!llvm.ptr, !box, i32, i32) -> ()
        %step = scf.for %r = %c0 to %c32 step %c1 iter_args(%s = %acc) -> f32 {
          %va = memref.load %a[%r, %tid] : !box
          %vb = memref.load %b[%r, %tid] : !box
          %p = arith.mulf %va, %vb : f32
          %s2 = arith.addf %s, %p : f32
          scf.yield %s2 : f32
        }
        scf.yield %step : f32
      } {nvasync.pipeline = {stages = 4 : i64, prefetch = 3 : i64, mode = "pipelined"}}
      %col = arith.addi %t128, %tid : index
      %col64 = arith.index_cast %col : index to i64
      %dst = llvm.getelementptr %out[%col64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      llvm.store %sum, %dst {alignment = 4 : i64} : f32, !llvm.ptr<1>
    }
    gpu.return
  }

  gpu.func @colsum_dot_warp_specialized(%da: !llvm.ptr, %db: !llvm.ptr, %n: index, %tiles: index, %out: !llvm.ptr<1>) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %a = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !box
    %b = "nvasync.smem_buffer"() {offset = 16384 : i64} : () -> !box
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %zero = arith.constant 0.0 : f32
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %grid = gpu.grid_dim x
    %has = arith.cmpi ult, %bid, %tiles : index
    %left = arith.subi %tiles, %bid : index
    %share = arith.ceildivui %left, %grid : index
    %mine = arith.select %has, %share, %c0 : index
    scf.for %j = %c0 to %mine step %c1 {
      %jg = arith.muli %j, %grid : index
      %t = arith.addi %bid, %jg : index
      %t128 = arith.muli %t, %c128 : index
      %x = arith.index_cast %t128 : index to i32
      %sum = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> f32 {
        %k32 = arith.muli %k, %c32 : index
        %y = arith.index_cast %k32 : index to i32
        "nvasync.pipeline_load"(%da, %a, %y, %x) {role = "a"} : (!llvm.ptr, !box, i32, i32) -> ()
        "nvasync.pipeline_load"(%db, %b, %y, %x) {role = "b"} : (!llvm.ptr, !box, i32, i32) -> ()
        %step = scf.for %r = %c0 to %c32 step %c1 iter_args(%s = %acc) -> f32 {
          %va = memref.load %a[%r, %tid] : !box
          %vb = memref.load %b[%r, %tid] : !box
          %p = arith.mulf %va, %vb : f32
          %s2 = arith.addf %s, %p : f32
          scf.yield %s2 : f32
        }
        scf.yield %step : f32
      } {nvasync.pipeline = {stages = 4 : i64, mode = "warp_specialized", producer_regs = 40 : i64, consumer_regs = 232 : i64}}
      %col = arith.addi %t128, %tid : index
      %col64 = arith.index_cast %col : index to i64
      %dst = llvm.getelementptr %out[%col64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      llvm.store %sum, %dst {alignment = 4 : i64} : f32, !llvm.ptr<1>
    }
    gpu.return
  }
}
}
