// Minimal TMA -> wgmma kernels for tests/gpu/test_wgmma.py: the first wgmma on silicon.
//
// Each kernel computes one 64 x N f32 tile C = A @ B^T, A [64 x K] and B [N x K] row-major
// (K-major) in global memory, K = 64 * ktiles (`ktiles`, the trip count, is a kernel argument):
//   * an scf.for over the K tiles marked `nvasync.pipeline` (3 stages) TMA-loads a 64 x 64 box of
//     A and an N x 64 box of B per iteration through `nvasync.pipeline_load`, 128-byte swizzled
//     (the host encodes both tensor maps with CU_TENSOR_MAP_SWIZZLE_128B; a box row is 64 16-bit
//     elements = 128 bytes, one swizzle row);
//   * 4 wgmma k-steps per stage (m64nNk16), each on the k-th 16-column slice of the tiles
//     (`memref.subview %tile[0, 16k] [rows, 16] [1, 1]`: the descriptor starts 32k bytes into the
//     swizzle atom);
//   * the accumulator is the loop's iter_arg; fuser-flush-wgmma derives a wgmma.fence before each
//     stage's 4 wgmma, a commit after them, and a wgmma.wait_group 0 before the stage's release
//     (pipelined: the CTA barrier before the refill; warp_specialized: the consumer warp's
//     warp_sync + empty-barrier arrive), so the accumulator needs no flush after the loop;
//   * the epilogue stores the accumulator fragment to C (row-major 64 x N f32): thread t of the
//     warpgroup holds rows 16 (t / 32) + (t % 32) / 4 + {0, 8} and columns 8 j + 2 (t % 4) + {0, 1}
//     (register 4 j + 2 h + e: row + 8 h, column 8 j + 2 (t % 4) + e), stored as f32 pairs,
//     unrolled (dynamic vector indexing would put the accumulator on the stack).
// Trip count 0 (ktiles = 0) loads nothing and stores C = 0 (the empty sum), every element.
//
// Kernels (bf16 with N = 128, f16 with N = 64; both pipeline modes):
//   @wgmma_bf16_pipelined, @wgmma_f16_pipelined: 128 threads (one warpgroup loads and consumes);
//   @wgmma_bf16_ws, @wgmma_f16_ws: warp_specialized; fuser-pipeline-mbarriers adds a producer
//     warpgroup (block 256 threads: warps 0-3 consume, warp 4 loads A, warp 5 loads B).
// Every barrier, fence, mbarrier protocol and wgmma fence/commit/wait is derived by the passes.
// Launch: grid 1; params (tensor map A, tensor map B, C pointer, ktiles: i32); tensor maps of the
// [64, K] and [N, K] tensors, boxes [64, 64] and [N, 64], 128-byte swizzle; dynamic smem and block
// size as tests/gpu/test_wgmma.py lists them (fuser.dynamic_smem_bytes after the lowering).
//
// The GPU machine has no MLIR: the PTX is committed next to this file.  Regenerate it with
//   fuser-opt tests/gpu/wgmma_kernels.mlir --emit=ptx -o tests/gpu/wgmma_kernels.ptx
// (the lowering derives the pipelines and every sync first: DERIVE_PASSES in
// fuser_mlir/backend/pipeline.py; tests/test_wgmma_build.py checks that the PTX is up to date,
// that ptxas assembles it and that the launch table of tests/gpu/test_wgmma.py matches it).

#ws = #gpu.address_space<workgroup>

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @wgmma_bf16_pipelined(%da: !llvm.ptr, %db: !llvm.ptr, %c: !llvm.ptr<1>, %ktiles: i32) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %a = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<64x64xbf16, #ws>
    %b = "nvasync.smem_buffer"() {offset = 8192 : i64} : () -> memref<128x64xbf16, #ws>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant dense<0.0> : vector<64xf32>
    %n = arith.index_cast %ktiles : i32 to index
    %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (vector<64xf32>) {
      %i32 = arith.index_cast %i : index to i32
      %c64_i32 = arith.constant 64 : i32
      %kx = arith.muli %i32, %c64_i32 : i32
      %c0_i32 = arith.constant 0 : i32
      "nvasync.pipeline_load"(%da, %a, %c0_i32, %kx) {role = "a"} : (!llvm.ptr, memref<64x64xbf16, #ws>, i32, i32) -> ()
      "nvasync.pipeline_load"(%db, %b, %c0_i32, %kx) {role = "b"} : (!llvm.ptr, memref<128x64xbf16, #ws>, i32, i32) -> ()
      %a0 = memref.subview %a[0, 0] [64, 16] [1, 1] : memref<64x64xbf16, #ws> to memref<64x16xbf16, strided<[64, 1], offset: 0>, #ws>
      %a1 = memref.subview %a[0, 16] [64, 16] [1, 1] : memref<64x64xbf16, #ws> to memref<64x16xbf16, strided<[64, 1], offset: 16>, #ws>
      %a2 = memref.subview %a[0, 32] [64, 16] [1, 1] : memref<64x64xbf16, #ws> to memref<64x16xbf16, strided<[64, 1], offset: 32>, #ws>
      %a3 = memref.subview %a[0, 48] [64, 16] [1, 1] : memref<64x64xbf16, #ws> to memref<64x16xbf16, strided<[64, 1], offset: 48>, #ws>
      %b0 = memref.subview %b[0, 0] [128, 16] [1, 1] : memref<128x64xbf16, #ws> to memref<128x16xbf16, strided<[64, 1], offset: 0>, #ws>
      %b1 = memref.subview %b[0, 16] [128, 16] [1, 1] : memref<128x64xbf16, #ws> to memref<128x16xbf16, strided<[64, 1], offset: 16>, #ws>
      %b2 = memref.subview %b[0, 32] [128, 16] [1, 1] : memref<128x64xbf16, #ws> to memref<128x16xbf16, strided<[64, 1], offset: 32>, #ws>
      %b3 = memref.subview %b[0, 48] [128, 16] [1, 1] : memref<128x64xbf16, #ws> to memref<128x16xbf16, strided<[64, 1], offset: 48>, #ws>
      %r0 = "nvasync.wgmma"(%a0, %b0, %acc) {swizzle = 128 : i32, accumulate = true} : (memref<64x16xbf16, strided<[64, 1], offset: 0>, #ws>, memref<128x16xbf16, strided<[64, 1], offset: 0>, #ws>, vector<64xf32>) -> vector<64xf32>
      %r1 = "nvasync.wgmma"(%a1, %b1, %r0) {swizzle = 128 : i32, accumulate = true} : (memref<64x16xbf16, strided<[64, 1], offset: 16>, #ws>, memref<128x16xbf16, strided<[64, 1], offset: 16>, #ws>, vector<64xf32>) -> vector<64xf32>
      %r2 = "nvasync.wgmma"(%a2, %b2, %r1) {swizzle = 128 : i32, accumulate = true} : (memref<64x16xbf16, strided<[64, 1], offset: 32>, #ws>, memref<128x16xbf16, strided<[64, 1], offset: 32>, #ws>, vector<64xf32>) -> vector<64xf32>
      %r3 = "nvasync.wgmma"(%a3, %b3, %r2) {swizzle = 128 : i32, accumulate = true} : (memref<64x16xbf16, strided<[64, 1], offset: 48>, #ws>, memref<128x16xbf16, strided<[64, 1], offset: 48>, #ws>, vector<64xf32>) -> vector<64xf32>
      scf.yield %r3 : vector<64xf32>
    } {nvasync.pipeline = {stages = 3 : i64, mode = "pipelined"}}
    %tid = gpu.thread_id x
    %c128 = arith.constant 128 : index
    %consumer = arith.cmpi ult, %tid, %c128 : index
    scf.if %consumer {
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %cn = arith.constant 128 : index
      %warp = arith.divui %tid, %c32 : index
      %lane = arith.remui %tid, %c32 : index
      %quad = arith.divui %lane, %c4 : index
      %pos = arith.remui %lane, %c4 : index
      %wrow = arith.muli %warp, %c16 : index
      %row0 = arith.addi %wrow, %quad : index
      %row8 = arith.addi %row0, %c8 : index
      %col0 = arith.muli %pos, %c2 : index
      %rowoff0 = arith.muli %row0, %cn : index
      %rowoff8 = arith.muli %row8, %cn : index
      %off0 = arith.addi %rowoff0, %col0 : index
      %off0_i64 = arith.index_cast %off0 : index to i64
      %row0_ptr = llvm.getelementptr %c[%off0_i64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      %off1 = arith.addi %rowoff8, %col0 : index
      %off1_i64 = arith.index_cast %off1 : index to i64
      %row1_ptr = llvm.getelementptr %c[%off1_i64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      // register 4j + 2h + e -> C[row{0, 8}[h], 8j + col0 + e]: one 8-byte store per (j, h)
      %x0 = vector.extract %sum[0] : f32 from vector<64xf32>
      %x1 = vector.extract %sum[1] : f32 from vector<64xf32>
      %pair0 = vector.from_elements %x0, %x1 : vector<2xf32>
      %ptr0 = llvm.getelementptr %row0_ptr[0] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair0, %ptr0 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x2 = vector.extract %sum[2] : f32 from vector<64xf32>
      %x3 = vector.extract %sum[3] : f32 from vector<64xf32>
      %pair2 = vector.from_elements %x2, %x3 : vector<2xf32>
      %ptr2 = llvm.getelementptr %row1_ptr[0] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair2, %ptr2 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x4 = vector.extract %sum[4] : f32 from vector<64xf32>
      %x5 = vector.extract %sum[5] : f32 from vector<64xf32>
      %pair4 = vector.from_elements %x4, %x5 : vector<2xf32>
      %ptr4 = llvm.getelementptr %row0_ptr[8] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair4, %ptr4 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x6 = vector.extract %sum[6] : f32 from vector<64xf32>
      %x7 = vector.extract %sum[7] : f32 from vector<64xf32>
      %pair6 = vector.from_elements %x6, %x7 : vector<2xf32>
      %ptr6 = llvm.getelementptr %row1_ptr[8] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair6, %ptr6 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x8 = vector.extract %sum[8] : f32 from vector<64xf32>
      %x9 = vector.extract %sum[9] : f32 from vector<64xf32>
      %pair8 = vector.from_elements %x8, %x9 : vector<2xf32>
      %ptr8 = llvm.getelementptr %row0_ptr[16] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair8, %ptr8 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x10 = vector.extract %sum[10] : f32 from vector<64xf32>
      %x11 = vector.extract %sum[11] : f32 from vector<64xf32>
      %pair10 = vector.from_elements %x10, %x11 : vector<2xf32>
      %ptr10 = llvm.getelementptr %row1_ptr[16] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair10, %ptr10 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x12 = vector.extract %sum[12] : f32 from vector<64xf32>
      %x13 = vector.extract %sum[13] : f32 from vector<64xf32>
      %pair12 = vector.from_elements %x12, %x13 : vector<2xf32>
      %ptr12 = llvm.getelementptr %row0_ptr[24] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair12, %ptr12 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x14 = vector.extract %sum[14] : f32 from vector<64xf32>
      %x15 = vector.extract %sum[15] : f32 from vector<64xf32>
      %pair14 = vector.from_elements %x14, %x15 : vector<2xf32>
      %ptr14 = llvm.getelementptr %row1_ptr[24] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair14, %ptr14 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x16 = vector.extract %sum[16] : f32 from vector<64xf32>
      %x17 = vector.extract %sum[17] : f32 from vector<64xf32>
      %pair16 = vector.from_elements %x16, %x17 : vector<2xf32>
      %ptr16 = llvm.getelementptr %row0_ptr[32] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair16, %ptr16 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x18 = vector.extract %sum[18] : f32 from vector<64xf32>
      %x19 = vector.extract %sum[19] : f32 from vector<64xf32>
      %pair18 = vector.from_elements %x18, %x19 : vector<2xf32>
      %ptr18 = llvm.getelementptr %row1_ptr[32] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair18, %ptr18 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x20 = vector.extract %sum[20] : f32 from vector<64xf32>
      %x21 = vector.extract %sum[21] : f32 from vector<64xf32>
      %pair20 = vector.from_elements %x20, %x21 : vector<2xf32>
      %ptr20 = llvm.getelementptr %row0_ptr[40] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair20, %ptr20 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x22 = vector.extract %sum[22] : f32 from vector<64xf32>
      %x23 = vector.extract %sum[23] : f32 from vector<64xf32>
      %pair22 = vector.from_elements %x22, %x23 : vector<2xf32>
      %ptr22 = llvm.getelementptr %row1_ptr[40] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair22, %ptr22 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x24 = vector.extract %sum[24] : f32 from vector<64xf32>
      %x25 = vector.extract %sum[25] : f32 from vector<64xf32>
      %pair24 = vector.from_elements %x24, %x25 : vector<2xf32>
      %ptr24 = llvm.getelementptr %row0_ptr[48] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair24, %ptr24 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x26 = vector.extract %sum[26] : f32 from vector<64xf32>
      %x27 = vector.extract %sum[27] : f32 from vector<64xf32>
      %pair26 = vector.from_elements %x26, %x27 : vector<2xf32>
      %ptr26 = llvm.getelementptr %row1_ptr[48] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair26, %ptr26 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x28 = vector.extract %sum[28] : f32 from vector<64xf32>
      %x29 = vector.extract %sum[29] : f32 from vector<64xf32>
      %pair28 = vector.from_elements %x28, %x29 : vector<2xf32>
      %ptr28 = llvm.getelementptr %row0_ptr[56] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair28, %ptr28 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x30 = vector.extract %sum[30] : f32 from vector<64xf32>
      %x31 = vector.extract %sum[31] : f32 from vector<64xf32>
      %pair30 = vector.from_elements %x30, %x31 : vector<2xf32>
      %ptr30 = llvm.getelementptr %row1_ptr[56] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair30, %ptr30 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x32 = vector.extract %sum[32] : f32 from vector<64xf32>
      %x33 = vector.extract %sum[33] : f32 from vector<64xf32>
      %pair32 = vector.from_elements %x32, %x33 : vector<2xf32>
      %ptr32 = llvm.getelementptr %row0_ptr[64] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair32, %ptr32 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x34 = vector.extract %sum[34] : f32 from vector<64xf32>
      %x35 = vector.extract %sum[35] : f32 from vector<64xf32>
      %pair34 = vector.from_elements %x34, %x35 : vector<2xf32>
      %ptr34 = llvm.getelementptr %row1_ptr[64] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair34, %ptr34 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x36 = vector.extract %sum[36] : f32 from vector<64xf32>
      %x37 = vector.extract %sum[37] : f32 from vector<64xf32>
      %pair36 = vector.from_elements %x36, %x37 : vector<2xf32>
      %ptr36 = llvm.getelementptr %row0_ptr[72] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair36, %ptr36 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x38 = vector.extract %sum[38] : f32 from vector<64xf32>
      %x39 = vector.extract %sum[39] : f32 from vector<64xf32>
      %pair38 = vector.from_elements %x38, %x39 : vector<2xf32>
      %ptr38 = llvm.getelementptr %row1_ptr[72] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair38, %ptr38 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x40 = vector.extract %sum[40] : f32 from vector<64xf32>
      %x41 = vector.extract %sum[41] : f32 from vector<64xf32>
      %pair40 = vector.from_elements %x40, %x41 : vector<2xf32>
      %ptr40 = llvm.getelementptr %row0_ptr[80] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair40, %ptr40 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x42 = vector.extract %sum[42] : f32 from vector<64xf32>
      %x43 = vector.extract %sum[43] : f32 from vector<64xf32>
      %pair42 = vector.from_elements %x42, %x43 : vector<2xf32>
      %ptr42 = llvm.getelementptr %row1_ptr[80] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair42, %ptr42 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x44 = vector.extract %sum[44] : f32 from vector<64xf32>
      %x45 = vector.extract %sum[45] : f32 from vector<64xf32>
      %pair44 = vector.from_elements %x44, %x45 : vector<2xf32>
      %ptr44 = llvm.getelementptr %row0_ptr[88] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair44, %ptr44 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x46 = vector.extract %sum[46] : f32 from vector<64xf32>
      %x47 = vector.extract %sum[47] : f32 from vector<64xf32>
      %pair46 = vector.from_elements %x46, %x47 : vector<2xf32>
      %ptr46 = llvm.getelementptr %row1_ptr[88] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair46, %ptr46 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x48 = vector.extract %sum[48] : f32 from vector<64xf32>
      %x49 = vector.extract %sum[49] : f32 from vector<64xf32>
      %pair48 = vector.from_elements %x48, %x49 : vector<2xf32>
      %ptr48 = llvm.getelementptr %row0_ptr[96] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair48, %ptr48 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x50 = vector.extract %sum[50] : f32 from vector<64xf32>
      %x51 = vector.extract %sum[51] : f32 from vector<64xf32>
      %pair50 = vector.from_elements %x50, %x51 : vector<2xf32>
      %ptr50 = llvm.getelementptr %row1_ptr[96] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair50, %ptr50 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x52 = vector.extract %sum[52] : f32 from vector<64xf32>
      %x53 = vector.extract %sum[53] : f32 from vector<64xf32>
      %pair52 = vector.from_elements %x52, %x53 : vector<2xf32>
      %ptr52 = llvm.getelementptr %row0_ptr[104] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair52, %ptr52 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x54 = vector.extract %sum[54] : f32 from vector<64xf32>
      %x55 = vector.extract %sum[55] : f32 from vector<64xf32>
      %pair54 = vector.from_elements %x54, %x55 : vector<2xf32>
      %ptr54 = llvm.getelementptr %row1_ptr[104] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair54, %ptr54 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x56 = vector.extract %sum[56] : f32 from vector<64xf32>
      %x57 = vector.extract %sum[57] : f32 from vector<64xf32>
      %pair56 = vector.from_elements %x56, %x57 : vector<2xf32>
      %ptr56 = llvm.getelementptr %row0_ptr[112] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair56, %ptr56 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x58 = vector.extract %sum[58] : f32 from vector<64xf32>
      %x59 = vector.extract %sum[59] : f32 from vector<64xf32>
      %pair58 = vector.from_elements %x58, %x59 : vector<2xf32>
      %ptr58 = llvm.getelementptr %row1_ptr[112] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair58, %ptr58 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x60 = vector.extract %sum[60] : f32 from vector<64xf32>
      %x61 = vector.extract %sum[61] : f32 from vector<64xf32>
      %pair60 = vector.from_elements %x60, %x61 : vector<2xf32>
      %ptr60 = llvm.getelementptr %row0_ptr[120] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair60, %ptr60 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x62 = vector.extract %sum[62] : f32 from vector<64xf32>
      %x63 = vector.extract %sum[63] : f32 from vector<64xf32>
      %pair62 = vector.from_elements %x62, %x63 : vector<2xf32>
      %ptr62 = llvm.getelementptr %row1_ptr[120] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair62, %ptr62 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
    }
    gpu.return
  }
  gpu.func @wgmma_f16_pipelined(%da: !llvm.ptr, %db: !llvm.ptr, %c: !llvm.ptr<1>, %ktiles: i32) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %a = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<64x64xf16, #ws>
    %b = "nvasync.smem_buffer"() {offset = 8192 : i64} : () -> memref<64x64xf16, #ws>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant dense<0.0> : vector<32xf32>
    %n = arith.index_cast %ktiles : i32 to index
    %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (vector<32xf32>) {
      %i32 = arith.index_cast %i : index to i32
      %c64_i32 = arith.constant 64 : i32
      %kx = arith.muli %i32, %c64_i32 : i32
      %c0_i32 = arith.constant 0 : i32
      "nvasync.pipeline_load"(%da, %a, %c0_i32, %kx) {role = "a"} : (!llvm.ptr, memref<64x64xf16, #ws>, i32, i32) -> ()
      "nvasync.pipeline_load"(%db, %b, %c0_i32, %kx) {role = "b"} : (!llvm.ptr, memref<64x64xf16, #ws>, i32, i32) -> ()
      %a0 = memref.subview %a[0, 0] [64, 16] [1, 1] : memref<64x64xf16, #ws> to memref<64x16xf16, strided<[64, 1], offset: 0>, #ws>
      %a1 = memref.subview %a[0, 16] [64, 16] [1, 1] : memref<64x64xf16, #ws> to memref<64x16xf16, strided<[64, 1], offset: 16>, #ws>
      %a2 = memref.subview %a[0, 32] [64, 16] [1, 1] : memref<64x64xf16, #ws> to memref<64x16xf16, strided<[64, 1], offset: 32>, #ws>
      %a3 = memref.subview %a[0, 48] [64, 16] [1, 1] : memref<64x64xf16, #ws> to memref<64x16xf16, strided<[64, 1], offset: 48>, #ws>
      %b0 = memref.subview %b[0, 0] [64, 16] [1, 1] : memref<64x64xf16, #ws> to memref<64x16xf16, strided<[64, 1], offset: 0>, #ws>
      %b1 = memref.subview %b[0, 16] [64, 16] [1, 1] : memref<64x64xf16, #ws> to memref<64x16xf16, strided<[64, 1], offset: 16>, #ws>
      %b2 = memref.subview %b[0, 32] [64, 16] [1, 1] : memref<64x64xf16, #ws> to memref<64x16xf16, strided<[64, 1], offset: 32>, #ws>
      %b3 = memref.subview %b[0, 48] [64, 16] [1, 1] : memref<64x64xf16, #ws> to memref<64x16xf16, strided<[64, 1], offset: 48>, #ws>
      %r0 = "nvasync.wgmma"(%a0, %b0, %acc) {swizzle = 128 : i32, accumulate = true} : (memref<64x16xf16, strided<[64, 1], offset: 0>, #ws>, memref<64x16xf16, strided<[64, 1], offset: 0>, #ws>, vector<32xf32>) -> vector<32xf32>
      %r1 = "nvasync.wgmma"(%a1, %b1, %r0) {swizzle = 128 : i32, accumulate = true} : (memref<64x16xf16, strided<[64, 1], offset: 16>, #ws>, memref<64x16xf16, strided<[64, 1], offset: 16>, #ws>, vector<32xf32>) -> vector<32xf32>
      %r2 = "nvasync.wgmma"(%a2, %b2, %r1) {swizzle = 128 : i32, accumulate = true} : (memref<64x16xf16, strided<[64, 1], offset: 32>, #ws>, memref<64x16xf16, strided<[64, 1], offset: 32>, #ws>, vector<32xf32>) -> vector<32xf32>
      %r3 = "nvasync.wgmma"(%a3, %b3, %r2) {swizzle = 128 : i32, accumulate = true} : (memref<64x16xf16, strided<[64, 1], offset: 48>, #ws>, memref<64x16xf16, strided<[64, 1], offset: 48>, #ws>, vector<32xf32>) -> vector<32xf32>
      scf.yield %r3 : vector<32xf32>
    } {nvasync.pipeline = {stages = 3 : i64, mode = "pipelined"}}
    %tid = gpu.thread_id x
    %c128 = arith.constant 128 : index
    %consumer = arith.cmpi ult, %tid, %c128 : index
    scf.if %consumer {
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %cn = arith.constant 64 : index
      %warp = arith.divui %tid, %c32 : index
      %lane = arith.remui %tid, %c32 : index
      %quad = arith.divui %lane, %c4 : index
      %pos = arith.remui %lane, %c4 : index
      %wrow = arith.muli %warp, %c16 : index
      %row0 = arith.addi %wrow, %quad : index
      %row8 = arith.addi %row0, %c8 : index
      %col0 = arith.muli %pos, %c2 : index
      %rowoff0 = arith.muli %row0, %cn : index
      %rowoff8 = arith.muli %row8, %cn : index
      %off0 = arith.addi %rowoff0, %col0 : index
      %off0_i64 = arith.index_cast %off0 : index to i64
      %row0_ptr = llvm.getelementptr %c[%off0_i64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      %off1 = arith.addi %rowoff8, %col0 : index
      %off1_i64 = arith.index_cast %off1 : index to i64
      %row1_ptr = llvm.getelementptr %c[%off1_i64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      // register 4j + 2h + e -> C[row{0, 8}[h], 8j + col0 + e]: one 8-byte store per (j, h)
      %x0 = vector.extract %sum[0] : f32 from vector<32xf32>
      %x1 = vector.extract %sum[1] : f32 from vector<32xf32>
      %pair0 = vector.from_elements %x0, %x1 : vector<2xf32>
      %ptr0 = llvm.getelementptr %row0_ptr[0] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair0, %ptr0 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x2 = vector.extract %sum[2] : f32 from vector<32xf32>
      %x3 = vector.extract %sum[3] : f32 from vector<32xf32>
      %pair2 = vector.from_elements %x2, %x3 : vector<2xf32>
      %ptr2 = llvm.getelementptr %row1_ptr[0] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair2, %ptr2 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x4 = vector.extract %sum[4] : f32 from vector<32xf32>
      %x5 = vector.extract %sum[5] : f32 from vector<32xf32>
      %pair4 = vector.from_elements %x4, %x5 : vector<2xf32>
      %ptr4 = llvm.getelementptr %row0_ptr[8] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair4, %ptr4 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x6 = vector.extract %sum[6] : f32 from vector<32xf32>
      %x7 = vector.extract %sum[7] : f32 from vector<32xf32>
      %pair6 = vector.from_elements %x6, %x7 : vector<2xf32>
      %ptr6 = llvm.getelementptr %row1_ptr[8] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair6, %ptr6 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x8 = vector.extract %sum[8] : f32 from vector<32xf32>
      %x9 = vector.extract %sum[9] : f32 from vector<32xf32>
      %pair8 = vector.from_elements %x8, %x9 : vector<2xf32>
      %ptr8 = llvm.getelementptr %row0_ptr[16] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair8, %ptr8 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x10 = vector.extract %sum[10] : f32 from vector<32xf32>
      %x11 = vector.extract %sum[11] : f32 from vector<32xf32>
      %pair10 = vector.from_elements %x10, %x11 : vector<2xf32>
      %ptr10 = llvm.getelementptr %row1_ptr[16] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair10, %ptr10 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x12 = vector.extract %sum[12] : f32 from vector<32xf32>
      %x13 = vector.extract %sum[13] : f32 from vector<32xf32>
      %pair12 = vector.from_elements %x12, %x13 : vector<2xf32>
      %ptr12 = llvm.getelementptr %row0_ptr[24] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair12, %ptr12 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x14 = vector.extract %sum[14] : f32 from vector<32xf32>
      %x15 = vector.extract %sum[15] : f32 from vector<32xf32>
      %pair14 = vector.from_elements %x14, %x15 : vector<2xf32>
      %ptr14 = llvm.getelementptr %row1_ptr[24] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair14, %ptr14 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x16 = vector.extract %sum[16] : f32 from vector<32xf32>
      %x17 = vector.extract %sum[17] : f32 from vector<32xf32>
      %pair16 = vector.from_elements %x16, %x17 : vector<2xf32>
      %ptr16 = llvm.getelementptr %row0_ptr[32] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair16, %ptr16 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x18 = vector.extract %sum[18] : f32 from vector<32xf32>
      %x19 = vector.extract %sum[19] : f32 from vector<32xf32>
      %pair18 = vector.from_elements %x18, %x19 : vector<2xf32>
      %ptr18 = llvm.getelementptr %row1_ptr[32] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair18, %ptr18 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x20 = vector.extract %sum[20] : f32 from vector<32xf32>
      %x21 = vector.extract %sum[21] : f32 from vector<32xf32>
      %pair20 = vector.from_elements %x20, %x21 : vector<2xf32>
      %ptr20 = llvm.getelementptr %row0_ptr[40] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair20, %ptr20 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x22 = vector.extract %sum[22] : f32 from vector<32xf32>
      %x23 = vector.extract %sum[23] : f32 from vector<32xf32>
      %pair22 = vector.from_elements %x22, %x23 : vector<2xf32>
      %ptr22 = llvm.getelementptr %row1_ptr[40] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair22, %ptr22 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x24 = vector.extract %sum[24] : f32 from vector<32xf32>
      %x25 = vector.extract %sum[25] : f32 from vector<32xf32>
      %pair24 = vector.from_elements %x24, %x25 : vector<2xf32>
      %ptr24 = llvm.getelementptr %row0_ptr[48] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair24, %ptr24 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x26 = vector.extract %sum[26] : f32 from vector<32xf32>
      %x27 = vector.extract %sum[27] : f32 from vector<32xf32>
      %pair26 = vector.from_elements %x26, %x27 : vector<2xf32>
      %ptr26 = llvm.getelementptr %row1_ptr[48] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair26, %ptr26 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x28 = vector.extract %sum[28] : f32 from vector<32xf32>
      %x29 = vector.extract %sum[29] : f32 from vector<32xf32>
      %pair28 = vector.from_elements %x28, %x29 : vector<2xf32>
      %ptr28 = llvm.getelementptr %row0_ptr[56] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair28, %ptr28 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x30 = vector.extract %sum[30] : f32 from vector<32xf32>
      %x31 = vector.extract %sum[31] : f32 from vector<32xf32>
      %pair30 = vector.from_elements %x30, %x31 : vector<2xf32>
      %ptr30 = llvm.getelementptr %row1_ptr[56] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair30, %ptr30 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
    }
    gpu.return
  }
  gpu.func @wgmma_bf16_ws(%da: !llvm.ptr, %db: !llvm.ptr, %c: !llvm.ptr<1>, %ktiles: i32) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %a = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<64x64xbf16, #ws>
    %b = "nvasync.smem_buffer"() {offset = 8192 : i64} : () -> memref<128x64xbf16, #ws>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant dense<0.0> : vector<64xf32>
    %n = arith.index_cast %ktiles : i32 to index
    %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (vector<64xf32>) {
      %i32 = arith.index_cast %i : index to i32
      %c64_i32 = arith.constant 64 : i32
      %kx = arith.muli %i32, %c64_i32 : i32
      %c0_i32 = arith.constant 0 : i32
      "nvasync.pipeline_load"(%da, %a, %c0_i32, %kx) {role = "a"} : (!llvm.ptr, memref<64x64xbf16, #ws>, i32, i32) -> ()
      "nvasync.pipeline_load"(%db, %b, %c0_i32, %kx) {role = "b"} : (!llvm.ptr, memref<128x64xbf16, #ws>, i32, i32) -> ()
      %a0 = memref.subview %a[0, 0] [64, 16] [1, 1] : memref<64x64xbf16, #ws> to memref<64x16xbf16, strided<[64, 1], offset: 0>, #ws>
      %a1 = memref.subview %a[0, 16] [64, 16] [1, 1] : memref<64x64xbf16, #ws> to memref<64x16xbf16, strided<[64, 1], offset: 16>, #ws>
      %a2 = memref.subview %a[0, 32] [64, 16] [1, 1] : memref<64x64xbf16, #ws> to memref<64x16xbf16, strided<[64, 1], offset: 32>, #ws>
      %a3 = memref.subview %a[0, 48] [64, 16] [1, 1] : memref<64x64xbf16, #ws> to memref<64x16xbf16, strided<[64, 1], offset: 48>, #ws>
      %b0 = memref.subview %b[0, 0] [128, 16] [1, 1] : memref<128x64xbf16, #ws> to memref<128x16xbf16, strided<[64, 1], offset: 0>, #ws>
      %b1 = memref.subview %b[0, 16] [128, 16] [1, 1] : memref<128x64xbf16, #ws> to memref<128x16xbf16, strided<[64, 1], offset: 16>, #ws>
      %b2 = memref.subview %b[0, 32] [128, 16] [1, 1] : memref<128x64xbf16, #ws> to memref<128x16xbf16, strided<[64, 1], offset: 32>, #ws>
      %b3 = memref.subview %b[0, 48] [128, 16] [1, 1] : memref<128x64xbf16, #ws> to memref<128x16xbf16, strided<[64, 1], offset: 48>, #ws>
      %r0 = "nvasync.wgmma"(%a0, %b0, %acc) {swizzle = 128 : i32, accumulate = true} : (memref<64x16xbf16, strided<[64, 1], offset: 0>, #ws>, memref<128x16xbf16, strided<[64, 1], offset: 0>, #ws>, vector<64xf32>) -> vector<64xf32>
      %r1 = "nvasync.wgmma"(%a1, %b1, %r0) {swizzle = 128 : i32, accumulate = true} : (memref<64x16xbf16, strided<[64, 1], offset: 16>, #ws>, memref<128x16xbf16, strided<[64, 1], offset: 16>, #ws>, vector<64xf32>) -> vector<64xf32>
      %r2 = "nvasync.wgmma"(%a2, %b2, %r1) {swizzle = 128 : i32, accumulate = true} : (memref<64x16xbf16, strided<[64, 1], offset: 32>, #ws>, memref<128x16xbf16, strided<[64, 1], offset: 32>, #ws>, vector<64xf32>) -> vector<64xf32>
      %r3 = "nvasync.wgmma"(%a3, %b3, %r2) {swizzle = 128 : i32, accumulate = true} : (memref<64x16xbf16, strided<[64, 1], offset: 48>, #ws>, memref<128x16xbf16, strided<[64, 1], offset: 48>, #ws>, vector<64xf32>) -> vector<64xf32>
      scf.yield %r3 : vector<64xf32>
    } {nvasync.pipeline = {stages = 3 : i64, mode = "warp_specialized", producer_regs = 40 : i64, consumer_regs = 232 : i64}}
    %tid = gpu.thread_id x
    %c128 = arith.constant 128 : index
    %consumer = arith.cmpi ult, %tid, %c128 : index
    scf.if %consumer {
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %cn = arith.constant 128 : index
      %warp = arith.divui %tid, %c32 : index
      %lane = arith.remui %tid, %c32 : index
      %quad = arith.divui %lane, %c4 : index
      %pos = arith.remui %lane, %c4 : index
      %wrow = arith.muli %warp, %c16 : index
      %row0 = arith.addi %wrow, %quad : index
      %row8 = arith.addi %row0, %c8 : index
      %col0 = arith.muli %pos, %c2 : index
      %rowoff0 = arith.muli %row0, %cn : index
      %rowoff8 = arith.muli %row8, %cn : index
      %off0 = arith.addi %rowoff0, %col0 : index
      %off0_i64 = arith.index_cast %off0 : index to i64
      %row0_ptr = llvm.getelementptr %c[%off0_i64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      %off1 = arith.addi %rowoff8, %col0 : index
      %off1_i64 = arith.index_cast %off1 : index to i64
      %row1_ptr = llvm.getelementptr %c[%off1_i64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      // register 4j + 2h + e -> C[row{0, 8}[h], 8j + col0 + e]: one 8-byte store per (j, h)
      %x0 = vector.extract %sum[0] : f32 from vector<64xf32>
      %x1 = vector.extract %sum[1] : f32 from vector<64xf32>
      %pair0 = vector.from_elements %x0, %x1 : vector<2xf32>
      %ptr0 = llvm.getelementptr %row0_ptr[0] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair0, %ptr0 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x2 = vector.extract %sum[2] : f32 from vector<64xf32>
      %x3 = vector.extract %sum[3] : f32 from vector<64xf32>
      %pair2 = vector.from_elements %x2, %x3 : vector<2xf32>
      %ptr2 = llvm.getelementptr %row1_ptr[0] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair2, %ptr2 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x4 = vector.extract %sum[4] : f32 from vector<64xf32>
      %x5 = vector.extract %sum[5] : f32 from vector<64xf32>
      %pair4 = vector.from_elements %x4, %x5 : vector<2xf32>
      %ptr4 = llvm.getelementptr %row0_ptr[8] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair4, %ptr4 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x6 = vector.extract %sum[6] : f32 from vector<64xf32>
      %x7 = vector.extract %sum[7] : f32 from vector<64xf32>
      %pair6 = vector.from_elements %x6, %x7 : vector<2xf32>
      %ptr6 = llvm.getelementptr %row1_ptr[8] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair6, %ptr6 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x8 = vector.extract %sum[8] : f32 from vector<64xf32>
      %x9 = vector.extract %sum[9] : f32 from vector<64xf32>
      %pair8 = vector.from_elements %x8, %x9 : vector<2xf32>
      %ptr8 = llvm.getelementptr %row0_ptr[16] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair8, %ptr8 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x10 = vector.extract %sum[10] : f32 from vector<64xf32>
      %x11 = vector.extract %sum[11] : f32 from vector<64xf32>
      %pair10 = vector.from_elements %x10, %x11 : vector<2xf32>
      %ptr10 = llvm.getelementptr %row1_ptr[16] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair10, %ptr10 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x12 = vector.extract %sum[12] : f32 from vector<64xf32>
      %x13 = vector.extract %sum[13] : f32 from vector<64xf32>
      %pair12 = vector.from_elements %x12, %x13 : vector<2xf32>
      %ptr12 = llvm.getelementptr %row0_ptr[24] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair12, %ptr12 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x14 = vector.extract %sum[14] : f32 from vector<64xf32>
      %x15 = vector.extract %sum[15] : f32 from vector<64xf32>
      %pair14 = vector.from_elements %x14, %x15 : vector<2xf32>
      %ptr14 = llvm.getelementptr %row1_ptr[24] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair14, %ptr14 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x16 = vector.extract %sum[16] : f32 from vector<64xf32>
      %x17 = vector.extract %sum[17] : f32 from vector<64xf32>
      %pair16 = vector.from_elements %x16, %x17 : vector<2xf32>
      %ptr16 = llvm.getelementptr %row0_ptr[32] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair16, %ptr16 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x18 = vector.extract %sum[18] : f32 from vector<64xf32>
      %x19 = vector.extract %sum[19] : f32 from vector<64xf32>
      %pair18 = vector.from_elements %x18, %x19 : vector<2xf32>
      %ptr18 = llvm.getelementptr %row1_ptr[32] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair18, %ptr18 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x20 = vector.extract %sum[20] : f32 from vector<64xf32>
      %x21 = vector.extract %sum[21] : f32 from vector<64xf32>
      %pair20 = vector.from_elements %x20, %x21 : vector<2xf32>
      %ptr20 = llvm.getelementptr %row0_ptr[40] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair20, %ptr20 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x22 = vector.extract %sum[22] : f32 from vector<64xf32>
      %x23 = vector.extract %sum[23] : f32 from vector<64xf32>
      %pair22 = vector.from_elements %x22, %x23 : vector<2xf32>
      %ptr22 = llvm.getelementptr %row1_ptr[40] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair22, %ptr22 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x24 = vector.extract %sum[24] : f32 from vector<64xf32>
      %x25 = vector.extract %sum[25] : f32 from vector<64xf32>
      %pair24 = vector.from_elements %x24, %x25 : vector<2xf32>
      %ptr24 = llvm.getelementptr %row0_ptr[48] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair24, %ptr24 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x26 = vector.extract %sum[26] : f32 from vector<64xf32>
      %x27 = vector.extract %sum[27] : f32 from vector<64xf32>
      %pair26 = vector.from_elements %x26, %x27 : vector<2xf32>
      %ptr26 = llvm.getelementptr %row1_ptr[48] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair26, %ptr26 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x28 = vector.extract %sum[28] : f32 from vector<64xf32>
      %x29 = vector.extract %sum[29] : f32 from vector<64xf32>
      %pair28 = vector.from_elements %x28, %x29 : vector<2xf32>
      %ptr28 = llvm.getelementptr %row0_ptr[56] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair28, %ptr28 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x30 = vector.extract %sum[30] : f32 from vector<64xf32>
      %x31 = vector.extract %sum[31] : f32 from vector<64xf32>
      %pair30 = vector.from_elements %x30, %x31 : vector<2xf32>
      %ptr30 = llvm.getelementptr %row1_ptr[56] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair30, %ptr30 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x32 = vector.extract %sum[32] : f32 from vector<64xf32>
      %x33 = vector.extract %sum[33] : f32 from vector<64xf32>
      %pair32 = vector.from_elements %x32, %x33 : vector<2xf32>
      %ptr32 = llvm.getelementptr %row0_ptr[64] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair32, %ptr32 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x34 = vector.extract %sum[34] : f32 from vector<64xf32>
      %x35 = vector.extract %sum[35] : f32 from vector<64xf32>
      %pair34 = vector.from_elements %x34, %x35 : vector<2xf32>
      %ptr34 = llvm.getelementptr %row1_ptr[64] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair34, %ptr34 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x36 = vector.extract %sum[36] : f32 from vector<64xf32>
      %x37 = vector.extract %sum[37] : f32 from vector<64xf32>
      %pair36 = vector.from_elements %x36, %x37 : vector<2xf32>
      %ptr36 = llvm.getelementptr %row0_ptr[72] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair36, %ptr36 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x38 = vector.extract %sum[38] : f32 from vector<64xf32>
      %x39 = vector.extract %sum[39] : f32 from vector<64xf32>
      %pair38 = vector.from_elements %x38, %x39 : vector<2xf32>
      %ptr38 = llvm.getelementptr %row1_ptr[72] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair38, %ptr38 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x40 = vector.extract %sum[40] : f32 from vector<64xf32>
      %x41 = vector.extract %sum[41] : f32 from vector<64xf32>
      %pair40 = vector.from_elements %x40, %x41 : vector<2xf32>
      %ptr40 = llvm.getelementptr %row0_ptr[80] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair40, %ptr40 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x42 = vector.extract %sum[42] : f32 from vector<64xf32>
      %x43 = vector.extract %sum[43] : f32 from vector<64xf32>
      %pair42 = vector.from_elements %x42, %x43 : vector<2xf32>
      %ptr42 = llvm.getelementptr %row1_ptr[80] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair42, %ptr42 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x44 = vector.extract %sum[44] : f32 from vector<64xf32>
      %x45 = vector.extract %sum[45] : f32 from vector<64xf32>
      %pair44 = vector.from_elements %x44, %x45 : vector<2xf32>
      %ptr44 = llvm.getelementptr %row0_ptr[88] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair44, %ptr44 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x46 = vector.extract %sum[46] : f32 from vector<64xf32>
      %x47 = vector.extract %sum[47] : f32 from vector<64xf32>
      %pair46 = vector.from_elements %x46, %x47 : vector<2xf32>
      %ptr46 = llvm.getelementptr %row1_ptr[88] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair46, %ptr46 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x48 = vector.extract %sum[48] : f32 from vector<64xf32>
      %x49 = vector.extract %sum[49] : f32 from vector<64xf32>
      %pair48 = vector.from_elements %x48, %x49 : vector<2xf32>
      %ptr48 = llvm.getelementptr %row0_ptr[96] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair48, %ptr48 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x50 = vector.extract %sum[50] : f32 from vector<64xf32>
      %x51 = vector.extract %sum[51] : f32 from vector<64xf32>
      %pair50 = vector.from_elements %x50, %x51 : vector<2xf32>
      %ptr50 = llvm.getelementptr %row1_ptr[96] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair50, %ptr50 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x52 = vector.extract %sum[52] : f32 from vector<64xf32>
      %x53 = vector.extract %sum[53] : f32 from vector<64xf32>
      %pair52 = vector.from_elements %x52, %x53 : vector<2xf32>
      %ptr52 = llvm.getelementptr %row0_ptr[104] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair52, %ptr52 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x54 = vector.extract %sum[54] : f32 from vector<64xf32>
      %x55 = vector.extract %sum[55] : f32 from vector<64xf32>
      %pair54 = vector.from_elements %x54, %x55 : vector<2xf32>
      %ptr54 = llvm.getelementptr %row1_ptr[104] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair54, %ptr54 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x56 = vector.extract %sum[56] : f32 from vector<64xf32>
      %x57 = vector.extract %sum[57] : f32 from vector<64xf32>
      %pair56 = vector.from_elements %x56, %x57 : vector<2xf32>
      %ptr56 = llvm.getelementptr %row0_ptr[112] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair56, %ptr56 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x58 = vector.extract %sum[58] : f32 from vector<64xf32>
      %x59 = vector.extract %sum[59] : f32 from vector<64xf32>
      %pair58 = vector.from_elements %x58, %x59 : vector<2xf32>
      %ptr58 = llvm.getelementptr %row1_ptr[112] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair58, %ptr58 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x60 = vector.extract %sum[60] : f32 from vector<64xf32>
      %x61 = vector.extract %sum[61] : f32 from vector<64xf32>
      %pair60 = vector.from_elements %x60, %x61 : vector<2xf32>
      %ptr60 = llvm.getelementptr %row0_ptr[120] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair60, %ptr60 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x62 = vector.extract %sum[62] : f32 from vector<64xf32>
      %x63 = vector.extract %sum[63] : f32 from vector<64xf32>
      %pair62 = vector.from_elements %x62, %x63 : vector<2xf32>
      %ptr62 = llvm.getelementptr %row1_ptr[120] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair62, %ptr62 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
    }
    gpu.return
  }
  gpu.func @wgmma_f16_ws(%da: !llvm.ptr, %db: !llvm.ptr, %c: !llvm.ptr<1>, %ktiles: i32) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %a = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<64x64xf16, #ws>
    %b = "nvasync.smem_buffer"() {offset = 8192 : i64} : () -> memref<64x64xf16, #ws>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant dense<0.0> : vector<32xf32>
    %n = arith.index_cast %ktiles : i32 to index
    %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (vector<32xf32>) {
      %i32 = arith.index_cast %i : index to i32
      %c64_i32 = arith.constant 64 : i32
      %kx = arith.muli %i32, %c64_i32 : i32
      %c0_i32 = arith.constant 0 : i32
      "nvasync.pipeline_load"(%da, %a, %c0_i32, %kx) {role = "a"} : (!llvm.ptr, memref<64x64xf16, #ws>, i32, i32) -> ()
      "nvasync.pipeline_load"(%db, %b, %c0_i32, %kx) {role = "b"} : (!llvm.ptr, memref<64x64xf16, #ws>, i32, i32) -> ()
      %a0 = memref.subview %a[0, 0] [64, 16] [1, 1] : memref<64x64xf16, #ws> to memref<64x16xf16, strided<[64, 1], offset: 0>, #ws>
      %a1 = memref.subview %a[0, 16] [64, 16] [1, 1] : memref<64x64xf16, #ws> to memref<64x16xf16, strided<[64, 1], offset: 16>, #ws>
      %a2 = memref.subview %a[0, 32] [64, 16] [1, 1] : memref<64x64xf16, #ws> to memref<64x16xf16, strided<[64, 1], offset: 32>, #ws>
      %a3 = memref.subview %a[0, 48] [64, 16] [1, 1] : memref<64x64xf16, #ws> to memref<64x16xf16, strided<[64, 1], offset: 48>, #ws>
      %b0 = memref.subview %b[0, 0] [64, 16] [1, 1] : memref<64x64xf16, #ws> to memref<64x16xf16, strided<[64, 1], offset: 0>, #ws>
      %b1 = memref.subview %b[0, 16] [64, 16] [1, 1] : memref<64x64xf16, #ws> to memref<64x16xf16, strided<[64, 1], offset: 16>, #ws>
      %b2 = memref.subview %b[0, 32] [64, 16] [1, 1] : memref<64x64xf16, #ws> to memref<64x16xf16, strided<[64, 1], offset: 32>, #ws>
      %b3 = memref.subview %b[0, 48] [64, 16] [1, 1] : memref<64x64xf16, #ws> to memref<64x16xf16, strided<[64, 1], offset: 48>, #ws>
      %r0 = "nvasync.wgmma"(%a0, %b0, %acc) {swizzle = 128 : i32, accumulate = true} : (memref<64x16xf16, strided<[64, 1], offset: 0>, #ws>, memref<64x16xf16, strided<[64, 1], offset: 0>, #ws>, vector<32xf32>) -> vector<32xf32>
      %r1 = "nvasync.wgmma"(%a1, %b1, %r0) {swizzle = 128 : i32, accumulate = true} : (memref<64x16xf16, strided<[64, 1], offset: 16>, #ws>, memref<64x16xf16, strided<[64, 1], offset: 16>, #ws>, vector<32xf32>) -> vector<32xf32>
      %r2 = "nvasync.wgmma"(%a2, %b2, %r1) {swizzle = 128 : i32, accumulate = true} : (memref<64x16xf16, strided<[64, 1], offset: 32>, #ws>, memref<64x16xf16, strided<[64, 1], offset: 32>, #ws>, vector<32xf32>) -> vector<32xf32>
      %r3 = "nvasync.wgmma"(%a3, %b3, %r2) {swizzle = 128 : i32, accumulate = true} : (memref<64x16xf16, strided<[64, 1], offset: 48>, #ws>, memref<64x16xf16, strided<[64, 1], offset: 48>, #ws>, vector<32xf32>) -> vector<32xf32>
      scf.yield %r3 : vector<32xf32>
    } {nvasync.pipeline = {stages = 3 : i64, mode = "warp_specialized", producer_regs = 40 : i64, consumer_regs = 232 : i64}}
    %tid = gpu.thread_id x
    %c128 = arith.constant 128 : index
    %consumer = arith.cmpi ult, %tid, %c128 : index
    scf.if %consumer {
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %cn = arith.constant 64 : index
      %warp = arith.divui %tid, %c32 : index
      %lane = arith.remui %tid, %c32 : index
      %quad = arith.divui %lane, %c4 : index
      %pos = arith.remui %lane, %c4 : index
      %wrow = arith.muli %warp, %c16 : index
      %row0 = arith.addi %wrow, %quad : index
      %row8 = arith.addi %row0, %c8 : index
      %col0 = arith.muli %pos, %c2 : index
      %rowoff0 = arith.muli %row0, %cn : index
      %rowoff8 = arith.muli %row8, %cn : index
      %off0 = arith.addi %rowoff0, %col0 : index
      %off0_i64 = arith.index_cast %off0 : index to i64
      %row0_ptr = llvm.getelementptr %c[%off0_i64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      %off1 = arith.addi %rowoff8, %col0 : index
      %off1_i64 = arith.index_cast %off1 : index to i64
      %row1_ptr = llvm.getelementptr %c[%off1_i64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      // register 4j + 2h + e -> C[row{0, 8}[h], 8j + col0 + e]: one 8-byte store per (j, h)
      %x0 = vector.extract %sum[0] : f32 from vector<32xf32>
      %x1 = vector.extract %sum[1] : f32 from vector<32xf32>
      %pair0 = vector.from_elements %x0, %x1 : vector<2xf32>
      %ptr0 = llvm.getelementptr %row0_ptr[0] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair0, %ptr0 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x2 = vector.extract %sum[2] : f32 from vector<32xf32>
      %x3 = vector.extract %sum[3] : f32 from vector<32xf32>
      %pair2 = vector.from_elements %x2, %x3 : vector<2xf32>
      %ptr2 = llvm.getelementptr %row1_ptr[0] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair2, %ptr2 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x4 = vector.extract %sum[4] : f32 from vector<32xf32>
      %x5 = vector.extract %sum[5] : f32 from vector<32xf32>
      %pair4 = vector.from_elements %x4, %x5 : vector<2xf32>
      %ptr4 = llvm.getelementptr %row0_ptr[8] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair4, %ptr4 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x6 = vector.extract %sum[6] : f32 from vector<32xf32>
      %x7 = vector.extract %sum[7] : f32 from vector<32xf32>
      %pair6 = vector.from_elements %x6, %x7 : vector<2xf32>
      %ptr6 = llvm.getelementptr %row1_ptr[8] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair6, %ptr6 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x8 = vector.extract %sum[8] : f32 from vector<32xf32>
      %x9 = vector.extract %sum[9] : f32 from vector<32xf32>
      %pair8 = vector.from_elements %x8, %x9 : vector<2xf32>
      %ptr8 = llvm.getelementptr %row0_ptr[16] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair8, %ptr8 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x10 = vector.extract %sum[10] : f32 from vector<32xf32>
      %x11 = vector.extract %sum[11] : f32 from vector<32xf32>
      %pair10 = vector.from_elements %x10, %x11 : vector<2xf32>
      %ptr10 = llvm.getelementptr %row1_ptr[16] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair10, %ptr10 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x12 = vector.extract %sum[12] : f32 from vector<32xf32>
      %x13 = vector.extract %sum[13] : f32 from vector<32xf32>
      %pair12 = vector.from_elements %x12, %x13 : vector<2xf32>
      %ptr12 = llvm.getelementptr %row0_ptr[24] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair12, %ptr12 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x14 = vector.extract %sum[14] : f32 from vector<32xf32>
      %x15 = vector.extract %sum[15] : f32 from vector<32xf32>
      %pair14 = vector.from_elements %x14, %x15 : vector<2xf32>
      %ptr14 = llvm.getelementptr %row1_ptr[24] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair14, %ptr14 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x16 = vector.extract %sum[16] : f32 from vector<32xf32>
      %x17 = vector.extract %sum[17] : f32 from vector<32xf32>
      %pair16 = vector.from_elements %x16, %x17 : vector<2xf32>
      %ptr16 = llvm.getelementptr %row0_ptr[32] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair16, %ptr16 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x18 = vector.extract %sum[18] : f32 from vector<32xf32>
      %x19 = vector.extract %sum[19] : f32 from vector<32xf32>
      %pair18 = vector.from_elements %x18, %x19 : vector<2xf32>
      %ptr18 = llvm.getelementptr %row1_ptr[32] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair18, %ptr18 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x20 = vector.extract %sum[20] : f32 from vector<32xf32>
      %x21 = vector.extract %sum[21] : f32 from vector<32xf32>
      %pair20 = vector.from_elements %x20, %x21 : vector<2xf32>
      %ptr20 = llvm.getelementptr %row0_ptr[40] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair20, %ptr20 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x22 = vector.extract %sum[22] : f32 from vector<32xf32>
      %x23 = vector.extract %sum[23] : f32 from vector<32xf32>
      %pair22 = vector.from_elements %x22, %x23 : vector<2xf32>
      %ptr22 = llvm.getelementptr %row1_ptr[40] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair22, %ptr22 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x24 = vector.extract %sum[24] : f32 from vector<32xf32>
      %x25 = vector.extract %sum[25] : f32 from vector<32xf32>
      %pair24 = vector.from_elements %x24, %x25 : vector<2xf32>
      %ptr24 = llvm.getelementptr %row0_ptr[48] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair24, %ptr24 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x26 = vector.extract %sum[26] : f32 from vector<32xf32>
      %x27 = vector.extract %sum[27] : f32 from vector<32xf32>
      %pair26 = vector.from_elements %x26, %x27 : vector<2xf32>
      %ptr26 = llvm.getelementptr %row1_ptr[48] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair26, %ptr26 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x28 = vector.extract %sum[28] : f32 from vector<32xf32>
      %x29 = vector.extract %sum[29] : f32 from vector<32xf32>
      %pair28 = vector.from_elements %x28, %x29 : vector<2xf32>
      %ptr28 = llvm.getelementptr %row0_ptr[56] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair28, %ptr28 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
      %x30 = vector.extract %sum[30] : f32 from vector<32xf32>
      %x31 = vector.extract %sum[31] : f32 from vector<32xf32>
      %pair30 = vector.from_elements %x30, %x31 : vector<2xf32>
      %ptr30 = llvm.getelementptr %row1_ptr[56] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %pair30, %ptr30 {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
    }
    gpu.return
  }
}
}
