"""`MemoryStack`: a thin stack around one `MemoryBackend`, with its outputs and tags."""

from __future__ import annotations

from typing import Any

from aws_cdk import CfnOutput, Stack, Tags
from constructs import Construct

from .backend import MemoryBackend
from .settings import MemorySettings


class MemoryStack(Stack):
    """Deploys a memory backend and outputs what an app needs to reach it."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        settings: MemorySettings | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(scope, construct_id, **kwargs)
        self.backend = MemoryBackend(self, "Memory", settings=settings)
        backend = self.backend
        outputs = {
            "TableName": (backend.table_name, "The memory table: DynamoDBStore(table_name=...)"),
            "TableArn": (backend.table_arn, "The memory table's ARN (for IAM policies)"),
            "IndexName": (backend.index_name, "The vector index: index['index_name']"),
            "FunctionName": (backend.function.function_name, "The stream consumer"),
            "DlqUrl": (backend.dlq.queue_url, "Stream records the consumer gave up on"),
            "ExtractorName": (backend.extractor.function_name, "The extraction Lambda"),
            "ExtractionQueueUrl": (
                backend.extraction_queue.queue_url,
                "Threads waiting for extraction",
            ),
            "ExtractionDlqUrl": (
                backend.extraction_dlq.queue_url,
                "Extraction requests that failed for good, naming thread and checkpoint",
            ),
            "AlarmTopicArn": (backend.alarm_topic.topic_arn, "Where the alarms notify"),
            "AlarmSubscribers": (backend.alarm_subscribers(), "Who the alarms reach"),
        }
        for name, (value, description) in outputs.items():
            CfnOutput(self, name, value=value, description=description)
        for key, value in backend.settings.tags.items():
            Tags.of(self).add(key, value)
