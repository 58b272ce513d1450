-- The fleet store of seal's decision logs (spec/audit-fleet.md). `@SCHEMA@` is replaced by the
-- quoted name of the schema the store is installed in; every statement is idempotent.

CREATE TABLE IF NOT EXISTS @SCHEMA@.seal_fleet_logs (
    origin     text        PRIMARY KEY,
    size       bigint      NOT NULL CHECK (size >= 0),
    root       bytea       NOT NULL CHECK (octet_length(root) = 32),
    note       text        NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS @SCHEMA@.seal_fleet_checkpoints (
    origin      text        NOT NULL REFERENCES @SCHEMA@.seal_fleet_logs (origin),
    size        bigint      NOT NULL CHECK (size >= 0),
    root        bytea       NOT NULL CHECK (octet_length(root) = 32),
    note        text        NOT NULL,
    accepted_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (origin, size)
);

CREATE TABLE IF NOT EXISTS @SCHEMA@.seal_fleet_records (
    origin text   NOT NULL REFERENCES @SCHEMA@.seal_fleet_logs (origin),
    idx    bigint NOT NULL CHECK (idx >= 0),
    record bytea  NOT NULL,
    leaf   bytea  NOT NULL CHECK (octet_length(leaf) = 32),
    PRIMARY KEY (origin, idx)
);

REVOKE ALL ON @SCHEMA@.seal_fleet_logs, @SCHEMA@.seal_fleet_checkpoints,
    @SCHEMA@.seal_fleet_records FROM PUBLIC;

-- RFC 9162 section 2.1.4.2: NULL when `proof` shows that the tree of `old_size` leaves with
-- root `old_root` is a prefix of the tree of `new_size` leaves with root `new_root`, otherwise
-- the reason it does not. Leaves hash as SHA-256(0x00 || data), nodes as
-- SHA-256(0x01 || left || right). The walk takes one step per proof hash; the counters only
-- ever shift right, so the inner loops end within 63 shifts in all.
CREATE OR REPLACE FUNCTION @SCHEMA@.seal_fleet_consistency(
    old_size bigint, new_size bigint, old_root bytea, new_root bytea, proof bytea[])
RETURNS text
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    hashes int := coalesce(cardinality(proof), 0);
    first_step int := 1;
    fnode bigint;
    snode bigint;
    old_hash bytea;
    new_hash bytea;
    sibling bytea;
BEGIN
    IF old_size < 0 OR new_size < 0 OR old_size > new_size THEN
        RETURN 'sizes out of order';
    END IF;
    IF hashes > 65 THEN
        RETURN 'proof is longer than any proof (65 hashes)';
    END IF;
    FOR step IN 1 .. hashes LOOP
        IF proof[step] IS NULL OR octet_length(proof[step]) <> 32 THEN
            RETURN format('proof hash %s is not 32 bytes', step);
        END IF;
    END LOOP;
    IF old_size = 0 OR old_size = new_size THEN
        IF hashes <> 0 THEN
            RETURN 'proof does not fit the sizes';
        END IF;
        IF old_size = 0 AND old_root <> sha256(''::bytea) THEN
            RETURN 'proof does not lead to the old root';
        END IF;
        IF old_size <> 0 AND old_root <> new_root THEN
            RETURN 'proof does not lead to the new root';
        END IF;
        RETURN NULL;
    END IF;
    -- An old tree whose size is a power of two is a node of the new tree: the proof starts
    -- above it. Otherwise the first proof hash is the start.
    IF (old_size & (old_size - 1)) = 0 THEN
        old_hash := old_root;
    ELSE
        IF hashes = 0 THEN
            RETURN 'proof does not fit the sizes';
        END IF;
        old_hash := proof[1];
        first_step := 2;
    END IF;
    new_hash := old_hash;
    fnode := old_size - 1;
    snode := new_size - 1;
    WHILE (fnode & 1) = 1 LOOP
        fnode := fnode >> 1;
        snode := snode >> 1;
    END LOOP;
    FOR step IN first_step .. hashes LOOP
        sibling := proof[step];
        IF snode = 0 THEN
            RETURN 'proof does not fit the sizes';
        END IF;
        IF (fnode & 1) = 1 OR fnode = snode THEN
            old_hash := sha256('\x01'::bytea || sibling || old_hash);
            new_hash := sha256('\x01'::bytea || sibling || new_hash);
            IF (fnode & 1) = 0 THEN
                WHILE (fnode & 1) = 0 AND fnode <> 0 LOOP
                    fnode := fnode >> 1;
                    snode := snode >> 1;
                END LOOP;
            END IF;
        ELSE
            new_hash := sha256('\x01'::bytea || new_hash || sibling);
        END IF;
        fnode := fnode >> 1;
        snode := snode >> 1;
    END LOOP;
    IF snode <> 0 THEN
        RETURN 'proof does not fit the sizes';
    END IF;
    IF old_hash <> old_root THEN
        RETURN 'proof does not lead to the old root';
    END IF;
    IF new_hash <> new_root THEN
        RETURN 'proof does not lead to the new root';
    END IF;
    RETURN NULL;
END
$fn$;

-- Accepts the checkpoint (`size`, `root`, signed `note`) of the log `origin` only if it extends
-- the one held: `proof` is the consistency proof from `proof_from` (which must be the held
-- size) to `size`. Returns the size held before. Refusals (SQLSTATE, then message):
--   SL001 rollback:   seal: rollback of log `O`: held size H, pushed size P
--   SL002 fork:       seal: fork of log `O` at size S: pushed root B differs from held root A
--   SL003 bad proof:  seal: unproven extension of log `O`: held size H, pushed size P: REASON
--   SL004 stale:      seal: stale proof for log `O`: held size H, proof from size F
--   SL009 malformed:  seal: malformed push to log `O`: REASON
-- SL001 to SL004 carry the held size and root (hex) as their detail, `H HEX`.
CREATE OR REPLACE FUNCTION @SCHEMA@.seal_push_checkpoint(
    origin text, size bigint, root bytea, note text, proof_from bigint, proof bytea[])
RETURNS bigint
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = @SCHEMA@, pg_catalog, pg_temp
AS $fn$
DECLARE
    held record;
    body text;
    reason text;
    held_detail text;
BEGIN
    IF origin IS NULL OR origin !~ '^[!-*,-~]+$' OR octet_length(origin) > 256 THEN
        RAISE EXCEPTION 'seal: malformed push to log `%`: origin must be 1 to 256 printable ASCII characters without space or +', origin
            USING ERRCODE = 'SL009';
    END IF;
    IF size IS NULL OR size < 0 OR root IS NULL OR octet_length(root) <> 32
            OR note IS NULL OR proof_from IS NULL THEN
        RAISE EXCEPTION 'seal: malformed push to log `%`: size, root (32 bytes), note and proof start are required', origin
            USING ERRCODE = 'SL009';
    END IF;
    IF octet_length(note) > 65536 THEN
        RAISE EXCEPTION 'seal: malformed push to log `%`: note is longer than 65536 bytes', origin
            USING ERRCODE = 'SL009';
    END IF;
    body := origin || E'\n' || size::text || E'\n' || encode(root, 'base64') || E'\n';
    IF left(note, octet_length(body)) IS DISTINCT FROM body THEN
        RAISE EXCEPTION 'seal: malformed push to log `%`: note does not begin with the checkpoint of size % and the pushed root', origin, size
            USING ERRCODE = 'SL009';
    END IF;

    -- A log not seen before starts as the empty tree; the insert waits for a concurrent first
    -- push of the same log, and the row lock serializes every push to one log.
    INSERT INTO seal_fleet_logs AS l (origin, size, root, note)
        VALUES (origin, 0, sha256(''::bytea), '')
        ON CONFLICT DO NOTHING;
    SELECT l.size, l.root INTO STRICT held
        FROM seal_fleet_logs AS l WHERE l.origin = seal_push_checkpoint.origin FOR UPDATE;
    held_detail := held.size::text || ' ' || encode(held.root, 'hex');

    IF size < held.size THEN
        RAISE EXCEPTION 'seal: rollback of log `%`: held size %, pushed size %', origin, held.size, size
            USING ERRCODE = 'SL001', DETAIL = held_detail;
    END IF;
    IF size = held.size THEN
        IF root <> held.root THEN
            RAISE EXCEPTION 'seal: fork of log `%` at size %: pushed root % differs from held root %',
                    origin, size, encode(root, 'base64'), encode(held.root, 'base64')
                USING ERRCODE = 'SL002', DETAIL = held_detail;
        END IF;
        IF size = 0 THEN
            -- The empty tree's first checkpoint: held from now on.
            UPDATE seal_fleet_logs AS l SET note = seal_push_checkpoint.note, updated_at = now()
                WHERE l.origin = seal_push_checkpoint.origin AND l.note = '';
            INSERT INTO seal_fleet_checkpoints AS c (origin, size, root, note)
                VALUES (origin, size, root, note) ON CONFLICT DO NOTHING;
        END IF;
        RETURN held.size;
    END IF;
    IF proof_from <> held.size THEN
        RAISE EXCEPTION 'seal: stale proof for log `%`: held size %, proof from size %', origin, held.size, proof_from
            USING ERRCODE = 'SL004', DETAIL = held_detail;
    END IF;
    reason := seal_fleet_consistency(held.size, size, held.root, root, proof);
    IF reason IS NOT NULL THEN
        RAISE EXCEPTION 'seal: unproven extension of log `%`: held size %, pushed size %: %', origin, held.size, size, reason
            USING ERRCODE = 'SL003', DETAIL = held_detail;
    END IF;
    UPDATE seal_fleet_logs AS l
        SET size = seal_push_checkpoint.size, root = seal_push_checkpoint.root,
            note = seal_push_checkpoint.note, updated_at = now()
        WHERE l.origin = seal_push_checkpoint.origin;
    INSERT INTO seal_fleet_checkpoints AS c (origin, size, root, note)
        VALUES (origin, size, root, note);
    RETURN held.size;
END
$fn$;

-- Stores the records `records` of the log `origin` at indexes `first`, `first` + 1, ...; each
-- must lie below the held size, and a record already stored at an index must be the same
-- bytes. The leaf hash is computed here, SHA-256(0x00 || record). Returns the number of
-- records newly stored. Refusals: SL005 (seal: record beyond checkpoint of log `O`: index I,
-- held size H; detail `I H`), SL006 (seal: conflicting record of log `O` at index I; detail
-- `I`), SL009 (malformed).
CREATE OR REPLACE FUNCTION @SCHEMA@.seal_push_records(origin text, first bigint, records bytea[])
RETURNS bigint
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = @SCHEMA@, pg_catalog, pg_temp
AS $fn$
DECLARE
    held_size bigint;
    count int := coalesce(cardinality(records), 0);
    stored bigint := 0;
    at_index bigint;
    existing bytea;
BEGIN
    IF origin IS NULL OR first IS NULL OR first < 0 THEN
        RAISE EXCEPTION 'seal: malformed push to log `%`: origin and a first index of 0 or more are required', origin
            USING ERRCODE = 'SL009';
    END IF;
    SELECT l.size INTO held_size FROM seal_fleet_logs AS l
        WHERE l.origin = seal_push_records.origin FOR SHARE;
    IF NOT FOUND THEN
        held_size := 0;
    END IF;
    FOR step IN 1 .. count LOOP
        at_index := first + step - 1;
        IF records[step] IS NULL THEN
            RAISE EXCEPTION 'seal: malformed push to log `%`: record at index % is null', origin, at_index
                USING ERRCODE = 'SL009';
        END IF;
        IF at_index >= held_size THEN
            RAISE EXCEPTION 'seal: record beyond checkpoint of log `%`: index %, held size %', origin, at_index, held_size
                USING ERRCODE = 'SL005', DETAIL = at_index::text || ' ' || held_size::text;
        END IF;
        INSERT INTO seal_fleet_records AS r (origin, idx, record, leaf)
            VALUES (origin, at_index, records[step], sha256('\x00'::bytea || records[step]))
            ON CONFLICT DO NOTHING;
        IF FOUND THEN
            stored := stored + 1;
        ELSE
            SELECT r.record INTO existing FROM seal_fleet_records AS r
                WHERE r.origin = seal_push_records.origin AND r.idx = at_index;
            IF existing <> records[step] THEN
                RAISE EXCEPTION 'seal: conflicting record of log `%` at index %', origin, at_index
                    USING ERRCODE = 'SL006', DETAIL = at_index::text;
            END IF;
        END IF;
    END LOOP;
    RETURN stored;
END
$fn$;


REVOKE ALL ON FUNCTION @SCHEMA@.seal_push_checkpoint(text, bigint, bytea, text, bigint, bytea[])
    FROM PUBLIC;
REVOKE ALL ON FUNCTION @SCHEMA@.seal_push_records(text, bigint, bytea[]) FROM PUBLIC;
