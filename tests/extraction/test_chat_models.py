"""The extractor builds each model id's chat model once: the worker runs a batch's threads
concurrently, and on a cold batch every thread asks for the same model at once (a
`ChatBedrockConverse` takes seconds to build cold). A second caller waits for the first's
model; different model ids build side by side."""

from __future__ import annotations

import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import boto3
import pytest
from langchain_aws import ChatBedrockConverse
from langchain_core.language_models import BaseChatModel
from langgraph.store.dynamodb.extraction.strategies.model_call import BEDROCK_RETRIES
from langgraph.store.dynamodb.testing import mock_aws

from .conftest import open_tables

MODEL = "anthropic.claude-3-haiku-20240307-v1:0"
OTHER = "amazon.nova-lite-v1:0"
# How long a build waits for the other callers to be building too: they all reach the
# factory at once when nothing keeps them out; when something does, the wait times out.
MEET_SECONDS = 1.0


class CountingFactory:
    """A model factory building real `ChatBedrockConverse` models, counting its builds per
    model id; each build waits (up to `MEET_SECONDS`) at `meet` for the other builders."""

    def __init__(self, parties: int) -> None:
        self.meet = threading.Barrier(parties, timeout=MEET_SECONDS)
        self.builds: Counter[str] = Counter()
        self.met = 0
        self._lock = threading.Lock()

    def __call__(self, model_id: str) -> BaseChatModel:
        with self._lock:
            self.builds[model_id] += 1
        try:
            self.meet.wait()
        except threading.BrokenBarrierError:
            pass
        else:
            with self._lock:
                self.met += 1
        client = boto3.client("bedrock-runtime", region_name="us-east-1", config=BEDROCK_RETRIES)
        return ChatBedrockConverse(model=model_id, client=client, region_name="us-east-1")


def test_threads_asking_at_once_for_one_model_id_build_it_once() -> None:
    callers = 8
    factory = CountingFactory(callers)
    with mock_aws(), open_tables(model=factory) as tables:
        with ThreadPoolExecutor(max_workers=callers) as pool:
            models = list(pool.map(lambda _: tables.extractor.chat_model(MODEL), range(callers)))
        assert factory.builds == {MODEL: 1}
        assert all(model is models[0] for model in models)
        assert tables.extractor.chat_model(MODEL) is models[0]
        assert factory.builds == {MODEL: 1}


def test_different_model_ids_build_side_by_side() -> None:
    """Each id's build waits for the other's to start: it meets it unless a lock shared by
    every id keeps the second out until the first is done."""
    factory = CountingFactory(2)
    with mock_aws(), open_tables(model=factory) as tables:
        with ThreadPoolExecutor(max_workers=2) as pool:
            first, other = pool.map(tables.extractor.chat_model, [MODEL, OTHER])
        assert factory.builds == {MODEL: 1, OTHER: 1}
        assert factory.met == 2
        assert (first.model_id, other.model_id) == (MODEL, OTHER)  # type: ignore[attr-defined]


def test_a_failed_build_is_tried_again_by_the_next_caller() -> None:
    """A build that raises caches nothing: the error reaches its caller, and the next
    caller builds the model."""
    failures = [RuntimeError("Bedrock client: no credentials")]
    builds = CountingFactory(1)

    def factory(model_id: str) -> BaseChatModel:
        if failures:
            raise failures.pop()
        return builds(model_id)

    with mock_aws(), open_tables(model=factory) as tables:
        with pytest.raises(RuntimeError, match="no credentials"):
            tables.extractor.chat_model(MODEL)
        model = tables.extractor.chat_model(MODEL)
        assert tables.extractor.chat_model(MODEL) is model
        assert builds.builds == {MODEL: 1}
