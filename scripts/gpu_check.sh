#!/usr/bin/env bash
# GPU check for the network (issue 5): builds the wgpu example and compares
# one Adam step and a batch of evaluations on the GPU with the CPU (flex).
# Prints the largest differences and PASS/FAIL; exits non-zero on FAIL.
#
# Run ONLY on a machine with a GPU and a Vulkan (or Metal/DX12) driver:
# without one wgpu may pick a software adapter and hang.
#   scripts/gpu_check.sh                # first discrete GPU
#   scripts/gpu_check.sh wgpu:1         # another one
#   scripts/gpu_check.sh wgpu diag32    # the diagonal net (default resnet8x8)
# A prebuilt binary can be given with GPU_CHECK_BIN=path.
set -euo pipefail
cd "$(dirname "$0")/.."
device="${1:-wgpu}"
kind="${2:-resnet8x8}"
if [[ -n "${GPU_CHECK_BIN:-}" ]]; then
    exec "$GPU_CHECK_BIN" "$device" "$kind"
fi
cargo build --release -p shashki-net --features wgpu --example gpu_check
exec "${CARGO_TARGET_DIR:-target}/release/examples/gpu_check" "$device" "$kind"
