"""Checks an Anthropic or OpenAI Responses export against the official SDK's request types,
strictly: every entry must validate with pydantic's `TypeAdapter` in strict mode (no
coercion: `"yes"` is no boolean) AND carry no key the type does not declare (a TypedDict ignores unknown keys when validated, the API does not).

Usage: python tool_fields.py anthropic|openai-responses EXPORT.json
EXPORT.json is a list of tool entries as the export writes them:
  anthropic          `ToolParam` (with `input_examples`, `defer_loading`, `cache_control`) or a
                     tool-search tool (`ToolSearchToolRegex20251119Param`, `..Bm25..`);
  openai-responses   `FunctionToolParam` (with `defer_loading`), `NamespaceToolParam` (each
                     member a namespace `ToolFunction`) or `ToolSearchToolParam`.
Prints one JSON object: {"checked": [names], "errors": [{"name", "error"}]}.
Exit status 0 when every entry is accepted, 1 otherwise.
"""

import json
import sys

import pydantic


def keys_of(typed_dict):
    return set(typed_dict.__required_keys__) | set(typed_dict.__optional_keys__)


def strict_keys(entry, typed_dict, where, nested=None):
    """The keys of `entry` (and of nested TypedDict values) that `typed_dict` does not declare.
    Required keys are pydantic's to check: the SDK's `from __future__ import annotations` leaves
    `__required_keys__` empty."""
    problems = []
    if not isinstance(entry, dict):
        return [f"{where}: not an object"]
    unknown = sorted(set(entry) - keys_of(typed_dict))
    if unknown:
        problems.append(f"{where}: keys {unknown} are not fields of {typed_dict.__name__}")
    for key, inner in (nested or {}).items():
        if isinstance(entry.get(key), dict):
            problems += strict_keys(entry[key], inner, f"{where}.{key}")
    return problems


def validate(entry, typed_dict, where):
    try:
        pydantic.TypeAdapter(typed_dict).validate_python(entry, strict=True)
        return []
    except pydantic.ValidationError as e:
        return [f"{where}: {typed_dict.__name__}: {e.errors()[0]['msg']} at {e.errors()[0]['loc']}"]


def check_anthropic(entry):
    from anthropic.types import (
        CacheControlEphemeralParam,
        ToolParam,
        ToolSearchToolBm25_20251119Param,
        ToolSearchToolRegex20251119Param,
    )

    kind = entry.get("type") if isinstance(entry, dict) else None
    if isinstance(kind, str) and kind.startswith("tool_search_tool_regex"):
        typed = ToolSearchToolRegex20251119Param
    elif isinstance(kind, str) and kind.startswith("tool_search_tool_bm25"):
        typed = ToolSearchToolBm25_20251119Param
    else:
        typed = ToolParam
    where = entry.get("name", "?") if isinstance(entry, dict) else "?"
    nested = {"cache_control": CacheControlEphemeralParam}
    return strict_keys(entry, typed, where, nested) + validate(entry, typed, where)


def check_openai(entry):
    from openai.types.responses import (
        FunctionToolParam,
        NamespaceToolParam,
        ToolSearchToolParam,
    )
    from openai.types.responses.namespace_tool_param import ToolFunction

    kind = entry.get("type") if isinstance(entry, dict) else None
    where = (entry.get("name") or kind or "?") if isinstance(entry, dict) else "?"
    if kind == "namespace":
        problems = strict_keys(entry, NamespaceToolParam, where)
        problems += validate(entry, NamespaceToolParam, where)
        for member in entry.get("tools") or []:
            inner = f"{where}/{member.get('name', '?') if isinstance(member, dict) else '?'}"
            problems += strict_keys(member, ToolFunction, inner)
            problems += validate(member, ToolFunction, inner)
        return problems
    if kind == "tool_search":
        return strict_keys(entry, ToolSearchToolParam, where) + validate(
            entry, ToolSearchToolParam, where
        )
    return strict_keys(entry, FunctionToolParam, where) + validate(
        entry, FunctionToolParam, where
    )


def main():
    platform, path = sys.argv[1], sys.argv[2]
    with open(path) as f:
        tools = json.load(f)
    check = {"anthropic": check_anthropic, "openai-responses": check_openai}[platform]
    checked, errors = [], []
    for entry in tools:
        name = entry.get("name") or entry.get("type") if isinstance(entry, dict) else "?"
        problems = check(entry)
        if problems:
            errors += [{"name": name, "error": p} for p in problems]
        else:
            checked.append(name)
    print(json.dumps({"checked": checked, "errors": errors}))
    sys.exit(1 if errors else 0)


main()
