"""pytest entry point of the package: the `langgraph.store.dynamodb.testing` fixtures
(`aws`, `aws_endpoint`, `emulator_settings`), registered only when the `testing` extra
(moto, numpy) is installed, so installing the library alone never breaks a project's pytest run."""

from __future__ import annotations

from importlib.util import find_spec

__all__: list[str] = []

if find_spec("moto") is not None and find_spec("numpy") is not None:
    from langgraph.store.dynamodb.testing.pytest_plugin import (
        aws,
        aws_endpoint,
        emulator_settings,
        pytest_configure,
    )

    __all__ += ["aws", "aws_endpoint", "emulator_settings", "pytest_configure"]
