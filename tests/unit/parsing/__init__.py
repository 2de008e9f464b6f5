"""Tests of the format parsers (one module per format)."""
