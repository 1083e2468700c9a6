"""The command line's checks before anything is spent or written: files and folders,
format names, and the generation flags against the live models."""
