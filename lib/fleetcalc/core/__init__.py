"""The core layer: units, input validation, the number ledger, the hardware catalog and notation.

Nothing here knows any physics; physics and the UI build on it.
"""
