"""Every principal whose job includes `setup()` can run it with exactly the policy
`dynamodb-memory policy <component>` prints: a role holding that policy, IAM enforced by
the emulation, runs its `setup()` and then its own work.

`SETUP_OF` says, for every component the command prints, how its principal runs
`setup()`, or why it never does; a component added without that decision fails here, and
`test_declared_calls.py` records the same `setup()` calls against `NEEDS`.
"""

from __future__ import annotations

from collections.abc import Iterator
from enum import Enum
from typing import get_args, get_type_hints

import pytest
from botocore.exceptions import ClientError
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb import AccessDeniedError
from langgraph.store.dynamodb.cli.app import policy as policy_command
from langgraph.store.dynamodb.table.permissions import Component
from langgraph.store.dynamodb.testing import mock_aws
from moto.core.authorization import enable_iam_authentication

from .setup_paths import SETUP_OF, TABLE, deployed_table, printed_policy, role_with


def printed_components() -> set[str]:
    """The components `dynamodb-memory policy` accepts: the choices of its argument's type,
    read from the command's signature (each is printed below)."""
    annotated = get_type_hints(policy_command, include_extras=True)["component"]
    choices: type[Enum] = get_args(annotated)[0]
    return {choice.value for choice in choices}


def test_every_printed_component_says_how_it_runs_setup() -> None:
    printed = printed_components()
    assert printed == {c.value for c in SETUP_OF}
    for name in printed:
        assert printed_policy(Component(name))["Statement"], name


@pytest.fixture
def emulated() -> Iterator[None]:
    with mock_aws():
        yield


@pytest.mark.parametrize(
    "component", [c for c, run in SETUP_OF.items() if run is not None], ids=str
)
def test_the_printed_policy_runs_setup(emulated: None, component: Component) -> None:
    if component is not Component.SETUP:
        deployed_table()
    session = role_with(printed_policy(component), f"role-{component.value}")
    run = SETUP_OF[component]
    assert run is not None
    with enable_iam_authentication():
        try:
            run(session)
        except (AccessDeniedError, ClientError) as denied:
            pytest.fail(
                f"a role holding `dynamodb-memory policy {component.value}` cannot run "
                f"setup(): {denied}"
            )
        # IAM was enforced: what no policy grants is denied.
        with pytest.raises(ClientError, match="AccessDeniedException"):
            session.client("dynamodb").delete_table(TableName=TABLE)


def test_a_checkpoint_put_needs_the_update_its_transaction_holds(emulated: None) -> None:
    """A put is a transaction holding an Update of the checkpoint row: AWS authorizes it as
    UpdateItem, so the printed policy without UpdateItem cannot put, even with PutItem."""
    deployed_table()
    document = printed_policy(Component.CHECKPOINTER)
    for statement in document["Statement"]:
        statement["Action"] = [a for a in statement["Action"] if a != "dynamodb:UpdateItem"]
    session = role_with(document, "no-update")
    config = {"configurable": {"thread_id": "t", "tenant": "acme", "checkpoint_ns": ""}}
    with (
        enable_iam_authentication(),
        DynamoDBSaver(TABLE, boto3_session=session, tenant_key="tenant") as saver,
    ):
        saver.setup()
        with pytest.raises(AccessDeniedError, match="dynamodb:UpdateItem"):
            saver.put(config, empty_checkpoint(), {"source": "input", "step": -1}, {})
        assert saver.get_tuple(config) is None
