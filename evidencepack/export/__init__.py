"""Exports of a built pack for the tools auditors already use: OSCAL assessment results.

``packread`` opens a pack (folder or ``.tar.gz``) and checks its files against its manifest and,
when signed, its in-toto subjects; ``catalog`` names the checks as OSCAL controls; ``oscal``
writes the assessment results. Nothing here changes the pack.
"""
