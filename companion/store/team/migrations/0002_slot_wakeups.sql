-- Team mode, version 2: the member whose job heads the slot queue is woken with NOTIFY
-- when a slot frees (or is granted with room to spare), instead of every waiting job
-- asking again twice a second. Waiters still re-ask now and then, for expired leases.

-- The job that gets the next free slot: editor clicks (priority 0) before folder
-- batches, then the member served least recently, then the oldest wait.
CREATE FUNCTION companion.slot_head() RETURNS TABLE (member text, job_id text)
LANGUAGE sql STABLE AS $$
    SELECT w.member, w.job_id
    FROM companion.slot_waiters w
    LEFT JOIN companion.members m ON m.name = w.member
    WHERE w.expires_at > clock_timestamp()
    ORDER BY w.priority, m.last_grant NULLS FIRST, w.since, w.member, w.job_id
    LIMIT 1
$$;

CREATE FUNCTION companion.wake_head() RETURNS void
LANGUAGE sql AS $$
    SELECT pg_notify('companion_slots', h.member) FROM companion.slot_head() h
$$;

CREATE FUNCTION companion.release_slot(p_member text, p_job text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('companion.slots'));
    DELETE FROM companion.slot_waiters WHERE member = p_member AND job_id = p_job;
    DELETE FROM companion.slots WHERE member = p_member AND job_id = p_job;
    PERFORM companion.wake_head();
END
$$;

CREATE OR REPLACE FUNCTION companion.acquire_slot(
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
        SELECT h.member, h.job_id INTO head FROM companion.slot_head() h;
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
    IF NOT p_present AND in_use + 1 < p_capacity THEN
        PERFORM companion.wake_head();  -- room for the next one too
    END IF;
    RETURN true;
END
$$;
