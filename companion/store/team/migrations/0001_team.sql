-- Team mode, version 1: what every companion of one account shares.
-- Every moment is taken from the database clock (clock_timestamp()), never a member's.
-- Serialisation is the database's: one transaction-scoped advisory lock per shared
-- resource (a request window, the slots, the budgets, the books), row upserts for uploads.

CREATE SCHEMA IF NOT EXISTS companion;

CREATE TABLE companion.members (
    name text PRIMARY KEY,
    first_seen timestamptz NOT NULL DEFAULT clock_timestamp(),
    last_seen timestamptz NOT NULL DEFAULT clock_timestamp(),
    last_grant timestamptz            -- the last slot this member was given (turns)
);

-- The account's limits as a member last read them from GET /account.
CREATE TABLE companion.limits (
    id integer PRIMARY KEY CHECK (id = 1),
    concurrency integer NOT NULL,
    queue integer NOT NULL,
    create_per_minute integer NOT NULL,
    other_per_minute integer NOT NULL,
    window_seconds double precision NOT NULL,
    updated_at timestamptz NOT NULL
);

-- Requests sent in the sliding windows ('create', 'other').
CREATE TABLE companion.window_hits (
    id bigserial PRIMARY KEY,
    kind text NOT NULL,
    member text NOT NULL,
    at timestamptz NOT NULL
);
CREATE INDEX window_hits_kind_at ON companion.window_hits (kind, at);

-- A 429's Retry-After: nobody sends anything before `until`.
CREATE TABLE companion.hold (
    id integer PRIMARY KEY CHECK (id = 1),
    until timestamptz NOT NULL,
    member text NOT NULL
);

-- Tasks at the service (queued or running), at most concurrency + queue, each on a lease.
CREATE TABLE companion.slots (
    member text NOT NULL,
    job_id text NOT NULL,
    priority integer NOT NULL,
    acquired_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (member, job_id)
);

-- Jobs waiting for a slot: served by priority, then members in turn, then age.
CREATE TABLE companion.slot_waiters (
    member text NOT NULL,
    job_id text NOT NULL,
    priority integer NOT NULL,
    since timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (member, job_id)
);

-- Budgets: scope '*' is the team, any other scope a member.
CREATE TABLE companion.budgets (
    scope text PRIMARY KEY,
    per_day integer CHECK (per_day >= 0),
    per_month integer CHECK (per_month >= 0)
);

-- Credits promised to a create that has not been sent yet, on a lease.
CREATE TABLE companion.reservations (
    member text NOT NULL,
    job_id text NOT NULL,
    credits integer NOT NULL CHECK (credits >= 0),
    made_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (member, job_id)
);

CREATE TABLE companion.ledger (
    seq bigserial PRIMARY KEY,
    member text NOT NULL,
    job_id text,
    entry text NOT NULL CHECK (entry IN
        ('quote', 'hold', 'charge', 'refund', 'release', 'balance')),
    credits integer NOT NULL,
    committed bigint,
    at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX ledger_job ON companion.ledger (member, job_id);
CREATE INDEX ledger_entry_at ON companion.ledger (entry, at);
CREATE UNIQUE INDEX ledger_once ON companion.ledger (member, job_id, entry)
    WHERE entry IN ('hold', 'charge', 'refund', 'release');

-- One upload per picture per account: a member claims the picture on a lease, uploads
-- it, then records the file_id everybody reuses.
CREATE TABLE companion.uploads (
    service text NOT NULL,
    sha256 text NOT NULL,
    file_id text,
    member text NOT NULL,
    claimed_until timestamptz NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (service, sha256)
);

-- Credits spent since a moment: per job the charge once settled, else its hold; plus
-- the live reservations of jobs not yet created. `who` NULL means the whole team.
CREATE FUNCTION companion.spent(since timestamptz, who text) RETURNS bigint
LANGUAGE sql STABLE AS $$
    SELECT coalesce((
        SELECT sum(coalesce(c.credits, h.credits))
        FROM companion.ledger h
        LEFT JOIN companion.ledger c
            ON c.member = h.member AND c.job_id = h.job_id AND c.entry = 'charge'
        WHERE h.entry = 'hold' AND h.at >= since AND (who IS NULL OR h.member = who)
    ), 0) + coalesce((
        SELECT sum(r.credits)
        FROM companion.reservations r
        WHERE r.expires_at > clock_timestamp() AND r.made_at >= since
          AND (who IS NULL OR r.member = who)
    ), 0)
$$;

-- Take room in a window: 0 when taken, else the seconds to wait before asking again.
CREATE FUNCTION companion.take_window(
    p_member text, p_kind text, p_limit integer, p_window double precision,
    p_margin double precision
) RETURNS double precision
LANGUAGE plpgsql AS $$
DECLARE
    moment timestamptz;
    held timestamptz;
    used integer;
    oldest timestamptz;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('companion.window'), hashtext(p_kind));
    moment := clock_timestamp();
    SELECT until INTO held FROM companion.hold WHERE id = 1;
    IF held IS NOT NULL AND held > moment THEN
        RETURN extract(epoch FROM held - moment);
    END IF;
    DELETE FROM companion.window_hits
        WHERE kind = p_kind AND at <= moment - make_interval(secs => p_window * 2);
    IF p_limit IS NOT NULL THEN
        SELECT count(*) INTO used FROM companion.window_hits
            WHERE kind = p_kind AND at > moment - make_interval(secs => p_window);
        IF used >= p_limit THEN
            SELECT at INTO oldest FROM companion.window_hits
                WHERE kind = p_kind AND at > moment - make_interval(secs => p_window)
                ORDER BY at OFFSET used - p_limit LIMIT 1;
            RETURN greatest(0.01,
                extract(epoch FROM oldest - moment) + p_window + p_margin);
        END IF;
    END IF;
    INSERT INTO companion.window_hits (kind, member, at) VALUES (p_kind, p_member, moment);
    RETURN 0;
END
$$;

CREATE FUNCTION companion.hold_for(p_member text, p_seconds double precision) RETURNS void
LANGUAGE sql AS $$
    INSERT INTO companion.hold (id, until, member)
    VALUES (1, clock_timestamp() + make_interval(secs => p_seconds), p_member)
    ON CONFLICT (id) DO UPDATE SET until = greatest(companion.hold.until, EXCLUDED.until),
        member = CASE WHEN EXCLUDED.until > companion.hold.until
                      THEN EXCLUDED.member ELSE companion.hold.member END
$$;

-- A slot for a job: true when held. `present` adopts a task already at the service.
CREATE FUNCTION companion.acquire_slot(
    p_member text, p_job text, p_priority integer, p_capacity integer,
    p_lease double precision, p_present boolean
) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
    moment timestamptz;
    lease_end timestamptz;
    in_use integer;
    head record;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('companion.slots'));
    moment := clock_timestamp();
    lease_end := moment + make_interval(secs => p_lease);
    DELETE FROM companion.slots WHERE expires_at <= moment;
    DELETE FROM companion.slot_waiters WHERE expires_at <= moment;
    UPDATE companion.slots SET expires_at = lease_end
        WHERE member = p_member AND job_id = p_job;
    IF FOUND THEN
        DELETE FROM companion.slot_waiters WHERE member = p_member AND job_id = p_job;
        RETURN true;
    END IF;
    IF NOT p_present THEN
        INSERT INTO companion.slot_waiters AS w (member, job_id, priority, since, expires_at)
        VALUES (p_member, p_job, p_priority, moment, lease_end)
        ON CONFLICT (member, job_id) DO UPDATE SET expires_at = EXCLUDED.expires_at,
            priority = EXCLUDED.priority;
        SELECT count(*) INTO in_use FROM companion.slots;
        IF in_use >= p_capacity THEN
            RETURN false;
        END IF;
        SELECT w.member, w.job_id INTO head
        FROM companion.slot_waiters w
        LEFT JOIN companion.members m ON m.name = w.member
        ORDER BY w.priority, m.last_grant NULLS FIRST, w.since, w.member, w.job_id
        LIMIT 1;
        IF head.member <> p_member OR head.job_id <> p_job THEN
            RETURN false;
        END IF;
        DELETE FROM companion.slot_waiters WHERE member = p_member AND job_id = p_job;
    END IF;
    INSERT INTO companion.slots (member, job_id, priority, acquired_at, expires_at)
    VALUES (p_member, p_job, p_priority, moment, lease_end);
    INSERT INTO companion.members (name, last_seen, last_grant)
    VALUES (p_member, moment, moment)
    ON CONFLICT (name) DO UPDATE SET last_seen = moment, last_grant = moment;
    RETURN true;
END
$$;

-- Reserve credits for a job before its create: NULL when reserved (or already
-- created), else the budget that has no room. `forced` (an approved job) always reserves.
CREATE FUNCTION companion.reserve(
    p_member text, p_job text, p_credits integer, p_lease double precision,
    p_forced boolean
) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    moment timestamptz;
    day_start timestamptz;
    month_start timestamptz;
    b record;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('companion.budget'));
    moment := clock_timestamp();
    day_start := date_trunc('day', moment, 'UTC');
    month_start := date_trunc('month', moment, 'UTC');
    IF EXISTS (SELECT 1 FROM companion.ledger
               WHERE member = p_member AND job_id = p_job AND entry = 'hold') THEN
        RETURN NULL;
    END IF;
    UPDATE companion.reservations
        SET expires_at = moment + make_interval(secs => p_lease)
        WHERE member = p_member AND job_id = p_job AND expires_at > moment;
    IF FOUND THEN
        RETURN NULL;
    END IF;
    DELETE FROM companion.reservations WHERE member = p_member AND job_id = p_job;
    IF NOT p_forced THEN
        FOR b IN SELECT * FROM companion.budgets WHERE scope IN ('*', p_member) LOOP
            IF b.per_day IS NOT NULL AND companion.spent(day_start,
                    CASE WHEN b.scope = '*' THEN NULL ELSE p_member END) + p_credits
                    > b.per_day THEN
                RETURN CASE WHEN b.scope = '*' THEN 'the team''s per-day budget'
                            ELSE 'this member''s per-day budget' END;
            END IF;
            IF b.per_month IS NOT NULL AND companion.spent(month_start,
                    CASE WHEN b.scope = '*' THEN NULL ELSE p_member END) + p_credits
                    > b.per_month THEN
                RETURN CASE WHEN b.scope = '*' THEN 'the team''s per-month budget'
                            ELSE 'this member''s per-month budget' END;
            END IF;
        END LOOP;
    END IF;
    INSERT INTO companion.reservations (member, job_id, credits, made_at, expires_at)
    VALUES (p_member, p_job, p_credits, moment, moment + make_interval(secs => p_lease));
    RETURN NULL;
END
$$;

-- A ledger entry; hold, charge, refund and release are recorded once per job. The hold
-- replaces the job's reservation (the create went out).
CREATE FUNCTION companion.record(
    p_member text, p_job text, p_entry text, p_credits integer
) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('companion.budget'));
    INSERT INTO companion.ledger (member, job_id, entry, credits)
    VALUES (p_member, p_job, p_entry, p_credits)
    ON CONFLICT (member, job_id, entry)
        WHERE entry IN ('hold', 'charge', 'refund', 'release') DO NOTHING;
    IF p_entry = 'hold' THEN
        DELETE FROM companion.reservations WHERE member = p_member AND job_id = p_job;
    END IF;
END
$$;

-- A job's final credit movements, once; later calls change nothing.
CREATE FUNCTION companion.settle(
    p_member text, p_job text, p_charged integer, p_refunded integer, p_released integer
) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('companion.budget'));
    DELETE FROM companion.reservations WHERE member = p_member AND job_id = p_job;
    IF EXISTS (SELECT 1 FROM companion.ledger WHERE member = p_member AND job_id = p_job
               AND entry IN ('charge', 'refund', 'release')) THEN
        RETURN;
    END IF;
    INSERT INTO companion.ledger (member, job_id, entry, credits)
    SELECT p_member, p_job, e.entry, e.credits
    FROM (VALUES ('charge', p_charged), ('refund', p_refunded), ('release', p_released))
        AS e(entry, credits)
    WHERE e.credits <> 0 OR (e.entry = 'charge' AND p_refunded = 0 AND p_released = 0);
END
$$;

-- What one member holds or spent, and the team: per job the charge, else the hold.
CREATE FUNCTION companion.committed() RETURNS bigint
LANGUAGE sql STABLE AS $$
    SELECT coalesce(sum(coalesce(c.credits, h.credits)), 0)
    FROM companion.ledger h
    LEFT JOIN companion.ledger c
        ON c.member = h.member AND c.job_id = h.job_id AND c.entry = 'charge'
    WHERE h.entry = 'hold'
$$;

-- Record a balance snapshot for the team; returns the previous one (or nothing) and
-- what the team has committed now.
CREATE FUNCTION companion.snapshot(p_member text, p_available integer)
RETURNS TABLE (previous_available integer, previous_committed bigint, committed bigint)
LANGUAGE plpgsql AS $$
DECLARE
    now_committed bigint;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('companion.budget'));
    now_committed := companion.committed();
    RETURN QUERY
        SELECT l.credits, l.committed, now_committed FROM companion.ledger l
        WHERE l.entry = 'balance' ORDER BY l.seq DESC LIMIT 1;
    IF NOT FOUND THEN
        RETURN QUERY SELECT NULL::integer, NULL::bigint, now_committed;
    END IF;
    INSERT INTO companion.ledger (member, job_id, entry, credits, committed)
    VALUES (p_member, NULL, 'balance', p_available, now_committed);
END
$$;

-- Claim the right to upload a picture, or learn its file_id. `claimed` true: upload it
-- and record the file_id; false with no file_id: another member is uploading it.
CREATE FUNCTION companion.claim_upload(
    p_service text, p_sha256 text, p_member text, p_lease double precision
) RETURNS TABLE (file_id text, claimed boolean)
LANGUAGE plpgsql AS $$
DECLARE
    moment timestamptz := clock_timestamp();
BEGIN
    INSERT INTO companion.uploads AS u (service, sha256, member, claimed_until)
    VALUES (p_service, p_sha256, p_member, moment + make_interval(secs => p_lease))
    ON CONFLICT (service, sha256) DO UPDATE
        SET member = EXCLUDED.member, claimed_until = EXCLUDED.claimed_until
        WHERE u.file_id IS NULL AND (u.claimed_until <= moment OR u.member = EXCLUDED.member);
    RETURN QUERY SELECT u.file_id, (u.file_id IS NULL AND u.member = p_member)
        FROM companion.uploads u WHERE u.service = p_service AND u.sha256 = p_sha256;
END
$$;

-- A member is alive: extend the leases of its slots, reservations and upload claims
-- (a waiter's lease is renewed only by its own asking, so an abandoned wait ends).
CREATE FUNCTION companion.heartbeat(p_member text, p_lease double precision)
RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    moment timestamptz := clock_timestamp();
    lease_end timestamptz := clock_timestamp() + make_interval(secs => p_lease);
BEGIN
    INSERT INTO companion.members (name, last_seen) VALUES (p_member, moment)
    ON CONFLICT (name) DO UPDATE SET last_seen = moment;
    UPDATE companion.slots SET expires_at = lease_end
        WHERE member = p_member AND expires_at > moment;
    UPDATE companion.reservations SET expires_at = lease_end
        WHERE member = p_member AND expires_at > moment;
    UPDATE companion.uploads SET claimed_until = lease_end
        WHERE member = p_member AND file_id IS NULL AND claimed_until > moment;
END
$$;
