"""cdk-nag runs on the app and fails it on findings; grants give an app what the store needs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from aws_cdk import App, Stack, Validations
from aws_cdk import aws_iam as iam
from aws_cdk import aws_sqs as sqs
from aws_cdk.assertions import Template
from cdk_nag import AwsSolutionsChecks
from langgraph.store.dynamodb.table.permissions import NEEDS, Component

from infra.backend import MemoryBackend

from .conftest import NO_BUNDLING, Synthesized


def test_nag_ran_and_found_nothing_unacknowledged(synthesized: Synthesized) -> None:
    reports = synthesized.validation_report()["pluginReports"]
    assert [r["pluginName"] for r in reports] == ["AwsSolutions"]
    assert reports[0]["conclusion"] == "success"
    assert reports[0]["violations"] == []
    suppressed = {v["ruleName"] for v in reports[0]["suppressedViolations"]}
    assert suppressed == {"AwsSolutions-IAM5[Resource::*]", "AwsSolutions-SQS3"}
    acknowledged = {finding for _, finding, _ in synthesized.stack.backend.nag_acknowledgements()}
    assert acknowledged == {
        "AwsSolutions::AwsSolutions-IAM5[Resource::*]",
        "AwsSolutions::AwsSolutions-SQS3",
    }
    for _, _, reason in synthesized.stack.backend.nag_acknowledgements():
        assert len(reason) > 40


def test_nag_fails_the_synth_on_a_finding(tmp_path: Path) -> None:
    app = App(outdir=str(tmp_path), context=NO_BUNDLING)
    stack = Stack(app, "Bad")
    sqs.Queue(stack, "Plain", encryption=sqs.QueueEncryption.UNENCRYPTED)
    Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    with pytest.raises(RuntimeError, match="ValidationFailed"):
        app.synth()
    report = json.loads((tmp_path / "validation-report.json").read_text())
    rules = {v["ruleName"] for r in report["pluginReports"] for v in r["violations"]}
    assert "AwsSolutions-SQS4" in rules


def granted(read_only: bool, *, purge: bool = False) -> tuple[list[dict[str, Any]], Stack]:
    app = App(context=NO_BUNDLING)
    stack = Stack(app, "App")
    backend = MemoryBackend(stack, "Memory")
    role = iam.Role(stack, "AppRole", assumed_by=iam.ServicePrincipal("ecs-tasks.amazonaws.com"))
    if purge:
        backend.grant_purge(role)
    else:
        backend.grant_memory_access(role, read_only=read_only)
    policies = Template.from_stack(stack).find_resources(
        "AWS::IAM::Policy",
        {
            "Properties": {
                "Roles": [
                    {
                        "Ref": stack.resolve(
                            (role.node.default_child).logical_id  # type: ignore[union-attr]
                        )
                    }
                ]
            }
        },
    )
    [policy] = policies.values()
    return policy["Properties"]["PolicyDocument"]["Statement"], stack


@pytest.fixture(scope="module")
def read_write() -> list[dict[str, Any]]:
    return granted(read_only=False)[0]


@pytest.fixture(scope="module")
def read_only() -> list[dict[str, Any]]:
    return granted(read_only=True)[0]


def granted_on(found: list[dict[str, Any]]) -> dict[str, list[str]]:
    """Each statement's sorted actions, keyed by its resources as JSON."""
    return {
        json.dumps(s["Resource"]): sorted(
            [s["Action"]] if isinstance(s["Action"], str) else s["Action"]
        )
        for s in found
    }


def on(granted: dict[str, list[str]], resource_end: str) -> list[str]:
    [actions] = [a for resource, a in granted.items() if resource.endswith(resource_end)]
    return actions


TABLE_ARN = '"Arn"]}'


def test_grant_gives_the_store_its_actions_on_this_table(read_write: list[dict[str, Any]]) -> None:
    granted = granted_on(read_write)
    assert on(granted, TABLE_ARN) == sorted(
        [
            "dynamodb:GetItem",
            "dynamodb:BatchGetItem",
            "dynamodb:Query",
            "dynamodb:DescribeTable",
            "dynamodb:DescribeTimeToLive",
            "dynamodb:PutItem",
            "dynamodb:UpdateItem",
            "dynamodb:DeleteItem",
            "dynamodb:BatchWriteItem",
        ]
    )
    assert on(granted, '"/index/recency"]]}') == ["dynamodb:Query"]
    assert on(granted, '"/index/memory-vectors"]]}') == ["dynamodb:SearchVectors"]
    assert on(granted, '::foundation-model/amazon.titan-embed-text-v2:0"]]}') == [
        "bedrock:InvokeModel"
    ]
    assert len(read_write) == 4


def test_grant_is_the_libraries_declaration(read_write: list[dict[str, Any]]) -> None:
    granted = {a for actions in granted_on(read_write).values() for a in actions}
    assert granted == {p.action for p in NEEDS[Component.STORE]}


def test_read_only_grant_cannot_write(read_only: list[dict[str, Any]]) -> None:
    granted = granted_on(read_only)
    table = on(granted, TABLE_ARN)
    assert not {"dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"} & set(table)
    assert not any("Write" in action for action in table)
    assert "dynamodb:GetItem" in table
    assert on(granted, '"/index/memory-vectors"]]}') == ["dynamodb:SearchVectors"]


def test_the_purge_grant_is_the_libraries_declaration() -> None:
    statements, _ = granted(read_only=False, purge=True)
    actions = {a for found in granted_on(statements).values() for a in found}
    assert actions == {p.action for p in NEEDS[Component.PURGE]}
    assert "dynamodb:Scan" in actions  # a wipe of every tenant, and --verify-scan
