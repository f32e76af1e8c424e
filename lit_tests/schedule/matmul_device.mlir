// The matmul scheduler decides per GPU: fuser-opt schedules for the one $FUSER_MLIR_DEVICE names
// (h100, the default, or h200).  A skinny linear of 56 tile columns (M = 64, N = 7168) streams
// enough weights for the H100's DRAM rate unsplit, not for the H200's, which splits K -- here in
// clusters of 3 CTAs (38 tile columns of 192, each split 5-6 of the 16 K tiles: split_k_mode
// "cluster", the partials sent to their slices' CTAs by distributed stores); an unknown device is
// an error naming it.
// RUN: fuser-opt %s -p fuser-schedule | FileCheck %s --check-prefix=H100
// RUN: env FUSER_MLIR_DEVICE=h200 fuser-opt %s -p fuser-schedule | FileCheck %s --check-prefix=H200 --implicit-check-not=split_k --implicit-check-not='"nvasync.tma_store"'
// RUN: env FUSER_MLIR_DEVICE=h300 not fuser-opt %s -p fuser-schedule 2>&1 | FileCheck %s --check-prefix=BAD

func.func @skinny_linear(%x: tensor<64x1024xbf16>, %w: tensor<7168x1024xbf16>) -> tensor<64x7168xbf16>
    attributes {fusion.fusion} {
  %y = "fusion.matmul"(%x, %w) {transpose_b = true} : (tensor<64x1024xbf16>, tensor<7168x1024xbf16>) -> tensor<64x7168xbf16>
  return %y : tensor<64x7168xbf16>
}

// H100-LABEL: gpu.func @skinny_linear(
// H100-SAME: gpu.known_block_size = array<i32: 128, 1, 1>
// H100-NOT: split_k
// H100: "nvasync.tma_store"

// H200-LABEL: gpu.func @skinny_linear(
// H200-SAME: gpu.known_block_size = array<i32: 128, 1, 1>, nvvm.cluster_dim = array<i32: 3, 1, 1>
// H200: "nvasync.wgmma"({{.*}}) -> vector<96xf32>
// H200: "nvasync.store_peer"
// H200: gpu.return

// BAD: matmul_device.mlir:11:1: error: fuser-schedule: FUSER_MLIR_DEVICE='h300': expected one of h100, h200
