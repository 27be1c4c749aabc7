"""AWS X-Ray tracing of the Lambdas (the stream consumer, the extraction worker) with
Powertools' `Tracer`, only when asked for.

Off (the default) nothing is built: Powertools' `Tracer()` imports `aws_xray_sdk.core` and
patches the SDK even when it then finds itself disabled, so it is never constructed, and
`capture` and `span` cost nothing. On, the Lambda handler runs in Powertools'
`capture_lambda_handler` (cold start and service annotations, errors), each phase in its own
subsegment, and botocore is patched, so X-Ray shows every DynamoDB and Bedrock call.
Powertools still disables itself outside Lambda and with `POWERTOOLS_TRACE_DISABLED=true`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, TypeVar, cast

if TYPE_CHECKING:
    from aws_lambda_powertools import Tracer

Handler = TypeVar("Handler", bound=Callable[..., Any])


class Tracing:
    """Powertools' `Tracer` for `service` when `enabled`, else nothing at all."""

    def __init__(self, enabled: bool, service: str) -> None:
        self.tracer: Tracer | None = None
        if enabled:
            from aws_lambda_powertools import Tracer

            self.tracer = Tracer(service=service, patch_modules=["botocore"])

    def capture(self, handler: Handler) -> Handler:
        """`handler(event, context)` traced as the Lambda handler (unchanged when off)."""
        if self.tracer is None:
            return handler
        return cast(Handler, self.tracer.capture_lambda_handler(handler))

    def span(self, name: str) -> AbstractContextManager[Any]:
        """A subsegment `## <name>` around a phase (a no-op when off)."""
        if self.tracer is None:
            return contextlib.nullcontext()
        return self.tracer.provider.in_subsegment(f"## {name}")
