"""One module per family of export formats; each writes into a staging folder."""
