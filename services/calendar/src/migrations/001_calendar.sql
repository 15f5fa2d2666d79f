create table calendars (
  id uuid primary key,
  workspace_id uuid not null,
  team_id uuid,
  name text not null,
  created_by uuid not null,
  created_at timestamptz not null
);
create index calendars_workspace_team on calendars (workspace_id, team_id);
create index calendars_workspace_order on calendars (workspace_id, created_at, id);

create table calendar_events (
  id uuid primary key,
  workspace_id uuid not null,
  calendar_id uuid not null references calendars (id) on delete cascade,
  title text,
  starts_at timestamptz not null,
  ends_at timestamptz not null,
  is_all_day boolean not null,
  location text,
  conference_url text,
  notes text,
  reminder_minutes_before_start integer,
  created_by uuid not null,
  created_at timestamptz not null,
  constraint calendar_events_ends_after_start check (ends_at >= starts_at),
  constraint calendar_events_reminder_range check (reminder_minutes_before_start between 0 and 10080)
);
create index calendar_events_workspace_order on calendar_events (workspace_id, starts_at, id);
create index calendar_events_calendar_order on calendar_events (calendar_id, starts_at, id);

create table calendar_event_attendees (
  event_id uuid not null references calendar_events (id) on delete cascade,
  position integer not null,
  email text,
  name text,
  status text not null check (status in ('needs_action', 'accepted', 'declined', 'tentative')),
  primary key (event_id, position)
);
