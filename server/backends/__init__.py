"""Model backends: llama.cpp in-process, OpenAI-compatible HTTP, and a scripted one for tests."""
