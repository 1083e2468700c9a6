"""A finished task's outputs into their folder: each asset known by what it is, staged
downloads, the installed set, formats this companion does not know kept aside."""
