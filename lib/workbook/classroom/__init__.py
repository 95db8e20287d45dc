"""The classroom: the answer key read from the solution notebooks (``answer_key``), student
notebooks generated from them (``exercises``), seeded variants per student (``variants``, with
``restate`` for the question text and ``roster`` for the instructor's roster and the LMS's
identities), grading in a sandbox (``grade``, ``sandbox``, ``sandbox_harness``), the bounded
readers and output sanitisers for everything a submission controls (``untrusted``), the instructor
secret that signs variants and the grading journal (``signing``) and the instructor guides
(``instructor``).

Imports: ``workbook.notebooks`` and ``fleetcalc``; never ``workbook.site`` or ``workbook.bench``.
Inside, the order is one way: roster, restate, untrusted, signing <- answer_key <- exercises <-
variants <- grade; ``sandbox_harness`` runs inside the sandbox and imports nothing of the workbook.
"""
