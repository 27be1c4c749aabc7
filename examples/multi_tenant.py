"""The namespace layouts of a multi-tenant deployment (docs/design.md) and what one
search covers in each. Scope by namespace, not by value filter: namespaces are partitions,
so isolation is structural.

Run it offline: `python examples/multi_tenant.py` (or `python -m examples.multi_tenant`).
"""

from __future__ import annotations

from langchain_aws import BedrockEmbeddings
from langgraph.store.dynamodb import DynamoDBStore

LAYOUTS = {
    ("memories", "user-1"): "one user (single-tenant app)",
    ("memories", "acme-corp", "user-1"): "one user of one tenant (the common case)",
    ("memories", "acme-corp", "user-1", "billing-agent"): "one agent's notes on one user",
    ("account_facts", "acme-corp"): "tenant-wide knowledge",
}


def run(store: DynamoDBStore) -> dict[str, list[str]]:
    """Write one memory per layout plus a second tenant; returns what searches see."""
    for namespace, meaning in LAYOUTS.items():
        store.put(namespace, "m", {"text": f"proxy closes idle sockets ({meaning})"})
    store.put(("memories", "globex", "user-1"), "m", {"text": "proxy closes idle sockets"})
    query = "connection drops after a minute"

    def seen(prefix: tuple[str, ...]) -> list[str]:
        return [".".join(hit.namespace) for hit in store.search(prefix, query=query)]

    return {
        "one user of acme": seen(("memories", "acme-corp", "user-1")),
        "all of acme": seen(("memories", "acme-corp")),
        "globex": seen(("memories", "globex")),
        "acme facts": seen(("account_facts", "acme-corp")),
    }


def main() -> None:
    """Run against the DynamoDB and Bedrock the environment points at."""
    embed = BedrockEmbeddings(model_id="amazon.titan-embed-text-v2:0", region_name="us-east-1")
    index = {"dims": 1024, "fields": ["text"], "embed": embed}
    with DynamoDBStore.from_table(
        "agent-memory", region_name="us-east-1", index=index, setup=True
    ) as store:
        for scope, namespaces in run(store).items():
            print(f"{scope}: {namespaces}")


if __name__ == "__main__":
    from langgraph.store.dynamodb.testing import mock_aws

    with mock_aws():
        main()
