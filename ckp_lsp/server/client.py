"""What the client told the server: its capabilities and its settings, each resolved once."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from lsprotocol import types

from ..core.project.config import Config


@dataclass(frozen=True)
class ClientCapabilities:
    """The capabilities the server acts on, read once from ``initialize``."""

    #: pulls open documents' diagnostics (``textDocument/diagnostic``)
    pull_diagnostics: bool = False
    #: can be told to pull again (``workspace/diagnostic/refresh``)
    diagnostic_refresh: bool = False
    #: answers ``workspace/configuration``
    configuration: bool = False
    #: lets the server register file watchers
    watcher_registration: bool = False
    #: shows ``$/progress``
    work_done_progress: bool = False
    #: shows a document link's tooltip
    link_tooltips: bool = False
    #: takes DocumentSymbol trees (else flat SymbolInformation)
    hierarchical_symbols: bool = False
    #: asks for a completion item's documentation when it shows it
    completion_resolves_documentation: bool = False
    #: its hover shows the diagnostics at the position too (VS Code): the hover does not repeat them
    hover_shows_diagnostics: bool = False
    #: takes ``documentChanges`` in a workspace edit
    document_changes: bool = False
    #: may rename files in a workspace edit (``resourceOperations`` has ``rename``)
    file_renames: bool = False
    #: takes change annotations in a workspace edit (with ``documentChanges``)
    change_annotations: bool = False

    @classmethod
    def of(cls, caps: types.ClientCapabilities | None, options: Any = None) -> ClientCapabilities:
        """From ``initialize``: the capabilities, and what the client says of itself in its
        ``initializationOptions`` (``{"editor": {"hoverShowsDiagnostics": true}}``): LSP has
        no capability for what a client's hover shows besides the server's."""
        editor = options.get("editor") if isinstance(options, Mapping) else None
        editor = editor if isinstance(editor, Mapping) else {}
        if caps is None:
            return cls(hover_shows_diagnostics=editor.get("hoverShowsDiagnostics") is True)
        doc = caps.text_document
        ws = caps.workspace
        completion = doc.completion.completion_item if doc and doc.completion else None
        resolve = completion.resolve_support if completion else None
        edits = ws.workspace_edit if ws else None
        return cls(
            pull_diagnostics=bool(doc and doc.diagnostic),
            diagnostic_refresh=bool(ws and ws.diagnostics and ws.diagnostics.refresh_support),
            configuration=bool(ws and ws.configuration),
            watcher_registration=bool(
                ws and ws.did_change_watched_files and ws.did_change_watched_files.dynamic_registration
            ),
            work_done_progress=bool(caps.window and caps.window.work_done_progress),
            # VS Code shows a link's tooltip in the hover, after the hover's own TLDR: not repeated
            link_tooltips=bool(doc and doc.document_link and doc.document_link.tooltip_support)
            and editor.get("hoverShowsLinkTooltips") is not True,
            hierarchical_symbols=bool(
                doc and doc.document_symbol and doc.document_symbol.hierarchical_document_symbol_support
            ),
            completion_resolves_documentation=resolve is not None and "documentation" in resolve.properties,
            hover_shows_diagnostics=editor.get("hoverShowsDiagnostics") is True,
            document_changes=bool(edits and edits.document_changes),
            file_renames=edits is not None
            and types.ResourceOperationKind.Rename in (edits.resource_operations or ()),
            change_annotations=bool(
                edits and edits.change_annotation_support is not None and edits.document_changes
            ),
        )


@dataclass(frozen=True)
class Settings:
    """The client's ``ckp`` settings: ``initializationOptions`` under what the editor sends later.

    Each change makes a new one with a higher ``version``, so a late answer to an earlier
    ``workspace/configuration`` request cannot undo a change that came meanwhile.
    """

    initial: Mapping[str, Any] = field(default_factory=dict)
    client: Mapping[str, Any] = field(default_factory=dict)
    version: int = 0

    @cached_property
    def values(self) -> dict[str, Any]:
        """The settings in force: the editor's later ones over ``initializationOptions``."""
        return {**self.initial, **self.client}

    @cached_property
    def config(self) -> Config:
        """The settings read as configuration, validated once (each mistake in ``problems``)."""
        return Config().merged(self.values) if self.values else Config()

    def with_client(self, client: Mapping[str, Any]) -> Settings:
        return Settings(self.initial, dict(client), self.version + 1)
