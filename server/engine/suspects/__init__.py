"""Starting from a failing test (issue 35): which of the project's functions is at fault.

- rank.py: the project's functions ranked by the suspiciousness of the lines they hold
  (Ochiai over every test's spectrum), with the failure's own evidence folded in (its traceback's
  frames in the project, the function the failing line calls);
- localize.py: the runs that give those spectra (the failing tests and the tests beside them),
  through the spectrum plugin (server/runner/_selfdebug_spectrum_v1.py).
"""
