// Decides how to launch the CKP language server.
//
// Order: `ckp.server.path` (a `ckp-lsp` executable) > the server bundled in the extension at
// `bundled/libs`, run as `<python> -m ckp_lsp` with `ckp.server.python`, else the interpreter
// selected in the Python extension when that extension is active, else the first Python 3.10+
// found on the PATH, else (none there) the Python extension's, activating it. The bundled server
// runs with any Python 3.10+, so an inactive Python extension is not activated for it (its
// activation takes seconds). vscode-languageclient appends `--stdio` to the arguments. In an
// untrusted workspace the workspace's values of `ckp.server.*` are ignored (settings.ts).

import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { BuildInfo, readBuild } from './build';
import { PythonExtensionExports, selectedInterpreter } from './interpreter';
import { identity, KnownVersions, knownVersion, namedVersion, rememberVersion } from './pythons';
import { clientSetting } from './settings';

export const PYTHON_EXTENSION = 'ms-python.python';

export const MIN_PYTHON: [number, number] = [3, 10];

export interface ServerLaunch {
    command: string;
    args: string[];
    env: NodeJS.ProcessEnv;
    /** One line for the output channel. */
    description: string;
    /** Set when the bundled server runs: the interpreter's `[major, minor]` and the build. */
    bundled?: { python: Candidate; version: [number, number]; build?: BuildInfo };
    /** Forgets the interpreter's remembered version (the server did not start with it). */
    forget?: () => Promise<void>;
}

/** The server could not be launched; `message` says what to do about it. */
export class ServerNotFoundError extends Error {
    constructor(message: string, readonly details: string[] = []) {
        super(message);
    }
}

export interface Candidate {
    command: string;
    args: string[];
    label: string;
}

export function bundledLibs(extensionPath: string): string {
    return path.join(extensionPath, 'bundled', 'libs');
}

export async function resolveServer(
    extensionPath: string,
    log: (line: string) => void,
    known?: KnownVersions,
): Promise<ServerLaunch> {
    const serverSetting = expand(clientSetting('server.path'));
    if (serverSetting) {
        const serverPath = await findExecutable(serverSetting);
        if (!serverPath) {
            throw new ServerNotFoundError(
                `CKP: the setting ckp.server.path points to "${serverSetting}", which is not an executable file. ` +
                    'Fix the path (e.g. the output of `which ckp-lsp` after `pip install ckp-lsp`) or clear the setting to use the server bundled with the extension.',
            );
        }
        return {
            command: serverPath,
            args: [],
            env: { ...process.env },
            description: `${serverPath} (ckp.server.path)`,
        };
    }

    const pythonSetting = expand(clientSetting('server.python'));
    const pythonActive = vscode.extensions.getExtension(PYTHON_EXTENSION)?.isActive ?? false;
    const candidates: Candidate[] = pythonSetting
        ? [{ command: pythonSetting, args: [], label: pythonSetting }]
        : [...(pythonActive ? await pythonExtensionCandidate(log) : []), ...defaultPythons()];

    const tried: string[] = [];
    let found = await firstUsable(candidates, tried, known);
    if (!found && !pythonSetting && !pythonActive) {
        // Nothing usable on the PATH: the Python extension's interpreter, activating it.
        const selected = await pythonExtensionCandidate(log);
        candidates.push(...selected);
        found = await firstUsable(selected, tried, known);
    }
    const { python, version, id } = found ?? {};
    for (const line of tried) {
        log(`python lookup: ${line}`);
    }
    if (!python || !version) {
        const need = `Python ${MIN_PYTHON.join('.')} or newer`;
        if (pythonSetting) {
            throw new ServerNotFoundError(
                `CKP: the interpreter in ckp.server.python ("${pythonSetting}") cannot run the language server (${tried.join('; ')}). ` +
                    `Point ckp.server.python at ${need}, clear it to search the PATH, or set ckp.server.path to a ckp-lsp executable.`,
                tried,
            );
        }
        const select = vscode.extensions.getExtension(PYTHON_EXTENSION)
            ? 'select one with "Python: Select Interpreter", '
            : '';
        throw new ServerNotFoundError(
            `CKP: no ${need} found (tried ${candidates.map((c) => c.label).join(', ')}). ` +
                `Install ${need} and make sure it is on the PATH, ${select}or set ckp.server.python to an interpreter, ` +
                'or set ckp.server.path to a ckp-lsp executable (pip install ckp-lsp).',
            tried,
        );
    }

    void rememberVersion(known, id, version);
    const libs = bundledLibs(extensionPath);
    const env: NodeJS.ProcessEnv = { ...process.env };
    let where: string;
    let bundled: ServerLaunch['bundled'];
    if (fs.existsSync(path.join(libs, 'ckp_lsp'))) {
        env.PYTHONPATH = env.PYTHONPATH ? `${libs}${path.delimiter}${env.PYTHONPATH}` : libs;
        where = `bundled server in ${libs}`;
        bundled = { python, version, build: readBuild(extensionPath) };
    } else {
        // Development layout (no `npm run bundle-libs` yet): use ckp_lsp as installed for that Python.
        where = 'ckp_lsp installed for that interpreter (no bundled server in this build)';
    }
    return {
        command: python.command,
        args: [...python.args, '-m', 'ckp_lsp'],
        env,
        description: `${python.label} (Python ${version.join('.')}) -m ckp_lsp, ${where}`,
        bundled,
        forget: () => rememberVersion(known, id, undefined),
    };
}

/** The interpreter selected in the Python extension, when it is installed and has one. */
async function pythonExtensionCandidate(log: (line: string) => void): Promise<Candidate[]> {
    const extension = vscode.extensions.getExtension<PythonExtensionExports>(PYTHON_EXTENSION);
    if (!extension) {
        return [];
    }
    try {
        const exports = extension.isActive ? extension.exports : await extension.activate();
        const resource = vscode.workspace.workspaceFolders?.[0]?.uri;
        const found = await selectedInterpreter(exports, resource);
        if (typeof found === 'string') {
            log(`python lookup: Python extension: ${found}`);
            return [];
        }
        return [{ command: found.path, args: [], label: `${found.path} (selected in the Python extension)` }];
    } catch (error) {
        log(`python lookup: Python extension: ${error instanceof Error ? error.message : String(error)}`);
        return [];
    }
}

/** Calls `listener` when the interpreter selected in the Python extension changes. */
export function onPythonChanged(listener: () => void): vscode.Disposable | undefined {
    const extension = vscode.extensions.getExtension<PythonExtensionExports>(PYTHON_EXTENSION);
    const api = extension?.isActive ? extension.exports?.environments : undefined;
    const subscription = api?.onDidChangeActiveEnvironmentPath?.(() => listener());
    return subscription ? new vscode.Disposable(() => subscription.dispose()) : undefined;
}

function defaultPythons(): Candidate[] {
    if (process.platform === 'win32') {
        return [
            { command: 'py', args: ['-3'], label: 'py -3' },
            { command: 'python', args: [], label: 'python' },
            { command: 'python3', args: [], label: 'python3' },
        ];
    }
    return [
        { command: 'python3', args: [], label: 'python3' },
        { command: 'python', args: [], label: 'python' },
    ];
}

/** The first candidate that runs Python 3.10+ (its version remembered, named by its file, or asked); why the others did not. */
async function firstUsable(
    candidates: Candidate[],
    tried: string[],
    known: KnownVersions | undefined,
): Promise<{ python: Candidate; version: [number, number]; id?: string } | undefined> {
    for (const candidate of candidates) {
        const id = await identity(candidate.command, candidate.args);
        const result = knownVersion(known, id) ?? namedVersion(id) ?? (await pythonVersion(candidate));
        if (typeof result === 'string') {
            tried.push(`${candidate.label}: ${result}`);
            continue;
        }
        if (compare(result, MIN_PYTHON) < 0) {
            tried.push(`${candidate.label}: Python ${result.join('.')} is too old`);
            continue;
        }
        return { python: candidate, version: result, id };
    }
    return undefined;
}

/**
 * `[major, minor]`, or a short reason why the interpreter could not be run. `-S` skips the `site`
 * import (the version is built in): the check's Python starts in about half the time, which counts
 * while VS Code itself starts on the same cores.
 */
function pythonVersion(candidate: Candidate): Promise<[number, number] | string> {
    return new Promise((resolve) => {
        execFile(
            candidate.command,
            [...candidate.args, '-S', '-c', 'import sys; print(sys.version_info[:2])'],
            { timeout: 15000, windowsHide: true },
            (error, stdout) => {
                if (error) {
                    const code = (error as NodeJS.ErrnoException).code;
                    resolve(code === 'ENOENT' ? 'not found' : `failed (${error.message.split('\n')[0]})`);
                    return;
                }
                const match = /\(\s*(\d+)\s*,\s*(\d+)\s*\)/.exec(stdout);
                resolve(match ? [Number(match[1]), Number(match[2])] : `unexpected output ${JSON.stringify(stdout.trim())}`);
            },
        );
    });
}

function compare(a: [number, number], b: [number, number]): number {
    return a[0] !== b[0] ? a[0] - b[0] : a[1] - b[1];
}

function expand(value: string): string {
    if (!value) {
        return value;
    }
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? '';
    let result = value
        .replace(/\$\{userHome\}/g, os.homedir())
        .replace(/\$\{workspaceFolder\}/g, folder)
        .replace(/\$\{env:([^}]+)\}/g, (_, name: string) => process.env[name] ?? '');
    if (result === '~' || result.startsWith('~/')) {
        result = path.join(os.homedir(), result.slice(1));
    }
    return result;
}

/** An absolute path, or a bare name looked up on the PATH. */
async function findExecutable(name: string): Promise<string | undefined> {
    if (path.isAbsolute(name) || name.includes('/') || name.includes('\\')) {
        const file = path.resolve(name);
        return (await isExecutable(file)) ? file : undefined;
    }
    const exts = process.platform === 'win32' ? ['', ...(process.env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';')] : [''];
    for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
        for (const ext of exts) {
            const file = path.join(dir, name + ext);
            if (dir && (await isExecutable(file))) {
                return file;
            }
        }
    }
    return undefined;
}

async function isExecutable(file: string): Promise<boolean> {
    try {
        const stat = await fs.promises.stat(file);
        if (!stat.isFile()) {
            return false;
        }
        if (process.platform !== 'win32') {
            await fs.promises.access(file, fs.constants.X_OK);
        }
        return true;
    } catch {
        return false;
    }
}
