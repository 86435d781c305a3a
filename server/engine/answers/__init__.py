"""From a model's reply to a checked candidate: the code blocks found (fences.py), the target
function salvaged from a larger answer (salvage.py, reading top levels with module_level.py) or
an edit applied (edit_blocks.py, in the form answer_form.py asked for), print mode's added prints
removed (added_prints.py), the structural and safety checks (candidate.py, safety.py), and one
candidate voted among several samples (vote.py)."""
