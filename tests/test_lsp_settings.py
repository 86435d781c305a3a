"""Server settings: camelCase JSON -> typed settings, bad values fall back, engine mapping."""

from pathlib import Path
from types import SimpleNamespace

from lsprotocol.types import WorkspaceFolder
from pygls.workspace import Workspace

from selfdebug.server.lsp.configuration import folder_of
from selfdebug.server.lsp.settings import (
    ServerSettings,
    backend_settings,
    debug_request,
    runner_settings,
    structure_settings,
    unstructure_settings,
)


def test_defaults_when_nothing_is_set():
    result = structure_settings(None, {})
    assert result.settings == ServerSettings()
    assert result.problems == []


def test_camel_case_values_are_typed_and_later_layers_win():
    result = structure_settings(
        {"selfdebug": {"maxTurns": 3, "mode": "print"}},  # initializationOptions, wrapped
        {"maxTurns": 2, "testSelection": ["tests/test_a.py::test_x"], "testTimeout": 4},
    )
    settings = result.settings
    assert result.problems == []
    assert settings.max_turns == 2
    assert settings.mode == "print"
    assert settings.test_selection == ["tests/test_a.py::test_x"]
    assert settings.test_timeout == 4.0 and isinstance(settings.test_timeout, float)


def test_invalid_values_fall_back_to_defaults_one_by_one():
    result = structure_settings(
        {
            "maxTurns": 0,
            "runOnSave": "yes",  # no coercion of strings into booleans
            "mode": "magic",
            "isolation": "docker",
            "testSelection": 5,
            "samples": 2,
            "noSuchSetting": 1,
        }
    )
    settings = result.settings
    assert settings.max_turns == 10
    assert settings.run_on_save is False
    assert settings.mode == "auto"
    assert settings.isolation == "auto"
    assert settings.test_selection == "auto"
    assert settings.samples == 2  # the valid value survives
    text = "\n".join(result.problems)
    for key in ("maxTurns", "runOnSave", "mode", "isolation", "testSelection", "noSuchSetting"):
        assert key in text
    assert len(result.problems) == 6


def test_round_trip_through_camel_case_json():
    settings = ServerSettings(max_turns=4, show_report=True, python_path="/usr/bin/python3")
    raw = unstructure_settings(settings)
    assert raw["maxTurns"] == 4 and raw["showReport"] is True and "pythonPath" in raw
    assert structure_settings(raw).settings == settings


def test_mapping_to_backend_runner_and_request():
    settings = structure_settings(
        {
            "backend": "openai",
            "endpointUrl": "http://127.0.0.1:8000/v1",
            "modelName": "m",
            "apiKeyEnv": "MY_KEY",
            "allowRemote": True,
            "isolation": "rlimits",
            "testTimeout": 3,
            "pythonPath": "/opt/py/bin/python",
            "maxTurns": 2,
            "samples": 3,
            "mode": "ut",
            "modelCallDeadline": 400,
            "modelEditsSeconds": 30,
            "timeBudgetSeconds": 120,
        }
    ).settings
    backend = backend_settings(settings)
    assert backend.timeout_s == 400.0
    assert backend.lookup_decoding is False  # off unless switched on (slower on a CPU)
    on = structure_settings({"lookupDecoding": True}).settings
    assert backend_settings(on).lookup_decoding is True
    assert (backend.backend, backend.endpoint_url, backend.model_name) == (
        "openai",
        "http://127.0.0.1:8000/v1",
        "m",
    )
    assert backend.api_key_env == "MY_KEY" and backend.allow_remote is True
    runner = runner_settings(settings)
    assert runner.isolation == "rlimits"
    assert runner.test_timeout_s == 3.0
    assert runner.interpreter == "/opt/py/bin/python"
    request = debug_request(
        settings,
        file=Path("/p/a.py"),
        qualname="f",
        project_root=Path("/p"),
        tests=["tests/test_a.py::test_f"],
        wider_tests=[],
        mode=None,
        source_override="def f(): pass\n",
        transcript_path=None,
    )
    assert (request.mode, request.budget.max_turns, request.model.samples) == ("ut", 2, 3)
    assert request.budget.test_timeout_s == 3.0
    assert request.budget.model_call_deadline_s == 400.0
    assert request.budget.model_edits_s == 30.0
    assert settings.time_budget_seconds == 120.0  # a session, or the walk over the suspects
    assert request.budget.time_budget_s == 120.0
    spent = structure_settings({"timeBudgetSeconds": 0})
    assert spent.settings.time_budget_seconds == 360.0  # 0 or less: the default, and why
    assert spent.problems == ["selfdebug.timeBudgetSeconds: must be > 0, got 0.0; using the "
                              "default 360.0"]  # fmt: skip
    assert (
        debug_request(
            settings,
            file=Path("/p/a.py"),
            qualname="f",
            project_root=Path("/p"),
            tests=[],
            wider_tests=[],
            mode="print",
            source_override=None,
            transcript_path=None,
        ).mode
        == "print"
    )


def test_the_editors_request_is_built_like_the_clis_a_chosen_test_is_not_guarded_twice():
    """One DebugRequest builder: a whole test file chosen as the test is not also run again as
    the regression guard (the CLI always dropped it; the editor ran it twice)."""
    request = debug_request(
        ServerSettings(),
        file=Path("/p/a.py"),
        qualname="f",
        project_root=Path("/p"),
        tests=["tests/test_a.py"],
        wider_tests=["tests/test_a.py", "tests/test_b.py"],
        mode=None,
        source_override=None,
        transcript_path=None,
    )
    assert request.target.wider_tests == ["tests/test_b.py"]
    from selfdebug.server.engine.request import new_request

    plain = new_request(Path("/p/a.py"), "f", Path("/p"), ["tests/test_a.py"], ["tests/test_a.py"])
    target = plain.target
    assert (target.tests, target.wider_tests, plain.mode) == (["tests/test_a.py"], [], "auto")


def test_settings_scope_is_the_innermost_folder_holding_the_file():
    folders = ["file:///work/proj", "file:///work/proj/sub/"]
    workspace = Workspace(
        "file:///work", workspace_folders=[WorkspaceFolder(uri, uri) for uri in folders]
    )
    ls = SimpleNamespace(workspace=workspace)  # folder_of reads only the real pygls Workspace
    assert folder_of(ls, "file:///work/proj/a.py") == "file:///work/proj"
    assert folder_of(ls, "file:///work/proj/sub/b.py") == "file:///work/proj/sub/"
    assert folder_of(ls, "file:///work/proj/sub") == "file:///work/proj/sub/"
    # a sibling whose name only starts with a folder's name is outside it
    assert folder_of(ls, "file:///work/project2/c.py") == "file:///work"
