#!/usr/bin/env bash
# Checks the public API of the facade `toolsmith` against tests/golden/public_api.txt: builds the
# docs as CI does (every feature users turn on: mcp, workspace, sqlite, postgres, redis, ui), then runs the check
# of tests/it/release.rs on them.
#
#   bash scripts/public-api.sh                                # check
#   TOOLSMITH_UPDATE_SNAPSHOTS=1 bash scripts/public-api.sh   # rewrite the snapshot and
#                                                             # tests/public_api/names.rs
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
target="${CARGO_TARGET_DIR:-target}"
# The same flags as .ci/run's doc step, so the two share one build.
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps \
  --features toolsmith/mcp,toolsmith/mcp-oauth,toolsmith/workspace,toolsmith/sqlite,toolsmith/postgres,toolsmith/redis,toolsmith/ui,toolsmith/full-json-schema
TOOLSMITH_API_DOCS="$target/doc" cargo test -p toolsmith-tests --test it -- release::public_api
