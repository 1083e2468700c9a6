-- Named queries of the SQLite store. Each starts with a `-- name:` line; parameters are
-- sqlite3's :name. update_job's {assignments} is filled only with column names from the
-- store's own list, never with a value.

-- name: schema_version_table
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);

-- name: schema_version
SELECT version FROM schema_version;

-- name: schema_version_start
INSERT INTO schema_version VALUES (0);

-- name: schema_version_set
UPDATE schema_version SET version = :version;

-- name: add_job
INSERT INTO jobs (id, kind, state, priority, name, request, target_dir, created_at,
    updated_at)
VALUES (:id, :kind, 'new', :priority, :name, :request, :target_dir, :stamp, :stamp);

-- name: job
SELECT * FROM jobs WHERE id = :id;

-- name: jobs
SELECT * FROM jobs ORDER BY created_at;

-- name: jobs_in_states
SELECT * FROM jobs WHERE state IN (SELECT value FROM json_each(:states))
ORDER BY priority, created_at;

-- name: job_with
SELECT * FROM jobs WHERE json_extract(request, :key) = :value ORDER BY created_at LIMIT 1;

-- name: jobs_with
SELECT * FROM jobs WHERE json_extract(request, :key) = :value ORDER BY created_at;

-- name: update_job
UPDATE jobs SET {assignments}, updated_at = :updated_at WHERE id = :id;

-- name: update_job_in_state
UPDATE jobs SET {assignments}, updated_at = :updated_at
WHERE id = :id AND state = :expect_state;

-- name: project
SELECT * FROM projects WHERE root = :root;

-- name: add_project
INSERT INTO projects VALUES (:root, :engine, :settings, :stamp);

-- name: update_project
UPDATE projects SET engine = :engine, settings = :settings WHERE root = :root;

-- name: remove_project
DELETE FROM projects WHERE root = :root;

-- name: projects
SELECT * FROM projects ORDER BY root;

-- name: upload_for
SELECT file_id FROM uploads WHERE service = :service AND sha256 = :sha256;

-- name: forget_upload
DELETE FROM uploads WHERE service = :service AND sha256 = :sha256 AND file_id = :file_id;

-- name: remember_upload
INSERT OR REPLACE INTO uploads VALUES (:service, :sha256, :file_id, :stamp);

-- name: add_asset
INSERT OR IGNORE INTO assets (id, job_id, format, file_name, byte_size)
VALUES (:id, :job_id, :format, :file_name, :byte_size);

-- name: assets
SELECT * FROM assets WHERE job_id = :job_id ORDER BY file_name;

-- name: asset_staged
UPDATE assets SET staged_path = :path, sha256 = :sha256 WHERE id = :id;

-- name: asset_installed
UPDATE assets SET installed_path = :path WHERE id = :id;

-- name: written_file
SELECT * FROM written_files WHERE path = :path;

-- name: written_by
SELECT * FROM written_files WHERE job_id = :job_id ORDER BY path;

-- name: written_files
SELECT * FROM written_files ORDER BY path;

-- name: written_named
SELECT * FROM written_files WHERE name = :name ORDER BY path;

-- name: forget_written
DELETE FROM written_files WHERE path = :path;

-- name: record_written
INSERT OR REPLACE INTO written_files VALUES (:path, :sha256, :job_id, :name, :stamp);

-- name: record
INSERT INTO ledger (job_id, entry, credits, at) VALUES (:job_id, :entry, :credits, :stamp);

-- name: last_balance
SELECT credits, committed FROM ledger WHERE entry = 'balance' ORDER BY seq DESC LIMIT 1;

-- name: record_balance
INSERT INTO ledger (job_id, entry, credits, at, committed)
VALUES (NULL, 'balance', :credits, :stamp, :committed);

-- name: ledger
SELECT * FROM ledger ORDER BY seq;

-- name: ledger_of_job
SELECT * FROM ledger WHERE job_id = :job_id ORDER BY seq;

-- name: credit_moves
SELECT job_id, entry, credits FROM ledger
WHERE job_id IS NOT NULL AND entry IN ('hold', 'charge', 'refund', 'release')
    AND (:since IS NULL OR at >= :since);

-- name: credit_moves_of_job
SELECT job_id, entry, credits FROM ledger
WHERE job_id = :job_id AND entry IN ('hold', 'charge', 'refund', 'release')
    AND (:since IS NULL OR at >= :since);

-- name: last_two_balances
SELECT credits, committed, at FROM ledger WHERE entry = 'balance' ORDER BY seq DESC LIMIT 2;
