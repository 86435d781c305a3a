"""The self-debugging loop (Chen et al.) and print debugging (Hu et al.): one engine for the CLI,
the LSP server and the benchmark."""
