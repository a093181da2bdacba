#!/usr/bin/env bash
# Builds ws-client (Interop/ws-client/*.c) against Debian's libre 1.1.0 (libre-dev) with gcc, outside
# Package.swift, into .build/ws-client (or $1). Nothing built here is committed.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUTPUT=${1:-$HERE/../../.build/ws-client}
mkdir -p "$(dirname "$OUTPUT")"
# libre's headers expect the platform's feature macros, as libre itself is built with them.
# shellcheck disable=SC2046
gcc -std=gnu11 -O2 -Wall -Wextra -Werror -DHAVE_INET6 -DHAVE_STDBOOL_H -DHAVE_INTTYPES_H \
  $(pkg-config --cflags libre) -o "$OUTPUT" "$HERE"/*.c $(pkg-config --libs libre) -ldl -lm
