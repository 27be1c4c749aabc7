"""`python -m langgraph.store.dynamodb`: the `dynamodb-memory` command line."""

from .cli import main

main()
