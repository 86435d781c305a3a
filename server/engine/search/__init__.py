"""The edit search: repair without a model, from where the evidence points.

Its parts, in the order a search uses them:
- `localize.py`: the suspicious lines, Ochiai over the tests' real line coverage;
- what the failing tests expect (raised exceptions) is read from `../evidence.py`, the
  session's one reading of the failing tests;
- `registry.py`: every edit class, once (name, what it changes, where, size, and `examples.py`:
  the real fix commits that show it);
- the classes: `edits.py` (the `Edit`, `generate_edits` and the expression-level classes),
  `statements.py`, `updates.py`, `raises.py`, `strings.py`, `texts.py`, `pairs.py`;
- `edit_search.py`: the search itself (localize, the candidate edits, handed to the judge:
  ../judge/, which runs, ranks and verifies every generator's candidates);
- `host.py`: the session's uses of the search (the function as it is, a model's near miss, a
  partial fix).
"""
