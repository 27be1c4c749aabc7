"""`make demo`: the project's main job on the local emulation, no AWS account needed.

A support agent's long-term memory for one user of one tenant: key-value memory, prefix
search across tenants' users, namespace listing, and semantic recall through Bedrock
embeddings (served by the emulation's lexical embedder, not a real model).
"""

from __future__ import annotations

from langchain_aws import BedrockEmbeddings

from . import DynamoDBStore
from .testing import mock_aws

REGION = "us-east-1"
NS = ("memories", "acme-corp", "user-8812")
MEMORIES = {
    "mem-1": ("Account runs a proxy that closes idle sockets after 60 seconds", "ticket-4471"),
    "mem-2": ("Customer prefers email, asked not to be called by phone", "ticket-4471"),
    "mem-3": ("Uses a custom build of the SDK pinned to version 2.14", "ticket-4502"),
}


def main() -> None:
    """Run the scenario and print what an agent would see."""
    with mock_aws():  # fake credentials come with the mock
        embed = BedrockEmbeddings(model_id="amazon.titan-embed-text-v2:0", region_name=REGION)
        store = DynamoDBStore(
            "agent-memory",
            region_name=REGION,
            index={"dims": 1024, "embed": embed, "fields": ["text"]},
            ttl={"default_ttl": 60 * 24 * 30, "refresh_on_read": True},
        )
        store.setup()
        print("Table and vector index ready (emulated).")

        for key, (text, source) in MEMORIES.items():
            store.put(NS, key, {"text": text, "source": source, "confidence": 0.9})
        store.put(("memories", "globex", "user-1"), "mem-1", {"text": "Prefers phone calls"})
        store.put(NS, "profile", {"tier": "gold", "seats": 42}, index=False)

        profile = store.get(NS, "profile")
        assert profile is not None
        print(f"\nget {NS} 'profile' -> {profile.value}")

        print("\nlist_namespaces(prefix=('memories',)):")
        for namespace in store.list_namespaces(prefix=("memories",)):
            print("  ", namespace)

        query = "connection drops after a minute of inactivity"
        print(f"\nsearch {NS} query={query!r}:")
        for hit in store.search(NS, query=query, limit=3):
            print(f"   {hit.score:+.3f}  {hit.key}: {hit.value['text']}")

        print("\nsearch ('memories', 'acme-corp') filter={'source': 'ticket-4471'}:")
        for hit in store.search(("memories", "acme-corp"), filter={"source": "ticket-4471"}):
            print(f"   {hit.key}: {hit.value['text']}")

        store.delete(("memories", "globex", "user-1"), "mem-1")
        print("\nafter deleting globex's only memory, namespaces:")
        for namespace in store.list_namespaces(prefix=("memories",)):
            print("  ", namespace)


if __name__ == "__main__":
    main()
