"""Setting up a project: finding its banks, configuration, trust, confinement and ``ckp init``."""
