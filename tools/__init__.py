"""Command-line tools: fuser-opt and the benchmark/inspection scripts."""
