-- Gateways read the keys created since their last look, to know every key that
-- exists without asking the database for each key presented (auth/known-keys.ts).
create index api_keys_created_at_idx on api_keys (created_at);
