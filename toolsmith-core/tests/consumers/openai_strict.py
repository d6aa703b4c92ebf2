"""Checks that OpenAI strict exports are a fixed point of openai-agents' ensure_strict_json_schema.

Usage: python3 openai_strict.py EXPORT.json
EXPORT.json is an `openai-chat-strict` or `openai-responses-strict` export (a list of tools).
Prints one JSON object: {"checked": [names], "changed": [{name, before, after}], "errors": [...]}.
Exit status 0 when every `parameters` is unchanged, 1 otherwise.
"""

import copy
import json
import sys

from agents.strict_schema import ensure_strict_json_schema


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as f:
        tools = json.load(f)
    result = {"checked": [], "changed": [], "errors": []}
    for tool in tools:
        fn = tool.get("function", tool)
        name = fn["name"]
        params = fn["parameters"]
        try:
            after = ensure_strict_json_schema(copy.deepcopy(params))
        except Exception as e:  # noqa: BLE001 - report every rejection
            result["errors"].append({"name": name, "error": f"{type(e).__name__}: {e}"})
            continue
        # Compare as JSON text with sorted keys: key order is not meaningful, list order is.
        if json.dumps(after, sort_keys=True) != json.dumps(params, sort_keys=True):
            result["changed"].append({"name": name, "before": params, "after": after})
        result["checked"].append(name)
    print(json.dumps(result))
    return 0 if not result["changed"] and not result["errors"] else 1


if __name__ == "__main__":
    sys.exit(main())
