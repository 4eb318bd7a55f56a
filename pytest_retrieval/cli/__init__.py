"""The command line, ``pytest-retrieval``: golden sets in and out without pytest.

Nothing here imports pytest or the plugin layer; every command reads the same ini
settings as the plugin (:mod:`pytest_retrieval.io.ini`).
"""
