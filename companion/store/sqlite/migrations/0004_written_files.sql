-- every file the companion put in a project (resolved path and sha256), with the job and
-- animation name that wrote it: only these may ever be replaced.
CREATE TABLE written_files (
    path TEXT PRIMARY KEY,
    sha256 TEXT NOT NULL,
    job_id TEXT NOT NULL,
    name TEXT NOT NULL,
    written_at TEXT NOT NULL
);
