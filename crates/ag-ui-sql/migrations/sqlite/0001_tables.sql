-- Threads and their runs. Times are microseconds since the Unix epoch; JSON is text.
CREATE TABLE ag_ui_threads (
    owner TEXT NOT NULL,
    thread_id TEXT NOT NULL,
    title TEXT,
    metadata TEXT NOT NULL DEFAULT '{}',
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    archived INTEGER NOT NULL DEFAULT 0,
    -- How many runs the thread has had: the `seq` of its latest run.
    run_count INTEGER NOT NULL DEFAULT 0,
    -- The thread's fold (ag_ui_server::threads::encode_fold).
    fold TEXT NOT NULL DEFAULT '[]',
    PRIMARY KEY (owner, thread_id)
);

CREATE TABLE ag_ui_runs (
    owner TEXT NOT NULL,
    thread_id TEXT NOT NULL,
    run_id TEXT NOT NULL,
    -- 1 for the thread's first run, then one more for each run started after it.
    seq INTEGER NOT NULL,
    status TEXT NOT NULL,
    outcome TEXT,
    started_at INTEGER NOT NULL,
    ended_at INTEGER,
    checkpoint_at INTEGER NOT NULL,
    usage TEXT NOT NULL DEFAULT '[]',
    error_code TEXT,
    input_messages TEXT NOT NULL DEFAULT '[]',
    PRIMARY KEY (owner, thread_id, run_id),
    UNIQUE (owner, thread_id, seq),
    FOREIGN KEY (owner, thread_id) REFERENCES ag_ui_threads (owner, thread_id) ON DELETE CASCADE
);
