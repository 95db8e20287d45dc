"""The notebook pipeline: MyST sources executed into their .ipynb twins (``nb``), the pairs kept
identical, lecture-mode slide metadata (``slides``), exercise ids read from code and headings
(``exercise_ids``), and what every tool reads a notebook with (``files``).

Imports: the standard library, jupytext/nbformat/nbclient and ``workbook`` (the checkout root)
only; never ``workbook.classroom``, ``workbook.site`` or ``workbook.bench``, which build on it.
"""
