#!/usr/bin/env bash
# Frees disk in a long-lived target directory without a full rebuild: each rebuilt test binary and
# example leaves its predecessor behind (same name, another hash), and a workspace with 100-odd
# test targets collects tens of GB of them in a day of edits. Keeps the newest binary of each
# name (and its .d/.dwp files), removes the older ones and the incremental caches, then prints
# what is left. The next `cargo test` rebuilds only the incremental state of what it compiles
# anyway; a binary built with other features (a benchmark's, say) is rebuilt when next needed.
#
#   scripts/prune-target.sh            # target/ of this checkout (or $CARGO_TARGET_DIR)
#   scripts/prune-target.sh DIR        # another target directory
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
target="${1:-${CARGO_TARGET_DIR:-target}}"
[[ -d "$target" ]] || { echo "prune-target: no directory $target" >&2; exit 2; }
before=$(du -sm "$target" | cut -f1)
for profile in debug release; do
  for sub in deps examples; do
    dir="$target/$profile/$sub"
    [[ -d "$dir" ]] || continue
    # Executables are the files without an extension; their names end in -<16 hex digits>.
    find "$dir" -maxdepth 1 -type f -perm -u+x ! -name '*.*' -printf '%T@ %f\n' |
      sort -rn | awk '{print $2}' | {
        declare -A seen=()
        while read -r file; do
          name=${file%-????????????????}
          [[ "$name" != "$file" ]] || continue
          if [[ -n "${seen[$name]:-}" ]]; then
            rm -f "$dir/$file" "$dir/$file.d" "$dir/$file.dwp"
          fi
          seen[$name]=1
        done
      }
  done
  rm -rf "$target/$profile/incremental"
done
after=$(du -sm "$target" | cut -f1)
echo "prune-target: $target from ${before} MB to ${after} MB"
