-- Idempotency keys of the public API's POSTs: the first answer to each
-- (API key, Idempotency-Key) pair, kept so that a retry replays it instead of
-- doing the work again. Shared by every gateway replica and kept across restarts.
create table idempotency_keys (
  api_key_id uuid not null references api_keys (id) on delete cascade,
  idempotency_key text not null,
  -- sha256 of the operation and the request body: the same key with anything else is refused.
  fingerprint bytea not null,
  -- The attempt that holds the key: only it may store its answer or let the key go.
  attempt uuid not null,
  -- While status is null the attempt is running; past this instant its gateway is presumed gone.
  locked_until timestamptz not null,
  status integer,
  response_headers jsonb,
  response_body bytea,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  primary key (api_key_id, idempotency_key)
);
-- The purge walks expired rows in order.
create index idempotency_keys_expiry_idx on idempotency_keys (expires_at);
