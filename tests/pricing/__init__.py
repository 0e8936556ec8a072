"""Tests of prices as evidence: FOCUS exports and quotes."""
