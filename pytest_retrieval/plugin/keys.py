"""Every stash key of the plugin, in one place: what pytest objects carry for us."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from ..golden import GoldenQuery, GoldenSet
from ..model import QueryRecord
from ..replay import Replay
from ..retriever_metadata import Metadata
from ..retrievers import RetrieverKind
from ..settings import RunSettings
from ..shapes import ResultKey

# on the config
SETTINGS_KEY = pytest.StashKey[RunSettings]()
GOLDEN_SET_KEY = pytest.StashKey[GoldenSet]()  # every golden query collected by this process
GOLDEN_ROOTS_KEY = pytest.StashKey[list[Path]]()  # retrieval_golden, as written and resolved
EXPLICIT_KEY = pytest.StashKey[set[Path]]()  # files named on the command line
GOLDEN_FILES_KEY = pytest.StashKey[dict[Path, Path]]()  # real path -> path first collected as
SECOND_PATHS_KEY = pytest.StashKey[set[Path]]()  # golden files said to be reached again
SELECTED_KEY = pytest.StashKey[list[str]]()  # configurations with selected golden items
COLLECTED_KEY = pytest.StashKey[set[str]]()  # configurations collected, before selection
# coarse items: every name -k matches them by (theirs, their files' and folders'), before -k
KEYWORD_NAMES_KEY = pytest.StashKey[set[str]]()
RETRIEVERS_KEY = pytest.StashKey[dict[str, Metadata]]()  # configuration -> its retriever's metadata
RETRIEVER_NOTES_KEY = pytest.StashKey[list[str]]()  # what was wrong with that metadata
RETRIEVER_KINDS_KEY = pytest.StashKey[dict[str, RetrieverKind]]()  # configuration -> how called
REPLAY_KEY = pytest.StashKey[Replay]()  # --retrieval-replay: the recorded answers
REBUILT_KEY = pytest.StashKey[list[str]]()  # a slow function-scoped retriever fixture
OUTBOX_KEY = pytest.StashKey[dict[str, list[QueryRecord]]]()  # node id -> records not yet taken
LAST_RAN_KEY = pytest.StashKey[str]()  # the configuration whose item ran last in this process
# (configuration, the setup error's first line) -> the node id whose report shows its traceback
SETUP_ERRORS_KEY = pytest.StashKey[dict[tuple[str, str], str]]()
# pytest_retrieval_result_key as a function per query (None: nothing implements it)
RESULT_KEYS_KEY = pytest.StashKey[Callable[[GoldenQuery], ResultKey | None]]()

# on an item
RECORDS_KEY = pytest.StashKey[list[QueryRecord]]()  # what the item's call produced
RECORDED_KEY = pytest.StashKey[list[str]]()  # --retrieval-record: the item's recording lines
CONFIGURATION_KEY = pytest.StashKey[tuple[str, int]]()  # (configuration, parameter index)
