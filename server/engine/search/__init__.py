"""The edit search: repair without a model, from where the evidence points.

Its parts, in the order a search uses them:
- `localize.py`: the suspicious lines, Ochiai over the tests' real line coverage;
- what the failing tests expect (raised exceptions) is read from `../evidence.py`, the
  session's one reading of the failing tests;
- `classes/`: the edit classes, one module each (where it applies, what it changes, its size
  and place, and the real fix commits that show it), on `edit_class.py`'s `EditClass`, with
  `scope.py` (the function's text and names), `operators.py` and `statements.py` to draw on;
- `registry.py`: every class, found in `classes/`, and docs/MODES.md's table of them;
- `edits.py`: the `Edit`s of every class at the suspicious lines, ordered and bounded, none
  that writes a degenerate construct (`once_loops.py`: a loop that runs at most once is one;
  `unbound_reads.py`: a local read where a path leaves it unassigned is another);
- `places.py`, `place_edits.py`: the places outside the body where a fix may go (the
  module constants, class attributes and default values the function reads) and the
  literal and operator classes' edits there;
- `edit_search.py`: the search itself (localize, the candidate edits, handed to the judge:
  ../judge/, which runs, ranks and verifies every generator's candidates);
- `host.py`: the session's uses of the search (the function as it is, a model's near miss, a
  partial fix).
"""
