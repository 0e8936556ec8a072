"""The intake: every file a spec cites, gathered once per build, read, stored and cross-checked.

``intake.take_in`` runs one pass per build: ``collect`` hashes, pins and copies each cited file,
the readers (``readers/``) read it, ``load.load_input`` stores it (``stored`` holds the SQL that
fills and reads the serving-run and score tables), ``crosscheck`` compares a run's files.
``records`` is what the intake records about each file. Nothing is imported here.
"""
