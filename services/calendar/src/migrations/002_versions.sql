-- Versions for conditional requests: updated_at strictly increases on every change
-- of a calendar or an event, and the entity tag derives from it. Existing rows
-- start at their creation time.
alter table calendars add column updated_at timestamptz;
update calendars set updated_at = created_at;
alter table calendars alter column updated_at set not null;

alter table calendar_events add column updated_at timestamptz;
update calendar_events set updated_at = created_at;
alter table calendar_events alter column updated_at set not null;
