"""The daemon as Model Context Protocol tools for coding agents: the same bodies, checks,
budgets and pay-once rules, over stdio (`companion mcp`) or at /mcp on the daemon, with
the user's own limits on what an agent spends unasked."""
