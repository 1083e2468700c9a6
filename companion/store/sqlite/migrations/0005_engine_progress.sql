-- what the engine learns on the way leaves the request (only what was asked for stays
-- there) for columns of its own, and jobs under way carry theirs over.
ALTER TABLE jobs ADD COLUMN resolved TEXT;
ALTER TABLE jobs ADD COLUMN sent INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN remote_status TEXT;
ALTER TABLE jobs ADD COLUMN unknown_outputs TEXT;
ALTER TABLE jobs ADD COLUMN resource TEXT;
ALTER TABLE jobs ADD COLUMN clip_asset TEXT;
UPDATE jobs SET
    resolved = json_extract(request, '$.resolved'),
    sent = CASE WHEN json_extract(request, '$.sent') THEN 1 ELSE 0 END,
    remote_status = json_extract(request, '$.remote_status'),
    unknown_outputs = json_extract(request, '$.unknown_outputs'),
    resource = json_extract(request, '$.resource'),
    clip_asset = json_extract(request, '$.clip_asset'),
    request = json_remove(request, '$.resolved', '$.sent', '$.remote_status',
        '$.unknown_outputs', '$.resource', '$.clip_asset')
