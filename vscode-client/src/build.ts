// Which build of the extension this is (bundled/build.json, written by scripts/bundle-libs.py)
// and what that means for a given Python: compiled modules or their pure-Python fallback.

import * as fs from 'node:fs';
import * as path from 'node:path';

export interface BuildInfo {
    /** `linux-x64`, `win32-arm64`, … or `universal` (pure Python). */
    target: string;
    /** Python minor versions the platform build carries compiled modules for. */
    pythons: string[];
    /** distribution -> the Python versions it has compiled modules for. */
    compiled: Record<string, string[]>;
    /** Top-level packages whose compiled modules a pure-Python run goes without. */
    pureFallback: string[];
    /** Packages that are compiled code only and cannot run from this build (universal). */
    unavailable: string[];
    source?: string;
}

/** The module names the server reports (native.py) for the distributions the build lists. */
const MODULE_OF: Record<string, string> = { pyyaml: 'yaml', rapidfuzz: 'rapidfuzz' };

export function readBuild(extensionPath: string): BuildInfo | undefined {
    try {
        const raw = JSON.parse(fs.readFileSync(path.join(extensionPath, 'bundled', 'build.json'), 'utf8'));
        return {
            target: String(raw.target ?? 'unknown'),
            pythons: Array.isArray(raw.pythons) ? raw.pythons.map(String) : [],
            compiled: typeof raw.compiled === 'object' && raw.compiled ? raw.compiled : {},
            pureFallback: Array.isArray(raw.pureFallback) ? raw.pureFallback.map(String) : [],
            unavailable: Array.isArray(raw.unavailable) ? raw.unavailable.map(String) : [],
            source: typeof raw.source === 'string' ? raw.source : undefined,
        };
    } catch {
        return undefined;
    }
}

/** One line for the output channel: `linux-x64 build (compiled modules for Python 3.10, 3.11: pyyaml, rapidfuzz)`. */
export function describeBuild(build: BuildInfo | undefined): string {
    if (!build) {
        return 'development build (no bundled/build.json)';
    }
    if (build.target === 'universal') {
        const missing = build.unavailable.length
            ? `; ${build.unavailable.join(', ')} have no pure-Python code and do not run, so the features using them fail`
            : '';
        return `universal build (pure Python: ${build.pureFallback.join(', ') || 'no compiled modules'} without compiled modules${missing})`;
    }
    const compiled = Object.entries(build.compiled)
        .map(([dist, versions]) => `${dist} for Python ${versions.join(', ')}`)
        .join('; ');
    return `${build.target} build (compiled modules: ${compiled || 'none'})${build.source ? `, from ${build.source}` : ''}`;
}

/** The modules (`yaml`, `rapidfuzz`) this build has compiled code for with Python `version` ("3.12"). */
export function expectedCompiled(build: BuildInfo | undefined, version: string): string[] {
    if (!build) {
        return [];
    }
    return Object.entries(build.compiled)
        .filter(([dist, versions]) => MODULE_OF[dist] && versions.includes(version))
        .map(([dist]) => MODULE_OF[dist]);
}

/** The server's own report (`{yaml: true, rapidfuzz: false}`) as one line, and the modules on pure Python. */
export function describeNative(native: Record<string, boolean>): { line: string; pure: string[] } {
    const fast = Object.keys(native).filter((m) => native[m]);
    const pure = Object.keys(native).filter((m) => !native[m]);
    const parts = [];
    if (fast.length) {
        parts.push(`compiled modules in use: ${fast.join(', ')}`);
    }
    if (pure.length) {
        parts.push(`pure-Python fallback: ${pure.join(', ')}`);
    }
    return { line: parts.join('; ') || 'no compiled dependencies', pure };
}

/** What to tell the user, once, when the server runs on pure-Python fallbacks. */
export function fallbackMessage(build: BuildInfo | undefined, version: string, pure: string[], platform: string): string {
    const why =
        !build || build.target === 'universal'
            ? `this is the universal (pure-Python) build of the extension; install the build for ${platform} for native speed`
            : build.pythons.includes(version)
              ? `the compiled modules of the ${build.target} build did not load with Python ${version} (see the CKP output)`
              : `the ${build.target} build has compiled modules for Python ${build.pythons.join(', ')}, not ${version}; select one of those (ckp.server.python)`;
    const missing = build?.unavailable.length
        ? `${build.unavailable.join(', ')} cannot run at all without their compiled modules. `
        : '';
    return (
        `CKP: the language server runs without compiled modules (${pure.join(', ')}): ${why}. ${missing}` +
        'It works the same, but reading a bank at start is slower: headers in YAML front matter about 8× ' +
        '(about 1 ms a file instead of 0.13 ms), bare headers about 1.2×. ' +
        'Alternatively set ckp.server.path to a ckp-lsp installed with pip.'
    );
}

/** `process.platform`-`process.arch` as a vsce target name. */
export function hostTarget(): string {
    return `${process.platform}-${process.arch}`;
}
