"""Find a function's tests and run them in a sealed shadow copy of the project."""
