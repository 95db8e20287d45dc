"""The static site: the Jupyter Book build of the student and instructor editions and the
JupyterLite build (``build``), the generated reference pages (ledger, errata, glossary, notation:
``reference_pages``), the panels' scrub frames (``scrub``) and the harness that finds and runs
every panel of the notebooks (``panel_harness``).

Imports: ``workbook.notebooks`` and ``fleetcalc``; never ``workbook.classroom`` or
``workbook.bench``. Inside: panel_harness <- scrub <- build, reference_pages <- build.
"""
