-- An entry's time is when it was written, not when its transaction began:
-- two changes of one key wait for each other's lock, so the second's
-- transaction may have begun first, and ordered by now() the log showed it
-- before the change it followed (its "before" the other's "after").
alter table audit_log alter column created_at set default clock_timestamp();
