"""The Agent Server graph: `create_agent` with memory tools. The server hands it the
DynamoDB store from `memory_store.py` (no `store=` here: the server provides it)."""

from __future__ import annotations

import os

from langchain.agents import create_agent
from memory_tools import Context, recall, save_memory

MODEL = os.environ.get(
    "AGENT_MODEL", "bedrock_converse:us.anthropic.claude-sonnet-4-5-20250929-v1:0"
)

graph = create_agent(MODEL, tools=[save_memory, recall], context_schema=Context)
