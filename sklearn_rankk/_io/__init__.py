"""File formats and the command line: ranked id lists, TREC files, the CLI."""
