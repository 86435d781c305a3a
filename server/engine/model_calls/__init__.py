"""Asking the model once, the way every mode does it (model_call.py): the prompt rendered from
its template (prompting.py) and fitted to the context window (context_fit.py), a fixed total
only when one is configured (call_deadline.py), and a failed call ending its turn rather than
the session (failed_calls.py)."""
