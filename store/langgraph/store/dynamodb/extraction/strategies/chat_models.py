"""The Bedrock chat models an extraction may name: Converse models with tool use, by
model id, cross-region inference profile (`us.`, `eu.`, `apac.`, `global.` + id) or ARN.
The emulation answers the same list."""

from __future__ import annotations

# Converse models that support tool use (structured output), per the Bedrock user guide's
# "Supported models and model features" table.
CHAT_MODELS = (
    "amazon.nova-micro-v1:0",
    "amazon.nova-lite-v1:0",
    "amazon.nova-pro-v1:0",
    "amazon.nova-premier-v1:0",
    "anthropic.claude-3-haiku-20240307-v1:0",
    "anthropic.claude-3-5-haiku-20241022-v1:0",
    "anthropic.claude-3-5-sonnet-20240620-v1:0",
    "anthropic.claude-3-5-sonnet-20241022-v2:0",
    "anthropic.claude-3-7-sonnet-20250219-v1:0",
    "anthropic.claude-sonnet-4-20250514-v1:0",
    "anthropic.claude-haiku-4-5-20251001-v1:0",
    "anthropic.claude-sonnet-4-5-20250929-v1:0",
    "meta.llama3-1-8b-instruct-v1:0",
    "meta.llama3-1-70b-instruct-v1:0",
    "mistral.mistral-large-2407-v1:0",
)
DEFAULT_CHAT_MODEL = "amazon.nova-micro-v1:0"
INFERENCE_PROFILE_PREFIXES = ("us.", "eu.", "apac.", "global.")


def base_model(model_id: str) -> str:
    """The foundation model an id, inference profile or ARN names."""
    if model_id.startswith("arn:") and "/" in model_id:
        model_id = model_id.rsplit("/", 1)[1]
    for prefix in INFERENCE_PROFILE_PREFIXES:
        if model_id.startswith(prefix):
            return model_id[len(prefix) :]
    return model_id


def is_known(model_id: str) -> bool:
    """Whether `model_id` names a Converse model with tool use."""
    return base_model(model_id) in CHAT_MODELS
