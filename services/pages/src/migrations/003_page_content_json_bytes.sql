-- What a page's content takes in a JSON answer: its text escaped as JSON, with
-- its quotes. The budget for answers in transit counts these bytes, not the
-- text's: a control character is 1 byte stored and 6 in the answer ("\u0001"),
-- so a list counted by its text could take six times its room. Kept by a
-- trigger, so that every writer keeps it; an update that leaves the content
-- out of its SET list does not recompute it.
alter table pages add column content_json_bytes integer;
update pages set content_json_bytes = octet_length(to_json(content)::text);
alter table pages alter column content_json_bytes set not null;

create function pages_content_json_bytes() returns trigger language plpgsql as $$
begin
  new.content_json_bytes := octet_length(to_json(new.content)::text);
  return new;
end $$;

create trigger pages_content_json_bytes before insert or update of content on pages
  for each row execute function pages_content_json_bytes();
