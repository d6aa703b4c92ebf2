#!/usr/bin/env python3
"""Measures the lint's security rules on text nobody here wrote.

    python3 scripts/measure-lint.py [--toolsmith PATH] [--corpora DIR] [--held-out] [--show RULE]

Runs `toolsmith lint --only security --format json` (the release binary by default: build it
with `cargo build --release -p toolsmith-cli`) on:

- the poisoned corpus (`<corpora>/poison/corpus_poisoned.json`, 689 real poisoned tool
  descriptions): recall per source (the repository in `origin`), counting a tool as caught
  when the security rules give it an error, and when they give it any finding;
- the clean corpus (`<corpora>/poison/corpus_clean.json`, 360 descriptions): the share flagged;
- the 593 judged real tools (`<corpora>/smells/hasan2026/`), each server linted as its own list;
- the real servers' lists of `toolsmith-lint/tests/real-servers/` (`lists/`, and `held-out/` with
  `--held-out`), each server its own list.

Prints one table, and with `--show RULE` every finding of that rule on the real text (to read
what a rule does wrong, never to shape a rule around one entry: the README of the corpora).
`<corpora>` defaults to `../shared/corpora` beside the repository, or `TOOLSMITH_CORPORA`.
"""

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def lint(toolsmith, paths):
    """Every security finding of the lists in `paths`, by (path, tool index)."""
    found = collections.defaultdict(list)
    for i in range(0, len(paths), 200):
        chunk = paths[i : i + 200]
        out = subprocess.run(
            [toolsmith, "lint", "--only", "security", "--format", "json", "--color", "never"]
            + chunk,
            capture_output=True,
            text=True,
        )
        if out.returncode == 2:
            sys.exit(f"toolsmith lint failed: {out.stderr.strip()}")
        report = json.loads(out.stdout)
        for f in report["findings"]:
            parts = f["location"].split("/")
            index = int(parts[2]) if len(parts) > 2 and parts[1] == "tools" else -1
            found[(f["file"], index)].append(f)
    return found


def write_lists(tmp, groups):
    """Writes each group of tools as a `{"tools": [...]}` file; returns the paths in order."""
    paths = []
    for n, tools in enumerate(groups):
        path = os.path.join(tmp, f"list{n}.json")
        with open(path, "w") as f:
            json.dump({"tools": tools}, f)
        paths.append(path)
    return paths


def rate(hit, total):
    return f"{hit}/{total} ({100.0 * hit / total:.1f}%)" if total else "0/0"


def flagged(found, path, count):
    """(tools with an error, tools with any finding) of the list at `path` of `count` tools."""
    errors = anyf = 0
    for i in range(count):
        fs = found.get((path, i), [])
        errors += any(f["severity"] == "error" for f in fs)
        anyf += bool(fs)
    return errors, anyf


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--toolsmith", default=os.path.join(ROOT, "target/release/toolsmith"))
    ap.add_argument(
        "--corpora",
        default=os.environ.get(
            "TOOLSMITH_CORPORA", os.path.join(os.path.dirname(ROOT), "shared/corpora")
        ),
    )
    ap.add_argument("--held-out", action="store_true", help="also the held-out servers")
    ap.add_argument("--show", action="append", default=[], help="print this rule's findings on real text")
    args = ap.parse_args()
    rows = []
    shown = []
    with tempfile.TemporaryDirectory() as tmp:
        # Poisoned: one list (as the corpus is), recall per source.
        poisoned = json.load(open(os.path.join(args.corpora, "poison/corpus_poisoned.json")))["tools"]
        [ppath] = write_lists(tempfile.mkdtemp(dir=tmp), [poisoned])
        found = lint(args.toolsmith, [ppath])
        by_source = collections.defaultdict(lambda: [0, 0, 0])
        for i, t in enumerate(poisoned):
            source = t["origin"].split("@")[0].split(":")[0]
            fs = found.get((ppath, i), [])
            row = by_source[source]
            row[0] += 1
            row[1] += any(f["severity"] == "error" for f in fs)
            row[2] += bool(fs)
        total = [sum(r[k] for r in by_source.values()) for k in range(3)]
        rows.append(("poisoned, all (recall)", rate(total[1], total[0]), rate(total[2], total[0])))
        for source, r in sorted(by_source.items(), key=lambda kv: -kv[1][0]):
            rows.append((f"  {source}", rate(r[1], r[0]), rate(r[2], r[0])))

        # Real text: the clean corpus, the judged tools per server, the collected servers.
        clean = json.load(open(os.path.join(args.corpora, "poison/corpus_clean.json")))["tools"]
        hasan_dir = os.path.join(args.corpora, "smells/hasan2026")
        hasan = json.load(open(os.path.join(hasan_dir, "tools.json")))["tools"]
        labels = json.load(open(os.path.join(hasan_dir, "labels.json")))
        servers = collections.OrderedDict()
        for t in hasan:
            servers.setdefault(labels[t["name"]]["server"], []).append(t)
        sets = [("clean corpus (360)", [clean]), ("judged real tools, per server", list(servers.values()))]
        real = os.path.join(ROOT, "toolsmith-lint/tests/real-servers")
        for folder, label in [("lists", "real servers (work set)"), ("held-out", "real servers (held out)")]:
            if folder == "held-out" and not args.held_out:
                continue
            d = os.path.join(real, folder)
            if os.path.isdir(d):
                groups = []
                for name in sorted(os.listdir(d)):
                    if name.endswith(".json"):
                        groups.append(json.load(open(os.path.join(d, name)))["tools"])
                sets.append((label, groups))
        for label, groups in sets:
            # A folder per set: write_lists names its files from 0.
            sub = tempfile.mkdtemp(dir=tmp)
            paths = write_lists(sub, groups)
            found = lint(args.toolsmith, paths)
            n = e = a = 0
            for path, tools in zip(paths, groups):
                err, anyf = flagged(found, path, len(tools))
                n += len(tools)
                e += err
                a += anyf
                for i, t in enumerate(tools):
                    for f in found.get((path, i), []):
                        if f["rule"] in args.show:
                            shown.append((label, f["severity"], f["rule"], t["name"], f["message"]))
            rows.append((label + " (flagged)", rate(e, n), rate(a, n)))
    width = max(len(r[0]) for r in rows)
    print(f"{'set':<{width}}  {'errors':>20}  {'any finding':>20}")
    for r in rows:
        print(f"{r[0]:<{width}}  {r[1]:>20}  {r[2]:>20}")
    for s in shown:
        print(" | ".join(s))


if __name__ == "__main__":
    main()
