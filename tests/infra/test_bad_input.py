"""A CDK context value that cannot work fails the synth with one line naming the value and
the fix; the embedding model must be one the stream consumer can call."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest
from aws_cdk import App

from infra.bundling import ROOT
from infra.settings import MemorySettings, SettingError

from .conftest import synthesize

TITAN_RULE = (
    "embeddingModelId must name a Bedrock text embedding model the stream consumer can call, "
    "Amazon Titan Embed or Cohere Embed (e.g. amazon.titan-embed-text-v2:0, "
    "cohere.embed-english-v3, or us.amazon.titan-embed-text-v2:0 through an inference profile)"
)
DIMS_RULE = (
    "dims must be the embedding model's dimension count, an int from 1 to 4096 (DynamoDB's limit)"
)

BAD = [
    ({"dims": "5000"}, f"CDK context dims=5000 is invalid: {DIMS_RULE}."),
    ({"dims": "0"}, f"CDK context dims=0 is invalid: {DIMS_RULE}."),
    ({"dims": "1024.5"}, "CDK context dims='1024.5' is invalid: dims must be an integer."),
    ({"dims": [1024]}, "CDK context dims=[1024] is invalid: dims must be an integer."),  # cdk.json
    (
        {"distanceFunction": "MANHATTAN"},
        "CDK context distanceFunction='MANHATTAN' is invalid: distanceFunction must be one of "
        "['COSINE', 'EUCLIDEAN', 'DOT_PRODUCT'].",
    ),
    (
        {"embeddingModelId": "anthropic.claude-3-haiku-20240307-v1:0"},
        "CDK context embeddingModelId='anthropic.claude-3-haiku-20240307-v1:0' is invalid: "
        f"{TITAN_RULE}.",
    ),
    (
        {"embeddingModelId": "amazon.nova-2-multimodal-embeddings-v1:0"},
        "CDK context embeddingModelId='amazon.nova-2-multimodal-embeddings-v1:0' is invalid: "
        f"{TITAN_RULE}.",
    ),
    (
        {"embeddingModelId": "titan-embed-text-v2"},
        f"CDK context embeddingModelId='titan-embed-text-v2' is invalid: {TITAN_RULE}.",
    ),
    (
        {
            "embeddingModelId": "arn:aws:bedrock:us-east-1:123456789012:inference-profile/"
            "us.amazon.titan-embed-text-v2:0"
        },
        "CDK context embeddingModelId='arn:aws:bedrock:us-east-1:123456789012:inference-profile/"
        "us.amazon.titan-embed-text-v2:0' is invalid: embeddingModelId must be a "
        "foundation-model ARN (arn:aws:bedrock:<region>::foundation-model/<id>); for an "
        "inference profile give its id instead (e.g. us.amazon.titan-embed-text-v2:0).",
    ),
    (
        {"embeddingModelId": "cohere.embed-english-v3", "dims": "512"},
        "CDK context dims=512 is invalid: dims must be what cohere.embed-english-v3 returns: 1024.",
    ),
    (
        {"dims": "300"},
        "CDK context dims=300 is invalid: dims must be what amazon.titan-embed-text-v2:0 "
        "returns: 256, 512, 1024.",
    ),
    (
        {"tags": "{team: agents}"},
        "CDK context tags='{team: agents}' is invalid: tags must be a JSON object of tag names "
        'to values, e.g. {"team": "agents"}.',
    ),
    (
        {"tags": '["agents"]'},
        "CDK context tags='[\"agents\"]' is invalid: tags must be a JSON object of tag names "
        'to values, e.g. {"team": "agents"}.',
    ),
    (
        {"dimz": "512"},
        "CDK context dimz='512' is invalid: dimz is not a setting (did you mean dims?).",
    ),
    (
        {"deletionProtection": "yes"},
        "CDK context deletionProtection='yes' is invalid: deletionProtection must be true or "
        "false.",
    ),
]


@pytest.mark.parametrize(("context", "message"), BAD, ids=[m.split(" is")[0] for _, m in BAD])
def test_a_bad_context_value_fails_the_synth_in_one_line(
    context: dict[str, object], message: str, tmp_path: Path
) -> None:
    with pytest.raises(SettingError) as error:
        synthesize(tmp_path, **context)
    assert str(error.value) == message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("model", "dims"),
    [
        ("amazon.titan-embed-text-v2:0", 256),
        ("eu.cohere.embed-multilingual-v3", 1024),
        ("cohere.embed-v4:0", 1536),
        ("amazon.titan-embed-text-v1", 1536),
        ("arn:aws:bedrock:us-east-1::foundation-model/cohere.embed-english-v3", 1024),
        ("amazon.titan-embed-text-v3:0", 777),  # a future Titan Embed: dims unknown here
    ],
)
def test_models_the_consumer_can_call_are_accepted(model: str, dims: int) -> None:
    app = App(context={"embeddingModelId": model, "dims": str(dims)})
    settings = MemorySettings.from_context(app.node)
    assert (settings.embedding_model_id, settings.dims) == (model, dims)


def test_the_cdk_app_prints_the_one_line_and_exits_1(tmp_path: Path) -> None:
    """`cdk synth -c distanceFunction=MANHATTAN` runs cdk.json's app with the context in
    CDK_CONTEXT_JSON: its stderr is the one line, no traceback."""
    app = json.loads((ROOT / "cdk.json").read_text())["app"]
    env = {
        **os.environ,
        "CDK_OUTDIR": str(tmp_path),
        "CDK_CONTEXT_JSON": json.dumps({"distanceFunction": "MANHATTAN"}),
        "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION": "20",
    }
    result = subprocess.run(
        shlex.split(app), cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        "CDK context distanceFunction='MANHATTAN' is invalid: distanceFunction must be one of "
        "['COSINE', 'EUCLIDEAN', 'DOT_PRODUCT']."
    ]
