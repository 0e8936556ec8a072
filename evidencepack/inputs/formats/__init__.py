"""One module per tool format: each exposes its ``Format`` (id, detector, parser) constants.

Nothing outside ``inputs/`` imports these modules: ``inputs.registry`` lists every format in
``FORMATS`` and is the one way in. A new format is a module here plus one registry line.
"""
