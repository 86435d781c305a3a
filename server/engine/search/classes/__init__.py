"""The edit classes of the search, one module per class: each module's `EDIT_CLASS` (an
`edit_class.EditClass`) says where it applies, what it changes, its size and its place, and
carries the real fix commits that show it. registry.py finds every module here; adding a class
is adding a module."""
