// Which `ckp.*` values the client uses and sends: a pure function of what VS Code's
// `WorkspaceConfiguration.inspect` reports, so that it can be tested without VS Code.
//
// Only explicitly set values count (defaults would hide a bank's `.ckp.toml` on the server).
// Settings that choose a program, an endpoint or where a key goes (package.json's
// `capabilities.untrustedWorkspaces.restrictedConfigurations`) take the user's value only while
// the workspace is not trusted: a cloned repository must not choose what runs or where a key goes.

/** The levels of `WorkspaceConfiguration.inspect(key)` that hold set values. */
export interface Inspected {
    globalValue?: unknown;
    workspaceValue?: unknown;
    workspaceFolderValue?: unknown;
    globalLanguageValue?: unknown;
    workspaceLanguageValue?: unknown;
    workspaceFolderLanguageValue?: unknown;
}

const USER_LEVELS = ['globalValue', 'globalLanguageValue'] as const;
const ALL_LEVELS = [
    'globalValue',
    'workspaceValue',
    'workspaceFolderValue',
    'globalLanguageValue',
    'workspaceLanguageValue',
    'workspaceFolderLanguageValue',
] as const;

export interface Value {
    /** The value to use; undefined when nothing usable is set. */
    value?: unknown;
    /** A workspace value was set and left out because the workspace is not trusted. */
    ignored: boolean;
}

/** The explicitly set value of one setting. */
export function explicitValue(info: Inspected | undefined, userOnly: boolean): Value {
    if (!info) {
        return { ignored: false };
    }
    const levels = (userOnly ? USER_LEVELS : ALL_LEVELS).map((level) => info[level]).filter((v) => v !== undefined);
    const ignored = userOnly && ALL_LEVELS.some((level) => !USER_LEVELS.includes(level as never) && info[level] !== undefined);
    if (levels.length === 0) {
        return { ignored };
    }
    const isObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
    // Objects (ckp.diagnostics) merge across levels like VS Code does; others: the most specific wins.
    const value = levels.every(isObject) ? Object.assign({}, ...(levels as object[])) : levels[levels.length - 1];
    return { value, ignored };
}

export interface Collected {
    /** `{staleness: 'git', llm: {provider: 'openai'}}`: what is sent to the server. */
    settings: Record<string, unknown>;
    /** Restricted settings (`ckp.llm.command`, ...) whose workspace values were left out. */
    ignored: string[];
}

/**
 * The set values of `keys` (relative to `ckp.`), nested by their dots.
 * `restricted` are full names (`ckp.llm.command`), as package.json lists them.
 */
export function collect(
    keys: string[],
    inspect: (key: string) => Inspected | undefined,
    restricted: string[],
    trusted: boolean,
): Collected {
    const settings: Record<string, unknown> = {};
    const ignored: string[] = [];
    for (const key of keys) {
        const userOnly = !trusted && restricted.includes(`ckp.${key}`);
        const found = explicitValue(inspect(key), userOnly);
        if (found.ignored) {
            ignored.push(`ckp.${key}`);
        }
        if (found.value !== undefined) {
            setPath(settings, key.split('.'), found.value);
        }
    }
    return { settings, ignored };
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

/**
 * Which of `names` a settings file (`.vscode/settings.json`, a `.code-workspace`) sets. In
 * Restricted Mode VS Code hides the workspace's values of restricted settings from the API, so
 * the file itself is read to say which were ignored. A textual look for `"name":` is enough for
 * a log line (comments are JSONC's `//` and block comments, removed first).
 */
export function namesSetIn(text: string, names: string[]): string[] {
    const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
    return names.filter((name) => new RegExp(`"${name.replace(/[.]/g, '\\.')}"\\s*:`).test(code));
}
