-- The books: jobs, uploads (per service and content hash), assets, the credit ledger.
CREATE TABLE jobs (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    state TEXT NOT NULL,
    priority INTEGER NOT NULL DEFAULT 1,
    name TEXT NOT NULL,
    request TEXT NOT NULL,
    target_dir TEXT,
    idempotency_key TEXT,
    body BLOB,
    remote_id TEXT,
    quote INTEGER,
    approved INTEGER NOT NULL DEFAULT 0,
    error TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX jobs_state ON jobs(state);
CREATE TABLE uploads (
    service TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    file_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (service, sha256)
);
CREATE TABLE assets (
    id TEXT PRIMARY KEY,
    job_id TEXT NOT NULL REFERENCES jobs(id),
    format TEXT NOT NULL,
    file_name TEXT NOT NULL,
    byte_size INTEGER NOT NULL,
    staged_path TEXT,
    sha256 TEXT,
    installed_path TEXT
);
CREATE INDEX assets_job ON assets(job_id);
CREATE TABLE ledger (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    job_id TEXT,
    entry TEXT NOT NULL CHECK (entry IN
        ('quote', 'hold', 'charge', 'refund', 'release', 'balance')),
    credits INTEGER NOT NULL,
    at TEXT NOT NULL
);
CREATE INDEX ledger_job ON ledger(job_id);
