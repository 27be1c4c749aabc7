"""pytest plugin (registered via the ``pytest11`` entry point): emulated AWS in one line.

Fixtures:

* ``aws`` - an in-process emulated AWS (:func:`langgraph.store.dynamodb.testing.mock_aws`) with fake
  credentials and ``AWS_DEFAULT_REGION=us-east-1``; yields an :class:`EmulatedAWS` whose
  ``client(name)`` makes boto3 clients and whose ``settings`` holds the knobs.
* ``aws_endpoint`` - the same behind a local HTTP endpoint (:func:`local_endpoint`);
  ``client(name)`` points boto3 at it, ``endpoint_url`` is the URL.
* ``emulator_settings`` - override it to set knobs for ``aws``/``aws_endpoint``.

Mark a test with ``@pytest.mark.emulator_settings(index_creation_delay=0.2, ...)`` to set
knobs for that test only.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import boto3
import pytest
from langgraph.store.dynamodb.testing._settings import EmulatorSettings
from langgraph.store.dynamodb.testing.mock import (
    fake_credentials_env,
    local_endpoint,
    mock_aws,
    patched_env,
)

DEFAULT_REGION = "us-east-1"

__all__ = ["EmulatedAWS", "aws", "aws_endpoint", "emulator_settings"]


@dataclass
class EmulatedAWS:
    """Handle on an emulated AWS: where it is and how to make clients for it."""

    mode: str
    region: str = DEFAULT_REGION
    endpoint_url: str | None = None
    settings: EmulatorSettings = field(default_factory=EmulatorSettings)

    def client(self, service_name: str, **kwargs: Any) -> Any:
        client: Any = boto3.client
        return client(service_name, **self._located(kwargs))

    def resource(self, service_name: str, **kwargs: Any) -> Any:
        resource: Any = boto3.resource
        return resource(service_name, **self._located(kwargs))

    def _located(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        """boto3 arguments pointing at this emulation (region, endpoint) unless given."""
        kwargs.setdefault("region_name", self.region)
        if self.endpoint_url is not None:
            kwargs.setdefault("endpoint_url", self.endpoint_url)
        return kwargs


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "emulator_settings(**knobs): knobs of the emulation (langgraph.store.dynamodb.testing) "
        "for this test",
    )


@pytest.fixture
def emulator_settings(request: pytest.FixtureRequest) -> EmulatorSettings:
    marker = request.node.get_closest_marker("emulator_settings")
    return EmulatorSettings(**(marker.kwargs if marker else {}))


@pytest.fixture
def aws(emulator_settings: EmulatorSettings) -> Iterator[EmulatedAWS]:
    with (
        patched_env(fake_credentials_env(DEFAULT_REGION)),
        mock_aws(settings=emulator_settings),
    ):
        yield EmulatedAWS(mode="in-process", settings=emulator_settings)


@pytest.fixture
def aws_endpoint(emulator_settings: EmulatorSettings) -> Iterator[EmulatedAWS]:
    with (
        patched_env(fake_credentials_env(DEFAULT_REGION)),
        local_endpoint(settings=emulator_settings) as url,
    ):
        yield EmulatedAWS(mode="endpoint", endpoint_url=url, settings=emulator_settings)
