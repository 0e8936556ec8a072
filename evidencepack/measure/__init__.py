"""``evidencepack measure``: the team's own LoadGen-driven runs against an OpenAI-compatible
endpoint, written as run folders (``run.py``: the runs; ``client.py``: the streaming client;
``record.py``: ``run.json``). Package ``__init__`` files import nothing."""
