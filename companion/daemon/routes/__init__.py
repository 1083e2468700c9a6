"""The localhost API's route groups, one module per group of the plugins' actions; each
handler raises, the middleware answers."""
