"""`MemoryRecall`, an `AgentMiddleware` for LangChain's `create_agent`: before each model
call it recalls the memories of this tenant and user (`recall.recall`, one store
round trip through `runtime.store`, capped in tokens) and adds them to the system
message. It only reads: it never waits for an extraction, and a store outage means a
turn without memories and a logged warning. Needs `langchain`: the `agents` extra,
`pip install 'langgraph-dynamodb-memory[agents]'`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.config import get_config
from langgraph.store.dynamodb.recall.recall import RecallSource, recall_or_nothing, render


class MemoryRecall(AgentMiddleware):
    """Recall from `sources` (one per strategy: namespace template, limit, label) before
    each model call. Template values come from the run's `configurable` (tenant,
    user_id, ...), plus `values` given here."""

    def __init__(
        self,
        sources: Sequence[RecallSource],
        *,
        max_tokens: int = 400,
        values: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__()
        self.sources = tuple(sources)
        self.max_tokens = max_tokens
        self.values = dict(values or {})

    def _with_memories(self, request: ModelRequest) -> ModelRequest:
        query = next(
            (str(m.text) for m in reversed(request.messages) if isinstance(m, HumanMessage)), ""
        )
        configurable = get_config().get("configurable", {})
        values = {
            **{k: v for k, v in configurable.items() if isinstance(v, str)},
            **self.values,
        }
        store = getattr(request.runtime, "store", None)
        recalled = recall_or_nothing(store, self.sources, values, query, max_tokens=self.max_tokens)
        block = render(recalled)
        if not block:
            return request
        system = request.system_message
        text = f"{system.text}\n\n{block}" if system is not None else block
        return request.override(system_message=SystemMessage(text))

    def wrap_model_call(
        self,
        request: ModelRequest,
        handler: Callable[[ModelRequest], ModelResponse],
    ) -> Any:
        return handler(self._with_memories(request))

    async def awrap_model_call(
        self,
        request: ModelRequest,
        handler: Callable[[ModelRequest], Awaitable[ModelResponse]],
    ) -> Any:
        return await handler(self._with_memories(request))
