-- One row per management change, written in the transaction of the change.
-- No foreign key: a workspace's entries, its deletion included, outlive it.
create table audit_log (
  id uuid primary key,
  workspace_id uuid not null,
  -- What was done, as <resource>.<verb>: api_key.rotate, member.update, workspace.delete.
  action text not null,
  resource_type text not null,
  resource_id uuid not null,
  -- The resource before and after the change, without secrets; null where there is no such side.
  before jsonb,
  after jsonb,
  request_id text not null,
  -- Which admin credential made the change: a fingerprint, never the credential.
  actor text not null,
  created_at timestamptz not null default now()
);
create index audit_log_workspace_idx on audit_log (workspace_id, created_at desc, id desc);
