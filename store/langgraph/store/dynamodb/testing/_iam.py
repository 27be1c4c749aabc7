"""IAM authorization of the emulated services against the resources AWS authorizes.

moto checks a request's IAM policies against the resource its handler names with
`_determine_resource`, and "*" when the handler has none: DynamoDB, DynamoDB Streams and
Bedrock runtime have none, so with IAM enforced a statement granted on a table ARN never
matched and every call was denied. Here each names what AWS authorizes against:

- DynamoDB: the table (`TableName`, a name or an ARN, or `ResourceArn`), its index
  (`<table ARN>/index/<IndexName>`) when the request names one (Query or Scan of a
  secondary index, SearchVectors), every table of a batch's `RequestItems`; "*" for
  requests that name no table (ListTables, ...); a TransactWriteItems is authorized as
  each item operation it holds (PutItem, UpdateItem, ...) on that operation's table;
- DynamoDB Streams: the stream (`StreamArn`, or the one a shard iterator encodes, as
  DynamoDB's iterators do); "*" for ListStreams;
- Bedrock runtime: the model (`arn:<partition>:bedrock:<region>::foundation-model/<id>`,
  or the ARN given: a foundation model's or an inference profile's).

Requests AWS authorizes as another action are checked as that one (`AUTHORIZED_AS`):
Converse as `bedrock:InvokeModel`, SQS's batch requests as their single-message action.

A denial is answered as AWS answers it: `AccessDeniedException`, naming the principal,
the action and the resource. moto evaluates no condition keys (`dynamodb:LeadingKeys`,
...): a statement's conditions never stop it from applying.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langgraph.store.dynamodb.testing._errors import DYNAMODB_ERROR_PREFIX, AccessDenied
from langgraph.store.dynamodb.testing._moto_compat import check_targets
from moto import settings as moto_settings
from moto.bedrockruntime.responses import BedrockRuntimeResponse
from moto.core.authorization import ActionAuthenticatorMixin
from moto.core.exceptions import AccessDeniedError
from moto.dynamodb.responses import DynamoHandler
from moto.dynamodbstreams.responses import DynamoDBStreamsHandler
from moto.utilities.utils import get_partition

AUTHORIZE = "_authenticate_and_authorize_normal_action"

Resources = Callable[[Any], list[str]]


def _arn(handler: Any, service: str, resource: str, *, account: bool = True) -> str:
    region: str = handler.region
    owner = handler.current_account if account else ""
    return f"arn:{get_partition(region)}:{service}:{region}:{owner}:{resource}"


def _table(handler: Any, name: str) -> str:
    return name if name.startswith("arn:") else _arn(handler, "dynamodb", f"table/{name}")


# A transaction is authorized as the item operations it holds (AWS: "Using IAM with
# DynamoDB transactions"): there is no TransactWriteItems action to grant.
TRANSACT_ACTIONS = {
    "Put": "PutItem",
    "Update": "UpdateItem",
    "Delete": "DeleteItem",
    "ConditionCheck": "ConditionCheckItem",
}


def transaction_checks(handler: Any) -> list[tuple[str, str]]:
    """(action, table ARN) for each operation of a TransactWriteItems request (none for
    any other request)."""
    body: dict[str, Any] = handler.body or {}
    if "TransactItems" not in body:
        return []
    return [
        (TRANSACT_ACTIONS[kind], _table(handler, operation["TableName"]))
        for item in body["TransactItems"]
        for kind, operation in item.items()
    ]


def dynamodb_resources(handler: Any) -> list[str]:
    """The tables (or index) a DynamoDB request acts on."""
    body: dict[str, Any] = handler.body or {}
    if body.get("TransactItems"):
        return [arn for _, arn in transaction_checks(handler)]
    if body.get("RequestItems"):
        return [_table(handler, name) for name in body["RequestItems"]]
    name = body.get("TableName") or body.get("ResourceArn")
    if not name:
        return ["*"]
    index = body.get("IndexName")
    return [f"{_table(handler, name)}/index/{index}" if index else _table(handler, name)]


def stream_resources(handler: Any) -> list[str]:
    """The stream a DynamoDB Streams request reads."""
    iterator = handler._get_param("ShardIterator") or ""
    return [handler._get_param("StreamArn") or iterator.split("|")[0] or "*"]


def model_resources(handler: Any) -> list[str]:
    """The model a Bedrock runtime request invokes."""
    model: str = handler._get_param("modelId")
    if model.startswith("arn:"):
        return [model]
    return [_arn(handler, "bedrock", f"foundation-model/{model}", account=False)]


# Each handler, how it names its resources, and how AWS words its denial (error type
# prefix, HTTP status).
HANDLERS: tuple[tuple[type[Any], Resources, str, int], ...] = (
    (DynamoHandler, dynamodb_resources, DYNAMODB_ERROR_PREFIX, 400),
    (DynamoDBStreamsHandler, stream_resources, DYNAMODB_ERROR_PREFIX, 400),
    (BedrockRuntimeResponse, model_resources, "", 403),
)


# What AWS authorizes these requests as (service authorization reference: Converse needs
# bedrock:InvokeModel; an SQS batch needs the action of its single-message request).
AUTHORIZED_AS = {
    "Converse": "InvokeModel",
    "ConverseStream": "InvokeModelWithResponseStream",
    "SendMessageBatch": "SendMessage",
    "DeleteMessageBatch": "DeleteMessage",
    "ChangeMessageVisibilityBatch": "ChangeMessageVisibility",
}


def as_authorized(original: Callable[[Any, str], None]) -> Callable[[Any, str], None]:
    """moto's authorization of a request under the action AWS authorizes it as."""

    def authorize(self: Any, resource: str = "*") -> None:
        action = self._get_action()
        if action not in AUTHORIZED_AS:
            return original(self, resource)
        self._get_action = lambda: AUTHORIZED_AS[action]
        try:
            return original(self, resource)
        finally:
            del self._get_action

    return authorize


check_targets(
    [
        (ActionAuthenticatorMixin, "request_count", ()),
        (moto_settings, "INITIAL_NO_AUTH_ACTION_COUNT", ()),
        (DynamoDBStreamsHandler, "_get_param", ("self", "param_name")),
        (BedrockRuntimeResponse, "_get_param", ("self", "param_name")),
    ]
)


def determine_resource(resources: Resources) -> Callable[[Any], str]:
    """moto's `_determine_resource`: the request's first resource (see `authorize_each`)."""

    def _determine_resource(self: Any) -> str:
        return resources(self)[0]

    return _determine_resource


def authorize_each(resources: Resources, prefix: str, status: int) -> Callable[[Any], Any]:
    """Authorize every resource of the request (moto checks only the one it was given),
    and deny as AWS does."""

    def wrap(original: Callable[[Any, str], None]) -> Callable[[Any, str], None]:
        def authorize(self: Any, resource: str = "*") -> None:
            enforced = (
                ActionAuthenticatorMixin.request_count >= moto_settings.INITIAL_NO_AUTH_ACTION_COUNT
            )
            checks = transaction_checks(self) if isinstance(self, DynamoHandler) else []
            if checks and enforced:
                for action, arn in dict.fromkeys(checks):
                    self._get_action = lambda action=action: action
                    try:
                        check(self, arn)
                    finally:
                        del self._get_action
                return
            others = resources(self)[1:] if enforced else []
            for each in (resource, *others):
                check(self, each)

        def check(self: Any, each: str) -> None:
            try:
                original(self, each)
            except AccessDeniedError as denied:
                action = denied.message.rsplit(" ", 1)[-1]
                raise AccessDenied(
                    f"{denied.message} on resource: {each} because no identity-based "
                    f"policy allows the {action} action",
                    prefix=prefix,
                    status=status,
                ) from None

        return as_authorized(authorize)

    return wrap
