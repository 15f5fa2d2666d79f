-- Identity is owned by the gateway: workspaces, their teams and members, and API keys.
create table workspaces (
  id uuid primary key,
  name text not null,
  -- Rises with every change that alters what one of the workspace's keys may do;
  -- gateways compare it to decide whether a cached key is still good.
  auth_epoch bigint not null default 0,
  created_at timestamptz not null default now()
);

create table teams (
  id uuid primary key,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  name text not null,
  created_at timestamptz not null default now()
);
create index teams_workspace_idx on teams (workspace_id);

create table members (
  id uuid primary key,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  email text not null,
  name text,
  role text not null check (role in ('owner', 'admin', 'member', 'guest')),
  active boolean not null default true,
  created_at timestamptz not null default now(),
  unique (workspace_id, email)
);

create table team_members (
  team_id uuid not null references teams (id) on delete cascade,
  member_id uuid not null references members (id) on delete cascade,
  primary key (team_id, member_id)
);
create index team_members_member_idx on team_members (member_id);

create table api_keys (
  id uuid primary key,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  name text not null,
  created_by uuid not null references members (id),
  -- sha256 of the full key; the key itself is never stored.
  key_hash bytea not null unique,
  display_prefix text not null,
  scopes text[] not null,
  -- null: a workspace-wide key.
  team_ids uuid[],
  expires_at timestamptz,
  revoked_at timestamptz,
  rate_limit_per_minute integer check (rate_limit_per_minute > 0),
  streaming boolean not null default false,
  last_used_at timestamptz,
  created_at timestamptz not null default now()
);
create index api_keys_workspace_idx on api_keys (workspace_id, created_at, id);
