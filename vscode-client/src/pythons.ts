// The versions of the interpreters the extension has run before, so that a start does not run
// `python -c "import sys; ..."` again for the same executable (a Python start: tens of
// milliseconds on an idle machine, tenths of a second while VS Code itself starts).
//
// An executable is known by its real path, size and modification time: a new or rebuilt
// interpreter (an upgrade, a recreated virtualenv) is checked again. A script (a pyenv or asdf
// shim, which chooses an interpreter each time it runs) and a launcher with arguments (`py -3`)
// are always checked, as their version can change while their file does not. An executable whose
// real file is named for its version (`python3.12`, as `python3` links to on Linux and macOS) is
// not run for it at all.

import * as fs from 'node:fs';
import * as path from 'node:path';

/** Where the versions are kept: the shape of VS Code's `Memento` (the extension's global state). */
export interface KnownVersions {
    get<T>(key: string): T | undefined;
    update(key: string, value: unknown): Thenable<void> | Promise<void> | void;
}

/** The memento key holding `{ [identity]: [major, minor] }`. */
export const KNOWN_VERSIONS_KEY = 'ckp.pythonVersions';
/** At most this many interpreters are remembered (the oldest are forgotten). */
const KEEP = 20;

/**
 * What identifies the executable `command` runs (`real path|size|mtime`), or undefined when its
 * version cannot be remembered: not found, a script, or run with arguments. Its look-ups on disk
 * are synchronous (microseconds): an awaited one waits its turn behind whatever the extension host
 * runs meanwhile, tenths of a second while VS Code starts.
 */
export async function identity(
    command: string,
    args: string[],
    searchPath: string = process.env.PATH ?? '',
): Promise<string | undefined> {
    if (args.length) {
        return undefined;
    }
    const file = locate(command, searchPath);
    if (!file) {
        return undefined;
    }
    try {
        const real = fs.realpathSync(file);
        const stat = fs.statSync(real);
        if (!stat.isFile() || isScript(real)) {
            return undefined;
        }
        return `${real}|${stat.size}|${Math.round(stat.mtimeMs)}`;
    } catch {
        return undefined;
    }
}

/** The remembered `[major, minor]` of the executable `id`, if any. */
export function knownVersion(known: KnownVersions | undefined, id: string | undefined): [number, number] | undefined {
    if (!known || !id) {
        return undefined;
    }
    const version = known.get<Record<string, unknown>>(KNOWN_VERSIONS_KEY)?.[id];
    return Array.isArray(version) && version.length === 2 && version.every((n) => Number.isInteger(n))
        ? [version[0], version[1]]
        : undefined;
}

/**
 * The `[major, minor]` the real file of the executable `id` is named for (`python3.12`,
 * `python3.12.exe`): CPython installs itself under that name, so it need not be run to be asked.
 */
export function namedVersion(id: string | undefined): [number, number] | undefined {
    const real = id?.split('|').slice(0, -2).join('|');
    const match = real ? /^python(\d+)\.(\d+)(?:\.exe)?$/i.exec(path.basename(real)) : null;
    return match ? [Number(match[1]), Number(match[2])] : undefined;
}

/** Remembers the version of `id`; undefined forgets it (the server did not start with it). */
export async function rememberVersion(
    known: KnownVersions | undefined,
    id: string | undefined,
    version: [number, number] | undefined,
): Promise<void> {
    if (!known || !id) {
        return;
    }
    const before = knownVersion(known, id);
    if (before && version && before[0] === version[0] && before[1] === version[1]) {
        return; // known already: no write at every start
    }
    if (!before && !version) {
        return;
    }
    const all = { ...(known.get<Record<string, [number, number]>>(KNOWN_VERSIONS_KEY) ?? {}) };
    delete all[id]; // re-added last: the newest are kept
    if (version) {
        all[id] = version;
    }
    const kept = Object.entries(all).slice(-KEEP);
    await known.update(KNOWN_VERSIONS_KEY, Object.fromEntries(kept));
}

function locate(command: string, searchPath: string): string | undefined {
    if (path.isAbsolute(command) || command.includes('/') || command.includes('\\')) {
        return isFile(command) ? path.resolve(command) : undefined;
    }
    const exts = process.platform === 'win32' ? ['.exe', ''] : [''];
    for (const dir of searchPath.split(path.delimiter)) {
        for (const ext of exts) {
            const file = path.join(dir, command + ext);
            if (dir && isFile(file)) {
                return file;
            }
        }
    }
    return undefined;
}

function isFile(file: string): boolean {
    try {
        return fs.statSync(file).isFile();
    } catch {
        return false;
    }
}

/** Whether the file starts with `#!` (a shell script that picks an interpreter when it runs). */
function isScript(file: string): boolean {
    const fd = fs.openSync(file, 'r');
    try {
        const head = Buffer.alloc(2);
        const bytesRead = fs.readSync(fd, head, 0, 2, 0);
        return bytesRead === 2 && head.toString('latin1') === '#!';
    } finally {
        fs.closeSync(fd);
    }
}
