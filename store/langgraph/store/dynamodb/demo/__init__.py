"""`make demo`: a support agent that remembers, on the local emulation
(`python -m langgraph.store.dynamodb.demo`)."""
