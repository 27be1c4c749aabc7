"""`dynamodb-memory threads forget`: the command line's "forget this conversation", the
same undo as `Extractor.forget_thread` (deleted what only the thread formed, restored what
it superseded)."""

from __future__ import annotations

import json

from langgraph.store.dynamodb.cli.app import app
from langgraph.store.dynamodb.extraction import NearestConsolidator
from langgraph.store.dynamodb.testing import mock_aws
from typer.testing import CliRunner

from .conftest import TABLE, TENANT, open_tables

ENV = {
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "DYNAMODB_MEMORY_TABLE": TABLE,
}


def test_forget_a_conversation_from_the_command_line() -> None:
    with mock_aws(), open_tables(consolidator=NearestConsolidator()) as tables:
        tables.say("t1", "My city is Oslo.")
        tables.extractor.run(TENANT, "t1")
        tables.say("t2", "Actually, my city is Bergen. I like jazz.")
        tables.extractor.run(TENANT, "t2")
        result = CliRunner().invoke(
            app, ["threads", "forget", "t2", "--tenant", TENANT, "--json"], env=ENV
        )
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout) == {"thread_id": "t2", "tenant": TENANT, "deleted": 2}
        assert tables.facts() == ["User's city is Oslo"]
        assert (
            tables.saver.for_tenant(TENANT).count_checkpoints("t2") > 0
        )  # the thread itself stays
