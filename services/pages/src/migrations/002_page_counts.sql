-- Exact list totals without counting rows: how many pages each workspace has at
-- workspace level and in each team, kept by statement-level triggers in the same
-- transaction as the change, so a total read in the list's snapshot is exact.
-- team_key is the team, or the nil UUID for workspace-level pages (a primary key
-- cannot hold null). A page never changes workspace or team, so updates need nothing.
create table page_counts (
  workspace_id uuid not null,
  team_key uuid not null,
  count bigint not null,
  primary key (workspace_id, team_key)
);

insert into page_counts (workspace_id, team_key, count)
select workspace_id, coalesce(team_id, '00000000-0000-0000-0000-000000000000'), count(*)
from pages group by 1, 2;

create function page_counts_after_insert() returns trigger language plpgsql as $$
begin
  insert into page_counts (workspace_id, team_key, count)
  select workspace_id, coalesce(team_id, '00000000-0000-0000-0000-000000000000'), count(*)
  from inserted group by 1, 2
  on conflict (workspace_id, team_key) do update set count = page_counts.count + excluded.count;
  return null;
end $$;

create function page_counts_after_delete() returns trigger language plpgsql as $$
begin
  update page_counts c set count = c.count - d.n
  from (
    select workspace_id, coalesce(team_id, '00000000-0000-0000-0000-000000000000') as team_key, count(*) as n
    from deleted group by 1, 2
  ) d
  where c.workspace_id = d.workspace_id and c.team_key = d.team_key;
  return null;
end $$;

create trigger pages_counted_on_insert after insert on pages
  referencing new table as inserted for each statement execute function page_counts_after_insert();
create trigger pages_counted_on_delete after delete on pages
  referencing old table as deleted for each statement execute function page_counts_after_delete();
