"""cfn-lint finds no error in the synthesized templates (next to cdk-nag, which the synth
runs): a property CloudFormation would reject fails here, not at deploy time. Its warnings
are reported as pytest warnings.

cfn-lint's E3039 (a table's AttributeDefinitions are exactly its key attributes) predates
vector indexes, whose SearchSchema attributes DynamoDB requires in AttributeDefinitions too
("One element in SearchSchema is not defined in attribute definitions"): it is replaced by
the same check counting those attributes."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from cfnlint.api import ManualArgs, lint_file

from .conftest import Synthesized

REPLACED = ["E3039"]


def lint(template: Path) -> list[str]:
    """cfn-lint's errors in `template` (its warnings are reported, not returned)."""
    errors = []
    config = ManualArgs(regions=["us-east-1"], ignore_checks=REPLACED)
    for match in lint_file(template, config=config):
        if match.rule.severity == "error":
            errors.append(str(match))
        else:
            warnings.warn(f"cfn-lint: {match}", stacklevel=2)
    return errors


def undefined_or_unused_attributes(table: dict[str, Any]) -> set[str]:
    """E3039 with vector indexes: attributes defined but used by no key or search schema,
    and key or search schema attributes not defined."""
    defined = {a["AttributeName"] for a in table.get("AttributeDefinitions", [])}
    schemas = [table.get("KeySchema", [])]
    for kind in ("LocalSecondaryIndexes", "GlobalSecondaryIndexes"):
        schemas += [index["KeySchema"] for index in table.get(kind, [])]
    schemas += [index["SearchSchema"] for index in table.get("VectorIndexes", [])]
    used = {element["AttributeName"] for schema in schemas for element in schema}
    return defined ^ used


@pytest.mark.parametrize("app", ["synthesized", "customized"])
def test_cfn_lint_finds_no_error(app: str, request: pytest.FixtureRequest) -> None:
    synth: Synthesized = request.getfixturevalue(app)
    template = synth.outdir / synth.stack.template_file
    assert lint(template) == []
    resources = json.loads(template.read_text())["Resources"].values()
    tables = [r["Properties"] for r in resources if r["Type"] == "AWS::DynamoDB::Table"]
    assert tables
    for table in tables:
        assert undefined_or_unused_attributes(table) == set()


def test_the_replaced_check_still_catches_a_stray_definition() -> None:
    table = {
        "AttributeDefinitions": [
            {"AttributeName": name, "AttributeType": "S"} for name in ("PK", "SK", "stray")
        ],
        "KeySchema": [
            {"AttributeName": "PK", "KeyType": "HASH"},
            {"AttributeName": "SK", "KeyType": "RANGE"},
        ],
        "VectorIndexes": [
            {"SearchSchema": [{"AttributeName": "kind", "SearchSchemaElementType": "HASH"}]}
        ],
    }
    assert undefined_or_unused_attributes(table) == {"stray", "kind"}
