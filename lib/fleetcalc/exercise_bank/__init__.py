"""Exercise definitions, one module per chapter; every module here is loaded on first use."""
