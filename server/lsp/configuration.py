"""Settings per workspace folder: the project's `[tool.selfdebug]` (pyproject.toml), overlaid by
`initializationOptions`, overlaid by `workspace/configuration` (section "selfdebug"), refreshed on
`workspace/didChangeConfiguration`.

Why cached: the `runOnSave` check at every save must stay cheap, so it reads the cache; commands
refresh it first, so a session always uses what the user set last (its `mode` included: a code
action does not carry the setting's mode). Invalid values are shown once (showMessage +
logMessage) and fall back to their defaults.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from lsprotocol.types import (
    WORKSPACE_DID_CHANGE_CONFIGURATION,
    ConfigurationItem,
    ConfigurationParams,
    DidChangeConfigurationParams,
    LogMessageParams,
    MessageType,
    ShowMessageParams,
)
from pygls.uris import to_fs_path

from selfdebug.server.lsp.project_settings import read_project_settings
from selfdebug.server.lsp.settings import (
    SECTION,
    ServerSettings,
    machine_scoped,
    structure_settings,
)

if TYPE_CHECKING:
    from selfdebug.server.lsp.server import SelfDebugServer

logger = logging.getLogger(__name__)


class SettingsCache:
    def __init__(self) -> None:
        self.initialization_options: Any = None
        self._by_scope: dict[str, ServerSettings] = {}
        self._reported: set[str] = set()

    def cached(self, scope: str) -> ServerSettings | None:
        return self._by_scope.get(scope)

    def store(self, scope: str, settings: ServerSettings) -> None:
        self._by_scope[scope] = settings

    def invalidate(self) -> None:
        self._by_scope.clear()

    def first_time(self, problem: str) -> bool:
        if problem in self._reported:
            return False
        self._reported.add(problem)
        return True


def folder_of(ls: SelfDebugServer, uri: str) -> str:
    """The URI of the workspace folder holding `uri` (longest match), or the root URI."""
    folders = [f.uri for f in ls.workspace.folders.values() if _inside(uri, f.uri)]
    if folders:
        return max(folders, key=len)
    return ls.workspace.root_uri or ""


def _inside(uri: str, folder_uri: str) -> bool:
    """`uri` is the folder or below it (`file:///a/proj` does not hold `file:///a/project2`)."""
    folder = folder_uri.rstrip("/")
    return uri == folder or uri.startswith(folder + "/")


def cached_settings(ls: SelfDebugServer, uri: str) -> ServerSettings:
    """Cheap: the last known settings for the folder of `uri` (defaults + init options if none)."""
    scope = folder_of(ls, uri)
    settings = ls.settings_cache.cached(scope)
    if settings is None:
        settings = structure_settings(ls.settings_cache.initialization_options).settings
    return settings


async def fetch_settings(ls: SelfDebugServer, uri: str) -> ServerSettings:
    """Ask the client for the folder's settings (when it can answer) and cache them."""
    scope = folder_of(ls, uri)
    folder = to_fs_path(scope) if scope else None
    project = read_project_settings(folder) if folder else None  # the lowest layer
    layers: list[Any] = [project.layer if project else None]
    layers.append(ls.settings_cache.initialization_options)
    workspace_caps = ls.client_capabilities.workspace
    if workspace_caps is not None and workspace_caps.configuration:
        try:
            answer = await ls.workspace_configuration_async(
                ConfigurationParams(
                    items=[ConfigurationItem(scope_uri=scope or None, section=SECTION)]
                )
            )
            layers.append(answer[0] if answer else None)
        except Exception as error:  # a client that fails here must not stop the command
            logger.warning("workspace/configuration failed: %s", error)
    result = structure_settings(*layers)
    client = structure_settings(ls.settings_cache.initialization_options).settings
    settings = machine_scoped(client, result.settings)
    ls.settings_cache.store(scope, settings)
    for problem in [*(project.problems if project else []), *result.problems]:
        if ls.settings_cache.first_time(problem):
            text = f"selfdebug settings: {problem}"
            ls.window_log_message(LogMessageParams(type=MessageType.Warning, message=text))
            ls.window_show_message(ShowMessageParams(type=MessageType.Warning, message=text))
    return settings


def register(server: SelfDebugServer) -> None:
    @server.feature(WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(
        ls: SelfDebugServer, params: DidChangeConfigurationParams
    ) -> None:
        ls.settings_cache.invalidate()
        for folder in ls.workspace.folders.values():
            await fetch_settings(ls, folder.uri)
