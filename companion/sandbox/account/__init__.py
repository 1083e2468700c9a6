"""An account's money and limits in the sandbox: the price table, what a body costs, the
request windows and the access tiers."""
