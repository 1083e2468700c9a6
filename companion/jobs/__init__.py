"""The job engine: lifecycle, steps, recovery and scheduling under the account's limits."""
