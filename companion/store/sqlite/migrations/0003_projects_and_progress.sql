-- projects registered through the daemon's API (those in config.yaml are read from
-- there) and each job's last known progress, for the editor plugins.
CREATE TABLE projects (
    root TEXT PRIMARY KEY,
    engine TEXT NOT NULL,
    settings TEXT NOT NULL,
    created_at TEXT NOT NULL
);
ALTER TABLE jobs ADD COLUMN progress REAL NOT NULL DEFAULT 0;
