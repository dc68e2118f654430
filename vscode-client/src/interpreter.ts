// The interpreter chosen in the Python extension (ms-python.python), through its API — the way
// Microsoft's Python tools extension template finds it. Only the shapes used here are declared,
// so this module needs neither VS Code nor the Python extension to be tested.

export interface PythonEnvironmentsApi {
    getActiveEnvironmentPath(resource?: unknown): { id: string; path: string };
    resolveEnvironment(env: { id: string; path: string } | string): Promise<
        | {
              executable: { uri?: { fsPath: string } };
              version?: { major?: number; minor?: number; micro?: number };
          }
        | undefined
    >;
    onDidChangeActiveEnvironmentPath?: (listener: (event: unknown) => unknown) => { dispose(): unknown };
}

export interface PythonExtensionExports {
    environments?: PythonEnvironmentsApi;
}

export interface SelectedInterpreter {
    /** The executable to run. */
    path: string;
    /** [major, minor] when the Python extension knows it. */
    version?: [number, number];
}

/**
 * The active environment's interpreter for `resource`, or a reason (a string) why there is none
 * to use: an old Python extension without the environments API, an environment it cannot resolve.
 */
export async function selectedInterpreter(
    exports: PythonExtensionExports | undefined,
    resource?: unknown,
): Promise<SelectedInterpreter | string> {
    const api = exports?.environments;
    if (!api || typeof api.getActiveEnvironmentPath !== 'function' || typeof api.resolveEnvironment !== 'function') {
        return 'the Python extension has no environments API (update it)';
    }
    const active = api.getActiveEnvironmentPath(resource);
    const env = await api.resolveEnvironment(active);
    const file = env?.executable?.uri?.fsPath;
    if (!env || !file) {
        return `the selected environment (${active?.path ?? 'none'}) has no interpreter the Python extension can resolve`;
    }
    const { major, minor } = env.version ?? {};
    return typeof major === 'number' && typeof minor === 'number' ? { path: file, version: [major, minor] } : { path: file };
}
