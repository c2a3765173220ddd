"""Config declared as frozen dataclasses: fields with descriptions, built from parsed YAML.

Every problem is one QkvError naming the path of the value (`course.yaml: limits.cpu_s`) and the
value itself; quiz.yaml is declared and read the same way.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import types
import typing
from dataclasses import field
from typing import Any, Literal, TypeVar

from qkv.errors import QkvError, did_you_mean

T = TypeVar("T")


def described(
    description: str,
    default: Any = dataclasses.MISSING,
    *,
    minimum: float | None = None,
    regrade: bool = True,
    **kw: Any,
) -> Any:
    """A dataclass field with a description (and an optional lower bound) for errors and the schema.

    regrade=False marks a field whose change needs no student's code graded again (a deadline, a
    title): `grading_view` leaves it out, so a rerun reuses the results and recomputes the rest.

    Args:
        description: what the value is, in the words an error and the schema show.
        default: the value when the file leaves the key out; without one, the key is required.
        minimum: the smallest value accepted, or None for no bound.
        regrade: False when a change of the value needs no code graded again.
        kw: the rest of dataclasses.field's arguments (default_factory, say).
    """
    meta: dict[str, object] = {"description": description}
    if minimum is not None:
        meta["minimum"] = minimum
    if not regrade:
        meta["regrade"] = False
    if default is not dataclasses.MISSING:
        kw["default"] = default
    return field(metadata=meta, **kw)


def describe(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def fields(cls_or_obj: object) -> tuple[dataclasses.Field[Any], ...]:
    return class_fields(cls_or_obj if isinstance(cls_or_obj, type) else type(cls_or_obj))


@functools.cache
def class_fields(cls: type) -> tuple[dataclasses.Field[Any], ...]:
    return tuple(f for f in dataclasses.fields(cls) if not f.metadata.get("internal"))


@functools.cache
def type_hints(cls: type) -> dict[str, Any]:
    """The field types of a config class (typing resolves them slowly: once per class)."""
    return typing.get_type_hints(cls)


def convert(tp: Any, value: object, where: str) -> Any:
    """One parsed YAML value as the declared type, checked.

    Args:
        tp: the field's type (a union with None, a Literal, a tuple, a dataclass, bool, int, float,
            str, or object for a value its owner checks).
        value: the parsed value.
        where: its path, for errors.

    Returns:
        The value as that type.

    Raises:
        QkvError: one line naming `where` and the value.
    """
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        (inner,) = [a for a in args if a is not type(None)]
        return convert(inner, value, where)
    if origin is Literal:
        if value not in args:
            raise QkvError(
                f"{where}: expected one of {', '.join(map(str, args))}, got {describe(value)}"
            )
        return value
    if origin is tuple:
        if not isinstance(value, list):
            raise QkvError(f"{where}: expected a list, got {describe(value)}")
        return tuple(convert(args[0], item, f"{where}[{i}]") for i, item in enumerate(value))
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return build(tp, value, where)
    if (
        tp is object
    ):  # checked by the owner, whose rules depend on other fields (a quiz answer's kind)
        return value
    if tp is bool:
        if not isinstance(value, bool):
            raise QkvError(f"{where}: expected true or false, got {describe(value)}")
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise QkvError(f"{where}: expected a whole number, got {describe(value)}")
        return value
    if tp is float:
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not math.isfinite(value)
        ):
            raise QkvError(f"{where}: expected a number, got {describe(value)}")
        return float(value)
    if tp is str:
        if not isinstance(value, str) or not value.strip():
            raise QkvError(f"{where}: expected a non-empty string, got {describe(value)}")
        return value
    raise TypeError(f"unsupported config type {tp!r}")  # a bug in this module, not user input


def join(where: str, key: object) -> str:
    """'course.yaml:' + 'limits' -> 'course.yaml: limits'; 'course.yaml: limits' + 'cpu_s' -> '....limits.cpu_s'."""
    return f"{where} {key}" if where.endswith(":") else f"{where}.{key}"


def build(cls: type[T], data: object, where: str) -> T:
    if not isinstance(data, dict):
        raise QkvError(f"{where.rstrip(':')}: expected a mapping, got {describe(data)}")
    hints = type_hints(typing.cast(type, cls))
    known = {f.name: f for f in fields(cls)}
    for key in data:
        if key not in known:
            raise QkvError(f"{join(where, key)}: unknown key" + did_you_mean(str(key), known))
    values: dict[str, object] = {}
    for name, f in known.items():
        sub = join(where, name)
        if name not in data:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise QkvError(f"{sub}: missing (required: {f.metadata['description']})")
            continue
        value = convert(hints[name], data[name], sub)
        minimum = f.metadata.get("minimum")
        if minimum is not None and value is not None and value < minimum:
            raise QkvError(f"{sub}: must be at least {minimum}, got {describe(data[name])}")
        values[name] = value
    return cls(**values)
