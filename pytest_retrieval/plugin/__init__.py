"""The pytest layer: the only code of the package that imports pytest."""
