"""The synthesized template: what `cdk deploy` creates, checked resource by resource."""

from __future__ import annotations

import json
from typing import Any

from aws_cdk.assertions import Annotations, Match
from langgraph.store.dynamodb.stream.consumer import filter_criteria
from langgraph.store.dynamodb.table.table_spec import table_spec, ttl_spec

from infra.backend import cfn_table_properties
from infra.settings import MemorySettings

from .conftest import Synthesized


def statements(synth: Synthesized, role: str = "") -> list[dict[str, Any]]:
    """The statements of the policies attached to roles whose logical id holds `role`."""
    found = []
    for policy in synth.resources("AWS::IAM::Policy").values():
        if role in json.dumps(policy["Properties"]["Roles"]):
            found.extend(policy["Properties"]["PolicyDocument"]["Statement"])
    return found


def actions(statement: dict[str, Any]) -> list[str]:
    action = statement["Action"]
    return [action] if isinstance(action, str) else list(action)


def test_table_is_the_one_setup_creates(synthesized: Synthesized) -> None:
    table = synthesized.one("AWS::DynamoDB::Table")["Properties"]
    wanted = cfn_table_properties(table_spec(MemorySettings().shape))
    for name, value in wanted.items():
        assert table[name] == value, name
    assert table["BillingMode"] == "PAY_PER_REQUEST"
    assert table["StreamSpecification"] == {"StreamViewType": "NEW_IMAGE"}
    assert (
        table["TimeToLiveSpecification"]
        == ttl_spec()
        == {
            "AttributeName": "expires_at",
            "Enabled": True,
        }
    )
    [index] = table["VectorIndexes"]
    assert index["IndexName"] == "memory-vectors"
    assert index["Dimensions"] == 1024
    assert index["DistanceFunction"] == "COSINE"
    assert index["SearchSchema"] == [{"AttributeName": "PK", "SearchSchemaElementType": "HASH"}]


def test_table_is_protected_by_default(synthesized: Synthesized) -> None:
    synthesized.template.has_resource(
        "AWS::DynamoDB::Table",
        {
            "DeletionPolicy": "Retain",
            "UpdateReplacePolicy": "Retain",
            "Properties": Match.object_like(
                {
                    "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True},
                    "SSESpecification": {"SSEEnabled": True, "SSEType": "KMS"},
                    "DeletionProtectionEnabled": True,
                }
            ),
        },
    )


def test_context_settings_reach_the_index_and_the_consumer(customized: Synthesized) -> None:
    table = customized.one("AWS::DynamoDB::Table")
    props = table["Properties"]
    assert props["TableName"] == "team-memory"
    assert props["DeletionProtectionEnabled"] is False
    assert table["DeletionPolicy"] == "Delete"
    [index] = props["VectorIndexes"]
    assert index["IndexName"] == "notes-index"
    assert index["Dimensions"] == 256
    assert index["DistanceFunction"] == "EUCLIDEAN"
    assert index["SearchSchema"][1:] == [
        {"AttributeName": "filter_kind", "SearchSchemaElementType": "INLINE_FILTER"},
        {"AttributeName": "filter_lang", "SearchSchemaElementType": "INLINE_FILTER"},
    ]
    assert {"AttributeName": "filter_kind", "AttributeType": "S"} in props["AttributeDefinitions"]
    function = customized.one("AWS::Lambda::Function", "Embedder")["Properties"]
    env = function["Environment"]["Variables"]
    assert env["INDEX_NAME"] == "notes-index"
    assert env["EMBEDDING_MODEL_ID"] == "us.amazon.titan-embed-text-v2:0"
    assert env["EMBEDDING_DIMS"] == "256"
    assert function["ReservedConcurrentExecutions"] == 5
    config = customized.stack.backend.store_config()
    assert config["index"] == {
        "dims": 256,
        "distance_function": "EUCLIDEAN",
        "index_name": "notes-index",
        "fields": ["text", "summary"],
        "filter_fields": ["kind", "lang"],
        "embed_on": "stream",
    }


def test_consumer_runs_the_handler_on_arm64(synthesized: Synthesized) -> None:
    function = synthesized.one("AWS::Lambda::Function", "Embedder")["Properties"]
    assert function["Architectures"] == ["arm64"]
    assert function["Runtime"].startswith("python3.")
    assert function["Handler"] == "embedder.handler.handler"
    env = function["Environment"]["Variables"]
    assert env["TABLE_NAME"] == {
        "Ref": synthesized.stack.resolve(synthesized.stack.backend.table.logical_id)
    }
    assert env["EMBEDDING_MODEL_ID"] == "amazon.titan-embed-text-v2:0"
    assert env["EMBEDDING_DIMS"] == "1024"
    assert env["INDEX_NAME"] == "memory-vectors"


def test_tracing_is_off_by_default_and_on_with_context(
    synthesized: Synthesized, customized: Synthesized
) -> None:
    off = synthesized.one("AWS::Lambda::Function", "Embedder")["Properties"]
    assert "TracingConfig" not in off
    assert off["Environment"]["Variables"]["TRACING"] == "false"
    on = customized.one("AWS::Lambda::Function", "Embedder")["Properties"]
    assert on["TracingConfig"] == {"Mode": "Active"}
    assert on["Environment"]["Variables"]["TRACING"] == "true"
    xray = [s for s in statements(customized) if actions(s)[0].startswith("xray:")]
    assert [sorted(actions(s)) for s in xray] == [
        ["xray:PutTelemetryRecords", "xray:PutTraceSegments"]
    ] * 2  # the consumer's and the extractor's
    extractor = customized.one("AWS::Lambda::Function", "Extractor")["Properties"]
    assert extractor["TracingConfig"] == {"Mode": "Active"}
    assert not [s for s in statements(synthesized) if actions(s)[0].startswith("xray:")]


def test_event_source_mapping(synthesized: Synthesized) -> None:
    mapping = synthesized.one("AWS::Lambda::EventSourceMapping", "EmbedPending")["Properties"]
    assert mapping["FilterCriteria"] == filter_criteria(extraction=True)
    assert mapping["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert mapping["BisectBatchOnFunctionError"] is True
    assert 0 < mapping["MaximumRetryAttempts"] <= 10
    assert 60 <= mapping["MaximumRecordAgeInSeconds"] <= 24 * 3600
    assert mapping["BatchSize"] == 100
    assert mapping["MaximumBatchingWindowInSeconds"] == 2
    assert mapping["StartingPosition"] == "TRIM_HORIZON"
    assert "StreamArn" in json.dumps(mapping["EventSourceArn"])
    queue_id = synthesized.template.find_resources("AWS::SQS::Queue")
    [queue_logical_id] = [name for name in queue_id if "EmbedFailures" in name]
    assert mapping["DestinationConfig"]["OnFailure"]["Destination"] == {
        "Fn::GetAtt": [queue_logical_id, "Arn"]
    }


def test_dlq_is_encrypted_and_ssl_only(synthesized: Synthesized) -> None:
    queue = synthesized.one("AWS::SQS::Queue", "EmbedFailures")["Properties"]
    assert queue["SqsManagedSseEnabled"] is True
    assert queue["MessageRetentionPeriod"] == 14 * 24 * 3600
    policy = synthesized.one("AWS::SQS::QueuePolicy", "EmbedFailures")["Properties"][
        "PolicyDocument"
    ]
    assert any(
        s["Effect"] == "Deny" and s["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}
        for s in policy["Statement"]
    )


def test_no_wildcard_actions_and_bedrock_scoped_to_the_model(synthesized: Synthesized) -> None:
    found = statements(synthesized)
    assert found
    for statement in found:
        for action in actions(statement):
            assert "*" not in action, statement
    embedding, chat = "amazon.titan-embed-text-v2:0", "amazon.nova-micro-v1:0"
    for role, models in (
        ("Embedder", (embedding,)),
        # the chat model extraction calls, and the embedding of consolidation's searches
        ("Extractor", (chat, embedding)),
    ):
        bedrock = [
            s
            for s in statements(synthesized, role)
            if any(a.startswith("bedrock:") for a in actions(s))
        ]
        assert [actions(s) for s in bedrock] == [["bedrock:InvokeModel"]]
        resource = json.dumps(bedrock[0]["Resource"])
        assert all(f"::foundation-model/{model}" in resource for model in models)
        assert resource.count("foundation-model") == len(models)


def test_dynamodb_actions_only_on_this_table(synthesized: Synthesized) -> None:
    table_id = synthesized.stack.resolve(synthesized.stack.backend.table.logical_id)
    for statement in statements(synthesized):
        if not any(a.startswith("dynamodb:") for a in actions(statement)):
            continue
        if actions(statement) == ["dynamodb:ListStreams"]:
            assert statement["Resource"] == "*"  # takes no resource-level permission
            continue
        assert table_id in json.dumps(statement["Resource"]), statement


def test_inference_profile_grants_the_profile_and_its_model_through_it(
    customized: Synthesized,
) -> None:
    bedrock = [
        s
        for s in statements(customized, "EmbedderRole")
        if any(a.startswith("bedrock:") for a in actions(s))
    ]
    assert len(bedrock) == 2
    profile = json.dumps(bedrock[0]["Resource"])
    assert ":inference-profile/us.amazon.titan-embed-text-v2:0" in profile
    assert "Condition" not in bedrock[0]
    model = bedrock[1]
    assert "bedrock:*::foundation-model/amazon.titan-embed-text-v2:0" in json.dumps(
        model["Resource"]
    )
    condition = model["Condition"]["StringEquals"]["bedrock:InferenceProfileArn"]
    assert json.dumps(condition) == json.dumps(bedrock[0]["Resource"])


def test_alarms(synthesized: Synthesized) -> None:
    alarms = synthesized.resources("AWS::CloudWatch::Alarm").values()
    metrics = sorted(a["Properties"]["MetricName"] for a in alarms)
    assert metrics == [
        "ApproximateAgeOfOldestMessage",  # the extraction queue's
        "ApproximateNumberOfMessagesVisible",  # the consumer's DLQ
        "ApproximateNumberOfMessagesVisible",  # the extraction DLQ
        "Errors",  # the consumer's
        "Errors",  # the extractor's
        "IteratorAge",
        "Throttles",
    ]
    topic_id = next(iter(synthesized.resources("AWS::SNS::Topic")))
    for alarm in alarms:
        assert alarm["Properties"]["AlarmActions"] == [{"Ref": topic_id}]
    assert synthesized.resources("AWS::SNS::Subscription") == {}


def test_alarm_topic_is_encrypted_with_a_key_only_these_alarms_may_use(
    synthesized: Synthesized,
) -> None:
    [(key_id, key)] = synthesized.resources("AWS::KMS::Key").items()
    assert key["Properties"]["EnableKeyRotation"] is True
    topic = synthesized.one("AWS::SNS::Topic")["Properties"]
    assert topic["KmsMasterKeyId"] == {"Fn::GetAtt": [key_id, "Arn"]}
    statements = key["Properties"]["KeyPolicy"]["Statement"]
    [cloudwatch] = [
        s for s in statements if s["Principal"] == {"Service": "cloudwatch.amazonaws.com"}
    ]
    assert sorted(cloudwatch["Action"]) == ["kms:Decrypt", "kms:GenerateDataKey*"]
    condition = cloudwatch["Condition"]
    assert condition["StringEquals"] == {"aws:SourceAccount": {"Ref": "AWS::AccountId"}}
    names = sorted(
        a["Properties"]["AlarmName"]
        for a in synthesized.resources("AWS::CloudWatch::Alarm").values()
    )
    assert names == [
        f"LangGraphMemory-Memory-{name}"
        for name in (
            "DlqDepth",
            "Errors",
            "ExtractionAge",
            "ExtractionDlqDepth",
            "ExtractionErrors",
            "IteratorAge",
            "Throttles",
        )
    ]
    arns = json.dumps(condition["ArnEquals"]["aws:SourceArn"])
    for name in names:
        assert f":alarm:{name}" in arns
    assert arns.count(":alarm:") == 7


def test_alarm_email_subscribes_to_the_topic(customized: Synthesized) -> None:
    customized.template.has_resource_properties(
        "AWS::SNS::Subscription", {"Protocol": "email", "Endpoint": "ops@example.com"}
    )


def test_a_stack_without_alarm_email_says_its_alarms_reach_nobody(
    synthesized: Synthesized, customized: Synthesized
) -> None:
    outputs = synthesized.template.to_json()["Outputs"]
    nobody = outputs["AlarmSubscribers"]["Value"]
    assert nobody.startswith("Nobody")
    assert "-c alarmEmail=" in nobody and "AlarmTopicArn" in nobody
    [warning] = Annotations.from_stack(synthesized.stack).find_warning("*", Match.any_value())
    assert warning.id == "/LangGraphMemory/Memory"
    assert warning.entry.data.startswith("Alarms reach nobody. Nobody:")
    assert "[ack: langgraph-dynamodb-memory:alarmsReachNobody]" in warning.entry.data
    subscribed = customized.template.to_json()["Outputs"]["AlarmSubscribers"]["Value"]
    assert subscribed == "ops@example.com"
    assert Annotations.from_stack(customized.stack).find_warning("*", Match.any_value()) == []


def test_tags_reach_the_resources(customized: Synthesized) -> None:
    customized.template.has_resource_properties(
        "AWS::DynamoDB::Table",
        {"Tags": Match.array_with([{"Key": "team", "Value": "agents"}])},
    )
    customized.template.has_resource_properties(
        "AWS::Lambda::Function",
        {"Tags": Match.array_with([{"Key": "cost-center", "Value": "42"}])},
    )


def test_outputs(synthesized: Synthesized) -> None:
    outputs = synthesized.template.to_json()["Outputs"]
    assert {"TableName", "TableArn", "IndexName", "FunctionName", "DlqUrl"} <= set(outputs)
    assert outputs["IndexName"]["Value"] == "memory-vectors"
