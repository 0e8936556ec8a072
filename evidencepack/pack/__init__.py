"""What a pack is: its layout and file names, ``manifest.json``, the predicate, archives, toolchain.

Nothing here signs or verifies (that is ``evidencepack.signing``, which depends on this package).
Nothing is imported here: import the module you need.
"""
