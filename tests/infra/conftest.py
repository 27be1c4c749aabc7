"""One synthesized memory stack for the infra tests (jsii starts a Node process: synth once).

Bundling is skipped here (context `aws:cdk:bundling-stacks` = []): the template does not
depend on the asset's contents. `test_bundle.py` builds real assets, on the dependency
layer built once here (`host_layer`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

from aws_cdk import App
from aws_cdk.assertions import Template

from infra.app import build
from infra.bundling import HOST, build_layer
from infra.stack import MemoryStack

NO_BUNDLING = {"aws:cdk:bundling-stacks": []}


@dataclass
class Synthesized:
    stack: MemoryStack
    template: Template
    outdir: Path

    def resources(self, kind: str) -> dict[str, Any]:
        found: dict[str, Any] = self.template.find_resources(kind)
        return found

    def one(self, kind: str, named: str = "") -> dict[str, Any]:
        """The only resource of `kind` whose logical id holds `named`."""
        found = {k: v for k, v in self.resources(kind).items() if named in k}
        assert len(found) == 1, f"expected one {kind} named {named!r}, found {list(found)}"
        return next(iter(found.values()))

    def validation_report(self) -> dict[str, Any]:
        report: dict[str, Any] = json.loads((self.outdir / "validation-report.json").read_text())
        return report


def synthesize(
    outdir: Path, extend: Callable[[MemoryStack], None] | None = None, **context: Any
) -> Synthesized:
    """Synthesize the app as `cdk.json` runs it (nag included), with context settings;
    `extend` adds constructs to the stack first."""
    app = App(outdir=str(outdir), context={**NO_BUNDLING, **context})
    stack = build(app)
    if extend is not None:
        extend(stack)
    app.synth()  # runs the cdk-nag plugin; raises on unacknowledged findings
    return Synthesized(stack, Template.from_stack(stack), outdir)


@pytest.fixture(scope="session")
def synthesized(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Synthesized]:
    """The app with every default setting."""
    yield synthesize(tmp_path_factory.mktemp("cdk-default"))


@pytest.fixture(scope="session")
def customized(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Synthesized]:
    """The app with settings from context, as `cdk deploy -c ...` gives them (text)."""
    yield synthesize(
        tmp_path_factory.mktemp("cdk-custom"),
        tableName="team-memory",
        embeddingModelId="us.amazon.titan-embed-text-v2:0",
        dims="256",
        distanceFunction="EUCLIDEAN",
        indexName="notes-index",
        fields="text,summary",
        filterFields='["kind", "lang"]',
        embedOn="stream",
        removalPolicy="destroy",
        deletionProtection="false",
        alarmEmail="ops@example.com",
        reservedConcurrency="5",
        tags='{"team": "agents", "cost-center": "42"}',
        tracing="true",
    )


@pytest.fixture(scope="session")
def host_layer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The dependency layer both functions share, built once for this machine (the Lambda
    build's wheels are aarch64)."""
    layer = tmp_path_factory.mktemp("layer")
    build_layer(layer, HOST)
    return layer
