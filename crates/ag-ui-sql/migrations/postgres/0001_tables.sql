-- Threads and their runs. Ids compare byte by byte (COLLATE "C"): the order of a thread
-- list does not depend on the database's locale.
CREATE TABLE ag_ui_threads (
    owner TEXT COLLATE "C" NOT NULL,
    thread_id TEXT COLLATE "C" NOT NULL,
    title TEXT,
    metadata JSONB NOT NULL DEFAULT '{}'::jsonb,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    archived BOOLEAN NOT NULL DEFAULT FALSE,
    -- How many runs the thread has had: the `seq` of its latest run.
    run_count BIGINT NOT NULL DEFAULT 0,
    -- The thread's fold (ag_ui_server::threads::encode_fold), kept as its exact JSON text.
    fold TEXT NOT NULL DEFAULT '[]',
    PRIMARY KEY (owner, thread_id)
);

CREATE TABLE ag_ui_runs (
    owner TEXT COLLATE "C" NOT NULL,
    thread_id TEXT COLLATE "C" NOT NULL,
    run_id TEXT COLLATE "C" NOT NULL,
    -- 1 for the thread's first run, then one more for each run started after it.
    seq BIGINT NOT NULL,
    status TEXT NOT NULL,
    outcome TEXT,
    started_at TIMESTAMPTZ NOT NULL,
    ended_at TIMESTAMPTZ,
    checkpoint_at TIMESTAMPTZ NOT NULL,
    usage TEXT NOT NULL DEFAULT '[]',
    error_code TEXT,
    input_messages TEXT NOT NULL DEFAULT '[]',
    PRIMARY KEY (owner, thread_id, run_id),
    UNIQUE (owner, thread_id, seq),
    FOREIGN KEY (owner, thread_id) REFERENCES ag_ui_threads (owner, thread_id) ON DELETE CASCADE
);
