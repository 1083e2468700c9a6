"""Team mode: the account's shared state in PostgreSQL (see companion.store.account)."""

from companion.store.team.database import describe
from companion.store.team.postgres import PostgresAccount, default_member

__all__ = ["PostgresAccount", "default_member", "describe"]
