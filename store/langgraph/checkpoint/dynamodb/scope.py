"""Which thread a call names: the `thread_id` of its config (or the thread id it is
given) under the tenant leading the thread's keys. A saver created with `tenant_key`
reads the tenant from that `configurable` key, or is bound to one (`for_tenant`); calls
that take only thread ids need the binding. A saver without it has one tenant, `""`."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.store.dynamodb.table.thread_keys import Thread


@dataclass(frozen=True)
class Scope:
    """A saver's `tenant_key` (None: no tenants) and the tenant it is bound to, if any."""

    tenant_key: str | None
    tenant: str | None = None

    def __post_init__(self) -> None:
        key = self.tenant_key
        if key is not None and (not isinstance(key, str) or not key):
            raise ValueError(f"tenant_key must be a non-empty string or None, got {key!r}")

    def bind(self, tenant: str) -> Scope:
        """This scope, bound to `tenant`: a config naming another tenant is refused."""
        if self.tenant_key is None:
            raise ValueError("for_tenant() needs a saver created with tenant_key=...")
        check_tenant(tenant, "tenant")
        return dataclasses.replace(self, tenant=tenant)

    def thread(self, config: RunnableConfig | None) -> Thread:
        """The thread a config names."""
        configurable = (config or {}).get("configurable") or {}
        thread_id = configurable.get("thread_id")
        if thread_id is None or thread_id == "":
            raise ValueError(
                "The config has no thread_id: pass config={'configurable': {'thread_id': "
                "...}} (one id per conversation)."
            )
        return Thread(self._tenant_of(configurable), str(thread_id))

    def _tenant_of(self, configurable: dict[str, Any]) -> str:
        if self.tenant_key is None:
            return ""
        value = configurable.get(self.tenant_key)
        if self.tenant is not None:
            if value is not None and value != self.tenant:
                raise ValueError(
                    f"The config names tenant {value!r} but this saver is bound to "
                    f"{self.tenant!r} (for_tenant); nothing was read or written."
                )
            return self.tenant
        check_tenant(value, f"config['configurable'][{self.tenant_key!r}]")
        return str(value)

    def bound_tenant(self) -> str:
        """The tenant of a call that names no config: the bound one (`""` without
        tenants)."""
        if self.tenant_key is None:
            return ""
        if self.tenant is None:
            raise ValueError(
                f"This saver keys threads by tenant (tenant_key={self.tenant_key!r}), and "
                "this call names no config: call it on saver.for_tenant(tenant)."
            )
        return self.tenant

    def extra(self, thread: Thread) -> dict[str, Any]:
        """What a config of the thread holds besides its thread and checkpoint: the tenant."""
        return {self.tenant_key: thread.tenant} if self.tenant_key else {}

    def config(self, thread: Thread, ns: str, checkpoint_id: str) -> RunnableConfig:
        """The config naming a checkpoint of the thread."""
        return {
            "configurable": {
                "thread_id": thread.thread_id,
                "checkpoint_ns": ns,
                "checkpoint_id": checkpoint_id,
                **self.extra(thread),
            }
        }


def check_thread_id(thread_id: str) -> None:
    """Refuse a thread id that is empty or None."""
    if thread_id is None or thread_id == "":
        raise ValueError("thread_id must be a non-empty string")


def check_tenant(value: Any, name: str) -> None:
    """Refuse a tenant that is not a non-empty string."""
    if not isinstance(value, str) or not value:
        raise ValueError(
            f"{name} must be a non-empty string naming the tenant whose thread this is, "
            f"got {value!r}. Nothing was read or written."
        )
