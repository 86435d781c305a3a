"""The language server: thin pygls handlers over the engine and the runner."""
