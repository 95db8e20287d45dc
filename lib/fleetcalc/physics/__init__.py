"""The physics layer: one module per physical topic, every formula once.

Each calculator declares its parameters' units and bounds; it imports only from the core layer
and from other physics modules, never from the UI.
"""
