"""Checks that Anthropic strict exports are a fixed point of the official SDK's strict transform.

Usage: python anthropic_strict.py EXPORT.json
EXPORT.json is an `anthropic-strict` export (a list of tools). Each tool must be a valid
`ToolParam` of the `anthropic` SDK, and `anthropic.lib._parse._transform.transform_schema` must
give back its `input_schema` unchanged, apart from the equivalences below.
Prints one JSON object: {"checked": [names], "changed": [{name, before, after}], "errors": [...]}.
Exit status 0 when every tool is accepted and unchanged, 1 otherwise.

Equivalences (the SDK rewrites these without changing what a value may be):
  1. `type` beside a non-empty `enum` (or a `const`) of that type: the SDK drops the `type`. The
     listed values already fix the type, so the schema accepts the same values.
  2. `properties: {}` on an object without `properties`: the SDK adds the empty map. An empty
     `properties` constrains nothing.
Nothing else counts as equal. In particular a constraint the SDK moves into the description
(`minLength`, `maximum`, `pattern`, `minItems` > 1, an unlisted `format`, ...) is a change: it
means the export sent a keyword that strict mode rejects.
"""

import copy
import json
import sys

import pydantic
from anthropic.lib._parse._transform import transform_schema
from anthropic.types import ToolParam

JSON_TYPES = {
    "string": str,
    "integer": int,
    "number": (int, float),
    "boolean": bool,
    "null": type(None),
}


def of_type(value, type_name):
    expected = JSON_TYPES.get(type_name)
    if expected is None:
        return False
    if type_name in ("integer", "number") and isinstance(value, bool):
        return False
    return isinstance(value, expected)


def equivalent(schema):
    """The schema with the equivalences above applied, as the SDK would write it."""
    if isinstance(schema, list):
        return [equivalent(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: equivalent(value) for key, value in schema.items()}
    literals = out.get("enum") if isinstance(out.get("enum"), list) else None
    if literals is None and "const" in out:
        literals = [out["const"]]
    if literals and isinstance(out.get("type"), str):
        if all(of_type(v, out["type"]) for v in literals):
            del out["type"]
    if out.get("type") == "object" and "properties" not in out:
        out["properties"] = {}
    return out


def canonical(value):
    # Key order is not meaningful, list order is.
    return json.dumps(value, sort_keys=True)


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as f:
        tools = json.load(f)
    result = {"checked": [], "changed": [], "errors": []}
    adapter = pydantic.TypeAdapter(ToolParam)
    for tool in tools:
        name = tool.get("name", "?")
        try:
            adapter.validate_python(tool)
            if set(tool) - set(ToolParam.__annotations__):
                raise ValueError(f"unknown fields {sorted(set(tool) - set(ToolParam.__annotations__))}")
            before = tool["input_schema"]
            after = transform_schema(copy.deepcopy(before))
        except Exception as e:  # noqa: BLE001 - report every rejection
            result["errors"].append({"name": name, "error": f"{type(e).__name__}: {e}"})
            continue
        if canonical(after) != canonical(equivalent(before)):
            result["changed"].append({"name": name, "before": before, "after": after})
        result["checked"].append(name)
    print(json.dumps(result))
    return 0 if not result["changed"] and not result["errors"] else 1


if __name__ == "__main__":
    sys.exit(main())
