// When the extension starts the server. `workspaceContains` activation waits for a search of the
// whole workspace, which can end seconds after the user opened a file of a bank; the extension
// also activates on opening a Markdown file and starts the server at once when that file is in a
// bank (the same two markers, looked for above the file only), else when the search finds one.

import * as fs from 'node:fs';
import * as path from 'node:path';

/** The globs of package.json's `workspaceContains` activation events. */
export const BANK_GLOBS = ['**/memory-bank/**', '**/_index.md'];

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
