"""``evidencepack diff``: does the decision survive a new runtime, a new price, a new round?

OLD pack ─┐ verify (optional) ─> decision.json + manifest.json ─┐
NEW pack ─┘   (or build NEW from a spec)                         ├─> compare ─> DiffDocument
                                                                 ┘   text / Markdown / JSON,
                                                                     change note (HTML, PDF)

from evidencepack.diff.run import DiffOptions, diff_packs
result = diff_packs(Path("released/pack.tar.gz"), Path("pack.yaml"), DiffOptions())
print(result.document.outcome.holds)

``run`` opens both packs and compares them (``diff_packs``); ``packs`` opens one pack or builds
one from a spec; ``compare`` is the comparison; ``summary`` and ``note`` render it.
Nothing is imported here: import the module you need.
"""
