-- Whether what a run added to its thread was taken back (the `rollback` multitask
-- policy), and the W3C trace id (32 hex digits) of the request that started it.
ALTER TABLE ag_ui_runs ADD COLUMN rolled_back INTEGER NOT NULL DEFAULT 0;
ALTER TABLE ag_ui_runs ADD COLUMN trace_id TEXT;
