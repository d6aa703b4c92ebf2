#!/usr/bin/env bash
# Installs the real consumers the tests run against (idempotent; a fresh Debian machine with Rust,
# Python 3.11 and Node 20, perhaps with an old chromium preinstalled):
#   - Debian's chromium (/usr/bin/chromium) that can run WebMCP: the installed one is probed
#     (launched headless with --enable-features=WebMCPTesting on a page served from 127.0.0.1,
#     checking that document.modelContext exists), upgraded through apt when the probe fails,
#     and probed again; never a downloaded browser;
#   - the Python consumers pinned in .ci/consumers-requirements.txt (openai-agents, anthropic,
#     google-genai, mcp) in the virtual environment target/consumers-venv;
#   - playwright-core into toolsmith-core/tests/consumers/node_modules (pinned by package-lock.json);
#   - the official MCP conformance suite and the Node 22 it needs (Node 20 lacks fs.globSync),
#     both npm packages, into tests/conformance/node_modules (pinned by package-lock.json; run
#     by tests/it/conformance_suite.rs).
# Then run, for example:  TOOLSMITH_REQUIRE_CONSUMERS=1 cargo test -p toolsmith-core --test it export_consumers::
#
# Environment:
#   TOOLSMITH_CHROMIUM      the browser to probe and use (default /usr/bin/chromium; the tests
#                           pass the same variable). Whatever it names, a failed probe leads to
#                           `apt-get install chromium` and a second probe of the same path.
#   TOOLSMITH_CONSUMERS_VENV  where the venv goes (default target/consumers-venv).
#   TOOLSMITH_APT_GET       the apt-get to run (default apt-get; the tests point it at a stub).
#   TOOLSMITH_SKIP_PYTHON=1, TOOLSMITH_SKIP_NODE=1  skip those parts (the script's own tests).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
sudo=""
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then sudo="sudo"; fi
apt_get="${TOOLSMITH_APT_GET:-apt-get}"
default_chromium=/usr/bin/chromium
chromium="${TOOLSMITH_CHROMIUM:-$default_chromium}"
consumers="$root/toolsmith-core/tests/consumers"

say() { echo "consumers: $*"; }

apt_install_chromium() {
  # $1: "install" or "upgrade" (for the message only; both install the newest candidate).
  say "$1 chromium through apt (apt-get update, then apt-get install chromium)"
  $sudo "$apt_get" update
  DEBIAN_FRONTEND=noninteractive $sudo "$apt_get" install -y --no-install-recommends \
    chromium
}

# --- Node: playwright-core drives the browser probe and the WebMCP test -------------------------
if [ "${TOOLSMITH_SKIP_NODE:-0}" != 1 ]; then
  if [ ! -d "$consumers/node_modules/playwright-core" ]; then
    (cd "$consumers" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund)
  fi
  node -e "console.log('playwright-core', require('$consumers/node_modules/playwright-core/package.json').version)"
  # The conformance suite: reinstalled whenever its lock file changes (npm ci starts afresh).
  conformance="$root/tests/conformance"
  stamp="$conformance/node_modules/.lock.sha256"
  want="$(sha256sum "$conformance/package-lock.json" | cut -d' ' -f1)"
  if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    (cd "$conformance" && npm ci --no-audit --no-fund)
    echo "$want" >"$stamp"
  fi
  say "conformance suite $("$conformance/node_modules/.bin/node" -p "require('$conformance/node_modules/@modelcontextprotocol/conformance/package.json').version") on node $("$conformance/node_modules/.bin/node" --version)"
fi

# --- Chromium that can run WebMCP ----------------------------------------------------------------
probe() {
  # Prints the probe's one-line JSON; exit 0 when document.modelContext exists.
  node "$consumers/webmcp_probe.mjs" "$chromium"
}
version_of() { "$chromium" --version 2>/dev/null | head -n 1 || echo "unknown version"; }

tried=()
if [ ! -x "$chromium" ]; then
  if [ "$chromium" != "$default_chromium" ]; then
    say "TOOLSMITH_CHROMIUM=$chromium is not an executable file" >&2
    exit 1
  fi
  apt_install_chromium install
  tried+=("apt-get install chromium (none was installed)")
fi
found="$(version_of)"
if probe_out="$(probe)"; then
  say "$found runs WebMCP: $probe_out"
else
  say "$found cannot run WebMCP: $probe_out"
  apt_install_chromium upgrade
  tried+=("apt-get update && apt-get install chromium (upgrade from $found)")
  now="$(version_of)"
  if probe_out="$(probe)"; then
    say "$now runs WebMCP after the upgrade: $probe_out"
  else
    {
      echo "consumers: chromium cannot run WebMCP: document.modelContext is missing."
      echo "  found:  $found"
      echo "  now:    $now"
      echo "  tried:  ${tried[*]}"
      echo "  probe:  $probe_out"
      echo "  needed: a chromium whose document.modelContext exists under"
      echo "          --enable-features=WebMCPTesting (Debian's 150 or newer); check the apt"
      echo "          sources (bookworm-security carries the newer builds)."
    } >&2
    exit 1
  fi
fi

# --- Python consumers in a venv ------------------------------------------------------------------
if [ "${TOOLSMITH_SKIP_PYTHON:-0}" != 1 ]; then
  venv="${TOOLSMITH_CONSUMERS_VENV:-$root/target/consumers-venv}"
  requirements="$root/.ci/consumers-requirements.txt"
  stamp="$venv/.requirements.sha256"
  want="$(sha256sum "$requirements" | cut -d' ' -f1)"
  if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements"
    echo "$want" >"$stamp"
  fi
  "$venv/bin/python" - <<'PY'
import importlib.metadata as m
print("python consumers:", ", ".join(f"{p} {m.version(p)}" for p in ("openai-agents", "anthropic", "google-genai", "mcp")))
PY
fi
