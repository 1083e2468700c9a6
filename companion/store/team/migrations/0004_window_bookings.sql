-- Team mode, version 4: room in a full window is booked, not asked for again. A request
-- that finds the window full gets the first moment it may be sent and its hit at that
-- moment; it sleeps and sends. Before, every waiter was told the same moment (the
-- oldest hit's way out), all asked again at once and all but one were told to wait
-- again: with a hundred members that was most of the window's traffic. Bookings are
-- served in the order they were made, across the team.
--
-- A booking is made only when every hit it waits behind has been answered: an
-- unanswered one is counted from its answer, a moment not known yet. Then the caller is
-- told when to ask again instead (the earliest the room can come).

-- (wait, hit): send after `wait` seconds and report `hit` answered; or (wait, NULL): ask
-- again after `wait` seconds (a 429's hold, or room behind a hit not answered yet).
CREATE OR REPLACE FUNCTION companion.take_room(
    p_member text, p_kind text, p_limit integer, p_window double precision,
    p_margin double precision, p_flight double precision, p_answered boolean DEFAULT false
) RETURNS TABLE (wait double precision, hit bigint)
LANGUAGE plpgsql AS $$
DECLARE
    moment timestamptz;
    since timestamptz;
    held timestamptz;
    room integer := p_limit;
    latest timestamptz;
    unsure boolean;
    slot timestamptz;
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
    slot := moment;
    IF room IS NOT NULL THEN
        -- Hits are booked in order, so the window has room at the moment the room-th
        -- latest hit leaves it. An unanswered hit counts from now at the earliest (its
        -- answer, which it is counted from, is still to come).
        WITH e AS (
            SELECT CASE WHEN answered THEN at ELSE greatest(at, moment) END AS at, answered
            FROM companion.window_hits
            WHERE kind = p_kind AND (at > since
                OR (NOT answered AND at > since - make_interval(secs => p_flight)))
        ), l AS (
            SELECT e.at FROM e ORDER BY e.at DESC OFFSET greatest(room, 1) - 1 LIMIT 1
        )
        SELECT l.at, EXISTS (SELECT 1 FROM e WHERE NOT e.answered AND e.at <= l.at)
            INTO latest, unsure FROM l;
        IF latest IS NOT NULL THEN
            slot := greatest(moment,
                latest + make_interval(secs => p_window + p_margin));
            IF unsure THEN
                RETURN QUERY SELECT greatest(0.01, extract(epoch FROM slot - moment))::float8,
                    NULL::bigint;
                RETURN;
            END IF;
        END IF;
    END IF;
    RETURN QUERY INSERT INTO companion.window_hits (kind, member, at, answered)
        VALUES (p_kind, p_member, slot, p_answered)
        RETURNING extract(epoch FROM slot - moment)::float8, id;
END
$$;

-- Callers of take_window (members of version 2 and before) send at once when told 0, and
-- ask again otherwise: they take room only when there is room now.
CREATE OR REPLACE FUNCTION companion.take_window(
    p_member text, p_kind text, p_limit integer, p_window double precision,
    p_margin double precision
) RETURNS double precision
LANGUAGE plpgsql AS $$
DECLARE
    booked record;
BEGIN
    SELECT r.wait, r.hit INTO booked FROM companion.take_room(p_member, p_kind, p_limit,
        p_window, p_margin, 60.0, true) r;
    IF booked.hit IS NOT NULL AND booked.wait > 0 THEN
        DELETE FROM companion.window_hits WHERE id = booked.hit;
    END IF;
    RETURN booked.wait;
END
$$;

-- A hit never moves earlier than its booking.
CREATE OR REPLACE FUNCTION companion.answered(p_hits bigint[]) RETURNS void
LANGUAGE sql AS $$
    UPDATE companion.window_hits SET at = greatest(at, clock_timestamp()), answered = true
    WHERE id = ANY(p_hits) AND NOT answered
$$;
