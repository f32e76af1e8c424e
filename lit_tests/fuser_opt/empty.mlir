// An empty input (no bytes, or only comments and whitespace, like this file) is an empty module.
// RUN: fuser-opt %s | FileCheck %s
// RUN: printf '' | fuser-opt | FileCheck %s
// RUN: printf '\n  \n' | fuser-opt - | FileCheck %s
// RUN: fuser-opt %s -p canonicalize -p fuser-lower-nvasync | FileCheck %s
// RUN: fuser-opt %s --split-input-file | FileCheck %s
// RUN: fuser-opt %s --verify-diagnostics | FileCheck %s

// CHECK: module {
// CHECK-NEXT: }
