-- A rotation gives a key a new secret without a new row: each replica's set of
-- existing keys (auth/known-keys.ts) reads the keys rotated since its last sync
-- by this index, as it reads new ones by api_keys_created_at_idx.
create index api_keys_rotated_at_idx on api_keys (rotated_at) where rotated_at is not null;
