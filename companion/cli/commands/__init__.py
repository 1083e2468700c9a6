"""One module per command or family of commands of `companion`; the parsers in
`companion.cli.parsers` name them."""
