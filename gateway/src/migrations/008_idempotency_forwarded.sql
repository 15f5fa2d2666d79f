-- Whether an Idempotency-Key's attempt was sent on to its service. A record
-- whose attempt outlived its lock is settled as an unknown outcome only when
-- it was; one that never was (its request was answered 503 before it went on,
-- and the release of the key did not land) is deleted, so the retry runs.
-- Records from before this column are taken as sent: nothing else is known of them.
alter table idempotency_keys add column forwarded boolean not null default true;
alter table idempotency_keys alter column forwarded set default false;
