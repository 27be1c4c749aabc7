"""The real CDK CLI synthesizes the app from cdk.json, as the README deploys it (`cdk synth`,
`cdk deploy`): the CLI that infra/package.json pins (npm's aws-cdk), which `make install`
installs at infra/node_modules/.bin/cdk; never a global CLI, nor one from npx's cache.

Offline: no AWS account, no notices, telemetry or version check; nothing leaves the machine
but what bundling fetches from the package index (pip, cached after the first synth).

The template is checked against what the code declares: each function's asset
(`infra.bundling`); its role: its log group's writes, the library's one declaration of
actions (`permissions.NEEDS`) for the components `infra.backend` gives that role, and the
sends to its event source's on-failure destination; and the alarms and outputs of the same
app synthesized in this process (tests/infra/conftest.py)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any, cast

from aws_cdk import CfnOutput, CfnResource, Stack
from constructs import Construct
from langgraph.store.dynamodb.table.permissions import PLACEHOLDERS, Component, statements

from infra.backend import EMBEDDER_NEEDS, EXTRACTOR_NEEDS, LOG_ACTIONS, NOBODY
from infra.bundling import EMBEDDER, EXTRACTOR, ROOT, Asset

from .conftest import Synthesized
from .test_bundle import assert_ships_only_its_handler

INFRA = ROOT / "infra"
CDK = INFRA / "node_modules" / ".bin" / "cdk"
NOT_INSTALLED = (
    f"{CDK.relative_to(ROOT)} is missing: `make install` installs the CDK CLI that "
    "infra/package.json pins (npm ci --prefix infra)"
)


def cli_env(outdir: Path) -> dict[str, str]:
    """No AWS account (an environment-agnostic synth), no telemetry, notices or update
    checks: nothing leaves the machine but what bundling fetches from the package index."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("AWS_") and not key.startswith("CDK_")
    }
    env.update(
        AWS_CONFIG_FILE="/nonexistent",
        AWS_SHARED_CREDENTIALS_FILE="/nonexistent",
        AWS_EC2_METADATA_DISABLED="true",
        CDK_DISABLE_CLI_TELEMETRY="true",
        CDK_DISABLE_VERSION_CHECK="true",
        JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION="20",
        CDK_OUTDIR=str(outdir),
    )
    return env


def cdk(*args: str, outdir: Path) -> subprocess.CompletedProcess[str]:
    """The project's CDK CLI, run from the repository (it reads cdk.json there)."""
    assert CDK.is_file(), NOT_INSTALLED
    return subprocess.run(
        [str(CDK), *args, "--output", str(outdir), "--no-notices", "--no-color"],
        cwd=ROOT,
        env=cli_env(outdir),
        capture_output=True,
        text=True,
        check=False,
    )


def logical_id(stack: Stack, construct: Construct) -> str:
    """The logical id of `construct`'s CloudFormation resource in `stack`'s template."""
    resource = cast(CfnResource, construct.node.default_child)
    return cast(str, stack.resolve(resource.logical_id))


def of_type(template: dict[str, Any], kind: str) -> dict[str, dict[str, Any]]:
    """Each resource of `kind`: its properties, by logical id."""
    return {
        name: resource.get("Properties", {})
        for name, resource in template["Resources"].items()
        if resource["Type"] == kind
    }


def role_statements(template: dict[str, Any], role_id: str) -> list[dict[str, Any]]:
    """The statements of every policy on the role (each policy on that role alone)."""
    found = []
    for policy in of_type(template, "AWS::IAM::Policy").values():
        if {"Ref": role_id} in policy["Roles"]:
            assert policy["Roles"] == [{"Ref": role_id}], policy["Roles"]
            found += policy["PolicyDocument"]["Statement"]
    return found


def on_failure_destinations(template: dict[str, Any], function_id: str) -> list[Any]:
    """Where the function's event sources send what it gave up on (CDK grants the role
    the sends: Lambda's poller sends with the function's role)."""
    return [
        mapping["DestinationConfig"]["OnFailure"]["Destination"]
        for mapping in of_type(template, "AWS::Lambda::EventSourceMapping").values()
        if mapping["FunctionName"] == {"Ref": function_id} and "DestinationConfig" in mapping
    ]


def actions(statement: dict[str, Any]) -> list[str]:
    action = statement["Action"]
    return sorted([action] if isinstance(action, str) else action)


def declared_statements(needs: tuple[Component, ...]) -> list[list[str]]:
    """The action lists a role of `needs` is given: its log group's, and each component's
    statements as the library declares them (resources aside: placeholders here)."""
    declared = [sorted(LOG_ACTIONS)]
    for component in needs:
        declared += [actions(s) for s in statements(component, PLACEHOLDERS)]
    return sorted(declared)


def test_the_cli_is_the_version_infra_package_json_pins(tmp_path: Path) -> None:
    pinned = json.loads((INFRA / "package.json").read_text())["devDependencies"]["aws-cdk"]
    result = cdk("--version", outdir=tmp_path)
    assert result.returncode == 0, result.stderr[-4000:]
    assert result.stdout.split()[0] == pinned, result.stdout


def test_cdk_synth_runs_the_app_from_cdk_json(tmp_path: Path, synthesized: Synthesized) -> None:
    result = cdk("synth", "--quiet", outdir=tmp_path)
    assert result.returncode == 0, result.stderr[-4000:]
    stack = synthesized.stack
    template = json.loads((tmp_path / f"{stack.stack_name}.template.json").read_text())
    backend = stack.backend
    shipped: dict[str, tuple[Asset, Construct, tuple[Component, ...]]] = {
        logical_id(stack, backend.function): (EMBEDDER, backend.consumer_role, EMBEDDER_NEEDS),
        logical_id(stack, backend.extractor): (EXTRACTOR, backend.extractor_role, EXTRACTOR_NEEDS),
    }

    # Both functions, each with its own asset holding its handler, and its own role.
    functions = of_type(template, "AWS::Lambda::Function")
    assert sorted(functions) == sorted(shipped)
    declared = synthesized.resources("AWS::Lambda::Function")
    keys, roles = set(), set()
    for function_id, (asset, role, needs) in shipped.items():
        function = functions[function_id]
        assert function["Handler"] == asset.entry
        key = function["Code"]["S3Key"]
        # the asset of its own sources (`source_hash`), as this process hashes it too
        assert key == declared[function_id]["Properties"]["Code"]["S3Key"], asset
        folder = tmp_path / f"asset.{key.removesuffix('.zip')}"
        assert (folder / asset.handler / "handler.py").is_file(), folder
        for _, placed in asset.sources():
            assert (folder / placed).exists(), placed
        assert_ships_only_its_handler(folder, asset)
        role_id = logical_id(stack, role)
        assert function["Role"] == {"Fn::GetAtt": [role_id, "Arn"]}
        found = role_statements(template, role_id)
        assert found == role_statements(synthesized.template.to_json(), role_id)
        destinations = on_failure_destinations(template, function_id)
        sends = [s for s in found if s["Resource"] in destinations]
        assert all("sqs:SendMessage" in actions(s) for s in sends), sends
        assert all(a.startswith("sqs:") for s in sends for a in actions(s)), sends
        assert len(sends) == len(destinations), (role_id, sends)
        rest = sorted(actions(s) for s in found if s not in sends)
        assert rest == declared_statements(needs), role_id
        keys.add(key)
        roles.add(role_id)
    assert len(keys) == len(roles) == len(shipped)

    # The alarms, as the app declares them; each function has its own.
    alarms = of_type(template, "AWS::CloudWatch::Alarm")
    assert len(alarms) == len(backend.alarms)
    assert alarms == {
        name: resource["Properties"]
        for name, resource in synthesized.resources("AWS::CloudWatch::Alarm").items()
    }
    assert sorted(a["AlarmName"] for a in alarms.values()) == sorted(
        backend.alarm_name(alarm.node.id.removesuffix("Alarm")) for alarm in backend.alarms
    )
    for function_id in shipped:
        on_function = {"Name": "FunctionName", "Value": {"Ref": function_id}}
        assert [a for a in alarms.values() if on_function in a.get("Dimensions", [])], function_id

    # The outputs the stack declares; each function is named by one of them.
    outputs = template["Outputs"]
    assert set(outputs) == {c.node.id for c in stack.node.children if isinstance(c, CfnOutput)}
    assert outputs == synthesized.template.to_json()["Outputs"]
    for function_id in shipped:
        naming = [name for name, o in outputs.items() if o["Value"] == {"Ref": function_id}]
        assert len(naming) == 1, (function_id, naming)
    assert outputs["AlarmSubscribers"]["Value"] == NOBODY

    report = json.loads((tmp_path / "validation-report.json").read_text())
    assert [r["conclusion"] for r in report["pluginReports"]] == ["success"]  # cdk-nag ran
    assert "Alarms reach nobody." in result.stderr  # the CLI shows the synth warning


def test_cdk_synth_refuses_a_bad_context_value_in_one_line(tmp_path: Path) -> None:
    result = cdk("synth", "--quiet", "-c", "dims=5000", outdir=tmp_path)
    assert result.returncode != 0
    assert (
        "CDK context dims=5000 is invalid: dims must be the embedding model's dimension "
        "count, an int from 1 to 4096 (DynamoDB's limit)."
    ) in result.stderr.splitlines()
    assert "Traceback" not in result.stderr
