// "CKP: Preview routing for a query": shows which files an agent following the pattern would load.

import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';

export interface RouteLoaded {
    concept: string;
    file: string;
    uri?: string;
    reason?: string; // "match" (a primary file), "high" or "mid"
    keywords?: string[];
    via?: string | null; // the primary concept that pulled a HIGH or MID file in
    tokens?: number;
}

export interface RouteResult {
    declaration: string;
    loaded: RouteLoaded[];
    tokens?: { index?: number; loaded?: number; with_ckp?: number; without_ckp?: number };
}

interface FileItem extends vscode.QuickPickItem {
    uri?: vscode.Uri;
}

/** The server may answer with the object or with its JSON text. */
export function parseRouteResult(raw: unknown): RouteResult {
    const value = typeof raw === 'string' ? JSON.parse(raw) : raw;
    if (value && typeof value === 'object' && typeof (value as { error?: unknown }).error === 'string') {
        throw new Error((value as { error: string }).error);
    }
    if (!value || typeof value !== 'object' || typeof (value as RouteResult).declaration !== 'string') {
        throw new Error(`unexpected answer from the server: ${JSON.stringify(raw)}`);
    }
    const result = value as RouteResult;
    result.loaded = Array.isArray(result.loaded) ? result.loaded : [];
    return result;
}

export async function showRouteResult(result: RouteResult, query: string, bank: vscode.Uri | undefined): Promise<void> {
    const items: FileItem[] = [];
    items.push({ label: 'Loaded files', kind: vscode.QuickPickItemKind.Separator });
    if (result.loaded.length === 0) {
        items.push({ label: '$(circle-slash) No file loaded', detail: 'The query is out of the bank\'s domain.' });
    }
    for (const entry of result.loaded) {
        items.push({
            label: `$(file) ${entry.concept}`,
            description: entry.file,
            detail: describe(entry),
            uri: entry.uri ? vscode.Uri.parse(entry.uri) : await resolveFile(entry.file, bank),
        });
    }
    const t = result.tokens;
    if (t) {
        items.push({ label: 'Tokens', kind: vscode.QuickPickItemKind.Separator });
        const fewer =
            t.with_ckp !== undefined && t.without_ckp ? ` (${Math.round(100 * (1 - t.with_ckp / t.without_ckp))}% fewer)` : '';
        items.push({
            label: `$(symbol-numeric) ${fmt(t.with_ckp)} tokens with CKP · ${fmt(t.without_ckp)} without${fewer}`,
            detail: `index ${fmt(t.index)} + loaded files ${fmt(t.loaded)}`,
        });
    }
    const picked = await vscode.window.showQuickPick(items, {
        title: result.declaration,
        placeHolder: `Routing for “${query}” — select a file to open it`,
        matchOnDescription: true,
        matchOnDetail: true,
    });
    if (picked?.uri) {
        await vscode.window.showTextDocument(picked.uri, { preview: true });
    }
}

const REASONS: Record<string, string> = {
    match: 'matched',
    high: 'SIMILAR_HIGH',
    mid: 'SIMILAR_MID',
};

function describe(entry: RouteLoaded): string {
    const parts: string[] = [];
    const reason = entry.reason ? REASONS[entry.reason] ?? entry.reason : '';
    parts.push(entry.via ? `${reason} of ${entry.via}` : reason);
    if (entry.keywords?.length) {
        parts.push(`keywords: ${entry.keywords.join(', ')}`);
    }
    if (entry.tokens !== undefined) {
        parts.push(`~${fmt(entry.tokens)} tokens`);
    }
    return parts.filter(Boolean).join(' · ');
}

function fmt(n: number | undefined): string {
    return n === undefined ? '?' : n.toLocaleString('en-US');
}

/** `file` may be a URI, an absolute path, or a path relative to the bank root. */
async function resolveFile(file: string, bank: vscode.Uri | undefined): Promise<vscode.Uri | undefined> {
    if (!file) {
        return undefined;
    }
    if (/^[a-z][a-z0-9+.-]+:\/\//i.test(file)) {
        return vscode.Uri.parse(file);
    }
    if (path.isAbsolute(file)) {
        return vscode.Uri.file(file);
    }
    const roots: string[] = [];
    if (bank?.scheme === 'file') {
        // Walk up from the active file: the bank root is one of its ancestors.
        const top = vscode.workspace.getWorkspaceFolder(bank)?.uri.fsPath;
        let dir = path.dirname(bank.fsPath);
        for (;;) {
            roots.push(dir);
            const parent = path.dirname(dir);
            if (parent === dir || dir === top) {
                break;
            }
            dir = parent;
        }
    }
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
        roots.push(folder.uri.fsPath);
    }
    for (const root of roots) {
        const candidate = path.join(root, file);
        if (fs.existsSync(candidate)) {
            return vscode.Uri.file(candidate);
        }
    }
    const found = await vscode.workspace.findFiles(`**/${file}`, '**/node_modules/**', 1);
    return found[0];
}
