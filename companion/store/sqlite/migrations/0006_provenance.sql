-- the record of where a job's files came from (job, service, model, prompt, seed, date,
-- credits, generation, source picture), written into each file's metadata at install and
-- kept here as it was written, so a listing later says the same.
ALTER TABLE jobs ADD COLUMN provenance TEXT;
