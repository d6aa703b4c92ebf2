#!/usr/bin/env bash
# Reproduce the real-server tool lists from manifest.json.
#
#   collect.sh [--out DIR] [ID...]
#
# For each manifest entry (or only the IDs given): install the exact package version into
# $WORK/srv/<id> (never globally), start it with the recorded `command`, and write what
# `toolsmith fetch` prints to DIR/lists/<id>.json or DIR/held-out/<id>.json, by its `set`.
# DIR defaults to a scratch folder ($WORK/out), so a re-run never overwrites the recorded data;
# compare with `diff -r` (see README.md for the lists known to differ from run to run).
#
# Needs: node + npm, python3, uv (`pip install uv`), Python 3.12 and 3.13 interpreters
# (PYTHON312 / PYTHON313, default python3.12 / python3.13 on PATH), the toolsmith binary
# (TOOLSMITH, default target/release/toolsmith of this workspace), and `unshare` (root): each
# server runs in its own network namespace (loopback only) and PID namespace (so a process that
# leaves the server's process group still ends with the fetch); NO_NETNS=1 runs without them.
# Two npm packages (azure-devops, lark) build the native module keytar: Debian's libsecret-1-dev.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../.." && pwd)"
WORK="${WORK:-/tmp/real-servers}"
TOOLSMITH="${TOOLSMITH:-$ROOT/target/release/toolsmith}"
PYTHON312="${PYTHON312:-python3.12}"
PYTHON313="${PYTHON313:-python3.13}"
FIXTURES="$HERE/fixtures"
OUT="$WORK/out"

if [ "${1:-}" = "--out" ]; then OUT="$2"; shift 2; fi
mkdir -p "$OUT/lists" "$OUT/held-out" "$WORK/srv" "$WORK/run" "$WORK/logs"

# One line per entry: id <TAB> registry <TAB> set <TAB> install <TAB> command
entries() {
  python3 - "$HERE/manifest.json" "$@" <<'PY'
import json, sys
want = set(sys.argv[2:])
for e in json.load(open(sys.argv[1])):
    if not want or e["id"] in want:
        print("\t".join([e["id"], e["registry"], e["set"], e["install"], e["command"]]))
PY
}

install() { # id registry install-command
  local id=$1 reg=$2 inst=$3 PREFIX="$WORK/srv/$1"
  [ -e "$PREFIX/.installed" ] && return 0
  rm -rf "$PREFIX"; mkdir -p "$PREFIX"
  if [ "$reg" = npm ]; then
    echo '{"private":true}' > "$PREFIX/package.json"
  else
    inst="${inst//--python 3.12 /--python $PYTHON312 }"
    inst="${inst//--python 3.13 /--python $PYTHON313 }"
  fi
  ( cd "$PREFIX" && export PREFIX UV_PYTHON_DOWNLOADS=never PUPPETEER_SKIP_DOWNLOAD=1 \
      PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 && eval "$inst" ) \
    > "$WORK/logs/$id.install.log" 2>&1 && touch "$PREFIX/.installed"
}

fetch() { # id registry set command
  local id=$1 reg=$2 set=$3 cmd=$4 PREFIX="$WORK/srv/$1" BIN dir run
  if [ "$reg" = npm ]; then BIN="$PREFIX/node_modules/.bin"; else BIN="$PREFIX/venv/bin"; fi
  if [ "$set" = work ]; then dir=lists; else dir=held-out; fi
  run="$WORK/run/$id"; rm -rf "$run"; mkdir -p "$run/home" "$run/cwd"
  local netns=(unshare -n -p -f bash -c 'ip link set lo up; exec "$@"' _)
  [ "${NO_NETNS:-}" = 1 ] && netns=()
  ( cd "$run/cwd"
    eval "set -- $cmd"   # expands $PREFIX and $FIXTURES in the recorded command
    timeout -k 5 100 env -i HOME="$run/home" PATH="$BIN:/usr/local/bin:/usr/bin:/bin" LANG=C.UTF-8 \
      "${netns[@]}" "$TOOLSMITH" fetch --timeout 60 -- "$@" ) \
    > "$OUT/$dir/$id.json.tmp" 2> "$WORK/logs/$id.fetch.log" \
    && mv "$OUT/$dir/$id.json.tmp" "$OUT/$dir/$id.json"
}

ok=0; failed=()
while IFS=$'\t' read -r id reg set inst cmd; do
  if install "$id" "$reg" "$inst" && fetch "$id" "$reg" "$set" "$cmd"; then
    ok=$((ok+1)); echo "ok      $id"
  else
    rm -f "$OUT"/*/"$id.json.tmp"; failed+=("$id"); echo "FAILED  $id (logs: $WORK/logs/$id.*.log)"
  fi
done < <(entries "$@")
echo "$ok fetched, ${#failed[@]} failed${failed:+: ${failed[*]}}; output in $OUT"
[ ${#failed[@]} -eq 0 ]
