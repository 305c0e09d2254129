#!/bin/sh
# Runs a target program under QEMU user mode: qemu-run.sh <arch> <program> [args...]
# The CPU model is `max` (every emulated feature) unless HWCIPHER_QEMU_CPU
# names another one, e.g. "cortex-a72" (aarch64 without SM4) or
# "max,msa8-base=off" (s390x without KMA): scripts/test.sh uses it to run the
# suite on CPUs that lack an extension.
arch=$1
shift
exec "qemu-$arch" -cpu "${HWCIPHER_QEMU_CPU:-max}" "$@"
