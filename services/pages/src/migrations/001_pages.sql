-- Pages, per workspace, optionally in a team (an extension).
create extension if not exists pg_trgm;

create table pages (
  id uuid primary key,
  workspace_id uuid not null,
  team_id uuid,
  title text not null,
  content text not null default '',
  created_at timestamptz not null,
  updated_at timestamptz not null
);

-- One index per sort key, each led by the workspace and ending with the id tie-break;
-- a B-tree scans either way, so each serves both orders.
create index pages_workspace_updated_idx on pages (workspace_id, updated_at desc, id desc);
create index pages_workspace_created_idx on pages (workspace_id, created_at desc, id desc);
create index pages_workspace_title_idx on pages (workspace_id, lower(title), id);
-- The exact total of a list, with the team visibility filter, without visiting the heap.
create index pages_workspace_team_idx on pages (workspace_id, team_id);
-- The case-insensitive substring filter: LIKE on lower(title).
create index pages_title_trgm_idx on pages using gin (lower(title) gin_trgm_ops);
