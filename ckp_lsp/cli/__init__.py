"""The command-line face: `ckp`."""
