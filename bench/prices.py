"""On-demand prices the cost columns use, with where and when they were stated.

No machine here reaches AWS: these are the published list prices as last known to the
authors, not fetched. Check the sources before quoting a cost.
"""

from __future__ import annotations

from .instrument import Usage

DYNAMODB_SOURCE = "https://aws.amazon.com/dynamodb/pricing/on-demand/"
DYNAMODB_DATE = "2024-11-01"  # on-demand throughput prices cut by 50% from this date
USD_PER_MILLION_READ_UNITS = 0.125  # us-east-1, Standard table class
USD_PER_MILLION_WRITE_UNITS = 0.625
BEDROCK_SOURCE = "https://aws.amazon.com/bedrock/pricing/"
BEDROCK_DATE = "2024-04-30"  # Titan Text Embeddings V2 launch price, unchanged since
USD_PER_THOUSAND_TOKENS = {
    "amazon.titan-embed-text-v2:0": 0.00002,
    "cohere.embed-english-v3": 0.0001,
    "cohere.embed-multilingual-v3": 0.0001,
}


def cost_per_thousand(usage: Usage, model: str) -> float:
    """USD for 1,000 operations like the one `usage` describes: DynamoDB request units
    and embedding tokens. Vector-search bytes are not priced (no public price known to
    us) and Lambda time of the stream consumer is not included."""
    dynamodb = (
        usage.read_units * USD_PER_MILLION_READ_UNITS
        + usage.write_units * USD_PER_MILLION_WRITE_UNITS
    ) / 1_000_000
    embedding = usage.embed_tokens / 1000 * USD_PER_THOUSAND_TOKENS[model]
    return 1000 * (dynamodb + embedding)


def statement() -> str:
    """The prices, their dates and sources, as one markdown paragraph."""
    return (
        f"Prices: DynamoDB on-demand, us-east-1, Standard table class: "
        f"${USD_PER_MILLION_READ_UNITS} per million read request units, "
        f"${USD_PER_MILLION_WRITE_UNITS} per million write request units (in effect since "
        f"{DYNAMODB_DATE}; {DYNAMODB_SOURCE}). Bedrock on-demand embeddings: Titan Text "
        f"Embeddings V2 ${USD_PER_THOUSAND_TOKENS['amazon.titan-embed-text-v2:0']} per 1,000 "
        f"input tokens, Cohere Embed v3 ${USD_PER_THOUSAND_TOKENS['cohere.embed-english-v3']} "
        f"per 1,000 (as listed since {BEDROCK_DATE}; {BEDROCK_SOURCE}). Prices as last known "
        "to us, not fetched (no network to AWS here): check the sources before quoting. "
        "SearchVectors is billed in vector-search bytes; we know no public price for them, "
        "so they are reported as bytes and left out of the cost. DynamoDB Streams reads by "
        "a Lambda trigger are free; the consumer's Lambda time is not included."
    )
