"""The CDK app (`cdk.json` runs `python -m infra.app`): one `MemoryStack`, settings from
context, cdk-nag's AwsSolutions checks on everything (a finding fails the synth). A context
value that cannot work fails it with one line naming the value and the fix."""

from __future__ import annotations

import os

from aws_cdk import App, Environment, Validations
from cdk_nag import AwsSolutionsChecks

from .settings import MemorySettings, SettingError
from .stack import MemoryStack

DEFAULT_STACK_NAME = "LangGraphMemory"


def build(app: App) -> MemoryStack:
    """Add the memory stack (name from context `stackName`) and the nag checks to `app`."""
    stack = MemoryStack(
        app,
        app.node.try_get_context("stackName") or DEFAULT_STACK_NAME,
        settings=MemorySettings.from_context(app.node),
        env=_environment(),
        description="LangGraph long-term memory on DynamoDB (langgraph-dynamodb-memory)",
    )
    Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    return stack


def _environment() -> Environment | None:
    """The CLI's account and region when it knows them; else an environment-agnostic
    stack, so synth works without credentials."""
    account, region = os.environ.get("CDK_DEFAULT_ACCOUNT"), os.environ.get("CDK_DEFAULT_REGION")
    return Environment(account=account, region=region) if account and region else None


if __name__ == "__main__":
    app = App()
    try:
        build(app)
    except SettingError as error:  # one line naming the value and the fix, no traceback
        raise SystemExit(str(error)) from None
    app.synth()
