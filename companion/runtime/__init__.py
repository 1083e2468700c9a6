"""The companion assembled: settings, the endpoint (the configured service or the
embedded sandbox), the client, the account, the budget and the job engine, put together
in one place for the command line and the daemon alike (see assemble.py)."""

from companion.runtime.assemble import open_client, open_endpoint, open_engine

__all__ = ["open_client", "open_endpoint", "open_engine"]
