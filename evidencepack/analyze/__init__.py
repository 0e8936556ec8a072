"""The analysis stage: comparability, the reading checklist, capacity, cost, quality, the decision.

Each module works over the store and the spec; ``models`` holds the results (``decision.json``).
"""
