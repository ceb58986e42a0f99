#!/usr/bin/env bash
# Builds the Worker bundle (build/index.js + build/index_bg.wasm) with worker-build in release mode.
# wrangler runs this as its [build] command. It uses only local tools: worker-build would otherwise
# download wasm-bindgen, wasm-opt and esbuild from GitHub, which fails offline (TOOLCHAIN.md).
set -euo pipefail
cd "$(dirname "$0")"
root=$(cd .. && pwd)
export PATH="$HOME/.cargo/bin:$PATH"

say() { printf 'worker/build.sh: %s\n' "$*"; }
die() { printf 'worker/build.sh: %s\n' "$*" >&2; exit 1; }

# wrangler runs this on every start; skip the ~15 s of wasm-bindgen + wasm-opt when nothing changed.
# `--force` rebuilds anyway.
inputs=(src Cargo.toml build.sh ../core/src ../core/Cargo.toml ../Cargo.toml ../Cargo.lock
  ../tests/fixtures/pages/welcome.md)
if [ "${1:-}" != "--force" ] && [ -f build/index.js ] && [ -f build/index_bg.wasm ] &&
  [ -z "$(find "${inputs[@]}" -newer build/index.js -print -quit 2>/dev/null)" ]; then
  say "up to date (worker/build)"
  exit 0
fi

export WASM_BINDGEN_BIN=${WASM_BINDGEN_BIN:-$(command -v wasm-bindgen || true)}
export WASM_OPT_BIN=${WASM_OPT_BIN:-$root/node_modules/.bin/wasm-opt}
export ESBUILD_BIN=${ESBUILD_BIN:-$root/node_modules/.bin/esbuild}

# worker-build falls back to a download when an override is missing, so a missing tool must stop here.
for var in WASM_BINDGEN_BIN WASM_OPT_BIN ESBUILD_BIN; do
  [ -n "${!var}" ] && [ -x "${!var}" ] || die "$var (${!var:-unset}) is not an executable; run scripts/setup"
done
command -v worker-build >/dev/null || die "worker-build is not installed; run scripts/setup"
# The CLI must match the pinned wasm-bindgen library exactly, or the generated glue is rejected.
"$WASM_BINDGEN_BIN" --version | grep -q ' 0\.2\.130$' || die "wasm-bindgen-cli 0.2.130 is required; run scripts/setup"

exec worker-build --release
