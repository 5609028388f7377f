-- A thread list page (one owner, by archived flag, newest first) is a range of this index.
CREATE INDEX ag_ui_threads_list
    ON ag_ui_threads (owner, archived, updated_at DESC, thread_id DESC);
-- Archived threads by age, for their time-to-live.
CREATE INDEX ag_ui_threads_archived ON ag_ui_threads (updated_at) WHERE archived;
-- Running runs by their last checkpoint, for finding the runs whose instance stopped.
CREATE INDEX ag_ui_runs_running ON ag_ui_runs (checkpoint_at) WHERE status = 'running';
