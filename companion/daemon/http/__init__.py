"""What every route stands on: who may call (loopback, a Host of this machine, no foreign
Origin, the token), the error middleware, job events, and the daemon as the routes see
it."""
