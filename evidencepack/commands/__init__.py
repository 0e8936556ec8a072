"""What some commands make besides the pipeline's pack: ``init``'s first spec, the
decision as JUnit XML and Markdown, the ``build``/``init``/``schemas`` JSON documents.
Imports nothing itself."""
