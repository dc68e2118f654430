// When the extension starts the server. `workspaceContains` activation by a glob waits for a
// search of the whole workspace, which can end seconds after the user opened a file of a bank;
// by a plain path (`memory-bank`, `_index.md` at the top of a folder) VS Code only looks whether
// it exists, as soon as the extension host runs. The extension also activates on opening a
// Markdown file and starts the server at once when that file is in a bank (the same two markers,
// looked for above the file only); activated otherwise, it starts the server at once when a
// workspace folder or one of its folders is a bank (`bankNearTop`), else when the search finds one.

import * as fs from 'node:fs';
import * as path from 'node:path';

/** The globs of package.json's `workspaceContains` activation events. */
export const BANK_GLOBS = ['**/memory-bank/**', '**/_index.md'];
/** The plain paths of package.json's `workspaceContains` activation events (no search). */
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
