"""The table's vocabulary: every key prefix, attribute name and index name, of every row
kind the store and the checkpointer write. Nothing else of the library spells them.

Row kinds (`PK` / `SK`):

- item: `<namespace>` / `k#<key>`;
- extra vector row (vectors 1..n-1 of an item): `<namespace>` / `v#<key>#<version>#<n>`;
- namespace registry row: `._ns.<group>` / `<namespace>.`;
- registry group row: `._groups` / `<group>.`;
- model pin: `._meta` / `model#<index name>`;
- a purge's resume marker: `._meta` / `purge#<scope>`;
- a reindex's resume marker: `._meta` / `reindex#<index name>#<scope>`;
- thread rows: `.t/<tenant>/<thread_id>` / `c#<ns>#<checkpoint_id>` (a checkpoint),
  `b#<ns>#<channel>#<version>` (a channel value), `z#<owner>#<field>#<i>` (a chunk),
  `r#<run_id>#<ns>` (a run link: the thread's copy of a run index row's key);
- thread registry row: `.t/<tenant>` / `<thread_id>`;
- run index row: `.r/<tenant>/<run_id>` / `<thread_id>#<ns>` (earlier versions:
  `<thread_id>#<ns>#<checkpoint_id>`, one per checkpoint);
- extraction (`extraction.engine.keys`): a cursor `.x/<tenant>` / `s#<thread_id>#<strategy>`, a
  tenant's daily token count `.x/<tenant>` / `d#<yyyy-mm-dd>`, a ledger row naming a
  memory formed from a thread `.x/<tenant>/<thread_id>` / `m#<strategy>#<memory key>`, and
  the tenant's index of its ledger partitions `.x/<tenant>` / `l#<thread_id>`;
- the extraction config: `._meta` / `extraction#` (the table's), `extraction#t/<tenant>`
  (a tenant's override).

`<namespace>` is the namespace's labels joined by `.` (`keys.encode_namespace`), `<group>`
its first two, `<scope>` a namespace prefix as `keys.registry_prefix` writes it; in thread
keys `<tenant>` is `%`/`/`-escaped and every sort-key part `%`/`#`-escaped (`thread_keys`).

Why no two row kinds ever share a key. Partitions first: LangGraph forbids empty labels and
`.` in a label, so a namespace's partition never starts with `.`, and every other partition
does. After the `.`, the store's own partitions continue with `_` (`._ns.<group>`,
`._groups`, `._meta`, and `._namespaces`, the registry of earlier versions, which only
`migration` reads), the checkpointer's and the extraction's with a letter (`.t/`, `.r/`,
`.x/`); `._ns.` is a prefix of
none of the other three, so no registry partition is one of them. The escaped tenant
holds no `/`, so the first `/` after `.t/`, `.r/` or `.x/` ends it: a thread registry
partition (`.t/<tenant>`) holds no `/` after its kind, a thread's (`.t/<tenant>/<thread_id>`)
one at least, and each decodes to one tenant (and thread, or run); likewise a tenant's
extraction partition (`.x/<tenant>`) and a thread's ledger (`.x/<tenant>/<thread_id>`).

Then sort keys, within each kind of partition: a namespace's partition holds item rows
(`k#`) and extra vector rows (`v#`); `._meta` holds model pins (`model#`) and the resume
markers of purges (`purge#`) and reindexes (`reindex#`) and the extraction config
(`extraction#`); a thread's partition holds checkpoints (`c#`), channel values (`b#`),
chunks (`z#`) and run links (`r#`); a tenant's extraction partition holds cursors (`s#`),
daily token counts (`d#`) and ledger index rows (`l#`), a ledger partition only ledger
rows (`m#`). Distinct prefixes, each
followed by an injective encoding, so distinct rows get distinct keys. The registry,
group, thread registry and run index partitions each hold one kind of row.

Indexes and the stream: only item rows carry `recency`, the recency index's sort key, and
only item rows and extra vector rows carry `embedding`, the vector index's attribute, so
no other row enters an index; the stream consumer's TTL-sweep filter matches `k#` sort
keys, which no row outside a namespace's partition has.
"""

from __future__ import annotations

# The table's key attributes.
PK = "PK"
SK = "SK"

# The recency index (a local secondary index on `RECENCY`).
RECENCY_INDEX = "recency"

# Sort-key prefixes in a namespace's partition.
ITEM_PREFIX = "k#"
VECTOR_ROW_PREFIX = "v#"

# The namespace registry: a group's partition, the partition listing the groups, and the
# single registry partition of earlier versions (`migration.copy_table` moves its rows).
REGISTRY_PREFIX = "._ns."
GROUPS_PK = "._groups"
LEGACY_REGISTRY_PK = "._namespaces"

# The table's metadata partition and its sort-key prefixes: model pins, and the resume
# markers of purges and reindexes (`jobs.resume_markers`).
META_PK = "._meta"
PIN_PREFIX = "model#"
PURGE_PREFIX = "purge#"
REINDEX_PREFIX = "reindex#"

# The extraction config in `META_PK`: the table's is `EXTRACTION_CONFIG`, a tenant's
# override `EXTRACTION_CONFIG + EXTRACTION_TENANT + <tenant>`.
EXTRACTION_CONFIG = "extraction#"
EXTRACTION_TENANT = "t/"

# The checkpointer: partition kinds, then sort-key prefixes in a thread's partition.
THREAD_KIND = ".t/"
RUN_KIND = ".r/"
CHECKPOINT = "c#"
BLOB = "b#"
CHUNK = "z#"
# A checkpoint's pending writes: one row beside the checkpoint row, keyed by the checkpoint
# row's sort key and this suffix, so it sorts right after it (a Query reads both together)
# and a `put_writes` is billed for the writes, not for the checkpoint's values.
WRITES_SUFFIX = "#writes"
# A run link: the run index row a thread's checkpoints lead to, kept beside them for as long
# as that row lives, so a purge finds it after the checkpoints expired.
RUN_LINK = "r#"

# Item rows. `VALUE`, the timestamps and the TTL pair make the `Item` a read returns.
VALUE = "value"
CREATED_AT = "created_at"
UPDATED_AT = "updated_at"
# `<updated_at>#<key>`: the recency index's sort key (`keys.recency_sort_key`).
RECENCY = "recency"
# Epoch seconds, DynamoDB's TTL attribute (on every row that expires, thread rows too),
# and the TTL in minutes that set it.
EXPIRES_AT = "expires_at"
TTL_MINUTES = "ttl_minutes"
# What a read needs of an item row besides its keys (the recency index projects it).
ITEM_ATTRIBUTES = (VALUE, CREATED_AT, UPDATED_AT, EXPIRES_AT, TTL_MINUTES)

# The vector index's attribute (vector 0 on the item row, the others on extra vector rows).
VECTOR = "embedding"
CONTENT_HASH = "content_hash"
VECTOR_COUNT = "vector_count"
# The item's own paths to embed, when the put named them (or in stream mode).
INDEX_PATHS = "index_paths"
# Stream mode: the content hash a put left for the consumer to embed (gone once embedded).
PENDING = "embed_pending"
# Which write made an item's extra vector rows (part of their keys).
VECTOR_VERSION = "vector_version"
# An item's copy of a filter field for the vector index: `filter_<field>`.
FILTER_PREFIX = "filter_"

# Extra vector rows: their item's sort key and when they were written.
ITEM_SK = "item_sk"
WRITTEN_AT = "written_at"

# Registry rows (`REGISTERED_AT` on group rows too).
REGISTERED_AT = "registered_at"
HAS_TTL = "has_ttl"
EMPTIED_AT = "emptied_at"

# The model pin.
PIN_PROVIDER = "provider"
PIN_MODEL = "model"
PIN_DIMS = "dims"
PIN_NORMALIZE = "normalize"
PIN_FIELDS = "fields"

# A resume marker: the last key its job finished (a purge: the registry key of the last
# namespace it emptied; a reindex: the sort key of the last item of its last full page).
MARKER_AFTER = "after"
# A purge's marker also holds its prefix (labels), the rows deleted by kind, and when it
# was saved...
PURGE_SCOPE = "prefix"
PURGE_DELETED = "deleted"
PURGE_SAVED_AT = "saved_at"
# ... and when it last deleted a listing writers trust (epoch seconds), which a rerun
# waits out too.
PURGE_LISTINGS_AT = "listings_deleted_at"
# A reindex's marker also holds the registry key of the namespace holding that item, and
# the model it embeds with (`ModelIdentity.key`).
REINDEX_NAMESPACE = "namespace"
REINDEX_MODEL = "model"

# A checkpoint row: the checkpoint, its metadata, its parent's id, its run's id. Its writes
# row holds one map per pending write, `w:<task>:<idx>` (rows written before writes had a
# row of their own hold them in the checkpoint row: readers take both). Rows written since
# values went inline also hold
# `VALUES` (channel -> serialized value, the channels stored in the row itself) and maybe
# `EXTERNAL` (the channels read from channel value rows at the checkpoint's versions);
# a row without `VALUES` reads every channel from its value rows. `EXTERNAL_CHUNKS`
# (channel -> chunk count) gives the count of those value rows' chunks where the put knew
# it, so a reader fetches a value row and its chunks in one request.
CP = "cp"
MD = "md"
VALUES = "cv"
EXTERNAL = "cx"
EXTERNAL_CHUNKS = "cn"
PARENT = "parent"
RUN = "run"
WRITE_PREFIX = "w:"
# A pending write's map: its task, channel, task path, index, the field keying its
# chunks when it is chunked, and when its `put_writes` took several requests, that call's
# id and how many writes it stored (`<id>:<count>`).
TASK = "task"
CHANNEL = "c"
PATH = "p"
IDX = "i"
CHUNKS_FIELD = "k"
BATCH = "b"
# A serialized value (in `CP`, `MD`, a write's map, or a channel value row): its type and
# either its bytes inline or its count of chunks. Chunk rows hold `DATA`; a channel
# value's chunks are keyed by the field `DATA`.
TYPE = "t"
DATA = "v"
COUNT = "n"

# A thread registry row.
TENANT = "tenant"
THREAD_ID = "thread_id"

# Extraction: the partition kind (`.x/<tenant>` cursors, daily token counts and the
# ledger index, `.x/<tenant>/<thread_id>` the ledger of memories formed from a thread),
# sort-key prefixes, and attributes.
EXTRACTION_KIND = ".x/"
CURSOR = "s#"
DAY = "d#"
LEDGER = "m#"
# A ledger index row: names a thread whose ledger partition holds (or held) rows, written
# with its ledger rows, so a purge finds every ledger partition of a tenant in one Query
# of the tenant's partition, whatever became of the thread and its cursors.
LEDGER_INDEX = "l#"
# A cursor: its strategy; the checkpoint processed through, the last message
# processed, the count of advances (the conditional write's guard), the messages left
# after the last run; its thread (`THREAD_ID`); the lease's holder
# and expiry (epoch seconds); the last run's time and error; memories formed.
CURSOR_STRATEGY = "cursor_strategy"
CURSOR_CHECKPOINT = "cursor_checkpoint"
CURSOR_MESSAGE = "cursor_message"
CURSOR_ADVANCES = "cursor_advances"
CURSOR_LAG = "cursor_lag"
LEASE_OWNER = "lease_owner"
LEASE_UNTIL = "lease_until"
LAST_RUN_AT = "last_run_at"
LAST_ERROR = "last_error"
MEMORY_COUNT = "memory_count"
# A cursor's recorded window (extraction.consolidation.journal: the steps decided, and
# where the cursor goes once they are applied), removed by the advance that applies it;
# how many times its thread was forgotten, and the last message then.
CURSOR_PENDING = "cursor_pending"
CURSOR_FORGETS = "cursor_forgets"
CURSOR_FORGOTTEN = "cursor_forgotten"
# A daily token count.
TOKENS_USED = "tokens_used"
# A ledger row: the memory's encoded namespace and key.
MEMORY_NAMESPACE = "ledger_namespace"
MEMORY_KEY = "ledger_key"
# The extraction config row: its JSON.
EXTRACTION_SETTINGS = "extraction_settings"
