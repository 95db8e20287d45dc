"""The performance benchmark (``run``: ``workbook bench``, the figures in bench/results.md).

Imports: anything below it (``workbook.notebooks``, ``workbook.classroom``, ``workbook.site``,
``fleetcalc``); nothing imports it.
"""
