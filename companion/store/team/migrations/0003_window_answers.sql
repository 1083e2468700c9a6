-- Team mode, version 3: the service counts a request when it arrives, which can be well
-- after the team gave it room (a busy machine, a slow network), so a hit's moment is
-- when its answer came back (never before the service counted it). Until then it counts
-- as made now; a member that never reports the answer (killed) has its hit count as made
-- up to `flight` seconds after it was given room. And a member that has not read the
-- account's limits yet (its first request is the one that reads them) is held to the
-- limits the team knows.

ALTER TABLE companion.window_hits ADD COLUMN answered boolean NOT NULL DEFAULT true;

-- Room in a window: (0, the hit to report answered) when taken, else (seconds to wait
-- before asking again, NULL). `p_answered` makes a hit answered at once (callers of
-- take_window, which report nothing).
CREATE FUNCTION companion.take_room(
    p_member text, p_kind text, p_limit integer, p_window double precision,
    p_margin double precision, p_flight double precision, p_answered boolean DEFAULT false
) RETURNS TABLE (wait double precision, hit bigint)
LANGUAGE plpgsql AS $$
DECLARE
    moment timestamptz;
    since timestamptz;
    held timestamptz;
    room integer := p_limit;
    used integer;
    oldest timestamptz;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('companion.window'), hashtext(p_kind));
    moment := clock_timestamp();
    since := moment - make_interval(secs => p_window);
    SELECT until INTO held FROM companion.hold WHERE id = 1;
    IF held IS NOT NULL AND held > moment THEN
        RETURN QUERY SELECT extract(epoch FROM held - moment)::float8, NULL::bigint;
        RETURN;
    END IF;
    DELETE FROM companion.window_hits
        WHERE kind = p_kind AND at <= moment - make_interval(secs => p_window * 2 + p_flight);
    IF room IS NULL THEN
        SELECT CASE WHEN p_kind = 'create' THEN l.create_per_minute ELSE l.other_per_minute END
            INTO room FROM companion.limits l WHERE l.id = 1;
    END IF;
    IF room IS NOT NULL THEN
        -- An unanswered hit leaves the window no sooner than a window from now.
        SELECT count(*) INTO used FROM companion.window_hits
            WHERE kind = p_kind AND (at > since
                OR (NOT answered AND at > since - make_interval(secs => p_flight)));
        IF used >= room THEN
            SELECT e.at INTO oldest FROM (
                SELECT CASE WHEN answered THEN at ELSE moment END AS at
                FROM companion.window_hits
                WHERE kind = p_kind AND (at > since
                    OR (NOT answered AND at > since - make_interval(secs => p_flight)))
            ) e ORDER BY e.at OFFSET used - room LIMIT 1;
            RETURN QUERY SELECT greatest(0.01,
                extract(epoch FROM oldest - moment) + p_window + p_margin)::float8,
                NULL::bigint;
            RETURN;
        END IF;
    END IF;
    RETURN QUERY INSERT INTO companion.window_hits (kind, member, at, answered)
        VALUES (p_kind, p_member, moment, p_answered)
        RETURNING 0::float8, id;
END
$$;

-- Members of version 2 and before report no answers: their hits are answered at once,
-- and held to the same count.
CREATE OR REPLACE FUNCTION companion.take_window(
    p_member text, p_kind text, p_limit integer, p_window double precision,
    p_margin double precision
) RETURNS double precision
LANGUAGE sql AS $$
    SELECT r.wait FROM companion.take_room(p_member, p_kind, p_limit, p_window, p_margin,
        60.0, true) r
$$;

-- The requests given these hits were answered: from now on the service has counted them.
-- No lock: a window count that misses this update only counts the hits as made now.
CREATE FUNCTION companion.answered(p_hits bigint[]) RETURNS void
LANGUAGE sql AS $$
    UPDATE companion.window_hits SET at = clock_timestamp(), answered = true
    WHERE id = ANY(p_hits) AND NOT answered
$$;
