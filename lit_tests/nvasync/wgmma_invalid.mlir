// Every value check of nvasync.wgmma and nvasync.wgmma_wait (dialects/nvasync.py `_check_wgmma`,
// run by fuser-verify-dialects right after parsing) is reported at the offending op.
// Layout rules: an operand is K-major with rows `swizzle` bytes apart -- a whole tile one k-step
// wide, or the k-th 16-column slice of a wider tile (memref.subview at a static column 16k and a
// row that is a multiple of 8); its tile starts on a swizzle atom (8 x swizzle bytes).  An
// N-major B (rank 3) is [N/R, 16, R] with R elements per swizzled row, sliced at [0, 16k, 0].
// RUN: fuser-opt %s --split-input-file --verify-diagnostics

// -----
!a = memref<64x16xbf16, #gpu.address_space<workgroup>>
!b = memref<64x16xbf16, #gpu.address_space<workgroup>>
func.func @wgmma_swizzle(%acc: vector<32xf32>) {
  %a = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !a
  %b = "nvasync.smem_buffer"() {offset = 2048 : i64} : () -> !b
  // expected-error @below {{'nvasync.wgmma' op swizzle must be one of (32, 64, 128) bytes, got 16}}
  %r = "nvasync.wgmma"(%a, %b, %acc) {swizzle = 16 : i32, accumulate = true} : (!a, !b, vector<32xf32>) -> vector<32xf32>
  return
}

// -----
func.func @wgmma_mixed_types(%acc: vector<32xf32>) {
  %a = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<64x16xbf16, #gpu.address_space<workgroup>>
  %b = "nvasync.smem_buffer"() {offset = 2048 : i64} : () -> memref<64x16xf16, #gpu.address_space<workgroup>>
  // expected-error @below {{A and B must both be bf16 or both f16, got bf16 and f16}}
  %r = "nvasync.wgmma"(%a, %b, %acc) {swizzle = 128 : i32, accumulate = true} : (memref<64x16xbf16, #gpu.address_space<workgroup>>, memref<64x16xf16, #gpu.address_space<workgroup>>, vector<32xf32>) -> vector<32xf32>
  return
}

// -----
func.func @wgmma_f32_inputs(%acc: vector<32xf32>) {
  %a = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<64x16xf32, #gpu.address_space<workgroup>>
  %b = "nvasync.smem_buffer"() {offset = 4096 : i64} : () -> memref<64x16xf32, #gpu.address_space<workgroup>>
  // expected-error @below {{A and B must both be bf16 or both f16, got f32 and f32}}
  %r = "nvasync.wgmma"(%a, %b, %acc) {swizzle = 128 : i32, accumulate = true} : (memref<64x16xf32, #gpu.address_space<workgroup>>, memref<64x16xf32, #gpu.address_space<workgroup>>, vector<32xf32>) -> vector<32xf32>
  return
}

// -----
func.func @wgmma_a_shape(%acc: vector<32xf32>) {
  %a = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<64x32xbf16, #gpu.address_space<workgroup>>
  %b = "nvasync.smem_buffer"() {offset = 4096 : i64} : () -> memref<64x16xbf16, #gpu.address_space<workgroup>>
  // expected-error @below {{A must be a 64x16 tile, got [64, 32]}}
  %r = "nvasync.wgmma"(%a, %b, %acc) {swizzle = 128 : i32, accumulate = true} : (memref<64x32xbf16, #gpu.address_space<workgroup>>, memref<64x16xbf16, #gpu.address_space<workgroup>>, vector<32xf32>) -> vector<32xf32>
  return
}

// -----
func.func @wgmma_b_n_not_multiple_of_8(%acc: vector<6xf32>) {
  %a = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<64x16xbf16, #gpu.address_space<workgroup>>
  %b = "nvasync.smem_buffer"() {offset = 2048 : i64} : () -> memref<12x16xbf16, #gpu.address_space<workgroup>>
  // expected-error @below {{B must be an Nx16 tile with N a multiple of 8 in [8, 256], got [12, 16]}}
  %r = "nvasync.wgmma"(%a, %b, %acc) {swizzle = 128 : i32, accumulate = true} : (memref<64x16xbf16, #gpu.address_space<workgroup>>, memref<12x16xbf16, #gpu.address_space<workgroup>>, vector<6xf32>) -> vector<6xf32>
  return
}

// -----
func.func @wgmma_b_n_too_large(%acc: vector<132xf32>) {
  %a = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<64x16xbf16, #gpu.address_space<workgroup>>
  %b = "nvasync.smem_buffer"() {offset = 2048 : i64} : () -> memref<264x16xbf16, #gpu.address_space<workgroup>>
  // expected-error @below {{B must be an Nx16 tile with N a multiple of 8 in [8, 256], got [264, 16]}}
  %r = "nvasync.wgmma"(%a, %b, %acc) {swizzle = 128 : i32, accumulate = true} : (memref<64x16xbf16, #gpu.address_space<workgroup>>, memref<264x16xbf16, #gpu.address_space<workgroup>>, vector<132xf32>) -> vector<132xf32>
  return
}

// -----
func.func @wgmma_b_k(%acc: vector<32xf32>) {
  %a = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<64x16xbf16, #gpu.address_space<workgroup>>
  %b = "nvasync.smem_buffer"() {offset = 2048 : i64} : () -> memref<64x32xbf16, #gpu.address_space<workgroup>>
  // expected-error @below {{B must be an Nx16 tile with N a multiple of 8 in [8, 256], got [64, 32]}}
  %r = "nvasync.wgmma"(%a, %b, %acc) {swizzle = 128 : i32, accumulate = true} : (memref<64x16xbf16, #gpu.address_space<workgroup>>, memref<64x32xbf16, #gpu.address_space<workgroup>>, vector<32xf32>) -> vector<32xf32>
  return
}

// -----
func.func @wgmma_accumulator_size(%acc: vector<16xf32>) {
  %a = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<64x16xbf16, #gpu.address_space<workgroup>>
  %b = "nvasync.smem_buffer"() {offset = 2048 : i64} : () -> memref<64x16xbf16, #gpu.address_space<workgroup>>
  // expected-error @below {{the accumulator must be vector<32xf32> for N = 64, got vector<16xf32>}}
  %r = "nvasync.wgmma"(%a, %b, %acc) {swizzle = 128 : i32, accumulate = true} : (memref<64x16xbf16, #gpu.address_space<workgroup>>, memref<64x16xbf16, #gpu.address_space<workgroup>>, vector<16xf32>) -> vector<16xf32>
  return
}

// -----
func.func @wgmma_accumulator_type(%acc: vector<32xf16>) {
  %a = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<64x16xf16, #gpu.address_space<workgroup>>
  %b = "nvasync.smem_buffer"() {offset = 2048 : i64} : () -> memref<64x16xf16, #gpu.address_space<workgroup>>
  // expected-error @below {{the accumulator must be vector<32xf32> for N = 64, got vector<32xf16>}}
  %r = "nvasync.wgmma"(%a, %b, %acc) {swizzle = 128 : i32, accumulate = true} : (memref<64x16xf16, #gpu.address_space<workgroup>>, memref<64x16xf16, #gpu.address_space<workgroup>>, vector<32xf16>) -> vector<32xf16>
  return
}

// -----
// A [64 x 16] buffer has 32-byte rows: only a 32-byte swizzle lays it out that way.
func.func @wgmma_rows_narrower_than_swizzle(%acc: vector<32xf32>) {
  %a = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<64x16xbf16, #gpu.address_space<workgroup>>
  %b = "nvasync.smem_buffer"() {offset = 2048 : i64} : () -> memref<64x16xbf16, #gpu.address_space<workgroup>>
  // expected-error @below {{'a' rows are 32 bytes apart, but a 128-byte swizzled tile has rows of 128 bytes (64 elements): pass the whole tile's k-th 16-column slice (memref.subview)}}
  // expected-error @below {{'b' rows are 32 bytes apart, but a 128-byte swizzled tile has rows of 128 bytes (64 elements)}}
  %r = "nvasync.wgmma"(%a, %b, %acc) {swizzle = 128 : i32, accumulate = true} : (memref<64x16xbf16, #gpu.address_space<workgroup>>, memref<64x16xbf16, #gpu.address_space<workgroup>>, vector<32xf32>) -> vector<32xf32>
  return
}

// -----
// A k-slice of a tile whose rows are wider than the swizzle span (a 64-byte swizzle, 128-byte rows).
!t = memref<64x64xf16, #gpu.address_space<workgroup>>
!s = memref<64x16xf16, strided<[64, 1], offset: 16>, #gpu.address_space<workgroup>>
func.func @wgmma_rows_wider_than_swizzle(%acc: vector<32xf32>) {
  %a = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !t
  %a1 = memref.subview %a[0, 16] [64, 16] [1, 1] : !t to !s
  // expected-error @below {{'a' rows are 128 bytes apart, but a 64-byte swizzled tile has rows of 64 bytes (32 elements)}}
  // expected-error @below {{'b' rows are 128 bytes apart, but a 64-byte swizzled tile has rows of 64 bytes (32 elements)}}
  %r = "nvasync.wgmma"(%a1, %a1, %acc) {swizzle = 64 : i32, accumulate = true} : (!s, !s, vector<32xf32>) -> vector<32xf32>
  return
}

// -----
!t = memref<64x64xbf16, #gpu.address_space<workgroup>>
!s0 = memref<64x16xbf16, strided<[64, 1]>, #gpu.address_space<workgroup>>
func.func @wgmma_alignment(%acc: vector<32xf32>) {
  %a = "nvasync.smem_buffer"() {offset = 512 : i64} : () -> !t
  %b = "nvasync.smem_buffer"() {offset = 8704 : i64} : () -> !t
  %a0 = memref.subview %a[0, 0] [64, 16] [1, 1] : !t to !s0
  %b0 = memref.subview %b[0, 0] [64, 16] [1, 1] : !t to !s0
  // expected-error @below {{128-byte swizzled wgmma operand 'a' must be 1024-byte aligned (a swizzle atom: 8 rows of 128 bytes), buffer offset is 512}}
  // expected-error @below {{128-byte swizzled wgmma operand 'b' must be 1024-byte aligned (a swizzle atom: 8 rows of 128 bytes), buffer offset is 8704}}
  %r = "nvasync.wgmma"(%a0, %b0, %acc) {swizzle = 128 : i32, accumulate = true} : (!s0, !s0, vector<32xf32>) -> vector<32xf32>
  return
}

// -----
// A 64-byte swizzle atom is 512 bytes: offset 512 is accepted, 256 is not.
!t = memref<64x32xbf16, #gpu.address_space<workgroup>>
!s = memref<64x16xbf16, strided<[32, 1], offset: 16>, #gpu.address_space<workgroup>>
func.func @wgmma_alignment_swizzle64(%acc: vector<32xf32>) {
  %a = "nvasync.smem_buffer"() {offset = 512 : i64} : () -> !t
  %b = "nvasync.smem_buffer"() {offset = 4352 : i64} : () -> !t
  %a1 = memref.subview %a[0, 16] [64, 16] [1, 1] : !t to !s
  %b1 = memref.subview %b[0, 16] [64, 16] [1, 1] : !t to !s
  // expected-error @below {{64-byte swizzled wgmma operand 'b' must be 512-byte aligned (a swizzle atom: 8 rows of 64 bytes), buffer offset is 4352}}
  %r = "nvasync.wgmma"(%a1, %b1, %acc) {swizzle = 64 : i32, accumulate = true} : (!s, !s, vector<32xf32>) -> vector<32xf32>
  return
}

// -----
// k-slices start at a multiple of 16 columns, and at a row that begins a swizzle atom.
!t = memref<128x64xbf16, #gpu.address_space<workgroup>>
!cols = memref<64x16xbf16, strided<[64, 1], offset: 8>, #gpu.address_space<workgroup>>
!rows = memref<64x16xbf16, strided<[64, 1], offset: 256>, #gpu.address_space<workgroup>>
func.func @wgmma_slice_offsets(%acc: vector<32xf32>) {
  %t = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !t
  %a = memref.subview %t[0, 8] [64, 16] [1, 1] : !t to !cols
  %b = memref.subview %t[4, 0] [64, 16] [1, 1] : !t to !rows
  // expected-error @below {{'a' slices its tile at row 0, column 8: rows must start at a multiple of 8 (a swizzle atom) and columns at a multiple of 16 (a k-step)}}
  // expected-error @below {{'b' slices its tile at row 4, column 0}}
  %r = "nvasync.wgmma"(%a, %b, %acc) {swizzle = 128 : i32, accumulate = true} : (!cols, !rows, vector<32xf32>) -> vector<32xf32>
  return
}

// -----
!t = memref<64x64xbf16, #gpu.address_space<workgroup>>
!dyn = memref<64x16xbf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>
func.func @wgmma_dynamic_slice(%acc: vector<32xf32>, %k: index) {
  %t = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !t
  %a = memref.subview %t[0, %k] [64, 16] [1, 1] : !t to !dyn
  // expected-error @below {{'a' is a subview with a dynamic column offset; the k-slice must be static}}
  // expected-error @below {{'b' is a subview with a dynamic column offset; the k-slice must be static}}
  %r = "nvasync.wgmma"(%a, %a, %acc) {swizzle = 128 : i32, accumulate = true} : (!dyn, !dyn, vector<32xf32>) -> vector<32xf32>
  return
}

// -----
!t = memref<64x128xbf16, #gpu.address_space<workgroup>>
!strided = memref<64x16xbf16, strided<[128, 2]>, #gpu.address_space<workgroup>>
func.func @wgmma_not_k_major(%acc: vector<32xf32>) {
  %t = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !t
  %a = memref.subview %t[0, 0] [64, 16] [1, 2] : !t to !strided
  // expected-error @below {{'a' must be K-major (unit stride along K), got strides [128, 2]}}
  // expected-error @below {{'b' must be K-major (unit stride along K), got strides [128, 2]}}
  %r = "nvasync.wgmma"(%a, %a, %acc) {swizzle = 128 : i32, accumulate = true} : (!strided, !strided, vector<32xf32>) -> vector<32xf32>
  return
}

// -----
// Accepted: the four k-slices of 128-byte swizzled tiles, B's second 64 rows of a 128-row tile,
// and a whole 32-byte swizzled tile (one k-step wide).
!ta = memref<64x64xbf16, #gpu.address_space<workgroup>>
!tb = memref<128x64xbf16, #gpu.address_space<workgroup>>
!a3 = memref<64x16xbf16, strided<[64, 1], offset: 48>, #gpu.address_space<workgroup>>
!b3 = memref<64x16xbf16, strided<[64, 1], offset: 4144>, #gpu.address_space<workgroup>>
!narrow = memref<64x16xbf16, #gpu.address_space<workgroup>>
func.func @wgmma_accepted(%acc: vector<32xf32>) {
  %a = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !ta
  %b = "nvasync.smem_buffer"() {offset = 8192 : i64} : () -> !tb
  %n = "nvasync.smem_buffer"() {offset = 24576 : i64} : () -> !narrow
  %a3 = memref.subview %a[0, 48] [64, 16] [1, 1] : !ta to !a3
  %b3 = memref.subview %b[64, 48] [64, 16] [1, 1] : !tb to !b3
  %r = "nvasync.wgmma"(%a3, %b3, %acc) {swizzle = 128 : i32, accumulate = true} : (!a3, !b3, vector<32xf32>) -> vector<32xf32>
  %s = "nvasync.wgmma"(%n, %n, %r) {swizzle = 32 : i32, accumulate = true} : (!narrow, !narrow, vector<32xf32>) -> vector<32xf32>
  return
}

// -----
func.func @wgmma_global_operand(%acc: vector<32xf32>, %a: memref<64x16xbf16>) {
  %b = "nvasync.smem_buffer"() {offset = 2048 : i64} : () -> memref<64x16xbf16, #gpu.address_space<workgroup>>
  // expected-error @below {{'a' (wgmma A operand) must be a shared-memory memref (memory space #gpu.address_space<workgroup>), got memref<64x16xbf16>}}
  %r = "nvasync.wgmma"(%a, %b, %acc) {swizzle = 128 : i32, accumulate = true} : (memref<64x16xbf16>, memref<64x16xbf16, #gpu.address_space<workgroup>>, vector<32xf32>) -> vector<32xf32>
  return
}

// -----
func.func @wgmma_wait_pending() {
  // expected-error @below {{'nvasync.wgmma_wait' op pending must be in [0, 7], got 8}}
  "nvasync.wgmma_wait"() {pending = 8 : i32} : () -> ()
  // expected-error @below {{pending must be in [0, 7], got -1}}
  "nvasync.wgmma_wait"() {pending = -1 : i32} : () -> ()
  return
}


// -----
!t = memref<2x64x64xbf16, #gpu.address_space<workgroup>>
func.func @wgmma_n_major_narrow(%acc: vector<32xf32>) {
  %a = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<64x16xbf16, #gpu.address_space<workgroup>>
  %b = "nvasync.smem_buffer"() {offset = 8192 : i64} : () -> !t
  %s = memref.subview %b[0, 0, 0] [2, 16, 32] [1, 1, 1] : !t to memref<2x16x32xbf16, strided<[4096, 64, 1]>, #gpu.address_space<workgroup>>
  // expected-error @below {{an N-major B must be [N/64, 16, 64] with N <= 256 (128-byte rows of bf16), got [2, 16, 32]}}
  %r = "nvasync.wgmma"(%a, %s, %acc) {swizzle = 128 : i32, accumulate = true} : (memref<64x16xbf16, #gpu.address_space<workgroup>>, memref<2x16x32xbf16, strided<[4096, 64, 1]>, #gpu.address_space<workgroup>>, vector<32xf32>) -> vector<32xf32>
  return
}

// -----
!t = memref<2x64x64xbf16, #gpu.address_space<workgroup>>
!s = memref<2x16x64xbf16, strided<[4096, 64, 1], offset: 512>, #gpu.address_space<workgroup>>
!a0 = memref<64x16xbf16, strided<[64, 1]>, #gpu.address_space<workgroup>>
func.func @wgmma_n_major_k_offset(%acc: vector<64xf32>) {
  %a = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<64x64xbf16, #gpu.address_space<workgroup>>
  %a0 = memref.subview %a[0, 0] [64, 16] [1, 1] : memref<64x64xbf16, #gpu.address_space<workgroup>> to !a0
  %b = "nvasync.smem_buffer"() {offset = 8192 : i64} : () -> !t
  %s = memref.subview %b[0, 8, 0] [2, 16, 64] [1, 1, 1] : !t to !s
  // expected-error @below {{'b' slices its tile at [0, 8, 0]: an N-major k-slice starts at [0, a multiple of 16, 0]}}
  %r = "nvasync.wgmma"(%a0, %s, %acc) {swizzle = 128 : i32, accumulate = true} : (!a0, !s, vector<64xf32>) -> vector<64xf32>
  return
}
