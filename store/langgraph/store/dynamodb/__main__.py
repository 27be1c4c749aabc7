"""`python -m langgraph.store.dynamodb`: the `dynamodb-memory` command line."""

from langgraph.store.dynamodb.cli import main

main()
