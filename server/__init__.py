"""The server side of selfdebug: LSP handlers (lsp/), the self-debug engine (engine/), the sealed
test runner (runner/) and the model backends (backends/). See docs/ARCHITECTURE.md."""
