"""The extraction queue's messages: a wait becomes a `DelaySeconds` SQS takes, never
shorter than asked (a run sent back too early is deferred again), and a body that is
no request is refused with a ValueError, which the worker dead-letters."""

from __future__ import annotations

import pytest
from langgraph.store.dynamodb.handlers.extraction_queue import (
    ExtractionRequest,
    delay_seconds,
    message,
)


@pytest.mark.parametrize(
    ("wait", "delay"),
    [(-3.0, 0), (0.0, 0), (0.2, 1), (29.4, 30), (899.5, 900), (86_399.0, 900)],
)
def test_a_wait_is_rounded_up_and_capped_at_900_seconds(wait: float, delay: int) -> None:
    assert delay_seconds(wait) == delay
    assert message(ExtractionRequest("a", "t", "c"), wait)["DelaySeconds"] == delay


@pytest.mark.parametrize("body", ["not json", "[]", "1", '{"tenant": "a"}', '{"x": 1}'])
def test_a_body_that_is_no_request_is_a_value_error(body: str) -> None:
    with pytest.raises(ValueError, match="Not an extraction request"):
        ExtractionRequest.parse(body)
