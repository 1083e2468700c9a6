"""Tasks as the sandbox runs them: creates under their idempotency keys, the run from
queued to an end, the outputs and the credits posted, and the account's other clients'
tasks that a face lists beside them."""
