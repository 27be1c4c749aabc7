"""The policies users copy are the declaration's: docs/deploy.md and `dynamodb-memory
policy` print exactly `permissions.policy()`, and the tenant policy grants the store's
keyed actions."""

from __future__ import annotations

import json
import re
from pathlib import Path

from langgraph.store.dynamodb.cli.app import app
from langgraph.store.dynamodb.iam import tenant_policy
from langgraph.store.dynamodb.table.permissions import (
    KEYED_ACTIONS,
    NEEDS,
    PLACEHOLDERS,
    Component,
    On,
    Resources,
    actions,
    policy,
)
from typer.testing import CliRunner

DEPLOY = Path(__file__).resolve().parents[2] / "docs" / "deploy.md"
BLOCK = re.compile(r"<!-- policy: ([a-z-]+) -->\n```json\n(.*?)\n```", re.DOTALL)


def test_the_docs_print_the_declared_policies() -> None:
    blocks = BLOCK.findall(DEPLOY.read_text())
    assert [name for name, _ in blocks] == ["store", "store-read-only"]
    for name, text in blocks:
        assert json.loads(text) == policy(Component(name), PLACEHOLDERS), (
            f"docs/deploy.md's {name} policy is stale: paste `dynamodb-memory policy {name}`"
        )


def test_the_cli_prints_a_policy_with_the_given_arns() -> None:
    table = "arn:aws:dynamodb:eu-west-1:123456789012:table/agent-memory"
    model = "arn:aws:bedrock:eu-west-1::foundation-model/amazon.titan-embed-text-v2:0"
    result = CliRunner().invoke(
        app, ["policy", "consumer", "--table-arn", table, "--model-arn", model]
    )
    assert result.exit_code == 0, result.output
    printed = json.loads(result.output)
    assert printed == policy(
        Component.CONSUMER,
        Resources(
            table_arn=table,
            vector_index="memory-vectors",
            model_arns=(model,),
            queue_arn=PLACEHOLDERS.queue_arn,
        ),
    )
    granted = {a for s in printed["Statement"] for a in s["Action"]}
    assert "dynamodb:BatchWriteItem" in granted  # multi-vector items
    assert not granted & {"dynamodb:Scan", "dynamodb:DeleteItem", "dynamodb:CreateTable"}
    assert "sqs:SendMessage" in granted  # new checkpoints, routed to extraction


def test_the_printed_bedrock_arns_name_the_region_given_or_configured() -> None:
    given = CliRunner().invoke(app, ["policy", "store", "--region", "eu-west-2"])
    configured = CliRunner().invoke(
        app, ["policy", "extractor"], env={"AWS_DEFAULT_REGION": "ap-south-1"}
    )
    for result, region in ((given, "eu-west-2"), (configured, "ap-south-1")):
        assert result.exit_code == 0, result.output
        arns = [r for s in json.loads(result.output)["Statement"] for r in s["Resource"]]
        bedrock = [arn for arn in arns if arn.startswith("arn:aws:bedrock:")]
        assert bedrock and all(arn.startswith(f"arn:aws:bedrock:{region}::") for arn in bedrock)


def test_the_tenant_policy_grants_what_the_store_needs() -> None:
    arn = "arn:aws:dynamodb:us-east-1:123456789012:table/memory"
    model = "arn:aws:bedrock:us-east-1::foundation-model/amazon.titan-embed-text-v2:0"
    document = tenant_policy(arn, ("memories", "acme"), index_name="v", model_arns=[model])
    granted = {a for s in document["Statement"] for a in s["Action"]}
    assert granted == {p.action for p in NEEDS[Component.STORE]}
    [items] = [s for s in document["Statement"] if s["Sid"] == "TenantItems"]
    assert set(items["Action"]) == KEYED_ACTIONS & {
        p.action for p in NEEDS[Component.STORE] if p.on in (On.TABLE, On.LOCAL_INDEX)
    }
    assert "Condition" in items


def test_a_tenant_policys_key_conditions_hold_only_actions_that_name_keys() -> None:
    """A `dynamodb:LeadingKeys` condition on DescribeTable would grant nothing; the tenant
    gets the table-wide actions, its own and its threads', from one unconditioned statement."""
    table = "arn:aws:dynamodb:us-east-1:123456789012:table/agent-memory"
    document = tenant_policy(table, ("memories", "acme"), index_name="vec", thread_tenant="acme")
    unconditioned: set[str] = set()
    for statement in document["Statement"]:
        if "dynamodb:LeadingKeys" in json.dumps(statement.get("Condition", {})):
            assert set(statement["Action"]) <= KEYED_ACTIONS, statement["Sid"]
        else:
            unconditioned |= set(statement["Action"])
    checkpointer = set(actions(Component.CHECKPOINTER, On.TABLE))
    assert checkpointer - KEYED_ACTIONS <= unconditioned
