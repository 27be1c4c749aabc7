"""`MemoryBackend`: the DynamoDB table, vector index, stream consumer, DLQ and alarms that
`DynamoDBStore` runs on, and the extraction that forms memories from threads (its queue,
Lambda and DLQ), as one construct to put in any CDK app."""

from __future__ import annotations

import copy
import functools
from typing import Any

from aws_cdk import (
    Acknowledgment,
    Annotations,
    ArnFormat,
    Duration,
    RemovalPolicy,
    Stack,
    Validations,
)
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_cloudwatch_actions as cloudwatch_actions
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_lambda_event_sources as event_sources
from aws_cdk import aws_logs as logs
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sns_subscriptions as subscriptions
from aws_cdk import aws_sqs as sqs
from constructs import Construct
from langgraph.store.dynamodb.embedders.bedrock_models import PROFILE_PREFIXES, foundation_model
from langgraph.store.dynamodb.extraction.strategies.chat_models import base_model
from langgraph.store.dynamodb.extraction.worker.queue_worker import worker_env
from langgraph.store.dynamodb.stream.consumer import consumer_env, filter_criteria
from langgraph.store.dynamodb.table.permissions import (
    Component,
    Components,
    On,
    Resources,
    kinds,
    statements,
)
from langgraph.store.dynamodb.table.table_spec import table_spec, ttl_spec

from .bundling import (
    EMBEDDER,
    EXTRACTOR,
    PYTHON,
    RUNTIME,
    dependency_layer_code,
    interpreter,
    lambda_code,
    no_bytecode_warning,
)
from .settings import MemorySettings

# The extractor's timeout (model calls), and the queue's visibility timeout: six times it,
# as AWS advises for a Lambda event source.
EXTRACTOR_TIMEOUT = Duration.minutes(5)
QUEUE_VISIBILITY = Duration.minutes(30)
# A request failing this many receives goes to the extraction DLQ by the redrive policy.
MAX_RECEIVES = 5
NO_BYTECODE = "langgraph-dynamodb-memory:no-bytecode"
# What each Lambda's role may call, as the library declares it (`permissions.NEEDS`): the
# handler's own calls, and those Lambda's event source makes with the function's role.
EMBEDDER_NEEDS = (Component.CONSUMER, Component.STREAM_POLLER)
EXTRACTOR_NEEDS = (Component.EXTRACTOR, Component.QUEUE_POLLER)
# Besides, each role writes its function's logs to its own log group.
LOG_ACTIONS = ("logs:CreateLogStream", "logs:PutLogEvents")
# The synth warning of a backend whose alarms reach nobody (acknowledge it with
# `Annotations.of(backend).acknowledge_warning(...)` when you subscribe to the topic yourself).
ALARMS_REACH_NOBODY = "langgraph-dynamodb-memory:alarmsReachNobody"
NOBODY = (
    "Nobody: the alarms notify a topic without subscribers. Deploy with "
    "-c alarmEmail=you@example.com (MemorySettings.alarm_email), or subscribe to the topic "
    "in the AlarmTopicArn output."
)


class MemoryBackend(Construct):
    """A production memory backend for `DynamoDBStore`.

    Exposes `table` (the L1 table: the L2 has no vector indexes), `table_name`,
    `table_arn`, `stream_arn`, `index_name`, `index_arn`, `dependencies` (the Lambda layer
    both functions share), `function` (the stream consumer), `dlq`, `extraction_queue`,
    `extractor` (the extraction Lambda) and its `extraction_dlq`, `alarm_topic` (encrypted
    with `alarm_key`), `alarms` and `settings`;
    `grant_memory_access` gives an app's role what the store needs, `grant_purge` an
    operator's role what a purge needs, and `store_config` what the app passes to the store.
    """

    def __init__(
        self, scope: Construct, construct_id: str, *, settings: MemorySettings | None = None
    ) -> None:
        super().__init__(scope, construct_id)
        self.settings = settings or MemorySettings()
        removal = (
            RemovalPolicy.DESTROY
            if self.settings.removal_policy == "destroy"
            else RemovalPolicy.RETAIN
        )
        self.table = self._table(removal)
        self.table_name: str = self.table.ref
        self.table_arn: str = self.table.attr_arn
        self.stream_arn: str = self.table.attr_stream_arn
        self.index_name = self.settings.index_name
        self.index_arn = f"{self.table_arn}/index/{self.index_name}"
        self.dlq = sqs.Queue(
            self,
            "EmbedFailures",
            encryption=sqs.QueueEncryption.SQS_MANAGED,
            enforce_ssl=True,
            retention_period=Duration.days(14),
            removal_policy=removal,
        )
        self.extraction_dlq = sqs.Queue(
            self,
            "ExtractionFailures",
            encryption=sqs.QueueEncryption.SQS_MANAGED,
            enforce_ssl=True,
            retention_period=Duration.days(14),
            removal_policy=removal,
        )
        # A standard queue whose messages carry the tenant as MessageGroupId: SQS fair
        # queues keep one tenant's backlog from delaying the others' threads.
        self.extraction_queue = sqs.Queue(
            self,
            "Extraction",
            encryption=sqs.QueueEncryption.SQS_MANAGED,
            enforce_ssl=True,
            visibility_timeout=QUEUE_VISIBILITY,
            dead_letter_queue=sqs.DeadLetterQueue(
                max_receive_count=MAX_RECEIVES, queue=self.extraction_dlq
            ),
            removal_policy=removal,
        )
        # What both functions import but their own code: one layer, uploaded once.
        self.dependencies = lambda_.LayerVersion(
            self,
            "Dependencies",
            description="The memory backend's Lambdas' Python dependencies, with bytecode",
            code=dependency_layer_code(),
            compatible_runtimes=[RUNTIME],
            compatible_architectures=[lambda_.Architecture.ARM_64],
        )
        self.function = self._consumer(removal)
        self.extractor = self._extractor(removal)
        # CloudWatch cannot publish to a topic under the AWS managed SNS key (its policy
        # cannot be changed to let CloudWatch use it): a key of our own. It protects only
        # notifications in flight, so it goes with the stack.
        self.alarm_key = kms.Key(
            self,
            "AlarmsKey",
            description="Encrypts the memory backend's alarm notifications",
            enable_key_rotation=True,
            removal_policy=RemovalPolicy.DESTROY,
        )
        self.alarm_topic = sns.Topic(self, "Alarms", enforce_ssl=True, master_key=self.alarm_key)
        if self.settings.alarm_email:
            self.alarm_topic.add_subscription(
                subscriptions.EmailSubscription(self.settings.alarm_email)
            )
        else:
            Annotations.of(self).add_warning_v2(
                ALARMS_REACH_NOBODY, f"Alarms reach nobody. {NOBODY}"
            )
        self.alarms = self._alarms()
        self._suppress_nag_findings()

    # What apps use

    def grant_memory_access(self, grantee: iam.IGrantable, *, read_only: bool = False) -> iam.Grant:
        """Grant what `DynamoDBStore` and `DynamoDBSaver` (threads, on the same table) need
        on this table and nothing more, as the library declares it (`permissions.NEEDS`:
        store and checkpointer, or the read-only store): item reads (and writes
        unless `read_only`) on the table and its local index, DescribeTable and
        DescribeTimeToLive (`setup()` checks the table), `dynamodb:SearchVectors` on the
        vector index, and `bedrock:InvokeModel` on the model (queries are embedded by the
        app). Not CreateTable/UpdateTable: the stack owns the table. A read-only store must
        not refresh TTL on read, and its searches cannot delete the stale rows they meet
        (see docs/deploy.md)."""
        return self._grant(
            grantee,
            Component.STORE_READ if read_only else (Component.STORE, Component.CHECKPOINTER),
        )

    def grant_purge(self, grantee: iam.IGrantable) -> iam.Grant:
        """Grant what `store.purge()` / `dynamodb-memory purge` needs and nothing more
        (`permissions.NEEDS[Component.PURGE]`): Query and BatchWriteItem on the table,
        PutItem/DeleteItem for its checkpoint row, and Scan (a wipe of every tenant, or a
        purge verified by a Scan). Give it to an operator's role, not to an app's: it
        erases whole tenants."""
        return self._grant(grantee, Component.PURGE)

    def _grant(self, grantee: iam.IGrantable, component: Components) -> iam.Grant:
        first, *rest = [
            iam.Grant.add_to_principal(
                grantee=grantee, actions=statement.actions, resource_arns=statement.resources
            )
            for statement in self._statements(component)
        ]
        return functools.reduce(iam.Grant.combine, rest, first)

    def store_config(self) -> dict[str, Any]:
        """Keyword arguments for `DynamoDBStore` with this table (its name is a token that
        resolves at deploy time: pass it to the app through its environment). Add the
        embedder: `index["embed"] = BedrockEmbeddings(model_id=settings.embedding_model_id,
        normalize=settings.normalize)`."""
        settings = self.settings
        return {
            "table_name": self.table_name,
            "index": {
                "dims": settings.dims,
                "distance_function": settings.distance_function,
                "index_name": settings.index_name,
                "fields": list(settings.fields),
                "filter_fields": list(settings.filter_fields),
                "embed_on": settings.embed_on,
            },
        }

    def alarm_subscribers(self) -> str:
        """Who the alarms notify: the e-mail address, or that nobody does and the fix."""
        return self.settings.alarm_email or NOBODY

    def model_arns(self) -> list[str]:
        """The Bedrock resources the embedding model is invoked through: the foundation
        model; for an inference profile, the profile (the foundation models it routes to
        are granted separately, only through that profile)."""
        model = self.settings.embedding_model_id
        if model.startswith("arn:"):
            return [model]
        stack = Stack.of(self)
        if model.startswith(PROFILE_PREFIXES):
            return [
                f"arn:{stack.partition}:bedrock:{stack.region}:{stack.account}:"
                f"inference-profile/{model}"
            ]
        return [f"arn:{stack.partition}:bedrock:{stack.region}::foundation-model/{model}"]

    def chat_model_arns(self) -> list[str]:
        """The Bedrock resources extraction's chat models are called through: each
        foundation model; for an inference profile, the profile and its foundation model
        in any region (a profile routes across regions)."""
        stack = Stack.of(self)
        arns = []
        for model in self.settings.chat_model_ids:
            if model.startswith("arn:"):
                arns.append(model)
                continue
            region = stack.region
            if base_model(model) != model:
                arns.append(
                    f"arn:{stack.partition}:bedrock:{region}:{stack.account}:"
                    f"inference-profile/{model}"
                )
                region = "*"
            arns.append(
                f"arn:{stack.partition}:bedrock:{region}::foundation-model/{base_model(model)}"
            )
        return arns

    # Building blocks

    def _table(self, removal: RemovalPolicy) -> dynamodb.CfnTable:
        """The table exactly as `setup()` creates it (`table_spec`), plus what production
        adds: point-in-time recovery, KMS encryption, deletion protection."""
        spec = table_spec(self.settings.shape)
        table = dynamodb.CfnTable(
            self,
            "Table",
            table_name=self.settings.table_name,
            key_schema=[
                dynamodb.CfnTable.KeySchemaProperty(
                    attribute_name=key["AttributeName"], key_type=key["KeyType"]
                )
                for key in spec["KeySchema"]
            ],
            point_in_time_recovery_specification=(
                dynamodb.CfnTable.PointInTimeRecoverySpecificationProperty(
                    point_in_time_recovery_enabled=True
                )
            ),
            sse_specification=dynamodb.CfnTable.SSESpecificationProperty(
                sse_enabled=True, sse_type="KMS"
            ),
            deletion_protection_enabled=self.settings.deletion_protection,
        )
        for name, value in cfn_table_properties(spec).items():
            table.add_property_override(name, value)
        table.apply_removal_policy(removal)
        return table

    def _statements(self, component: Components) -> list[iam.PolicyStatement]:
        """The statements `component` needs on this backend's resources (the library's
        declaration), plus the foundation model behind an inference profile."""
        resources = Resources(
            table_arn=self.table_arn,
            vector_index=self.index_name,
            stream_arn=self.stream_arn,
            model_arns=self.model_arns(),
            chat_model_arns=self.chat_model_arns(),
            queue_arn=self.extraction_queue.queue_arn,
            dead_letter_arn=self.extraction_dlq.queue_arn,
        )
        found = [iam.PolicyStatement.from_json(s) for s in statements(component, resources)]
        if On.MODEL in kinds(component) and self.settings.embedding_model_id.startswith(
            PROFILE_PREFIXES
        ):
            found.append(self._profile_models_statement())
        return found

    def _function_role(
        self,
        name: str,
        description: str,
        components: tuple[Component, ...],
        removal: RemovalPolicy,
    ) -> tuple[iam.Role, logs.LogGroup]:
        """A Lambda's log group (`<name>Logs`) and role (`<name>Role`): it may write its
        logs and make the calls its components declare, nothing else."""
        log_group = logs.LogGroup(
            self, f"{name}Logs", retention=logs.RetentionDays.ONE_MONTH, removal_policy=removal
        )
        role = iam.Role(
            self,
            f"{name}Role",
            assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            description=description,
        )
        role.add_to_policy(
            iam.PolicyStatement(
                actions=list(LOG_ACTIONS),
                resources=[log_group.log_group_arn],
            )
        )
        for component in components:
            for statement in self._statements(component):
                role.add_to_policy(statement)
        return role, log_group

    def _consumer(self, removal: RemovalPolicy) -> lambda_.Function:
        settings = self.settings
        role, log_group = self._function_role(
            "Embedder",
            "Stream consumer of the memory table: embeds pending items",
            EMBEDDER_NEEDS,
            removal,
        )
        self.consumer_role = role
        function = lambda_.Function(
            self,
            "Embedder",
            description="Embeds memories written with embed_on='stream'; forgets swept namespaces",
            runtime=RUNTIME,
            architecture=lambda_.Architecture.ARM_64,
            handler=EMBEDDER.entry,
            code=lambda_code(EMBEDDER),
            layers=[self.dependencies],
            role=role,
            log_group=log_group,
            memory_size=1024,
            timeout=Duration.minutes(2),
            reserved_concurrent_executions=settings.reserved_concurrency,
            environment=self.consumer_environment(),
            tracing=lambda_.Tracing.ACTIVE if settings.tracing else None,
        )
        if interpreter(PYTHON) is None:
            Annotations.of(function).add_warning_v2(NO_BYTECODE, no_bytecode_warning(PYTHON))
        # One reader of the stream for both jobs (a shard serves at most two): the consumer
        # also routes threads' new checkpoints to the extraction queue.
        lambda_.EventSourceMapping(
            self,
            "EmbedPending",
            target=function,
            event_source_arn=self.stream_arn,
            starting_position=lambda_.StartingPosition.TRIM_HORIZON,
            # One Bedrock call per record, run concurrently by the consumer: 100 records take
            # a second or two, far below the timeout, and a busy table fills a batch at once.
            # A quiet table waits at most 2 s for company, so a memory is searchable within
            # seconds while a burst of puts costs one invocation per 100 records.
            batch_size=100,
            max_batching_window=Duration.seconds(2),
            # A failing batch is split until the bad record is alone; it is retried 4 times,
            # for at most 6 hours (the stream keeps records 24 hours), then its position goes
            # to the DLQ (`reindex` embeds what it names). Other records move on.
            bisect_batch_on_error=True,
            retry_attempts=4,
            max_record_age=Duration.hours(6),
            report_batch_item_failures=True,
            on_failure=event_sources.SqsDlq(self.dlq),
            filters=[
                {"pattern": f["Pattern"]} for f in filter_criteria(extraction=True)["Filters"]
            ],
        )
        return function

    def _extractor(self, removal: RemovalPolicy) -> lambda_.Function:
        """The extraction Lambda on the extraction queue, with its own role."""
        settings = self.settings
        role, log_group = self._function_role(
            "Extractor",
            "Extraction of the memory table's threads into memories",
            EXTRACTOR_NEEDS,
            removal,
        )
        self.extractor_role = role
        function = lambda_.Function(
            self,
            "Extractor",
            description="Forms long-term memories from threads' new messages (extraction)",
            runtime=RUNTIME,
            architecture=lambda_.Architecture.ARM_64,
            handler=EXTRACTOR.entry,
            code=lambda_code(EXTRACTOR),
            layers=[self.dependencies],
            role=role,
            log_group=log_group,
            memory_size=1024,
            timeout=EXTRACTOR_TIMEOUT,
            reserved_concurrent_executions=settings.reserved_concurrency,
            environment=self.extractor_environment(),
            tracing=lambda_.Tracing.ACTIVE if settings.tracing else None,
        )
        if interpreter(PYTHON) is None:
            Annotations.of(function).add_warning_v2(NO_BYTECODE, no_bytecode_warning(PYTHON))
        # Up to 10 requests a batch, each thread once; a failed request alone is retried
        # (partial batch responses) until the redrive policy moves it to the DLQ.
        lambda_.EventSourceMapping(
            self,
            "ExtractThreads",
            target=function,
            event_source_arn=self.extraction_queue.queue_arn,
            batch_size=10,
            report_batch_item_failures=True,
        )
        return function

    def extractor_environment(self) -> dict[str, str]:
        """The extractor's configuration (read by `worker_from_env`), from the settings."""
        settings = self.settings
        env: dict[str, str] = worker_env(
            self.table_name,
            queue_url=self.extraction_queue.queue_url,
            dead_letter_url=self.extraction_dlq.queue_url,
            index_name=settings.index_name,
            embedding_model_id=settings.embedding_model_id,
            dims=settings.dims,
            normalize=settings.normalize,
            fields=settings.fields,
            tenant_key=settings.thread_tenant_key,
            tracing=settings.tracing,
        )
        return env

    def consumer_environment(self) -> dict[str, str]:
        """The consumer's configuration (read by `consumer_from_env`), from the settings."""
        settings = self.settings
        env: dict[str, str] = consumer_env(
            self.table_name,
            index_name=settings.index_name,
            model_id=settings.embedding_model_id,
            dims=settings.dims,
            normalize=settings.normalize,
            tracing=settings.tracing,
            extraction_queue_url=self.extraction_queue.queue_url,
            extraction_delay=settings.extraction_delay_seconds,
        )
        return env

    def _profile_models_statement(self) -> iam.PolicyStatement:
        """An inference profile routes to its foundation model in several regions: allow
        that model in any region, but only when invoked through this profile."""
        stack = Stack.of(self)
        base = foundation_model(self.settings.embedding_model_id)
        return iam.PolicyStatement(
            actions=["bedrock:InvokeModel"],
            resources=[f"arn:{stack.partition}:bedrock:*::foundation-model/{base}"],
            conditions={"StringEquals": {"bedrock:InferenceProfileArn": self.model_arns()[0]}},
        )

    def _alarms(self) -> list[cloudwatch.Alarm]:
        function, every_minute, every_5 = self.function, Duration.minutes(1), Duration.minutes(5)
        specs = [
            (
                "IteratorAge",
                "Embedding lags the stream by more than 5 minutes",
                function.metric("IteratorAge", statistic="Maximum", period=every_minute),
                5 * 60 * 1000,
                5,
                5,
            ),
            (
                "DlqDepth",
                "Stream records could not be embedded: see the DLQ and run reindex",
                self.dlq.metric_approximate_number_of_messages_visible(
                    statistic="Maximum", period=every_5
                ),
                1,
                1,
                1,
            ),
            (
                "Errors",
                "The stream consumer fails (exceptions or timeouts)",
                function.metric_errors(statistic="Sum", period=every_5),
                1,
                3,
                2,
            ),
            (
                "Throttles",
                "The stream consumer is throttled",
                function.metric_throttles(statistic="Sum", period=every_5),
                1,
                3,
                2,
            ),
            (
                "ExtractionErrors",
                "The extraction Lambda fails (exceptions or timeouts)",
                self.extractor.metric_errors(statistic="Sum", period=every_5),
                1,
                3,
                2,
            ),
            (
                "ExtractionAge",
                "Threads wait more than 15 minutes for extraction (the queue's oldest request)",
                self.extraction_queue.metric_approximate_age_of_oldest_message(
                    statistic="Maximum", period=every_minute
                ),
                15 * 60,
                5,
                5,
            ),
            (
                "ExtractionDlqDepth",
                "Threads could not be extracted: see the extraction DLQ (each message names "
                "its thread and checkpoint) and run `dynamodb-memory extraction replay`",
                self.extraction_dlq.metric_approximate_number_of_messages_visible(
                    statistic="Maximum", period=every_5
                ),
                1,
                1,
                1,
            ),
        ]
        alarms = []
        action = cloudwatch_actions.SnsAction(self.alarm_topic)
        for name, description, metric, threshold, periods, breaching in specs:
            alarm = cloudwatch.Alarm(
                self,
                f"{name}Alarm",
                alarm_name=self.alarm_name(name),
                alarm_description=description,
                metric=metric,
                threshold=threshold,
                evaluation_periods=periods,
                datapoints_to_alarm=breaching,
                comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
                treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
            )
            alarm.add_alarm_action(action)
            alarms.append(alarm)
        self._let_alarms_use_the_key([self.alarm_name(name) for name, *_ in specs])
        return alarms

    def alarm_name(self, name: str) -> str:
        """`<stack name>-<construct path in the stack>-<name>`: unique in the account and
        region, known at synth."""
        stack = Stack.of(self)
        path = self.node.path.removeprefix(stack.node.path + "/").replace("/", "-")
        return f"{stack.stack_name}-{path}-{name}"

    def _let_alarms_use_the_key(self, names: list[str]) -> None:
        """CloudWatch encrypts each notification with the topic's key: allow it the two
        actions it needs, in this account, only on behalf of these alarms (named, not
        referenced: the key would depend on the alarms, which depend on the topic, which
        depends on the key)."""
        stack = Stack.of(self)
        alarms = [
            stack.format_arn(
                service="cloudwatch",
                resource="alarm",
                resource_name=name,
                arn_format=ArnFormat.COLON_RESOURCE_NAME,
            )
            for name in names
        ]
        self.alarm_key.add_to_resource_policy(
            iam.PolicyStatement(
                principals=[iam.ServicePrincipal("cloudwatch.amazonaws.com")],
                actions=["kms:Decrypt", "kms:GenerateDataKey*"],
                resources=["*"],
                conditions={
                    "StringEquals": {"aws:SourceAccount": stack.account},
                    "ArnEquals": {"aws:SourceArn": alarms},
                },
            )
        )

    def _suppress_nag_findings(self) -> None:
        """Acknowledge the cdk-nag AwsSolutions findings that do not apply, each with its
        reason (so users who run cdk-nag on their own app see none either)."""
        for target, finding, reason in self.nag_acknowledgements():
            Validations.of(target).acknowledge(Acknowledgment(id=finding, reason=reason))

    def nag_acknowledgements(self) -> list[tuple[Construct, str, str]]:
        """(construct, finding, reason) for every cdk-nag finding this construct accepts."""
        star = (
            "dynamodb:ListStreams accepts only Resource '*' (Lambda's stream poller calls "
            "it); every other stream and table action names this table's ARNs."
        )
        if self.settings.tracing:
            star += " X-Ray's PutTraceSegments and PutTelemetryRecords accept only '*' too."
        found: list[tuple[Construct, str, str]] = [
            (self.consumer_role, "AwsSolutions::AwsSolutions-IAM5[Resource::*]", star),
            (
                self.dlq,
                "AwsSolutions::AwsSolutions-SQS3",
                "This queue is the stream consumer's on-failure destination, a DLQ itself; a "
                "DLQ of the DLQ would only move the same records again.",
            ),
            (
                self.extraction_dlq,
                "AwsSolutions::AwsSolutions-SQS3",
                "This queue is the extraction queue's dead-letter queue; a DLQ of the DLQ "
                "would only move the same requests again.",
            ),
        ]
        if self.settings.tracing:
            found.append(
                (
                    self.extractor_role,
                    "AwsSolutions::AwsSolutions-IAM5[Resource::*]",
                    "X-Ray's PutTraceSegments and PutTelemetryRecords accept only '*'.",
                )
            )
        for model in self.settings.chat_model_ids:
            if base_model(model) != model and not model.startswith("arn:"):
                found.append(
                    (
                        self.extractor_role,
                        "AwsSolutions::AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:bedrock:"
                        f"*::foundation-model/{base_model(model)}]",
                        "An inference profile routes each call to its foundation model in one "
                        "of several regions.",
                    )
                )
        model = self.settings.embedding_model_id
        if model.startswith(PROFILE_PREFIXES):
            # Both embed: the consumer its writes, the extractor consolidation's queries.
            found += [
                (
                    role,
                    "AwsSolutions::AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:bedrock:*::"
                    f"foundation-model/{foundation_model(model)}]",
                    "An inference profile routes each call to its foundation model in one of "
                    "several regions; the model is allowed in any region only when invoked "
                    "through this profile (bedrock:InferenceProfileArn condition).",
                )
                for role in (self.consumer_role, self.extractor_role)
            ]
        return found


def cfn_table_properties(spec: dict[str, Any]) -> dict[str, Any]:
    """CloudFormation properties of the table `spec` (CreateTable parameters) describes,
    with the TTL setting: the same names and values except `StreamEnabled`, which
    CloudFormation expresses by the presence of `StreamSpecification`."""
    properties = copy.deepcopy(spec)
    properties["StreamSpecification"] = {
        "StreamViewType": spec["StreamSpecification"]["StreamViewType"]
    }
    properties["TimeToLiveSpecification"] = ttl_spec()
    return properties
