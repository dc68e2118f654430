// The `ckp.*` settings the client uses and sends to the server (see values.ts for the rules).
//
// Editor settings override a bank's `.ckp.toml` on the server, so the client sends only the
// settings the user has set somewhere (user, workspace or folder settings) — never defaults.
// Client-side settings (`ckp.server.*`, `ckp.trace.*`) are not sent. In an untrusted workspace
// the restricted settings (package.json) take the user's value only.

import * as vscode from 'vscode';
import { collect, Collected, explicitValue, namesSetIn } from './values';

const CLIENT_ONLY = ['server.', 'trace.'];

let keys: string[] = [];
let restricted: string[] = [];

/**
 * Call once with package.json's `contributes.configuration.properties` keys (`ckp.staleness`, …)
 * and its `capabilities.untrustedWorkspaces.restrictedConfigurations`.
 */
export function declareSettings(declared: string[], restrictedInUntrusted: string[]): void {
    keys = declared
        .filter((k) => k.startsWith('ckp.'))
        .map((k) => k.slice('ckp.'.length))
        .filter((k) => !CLIENT_ONLY.some((prefix) => k.startsWith(prefix)));
    restricted = restrictedInUntrusted;
}

/** `{staleness: 'git', llm: {provider: 'openai'}, ...}` with only explicitly set (and allowed) values. */
export function explicitSettings(scope?: vscode.ConfigurationScope): Record<string, unknown> {
    return collectSettings(scope).settings;
}

export function collectSettings(scope?: vscode.ConfigurationScope): Collected {
    const config = vscode.workspace.getConfiguration('ckp', scope);
    return collect(keys, (key) => config.inspect(key), restricted, vscode.workspace.isTrusted);
}

/** A client-side string setting (`server.path`), honouring Workspace Trust; '' when unset. */
export function clientSetting(key: string): string {
    const config = vscode.workspace.getConfiguration('ckp');
    const userOnly = !vscode.workspace.isTrusted && restricted.includes(`ckp.${key}`);
    const found = explicitValue(config.inspect(key), userOnly);
    return typeof found.value === 'string' ? found.value.trim() : '';
}

/**
 * Restricted settings whose workspace values are being ignored (Restricted Mode): those the API
 * still shows, and those the workspace's settings files set (VS Code hides them from the API).
 */
export async function ignoredSettings(): Promise<string[]> {
    if (vscode.workspace.isTrusted) {
        return [];
    }
    const config = vscode.workspace.getConfiguration('ckp');
    const found = new Set(
        restricted.filter((name) => explicitValue(config.inspect(name.slice('ckp.'.length)), true).ignored),
    );
    const files = (vscode.workspace.workspaceFolders ?? []).map((f) => vscode.Uri.joinPath(f.uri, '.vscode', 'settings.json'));
    if (vscode.workspace.workspaceFile?.scheme === 'file') {
        files.push(vscode.workspace.workspaceFile);
    }
    for (const file of files) {
        try {
            const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(file));
            namesSetIn(text, restricted).forEach((name) => found.add(name));
        } catch {
            // no such file
        }
    }
    return restricted.filter((name) => found.has(name));
}

/** The part of `settings` below a dotted `section` ('' = everything). */
export function settingsSubtree(settings: Record<string, unknown>, section: string): unknown {
    let node: unknown = settings;
    for (const part of section ? section.split('.') : []) {
        node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[part] : undefined;
    }
    return node ?? null;
}
