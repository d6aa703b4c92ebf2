#!/usr/bin/env bash
# Installs the real consumers the export tests run against (idempotent; a fresh Debian machine
# with Rust, Python 3.11 and Node 20):
#   - Debian's chromium (/usr/bin/chromium) for the WebMCP test; never a downloaded browser;
#   - openai-agents (PyPI) for the OpenAI strict fixed-point test;
#   - playwright-core into tool-core/tests/consumers/node_modules (pinned by package-lock.json).
# Then run:  TOOLSMITH_REQUIRE_CONSUMERS=1 cargo test -p tool-core --test export_consumers
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
sudo=""
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then sudo="sudo"; fi

if [ ! -x /usr/bin/chromium ]; then
  $sudo apt-get update
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends chromium
fi

python="${TOOLSMITH_PYTHON:-python3}"
if ! "$python" -c "import agents.strict_schema" >/dev/null 2>&1; then
  "$python" -m pip install --quiet openai-agents
fi

cd "$root/tool-core/tests/consumers"
if [ ! -d node_modules/playwright-core ]; then
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund
fi

/usr/bin/chromium --version
"$python" -c "import agents, importlib.metadata as m; print('openai-agents', m.version('openai-agents'))"
node -e "console.log('playwright-core', require('./node_modules/playwright-core/package.json').version)"
