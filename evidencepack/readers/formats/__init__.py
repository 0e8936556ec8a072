"""One module per tool format: each exposes its ``Format`` (id, detector, parser) constants.

Nothing outside ``readers/`` imports these modules: ``readers.registry`` lists every format in
``FORMATS`` and is the one way in. A new format is a module here plus one registry line.
"""
