-- Rotation gives a key a new secret; the secret it replaces keeps working until
-- previous_key_expires_at (at most a day later), then is refused like an expired key.
alter table api_keys
  add column previous_key_hash bytea unique,
  add column previous_display_prefix text,
  add column previous_key_expires_at timestamptz,
  add column rotated_at timestamptz;

-- The management API lists workspaces oldest first.
create index workspaces_order_idx on workspaces (created_at, id);
