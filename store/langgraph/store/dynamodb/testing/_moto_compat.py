"""The moto internals the emulation patches, checked when the emulation is imported.

The emulation wraps methods of moto's DynamoDB handler, models and serializer, and of its
Bedrock runtime backend. Those are internals that any moto release may rename or reshape.
With a moto that lacks one, importing `langgraph.store.dynamodb.testing` fails at once with
`IncompatibleMotoError`, naming the installed moto and the range this package supports
(its own moto requirement), instead of misbehaving in the middle of a test run.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from importlib import metadata
from typing import Any

DISTRIBUTION = "langgraph-dynamodb-memory"

# What the emulation wraps: the owner, the attribute, and the leading parameters its
# wrapper relies on (none for attributes that are not called).
Target = tuple[Any, str, tuple[str, ...]]


class IncompatibleMotoError(ImportError):
    """The installed moto lacks an internal the emulation patches."""


def moto_version() -> str:
    """The installed moto's version."""
    try:
        return metadata.version("moto")
    except metadata.PackageNotFoundError:
        return "(not installed)"


def supported_range() -> str:
    """The moto versions this package supports: its own requirement on moto."""
    try:
        requirements = metadata.requires(DISTRIBUTION) or []
    except metadata.PackageNotFoundError:
        requirements = []
    for requirement in requirements:
        name, _, rest = requirement.partition("[")
        if name.strip() == "moto":
            specifiers = rest.partition("]")[2].split(";")[0].strip().split(",")
            return ",".join(sorted(specifiers, key=lambda s: not s.startswith(">")))
    return "(see the moto requirement in pyproject.toml)"


def incompatible(problem: str) -> IncompatibleMotoError:
    """The error for an emulation that cannot patch the installed moto."""
    return IncompatibleMotoError(
        f"langgraph.store.dynamodb.testing cannot emulate on moto {moto_version()}: "
        f"{problem}. It supports moto{supported_range()}; install a supported moto, e.g. "
        f"pip install 'moto[dynamodb,dynamodbstreams]{supported_range()}'."
    )


def check_targets(targets: Iterable[Target]) -> None:
    """Raise `IncompatibleMotoError` unless every target exists with the parameters its
    wrapper relies on."""
    for owner, name, parameters in targets:
        where = f"{getattr(owner, '__qualname__', getattr(owner, '__name__', owner))}.{name}"
        if not hasattr(owner, name):
            raise incompatible(f"{where} does not exist")
        if not parameters:
            continue
        try:
            found = tuple(inspect.signature(getattr(owner, name)).parameters)
        except (TypeError, ValueError):
            raise incompatible(f"{where} is not a function") from None
        if found[: len(parameters)] != parameters:
            raise incompatible(
                f"{where} takes ({', '.join(found)}), expected ({', '.join(parameters)}, ...)"
            )
