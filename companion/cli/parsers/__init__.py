"""The command line's parsers, one module per group of commands; main assembles them."""
