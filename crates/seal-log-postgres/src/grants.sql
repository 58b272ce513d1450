-- The rights of a pushing role (spec/audit-fleet.md, "Grants"): it reads the tables and calls
-- the two push functions, which run with their owner's rights; it holds no right to write a
-- table or to change a function. `@SCHEMA@` and `@ROLE@` are replaced by quoted names.
GRANT USAGE ON SCHEMA @SCHEMA@ TO @ROLE@;
REVOKE INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER
    ON @SCHEMA@.seal_fleet_logs, @SCHEMA@.seal_fleet_checkpoints, @SCHEMA@.seal_fleet_records
    FROM @ROLE@;
GRANT SELECT
    ON @SCHEMA@.seal_fleet_logs, @SCHEMA@.seal_fleet_checkpoints, @SCHEMA@.seal_fleet_records
    TO @ROLE@;
GRANT EXECUTE ON FUNCTION
    @SCHEMA@.seal_push_checkpoint(text, bigint, bytea, text, bigint, bytea[]),
    @SCHEMA@.seal_push_records(text, bigint, bytea[])
    TO @ROLE@;
