"""The Agent Server graph: `create_agent` with memory tools. The server hands it the
DynamoDB store from `memory_store.py` and the checkpointer from `checkpointer.py`, both
on one table (no `store=` or `checkpointer=` here: the server provides them).

`AGENT_MODEL` picks the chat model: a `provider:model` string for LangChain's
`init_chat_model` (default: Claude Sonnet 4.5 on Bedrock, which needs Bedrock model
access), or `fake` for the offline stand-in in `offline_model.py` (no LLM, no AWS)."""

from __future__ import annotations

import os

from langchain.agents import create_agent
from memory_tools import Context, recall, save_memory
from offline_model import OfflineMemoryModel

BEDROCK_CLAUDE = "bedrock_converse:us.anthropic.claude-sonnet-4-5-20250929-v1:0"
MODEL = os.environ.get("AGENT_MODEL") or BEDROCK_CLAUDE

graph = create_agent(
    OfflineMemoryModel() if MODEL == "fake" else MODEL,
    tools=[save_memory, recall],
    context_schema=Context,
)
