// Bad option values are rejected before any MLIR or LLVM runs (LLVM would abort on some), as
// `FILE: error: message` with exit status 1: an unsupported --chip, --features other than
// +ptx80..+ptx88, an --opt-level outside 0..3, an unknown pass (by -p or in --pass-pipeline).
// Valid values are accepted.
// RUN: not fuser-opt %s --chip=sm_80 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not fuser-opt %s --chip sm_90 2>&1 | FileCheck %s --check-prefix=CHIP90
// RUN: not fuser-opt %s --features=+ptx78 2>&1 | FileCheck %s --check-prefix=FEATURES
// RUN: not fuser-opt %s --features=+ptx89 2>&1 | FileCheck %s --check-prefix=FEATURES89
// RUN: not fuser-opt %s --features=ptx80 2>&1 | FileCheck %s --check-prefix=FEATURES-SYNTAX
// RUN: not fuser-opt %s --opt-level=4 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not fuser-opt %s -p no-such-pass 2>&1 | FileCheck %s --check-prefix=PASS
// RUN: not fuser-opt %s --pass-pipeline='builtin.module(no-such-pass)' 2>&1 | FileCheck %s --check-prefix=PASS
// RUN: not fuser-opt %s --emit=ptx --chip=sm_100a 2>&1 | FileCheck %s --check-prefix=CHIP100
// RUN: not fuser-opt %s --no-such-flag 2>&1 | FileCheck %s --check-prefix=FLAG
// RUN: fuser-opt %s --emit=ptx --chip=sm_90a --features=+ptx88 --opt-level=0 -o %t.ptx && FileCheck %s --check-prefix=OK < %t.ptx && %ptxas %t.ptx -o %t.cubin

// CHIP: bad_options.mlir: error: unsupported target chip 'sm_80': fuser_mlir targets Hopper (sm_90a); wgmma and setmaxnreg need sm_90a
// CHIP90: bad_options.mlir: error: unsupported target chip 'sm_90'
// FEATURES: bad_options.mlir: error: unsupported target features '+ptx78': expected +ptxNN with NN in 80..88 (sm_90a needs PTX 8.0+)
// FEATURES89: bad_options.mlir: error: unsupported target features '+ptx89'
// FEATURES-SYNTAX: bad_options.mlir: error: unsupported target features 'ptx80'
// OPT: bad_options.mlir: error: unsupported optimization level 4: expected 0, 1, 2 or 3
// PASS: bad_options.mlir: error: invalid pass pipeline 'no-such-pass': {{.*}}'no-such-pass' does not refer to a registered pass or pass pipeline
// CHIP100: bad_options.mlir: error: unsupported target chip 'sm_100a'
// FLAG: error: unrecognized arguments: --no-such-flag
// OK: .version 8.8
// OK: .target sm_90a
// OK: .visible .entry k(

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k() kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    gpu.return
  }
}
}
