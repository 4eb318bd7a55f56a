"""The HTML report: one self-contained page (:mod:`~pytest_retrieval.report.html_page`)
with inline SVG charts (:mod:`~pytest_retrieval.report.svg`), made from a run's
:class:`~pytest_retrieval.report.run_report.RunReport` (:mod:`~pytest_retrieval.report.html_data`).
"""

from __future__ import annotations

from .html_data import page_data
from .html_page import render_page
from .run_report import RunReport


def html_report(report: RunReport) -> str:
    """The page: verdict, summary, charts (bars, forest, dots, trends) and every query."""
    return render_page(page_data(report))
