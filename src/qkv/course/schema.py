"""The JSON Schema of course.yaml, derived from its dataclasses (course.schema.json equals it)."""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from typing import Any, Literal

from qkv.course.config import Course
from qkv.course.declared import fields


def _schema_of(tp: Any) -> dict[str, Any]:
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        (inner,) = [a for a in args if a is not type(None)]
        return {"anyOf": [_schema_of(inner), {"type": "null"}]}
    if origin is Literal:
        return {"enum": list(args)}
    if origin is tuple:
        return {"type": "array", "items": _schema_of(args[0])}
    if dataclasses.is_dataclass(tp):
        hints = typing.get_type_hints(tp)
        props, required = {}, []
        for f in fields(tp):
            prop = {"description": f.metadata["description"], **_schema_of(hints[f.name])}
            if "minimum" in f.metadata:
                prop["minimum"] = f.metadata["minimum"]
            if f.default is not dataclasses.MISSING and f.default is not None:
                prop["default"] = list(f.default) if isinstance(f.default, tuple) else f.default
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                required.append(f.name)
            props[f.name] = prop
        return {
            "type": "object",
            "description": (tp.__doc__ or "").strip(),
            "properties": props,
            "required": required,
            "additionalProperties": False,
        }
    simple: dict[type, dict[str, Any]] = {
        bool: {"type": "boolean"},
        int: {"type": "integer"},
        float: {"type": "number"},
        str: {"type": "string", "minLength": 1},
    }
    return simple[tp]


def json_schema() -> dict[str, Any]:
    schema = _schema_of(Course)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "qkv-kit course.yaml",
        **schema,
    }


def schema_text() -> str:
    return json.dumps(json_schema(), indent=2) + "\n"


if __name__ == "__main__":  # python -m qkv.course.schema > course.schema.json
    print(schema_text(), end="")
