#!/usr/bin/env python3
"""Measures the lint's quality components against LLM judges.

    python3 scripts/measure-quality.py [--toolsmith PATH] [--corpora DIR] [--show RULE]

Runs `toolsmith lint --format json` (the release binary by default: build it with
`cargo build --release -p toolsmith-cli`) on the 593 judged tools of
`<corpora>/smells/hasan2026/` (Hasan et al., arXiv 2602.14878), each server linted as its own
list, and compares each component rule with the judges' smell of that component (the median
of three judges' 1-5 scores below 3; the judges read the name, the server and the description,
never the input schema):

    purpose                -> states_purpose
    usage_guideline        -> says_when_to_use
    limitation             -> states_limits
    parameter_explanation  -> explains_parameters
    purpose (what returns) -> says_what_it_returns

For each: the share of the judge-smelly tools the rule flags, the share of the judge-clean tools
it flags, and their ratio (the target is 2 or more). A tool counts as flagged when the rule
reports it, or, for the rules that read the description, when it has no description. For
comparison, the same figures for the other style rules (any style finding that is not a
component's: names, budgets, missing descriptions), which is what the issue measured before the
components existed.

`--show RULE` prints the tools where that rule and the judges disagree (to read what a rule
misses, never to shape a rule around one entry: see the corpora's README). `<corpora>` defaults
to `../shared/corpora` beside the repository, or `TOOLSMITH_CORPORA`.
"""

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (judge component, its smell field, the rule, whether the rule reads the description)
PAIRS = [
    ("purpose", "smell_unclear_purpose", "states_purpose", True),
    ("usage_guideline", "smell_missing_usage_guidance", "says_when_to_use", True),
    ("limitation", "smell_unstated_limitations", "states_limits", True),
    ("parameter_explanation", "smell_opaque_parameters", "explains_parameters", False),
    ("purpose", "smell_unclear_purpose", "says_what_it_returns", True),
]
# The judged components no rule reads on its own, shown against the purpose rule.
OTHERS = [
    ("examples_balance", "smell_exemplar_issues"),
    ("length_completeness", "smell_underspecified_or_incomplete"),
]


def lint(toolsmith, paths):
    """Every finding of the lists in `paths`, by (path, tool index), and the security rules."""
    found = collections.defaultdict(list)
    security = set()
    out = subprocess.run(
        [toolsmith, "lint", "--format", "json", "--color", "never"] + paths,
        capture_output=True,
        text=True,
    )
    if out.returncode == 2:
        sys.exit(f"toolsmith lint failed: {out.stderr.strip()}")
    report = json.loads(out.stdout)
    for f in report["findings"]:
        if f["category"] == "security":
            security.add(f["rule"])
        parts = f["location"].split("/")
        index = int(parts[2]) if len(parts) > 2 and parts[1] == "tools" else -1
        found[(f["file"], index)].append(f)
    return found, report


def no_text(findings):
    """Whether the tool has no description to read (as `toolsmith_lint::quality::missing` says)."""
    return any(
        (f["rule"] == "described" and f["pointer"] == "/description")
        or (f["rule"] == "well_formed" and f["pointer"] in ("", "/description"))
        for f in findings
    )


def flagged(findings, rule, reads_description):
    return any(f["rule"] == rule for f in findings) or (reads_description and no_text(findings))


def share(xs):
    return sum(xs) / len(xs) if xs else 0.0


def row(name, smelly, clean):
    a, b = share(smelly), share(clean)
    ratio = f"{a / b:.1f}" if b else "inf"
    return (
        f"| {name} | {len(smelly)} / {len(clean)} | {a:.0%} ({sum(smelly)}) "
        f"| {b:.0%} ({sum(clean)}) | {ratio} |"
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--toolsmith", default=os.path.join(ROOT, "target/release/toolsmith"))
    default_corpora = os.environ.get(
        "TOOLSMITH_CORPORA", os.path.join(os.path.dirname(ROOT), "shared/corpora")
    )
    ap.add_argument("--corpora", default=default_corpora)
    ap.add_argument("--show", metavar="RULE")
    args = ap.parse_args()

    base = os.path.join(args.corpora, "smells/hasan2026")
    with open(os.path.join(base, "tools.json")) as f:
        tools = json.load(f)["tools"]
    with open(os.path.join(base, "labels.json")) as f:
        labels = json.load(f)

    servers = collections.defaultdict(list)
    for t in tools:
        servers[labels[t["name"]]["server"]].append(t)

    with tempfile.TemporaryDirectory() as tmp:
        paths, where = [], {}
        for n, (server, group) in enumerate(sorted(servers.items())):
            path = os.path.join(tmp, f"list{n}.json")
            with open(path, "w") as f:
                json.dump({"tools": group}, f)
            paths.append(path)
            for i, t in enumerate(group):
                where[t["name"]] = (path, i)
        found, report = lint(args.toolsmith, paths)

    of = {name: found.get(where[name], []) for name in where}
    components = {p[2] for p in PAIRS}
    style = lambda fs: any(f["category"] != "security" and f["rule"] not in components for f in fs)

    print(f"{len(tools)} tools of {len(servers)} servers, each server linted as its own list")
    print()
    print("| judged component -> rule | judge-smelly / clean tools | flagged among smelly | flagged among clean | ratio |")
    print("|---|---:|---:|---:|---:|")
    for comp, smell, rule, reads in PAIRS:
        smelly = [flagged(of[n], rule, reads) for n in of if labels[n][smell]]
        clean = [flagged(of[n], rule, reads) for n in of if not labels[n][smell]]
        print(row(f"{comp} -> `{rule}`", smelly, clean))
    for comp, smell in OTHERS:
        smelly = [flagged(of[n], "states_purpose", True) for n in of if labels[n][smell]]
        clean = [flagged(of[n], "states_purpose", True) for n in of if not labels[n][smell]]
        print(row(f"{comp} -> `states_purpose`", smelly, clean))
    print()
    print("The other style rules (any style finding that is not a component's), per judged component:")
    print()
    print("| judged component | flagged among smelly | flagged among clean | ratio |")
    print("|---|---:|---:|---:|")
    seen = set()
    for comp, smell, _, _ in PAIRS + [(c, s, None, None) for c, s in OTHERS]:
        if comp in seen:
            continue
        seen.add(comp)
        smelly = [style(of[n]) for n in of if labels[n][smell]]
        clean = [style(of[n]) for n in of if not labels[n][smell]]
        line = row(comp, smelly, clean).split(" | ")
        print(" | ".join([line[0]] + line[2:]))

    totals = collections.Counter()
    tools_n = 0
    for entry in report.get("components", []):
        tools_n += entry["tools"]
        for k in ("purpose", "when_to_use", "limits", "parameters", "returns"):
            totals[k] += entry[k]
    print()
    print(
        "components (tools that have each, from the report): "
        + ", ".join(f"{k.replace('_', ' ')} {totals[k]}/{tools_n}" for k in
                    ("purpose", "when_to_use", "limits", "parameters", "returns"))
    )

    if args.show:
        pair = next((p for p in PAIRS if p[2] == args.show), None)
        if pair is None:
            sys.exit(f"--show takes one of {', '.join(p[2] for p in PAIRS)}")
        comp, smell, rule, reads = pair
        for name in sorted(of):
            got = flagged(of[name], rule, reads)
            if got != labels[name][smell]:
                t = tools[[x["name"] for x in tools].index(name)]
                kind = "flagged, judged clean" if got else "judged smelly, not flagged"
                print(f"\n== {name} ({kind}; judges {labels[name][comp]})")
                print((t.get("description") or "")[:600])


if __name__ == "__main__":
    main()
