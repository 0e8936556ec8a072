"""The shared leaves every stage may import: errors' neighbours that import only each
other (all-or-nothing writes, hidden characters, strict models, numbers, size limits,
pack paths, problems, progress, file digests, bundled data). Imports nothing itself.
"""
