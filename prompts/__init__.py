"""Prompt templates (Jinja2), in two forms: completion/ (few-shot, base models) and chat/."""
