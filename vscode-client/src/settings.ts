// The `ckp.*` settings the client sends to the server.
//
// Editor settings override a bank's `.ckp.toml` on the server, so the client sends only the
// settings the user has set somewhere (user, workspace or folder settings) — never defaults.
// Client-side settings (`ckp.server.*`, `ckp.trace.*`) are not sent.

import * as vscode from 'vscode';

const CLIENT_ONLY = ['server.', 'trace.'];

let keys: string[] = [];

/** Call once with package.json's `contributes.configuration.properties` keys (`ckp.staleness`, …). */
export function declareSettings(declared: string[]): void {
    keys = declared
        .filter((k) => k.startsWith('ckp.'))
        .map((k) => k.slice('ckp.'.length))
        .filter((k) => !CLIENT_ONLY.some((prefix) => k.startsWith(prefix)));
}

/** `{staleness: 'git', llm: {provider: 'openai'}, ...}` with only explicitly set values. */
export function explicitSettings(scope?: vscode.ConfigurationScope): Record<string, unknown> {
    const config = vscode.workspace.getConfiguration('ckp', scope);
    const out: Record<string, unknown> = {};
    for (const key of keys) {
        const info = config.inspect(key);
        if (!info) {
            continue;
        }
        const levels = [
            info.globalValue,
            info.workspaceValue,
            info.workspaceFolderValue,
            info.globalLanguageValue,
            info.workspaceLanguageValue,
            info.workspaceFolderLanguageValue,
        ].filter((v) => v !== undefined);
        if (levels.length === 0) {
            continue;
        }
        const isObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
        // Objects (ckp.diagnostics) merge across levels like VS Code does; others: the most specific wins.
        const value = levels.every(isObject)
            ? Object.assign({}, ...(levels as object[]))
            : levels[levels.length - 1];
        setPath(out, key.split('.'), value);
    }
    return out;
}

/** The part of `settings` below a dotted `section` ('' = everything). */
export function settingsSubtree(settings: Record<string, unknown>, section: string): unknown {
    let node: unknown = settings;
    for (const part of section ? section.split('.') : []) {
        node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[part] : undefined;
    }
    return node ?? null;
}

function setPath(target: Record<string, unknown>, path: string[], value: unknown): void {
    let node = target;
    for (const part of path.slice(0, -1)) {
        if (typeof node[part] !== 'object' || node[part] === null) {
            node[part] = {};
        }
        node = node[part] as Record<string, unknown>;
    }
    node[path[path.length - 1]] = value;
}
