"""``evidencepack watch``: does a signed decision still hold, months later, in production?

PACK ─> verify ─> decision + spec ─┐
ENDPOINT ─> measure at X* ─────────┼─> judge (holds | degraded | broken) ─> OUT/ (watch.json,
--as-of, --spec ───────────────────┘                                       watch.md, watch.html,
                                                                           watch.pdf, run/, signed)

``models`` is the watch report; ``judge`` compares the new run with the pack's SLO and its
operating point; ``dated`` re-checks what expires and what changed in the spec; ``run``
orchestrates and writes the folder; ``report`` renders it. Nothing is imported here.
"""
