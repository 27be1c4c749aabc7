"""Namespace templates: labels with `{name}` placeholders (`("memories", "{tenant}",
"{user_id}")`), filled from a thread's values when memories are formed and from a run's
when they are recalled, by the same rule."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

# `{name}` placeholders of a namespace template label.
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def placeholders(template: Sequence[str]) -> set[str]:
    """The values `template` names."""
    return {name for label in template for name in PLACEHOLDER.findall(label)}


def fill(template: Sequence[str], values: Mapping[str, str]) -> tuple[str, ...]:
    """`template` filled with `values` (KeyError names a missing one)."""
    return tuple(PLACEHOLDER.sub(lambda m: values[m[1]], label) for label in template)
