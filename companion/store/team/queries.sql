-- Named queries of team mode. Each starts with a `-- name:` line; parameters are
-- psycopg's %(name)s. The logic lives in the functions of migrations/*.sql, so most
-- calls are one statement and one round trip.

-- name: heartbeat
SELECT companion.heartbeat(%(member)s, %(lease)s);

-- name: configure
INSERT INTO companion.limits (id, concurrency, queue, create_per_minute, other_per_minute,
    window_seconds, updated_at)
VALUES (1, %(concurrency)s, %(queue)s, %(create_per_minute)s, %(other_per_minute)s,
    %(window)s, clock_timestamp())
ON CONFLICT (id) DO UPDATE SET concurrency = EXCLUDED.concurrency, queue = EXCLUDED.queue,
    create_per_minute = EXCLUDED.create_per_minute,
    other_per_minute = EXCLUDED.other_per_minute, window_seconds = EXCLUDED.window_seconds,
    updated_at = EXCLUDED.updated_at;

-- name: take_room
SELECT wait, hit FROM companion.take_room(%(member)s, %(kind)s, %(limit)s, %(window)s,
    %(margin)s, %(flight)s);

-- name: answered
SELECT companion.answered(%(hits)s);

-- name: hold_for
SELECT companion.hold_for(%(member)s, %(seconds)s);

-- name: acquire_slot
SELECT companion.acquire_slot(%(member)s, %(job)s, %(priority)s, %(capacity)s, %(lease)s,
    %(present)s);

-- name: slot_turn
-- Behind a transaction pooler, where LISTEN cannot be kept: a member with waiting jobs
-- asks whether one of them heads the queue with a slot free. A read: no lock taken.
SELECT coalesce((SELECT h.member = %(member)s FROM companion.slot_head() h), false)
    AND (SELECT count(*) FROM companion.slots WHERE expires_at > clock_timestamp())
        < %(capacity)s AS turn;

-- name: release_slot
SELECT companion.release_slot(%(member)s, %(job)s);

-- name: reserve
SELECT companion.reserve(%(member)s, %(job)s, %(credits)s, %(lease)s, %(forced)s);

-- name: forget
WITH gone AS (
    DELETE FROM companion.reservations WHERE member = %(member)s AND job_id = %(job)s
)
SELECT companion.release_slot(%(member)s, %(job)s);

-- name: record
SELECT companion.record(%(member)s, %(job)s, %(entry)s, %(credits)s);

-- name: settle
SELECT companion.settle(%(member)s, %(job)s, %(charged)s, %(refunded)s, %(released)s);

-- name: snapshot
SELECT previous_available, previous_committed, committed
FROM companion.snapshot(%(member)s, %(available)s);

-- name: claim_upload
SELECT file_id, claimed FROM companion.claim_upload(%(service)s, %(sha256)s, %(member)s,
    %(lease)s);

-- name: known_upload
SELECT file_id FROM companion.uploads
WHERE service = %(service)s AND sha256 = %(sha256)s AND file_id IS NOT NULL;

-- name: remember_upload
INSERT INTO companion.uploads (service, sha256, file_id, member, claimed_until)
VALUES (%(service)s, %(sha256)s, %(file_id)s, %(member)s, clock_timestamp())
ON CONFLICT (service, sha256) DO UPDATE SET file_id = EXCLUDED.file_id,
    member = EXCLUDED.member
WHERE companion.uploads.file_id IS NULL;

-- name: forget_upload
DELETE FROM companion.uploads
WHERE service = %(service)s AND sha256 = %(sha256)s AND file_id = %(file_id)s;

-- name: drop_claim
DELETE FROM companion.uploads
WHERE service = %(service)s AND sha256 = %(sha256)s AND member = %(member)s
  AND file_id IS NULL;

-- name: set_budget
INSERT INTO companion.budgets (scope, per_day, per_month)
VALUES (%(scope)s, %(per_day)s, %(per_month)s)
ON CONFLICT (scope) DO UPDATE SET per_day = EXCLUDED.per_day,
    per_month = EXCLUDED.per_month;

-- name: status_members
SELECT m.name, extract(epoch FROM clock_timestamp() - m.last_seen)::float8 AS seen_ago,
    (SELECT count(*) FROM companion.slots s
        WHERE s.member = m.name AND s.expires_at > clock_timestamp()) AS slots,
    companion.spent(date_trunc('day', clock_timestamp(), 'UTC'), m.name) AS spent_today
FROM companion.members m
WHERE m.last_seen > clock_timestamp() - make_interval(secs => %(recent)s)
ORDER BY m.name;

-- name: status_account
SELECT
    (SELECT count(*) FROM companion.slots
        WHERE expires_at > clock_timestamp()) AS slots_in_use,
    (SELECT count(*) FROM companion.slot_waiters
        WHERE expires_at > clock_timestamp()) AS waiting,
    l.concurrency + l.queue AS slots_total,
    l.create_per_minute, l.other_per_minute, l.window_seconds,
    (SELECT count(*) FROM companion.window_hits w WHERE w.kind = 'create'
        AND w.at > clock_timestamp() - make_interval(secs => coalesce(l.window_seconds, 60)))
        AS creates_in_window,
    (SELECT count(*) FROM companion.window_hits w WHERE w.kind = 'other'
        AND w.at > clock_timestamp() - make_interval(secs => coalesce(l.window_seconds, 60)))
        AS others_in_window,
    (SELECT greatest(0, extract(epoch FROM until - clock_timestamp()))::float8
        FROM companion.hold WHERE id = 1) AS hold_seconds,
    companion.spent(date_trunc('day', clock_timestamp(), 'UTC'), NULL) AS spent_today,
    (SELECT per_day FROM companion.budgets WHERE scope = '*') AS team_per_day,
    (SELECT per_month FROM companion.budgets WHERE scope = '*') AS team_per_month
FROM (SELECT 1) AS one LEFT JOIN companion.limits l ON l.id = 1;

-- name: status_drift
SELECT (credits + committed) - lag(credits + committed) OVER (ORDER BY seq) AS drift, at
FROM companion.ledger WHERE entry = 'balance'
ORDER BY seq DESC LIMIT 1;

-- name: ledger
SELECT seq, member, job_id, entry, credits, committed, at FROM companion.ledger
ORDER BY seq;
