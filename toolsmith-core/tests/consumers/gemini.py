"""Checks that a Gemini export is accepted by the official `google-genai` SDK.

Usage: python gemini.py EXPORT.json
EXPORT.json is a `gemini` export ({"functionDeclarations": [...]}). The SDK's pydantic models
forbid unknown fields: the whole export must pass `types.Tool.model_validate`, and each
declaration's `parametersJsonSchema` must pass `types.JSONSchema.model_validate` and convert with
`types.Schema.from_json_schema(..., api_option="GEMINI_API", raise_error_on_unsupported_field=True)`.
The converted `Schema` must keep what the model reads: every property, `required`, each
description and enum, and array items, recursively.
Prints one JSON object: {"checked": [names], "lost": [{name, where, what}], "errors": [...]}.
Exit status 0 when every declaration is accepted and nothing is lost, 1 otherwise.
"""

import json
import sys

from google.genai import types


def compare(src, got, where, lost):
    """Records in `lost` what the converted `Schema` dropped of the JSON schema `src`."""
    if not isinstance(src, dict):
        return
    if "description" in src and got.description != src["description"]:
        lost.append({"where": where, "what": "description"})
    if "enum" in src and [str(v) for v in src["enum"]] != list(got.enum or []):
        lost.append({"where": where, "what": "enum"})
    if "required" in src and list(got.required or []) != list(src["required"]):
        lost.append({"where": where, "what": "required"})
    props = src.get("properties") or {}
    got_props = got.properties or {}
    for key, sub in props.items():
        if key not in got_props:
            lost.append({"where": f"{where}/properties/{key}", "what": "property"})
        else:
            compare(sub, got_props[key], f"{where}/properties/{key}", lost)
    if isinstance(src.get("items"), dict):
        if got.items is None:
            lost.append({"where": f"{where}/items", "what": "items"})
        else:
            compare(src["items"], got.items, f"{where}/items", lost)
    for i, branch in enumerate(src.get("anyOf") or []):
        branches = got.any_of or []
        if i >= len(branches):
            lost.append({"where": f"{where}/anyOf/{i}", "what": "anyOf branch"})
        else:
            compare(branch, branches[i], f"{where}/anyOf/{i}", lost)


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as f:
        export = json.load(f)
    result = {"checked": [], "lost": [], "errors": []}
    try:
        types.Tool.model_validate(export)
    except Exception as e:  # noqa: BLE001 - report every rejection
        result["errors"].append({"name": "*", "error": f"Tool.model_validate: {e}"})
    for decl in export.get("functionDeclarations", []):
        name = decl.get("name", "?")
        try:
            js = types.JSONSchema.model_validate(decl["parametersJsonSchema"])
            schema = types.Schema.from_json_schema(
                json_schema=js, api_option="GEMINI_API", raise_error_on_unsupported_field=True
            )
        except Exception as e:  # noqa: BLE001 - report every rejection
            result["errors"].append({"name": name, "error": f"{type(e).__name__}: {e}"})
            continue
        lost = []
        compare(decl["parametersJsonSchema"], schema, "", lost)
        result["lost"].extend({"name": name, **item} for item in lost)
        result["checked"].append(name)
    print(json.dumps(result))
    return 0 if not result["lost"] and not result["errors"] else 1


if __name__ == "__main__":
    sys.exit(main())
