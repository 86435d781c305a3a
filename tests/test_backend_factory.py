"""make_backend: the scripted override, the local default, the endpoint and its consent rule."""

from __future__ import annotations

import json

import pytest

from selfdebug.server.backends.base import Backend, BackendConfigError, CompletionRequest
from selfdebug.server.backends.factory import make_backend
from selfdebug.server.backends.llama import LlamaBackend
from selfdebug.server.backends.openai_backend import OpenAIBackend
from selfdebug.server.backends.scripted import SCRIPT_ENV, ScriptedBackend
from selfdebug.server.backends.settings import BackendSettings


def test_the_scripted_environment_variable_wins(tmp_path):
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"replies": ["turn {{REQUEST_NUMBER}}"]}))
    settings = BackendSettings(backend="openai", endpoint_url="http://10.0.0.1/v1")
    backend = make_backend(settings, env={SCRIPT_ENV: str(script)})
    assert isinstance(backend, ScriptedBackend)
    assert backend.complete(CompletionRequest(prompt="p")).text == "turn 1"


def test_the_scripted_backend_follows_a_prompt_form_override(tmp_path):
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"replies": ["x"], "prompt_form": "chat"}))
    settings = BackendSettings(prompt_form="completion")
    assert make_backend(settings, env={SCRIPT_ENV: str(script)}).prompt_form == "completion"


def test_llama_on_the_default_known_model_is_the_default(tmp_path, monkeypatch):
    pytest.importorskip("llama_cpp")
    monkeypatch.setenv("SELFDEBUG_MODEL_CACHE", str(tmp_path))  # nothing may be assembled yet
    backend = make_backend(BackendSettings(), env={})
    assert isinstance(backend, LlamaBackend)
    assert isinstance(backend, Backend)
    assert backend.name == "llama:qwen2.5-coder-1.5b"
    assert backend.prompt_form == "chat"  # an instruct model, known without reading the file
    assert list(tmp_path.iterdir()) == []  # making a backend is cheap: no model file yet
    small = make_backend(BackendSettings(model_path="gemma-3-270m"), env={})
    assert small.name == "llama:gemma-3-270m" and small.prompt_form == "completion"


def test_the_lookup_decoding_setting_reaches_the_model_worker(tmp_path):
    """Off by default (no draft at all); --lookup-decoding gives the worker the tuned draft
    length (lookup_decoding.py)."""
    pytest.importorskip("llama_cpp")
    import argparse

    from selfdebug.commands.model_options import add_model_arguments, backend_settings_from
    from selfdebug.server.backends.settings import LOOKUP_TOKENS
    from selfdebug.server.backends.worker_protocol import WorkerParams

    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    parser = argparse.ArgumentParser()
    add_model_arguments(parser)
    for argv, tokens in (
        ([], 0),
        (["--lookup-decoding"], LOOKUP_TOKENS),
        (["--no-lookup-decoding"], 0),
    ):
        settings = backend_settings_from(parser.parse_args(["--model", str(model), *argv]))
        settings.prompt_form = "chat"  # no header to read in this stand-in file
        backend = make_backend(settings, env={})
        assert isinstance(backend, LlamaBackend)
        params = backend.worker().params  # the process itself starts on the first call only
        assert params.lookup_tokens == tokens
        assert WorkerParams.from_json(params.to_json()) == params  # what the worker is given
    assert LOOKUP_TOKENS > 0


def test_a_missing_model_file_is_reported_when_the_backend_is_made(tmp_path):
    pytest.importorskip("llama_cpp")
    with pytest.raises(BackendConfigError, match="model file not found"):
        make_backend(BackendSettings(model_path=str(tmp_path / "absent.gguf")), env={})


def test_a_prompt_form_setting_overrides_detection(tmp_path):
    pytest.importorskip("llama_cpp")
    settings = BackendSettings(model_path=str(tmp_path / "later.gguf"), prompt_form="chat")
    assert make_backend(settings, env={}).prompt_form == "chat"


def test_openai_settings_make_an_endpoint_backend():
    settings = BackendSettings(
        backend="openai", endpoint_url="http://127.0.0.1:8000/v1", model_name="m"
    )
    backend = make_backend(settings, env={})
    assert isinstance(backend, OpenAIBackend)
    assert backend.prompt_form == "chat"


def test_openai_completion_form_can_be_chosen():
    settings = BackendSettings(
        backend="openai", endpoint_url="http://127.0.0.1:8000/v1", prompt_form="completion"
    )
    assert make_backend(settings, env={}).prompt_form == "completion"


def test_remote_endpoint_without_consent_fails_in_the_factory():
    settings = BackendSettings(backend="openai", endpoint_url="https://api.example.com/v1")
    with pytest.raises(BackendConfigError, match="allowRemote"):
        make_backend(settings, env={"OPENAI_API_KEY": "sk-test"})


def test_unknown_backend_is_a_config_error():
    settings = BackendSettings()
    settings.backend = "gpt-magic"  # type: ignore[assignment]
    with pytest.raises(BackendConfigError, match="unknown backend"):
        make_backend(settings, env={})
