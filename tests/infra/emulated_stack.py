"""Deploy a synthesized template into the emulation, as CloudFormation would: the table,
the consumer's log group and DLQ, every IAM role with its policies, their intrinsics
(`Ref`, `Fn::GetAtt`, `Fn::Join`, pseudo parameters) resolved to the emulated resources'
real names and ARNs; and credentials for a role, through STS AssumeRole."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import boto3

ACCOUNT = "123456789012"  # moto's default account
REGION = "us-east-1"
PSEUDO_PARAMETERS = {
    "AWS::Partition": "aws",
    "AWS::Region": REGION,
    "AWS::AccountId": ACCOUNT,
}
# What the CDK construct sets on the table beyond the store's own table (`table_spec`):
# CloudFormation settings the emulation does not need to serve the store.
PRODUCTION_ONLY = (
    "PointInTimeRecoverySpecification",
    "SSESpecification",
    "DeletionProtectionEnabled",
)


def create_table_params(properties: dict[str, Any]) -> dict[str, Any]:
    """CreateTable parameters of a template's table: the inverse of
    `infra.backend.cfn_table_properties` (TTL is set apart, with UpdateTimeToLive)."""
    params = {
        name: value
        for name, value in properties.items()
        if name not in ("TableName", "TimeToLiveSpecification", *PRODUCTION_ONLY)
    }
    params["StreamSpecification"] = {"StreamEnabled": True, **properties["StreamSpecification"]}
    return params


def create_table(client: Any, name: str, properties: dict[str, Any]) -> dict[str, Any]:
    """Create the table a template declares, with its TTL; returns its description."""
    client.create_table(TableName=name, **create_table_params(properties))
    client.get_waiter("table_exists").wait(TableName=name)
    client.update_time_to_live(
        TableName=name, TimeToLiveSpecification=properties["TimeToLiveSpecification"]
    )
    table: dict[str, Any] = client.describe_table(TableName=name)["Table"]
    return table


@dataclass
class EmulatedStack:
    """A template deployed in the emulation: `refs` and `attributes` are what its `Ref`
    and `Fn::GetAtt` resolve to."""

    template: dict[str, Any]
    refs: dict[str, str] = field(default_factory=lambda: dict(PSEUDO_PARAMETERS))
    attributes: dict[tuple[str, str], str] = field(default_factory=dict)

    def resources(self, kind: str) -> dict[str, dict[str, Any]]:
        """The template's resources of one type, by logical id: their properties."""
        return {
            logical_id: resource.get("Properties", {})
            for logical_id, resource in self.template["Resources"].items()
            if resource["Type"] == kind
        }

    def one(self, kind: str, named: str = "") -> tuple[str, dict[str, Any]]:
        """The only resource of one type whose logical id holds `named`: its logical id
        and properties."""
        [found] = [(k, v) for k, v in self.resources(kind).items() if named in k]
        return found

    def resolve(self, value: Any) -> Any:
        """`value` with its intrinsics replaced by the deployed names and ARNs."""
        if isinstance(value, list):
            return [self.resolve(v) for v in value]
        if not isinstance(value, dict):
            return value
        if len(value) == 1:
            [(name, argument)] = value.items()
            if name == "Ref":
                return self._deployed(self.refs, argument, f"Ref {argument}")
            if name == "Fn::GetAtt":
                return self._deployed(self.attributes, tuple(argument), f"GetAtt {argument}")
            if name == "Fn::Join":
                separator, parts = argument
                return separator.join(self.resolve(part) for part in parts)
            if name.startswith("Fn::"):
                raise NotImplementedError(f"{name} is not resolved in the emulation")
        return {k: self.resolve(v) for k, v in value.items()}

    @staticmethod
    def _deployed(found: dict[Any, str], key: Any, what: str) -> str:
        if key not in found:
            raise KeyError(f"{what}: not a resource deployed in the emulation")
        return found[key]

    def session(self, role_arn: str) -> boto3.Session:
        """A session with the credentials of `role_arn`, from STS AssumeRole."""
        credentials = boto3.client("sts", region_name=REGION).assume_role(
            RoleArn=role_arn, RoleSessionName="e2e"
        )["Credentials"]
        return boto3.Session(
            aws_access_key_id=credentials["AccessKeyId"],
            aws_secret_access_key=credentials["SecretAccessKey"],
            aws_session_token=credentials["SessionToken"],
            region_name=REGION,
        )


def deploy(template: dict[str, Any]) -> EmulatedStack:
    """Create the template's table, log group, queue, roles and role policies in the
    emulation (physical names: the template's, else the logical id)."""
    stack = EmulatedStack(template)
    dynamodb = boto3.client("dynamodb", region_name=REGION)
    for logical_id, properties in stack.resources("AWS::DynamoDB::Table").items():
        name = properties.get("TableName", logical_id)
        table = create_table(dynamodb, name, properties)
        stack.refs[logical_id] = name
        stack.attributes[logical_id, "Arn"] = table["TableArn"]
        stack.attributes[logical_id, "StreamArn"] = table["LatestStreamArn"]
    logs = boto3.client("logs", region_name=REGION)
    for logical_id, properties in stack.resources("AWS::Logs::LogGroup").items():
        name = properties.get("LogGroupName", logical_id)
        logs.create_log_group(logGroupName=name)
        stack.refs[logical_id] = name
        [group] = logs.describe_log_groups(logGroupNamePrefix=name)["logGroups"]
        stack.attributes[logical_id, "Arn"] = group["arn"]
    sqs = boto3.client("sqs", region_name=REGION)
    for logical_id, properties in stack.resources("AWS::SQS::Queue").items():
        url = sqs.create_queue(QueueName=properties.get("QueueName", logical_id))["QueueUrl"]
        stack.refs[logical_id] = url
        stack.attributes[logical_id, "Arn"] = sqs.get_queue_attributes(
            QueueUrl=url, AttributeNames=["QueueArn"]
        )["Attributes"]["QueueArn"]
    iam = boto3.client("iam", region_name=REGION)
    for logical_id, properties in stack.resources("AWS::IAM::Role").items():
        name = properties.get("RoleName", logical_id)
        role = iam.create_role(
            RoleName=name,
            AssumeRolePolicyDocument=json.dumps(
                stack.resolve(properties["AssumeRolePolicyDocument"])
            ),
        )["Role"]
        stack.refs[logical_id] = name
        stack.attributes[logical_id, "Arn"] = role["Arn"]
    for properties in stack.resources("AWS::IAM::Policy").values():
        document = json.dumps(stack.resolve(properties["PolicyDocument"]))
        for role in stack.resolve(properties["Roles"]):
            iam.put_role_policy(
                RoleName=role, PolicyName=properties["PolicyName"], PolicyDocument=document
            )
    return stack
