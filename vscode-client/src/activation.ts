// When the extension starts the server. It is activated as the extension host starts (`*`): VS
// Code's `workspaceContains` activation by a glob waits for its search of the whole workspace,
// which can end seconds after the user opened a file of a bank, and a bank one folder down is
// common. It starts the server at once when an open file is in a bank (a folder above it named
// `memory-bank` or holding an `_index.md`, looked for above the file only) or when a workspace
// folder or one of its folders is a bank (`bankNearTop`: a few look-ups on disk); otherwise when a
// file of a bank is opened, or the search (`BANK_GLOBS`) finds one. In a workspace without a
// bank no server is started.

import * as fs from 'node:fs';
import * as path from 'node:path';

/** The globs a bank's files match, searched for when no bank is near the top of a folder. */
export const BANK_GLOBS = ['**/memory-bank/**', '**/_index.md'];
/** What marks a bank at the top of a folder (looked up on disk, no search). */
export const BANK_PATHS = ['memory-bank', '_index.md'];
/** At most this many entries of a workspace folder are looked into by `bankNearTop`. */
const NEAR_TOP_ENTRIES = 500;

/**
 * Whether `file` is in a bank: a folder above it named `memory-bank`, or holding an `_index.md`,
 * no higher than `top` (the workspace folder) when it is given.
 */
export function inBank(file: string, top?: string, exists: (p: string) => boolean = fs.existsSync): boolean {
    let dir = path.dirname(path.resolve(file));
    const stop = top ? path.resolve(top) : undefined;
    for (;;) {
        if (path.basename(dir) === 'memory-bank' || exists(path.join(dir, '_index.md'))) {
            return true;
        }
        const parent = path.dirname(dir);
        if (dir === stop || parent === dir) {
            return false;
        }
        dir = parent;
    }
}

/**
 * Whether the folder `top` is a bank, holds one (`memory-bank/`, an `_index.md`) or has a folder
 * that does, one level down: a few file-system look-ups, where VS Code's search of the workspace
 * (`findFiles`) can take seconds while the window starts.
 */
export function bankNearTop(top: string, exists: (p: string) => boolean = fs.existsSync, list = listFolders): boolean {
    const marked = (dir: string) =>
        path.basename(dir) === 'memory-bank' || BANK_PATHS.some((name) => exists(path.join(dir, name)));
    if (marked(top)) {
        return true;
    }
    return list(top)
        .slice(0, NEAR_TOP_ENTRIES)
        .some((name) => marked(path.join(top, name)));
}

/** The folders directly in `dir` (none when it cannot be read). */
function listFolders(dir: string): string[] {
    try {
        return fs
            .readdirSync(dir, { withFileTypes: true })
            .filter((entry) => entry.isDirectory() && entry.name !== 'node_modules' && entry.name !== '.git')
            .map((entry) => entry.name);
    } catch {
        return [];
    }
}
