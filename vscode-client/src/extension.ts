// VS Code client for the CKP language server (ckp-lsp).

import * as vscode from 'vscode';
import {
    ConfigurationParams,
    DidChangeConfigurationNotification,
    ExecuteCommandRequest,
    LanguageClient,
    LanguageClientOptions,
    RevealOutputChannelOn,
    ServerOptions,
    State,
    TransportKind,
} from 'vscode-languageclient/node';
import { BANK_GLOBS, bankNearTop, inBank } from './activation';
import { CommandResult, recompileLog } from './outcome';
import { parseRouteResult, showRouteResult } from './route';
import { describeBuild, describeNative, expectedCompiled, fallbackMessage, hostTarget } from './build';
import { onPythonChanged, PYTHON_EXTENSION, resolveServer, ServerLaunch, ServerNotFoundError } from './server';
import { clientSetting, declareSettings, explicitSettings, ignoredSettings, settingsSubtree } from './settings';

/**
 * Commands the server implements (workspace/executeCommand). vscode-languageclient registers
 * every command the server advertises as a VS Code command of the same id, so the palette
 * commands of this extension use the distinct ids `ckp.client.*` to avoid a clash.
 */
const SERVER_COMMANDS = {
    recompile: 'ckp.recompile',
    route: 'ckp.route',
    regenerateIndex: 'ckp.regenerateIndex',
} as const;

interface StatusParams {
    concepts?: number;
    errors?: number;
    warnings?: number;
    banks?: number;
}

let client: LanguageClient | undefined;
let output: vscode.OutputChannel;
let statusItem: vscode.StatusBarItem;
let extensionPath: string;
let starting: Promise<void> | undefined;
let watchers: vscode.FileSystemWatcher[] = [];
let memento: vscode.Memento;
let pythonWatch: vscode.Disposable | undefined;
/** When the server was asked to start (activation, or a restart): the start's timings count from it. */
let startedAt = 0;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
    extensionPath = context.extensionPath;
    memento = context.globalState;
    const manifest = context.extension.packageJSON ?? {};
    declareSettings(
        Object.keys(manifest.contributes?.configuration?.properties ?? {}),
        manifest.capabilities?.untrustedWorkspaces?.restrictedConfigurations ?? [],
    );
    output = vscode.window.createOutputChannel('CKP');
    statusItem = vscode.window.createStatusBarItem('ckp.status', vscode.StatusBarAlignment.Left, 0);
    statusItem.name = 'CKP';
    statusItem.command = 'ckp.showOutput';
    context.subscriptions.push(output, statusItem);

    context.subscriptions.push(
        vscode.commands.registerCommand('ckp.client.recompile', (uri?: vscode.Uri) => recompile(uri)),
        vscode.commands.registerCommand('ckp.client.route', () => route()),
        vscode.commands.registerCommand('ckp.client.regenerateIndex', (uri?: vscode.Uri) => regenerateIndex(uri)),
        vscode.commands.registerCommand('ckp.restartServer', () => restart()),
        vscode.commands.registerCommand('ckp.showOutput', () => output.show(true)),
        vscode.workspace.onDidChangeConfiguration((event) => {
            if (event.affectsConfiguration('ckp.server')) {
                output.appendLine('[client] ckp.server settings changed: restarting the server');
                void restart();
            } else if (event.affectsConfiguration('ckp') && client?.state === State.Running) {
                // Only the settings the user set: defaults must not hide a bank's .ckp.toml.
                void client.sendNotification(DidChangeConfigurationNotification.type, {
                    settings: { ckp: explicitSettings() },
                });
            }
        }),
        vscode.workspace.onDidGrantWorkspaceTrust(() => {
            output.appendLine('[client] the workspace is trusted now: restarting the server with its settings');
            void restart();
        }),
        { dispose: () => pythonWatch?.dispose() },
    );
    output.appendLine(
        `[client] CKP extension ${manifest.version ?? ''} for ${hostTarget()}, VS Code ${vscode.version}` +
            (vscode.workspace.isTrusted ? '' : ', Restricted Mode (untrusted workspace)'),
    );

    // Activated by opening a Markdown file (before VS Code's search of the workspace ends), by a
    // bank at the top of a workspace folder (as soon as the window opens) or by that search: start
    // the server as soon as a file of a bank is open, a folder at the top is a bank, or the search
    // finds one.
    let requested = false;
    const startOnce = async () => {
        if (!requested) {
            requested = true;
            await start();
        }
    };
    const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
    if (vscode.workspace.textDocuments.some(isBankDocument) || folders.some((f) => bankNearTop(f.uri.fsPath))) {
        await startOnce();
        return;
    }
    const opened = vscode.workspace.onDidOpenTextDocument((document) => {
        if (isBankDocument(document)) {
            opened.dispose();
            void startOnce();
        }
    });
    context.subscriptions.push(opened);
    const found = await vscode.workspace.findFiles(`{${BANK_GLOBS.join(',')}}`, undefined, 1);
    if (found.length) {
        opened.dispose();
        await startOnce();
    }
}

/** A Markdown file on disk inside a bank, below its workspace folder. */
function isBankDocument(document: vscode.TextDocument): boolean {
    if (document.uri.scheme !== 'file' || document.languageId !== 'markdown') {
        return false;
    }
    const folder = vscode.workspace.getWorkspaceFolder(document.uri);
    return folder !== undefined && inBank(document.uri.fsPath, folder.uri.fsPath);
}

async function showReferences(uri: string, position: { line: number; character: number }): Promise<void> {
    const target = vscode.Uri.parse(uri);
    const at = new vscode.Position(position.line, position.character);
    const locations =
        (await vscode.commands.executeCommand<vscode.Location[]>('vscode.executeReferenceProvider', target, at)) ?? [];
    await vscode.commands.executeCommand('editor.action.showReferences', target, at, locations);
}

export async function deactivate(): Promise<void> {
    await stop();
}

function setStatus(text: string, tooltip: string, error = false): void {
    statusItem.text = text;
    statusItem.tooltip = tooltip;
    statusItem.backgroundColor = error ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    statusItem.show();
}

function start(): Promise<void> {
    starting ??= startClient().finally(() => {
        starting = undefined;
    });
    return starting;
}

async function startClient(): Promise<void> {
    setStatus('$(sync~spin) CKP', 'CKP language server is starting');
    const log = (line: string) => output.appendLine(`[client] ${line}`);
    startedAt = Date.now();
    const since = () => `${Date.now() - startedAt} ms`;
    let firstDiagnostics = true;

    let launch;
    try {
        launch = await resolveServer(extensionPath, log, memento);
    } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        log(message);
        setStatus('$(error) CKP: no server', message, true);
        if (error instanceof ServerNotFoundError) {
            const choices = ['Open Settings', 'Show Output'];
            if (vscode.extensions.getExtension(PYTHON_EXTENSION)) {
                choices.unshift('Select Interpreter');
            }
            void vscode.window.showErrorMessage(message, ...choices).then((choice) => {
                if (choice === 'Select Interpreter') {
                    void vscode.commands.executeCommand('python.setInterpreter');
                } else if (choice === 'Open Settings') {
                    void vscode.commands.executeCommand('workbench.action.openSettings', 'ckp.server');
                } else if (choice === 'Show Output') {
                    output.show(true);
                }
            });
        }
        return;
    }
    log(`starting ${launch.description} (server found in ${since()})`);
    if (launch.bundled) {
        log(`build: ${describeBuild(launch.bundled.build)}`);
    }
    const ignored = await ignoredSettings();
    if (ignored.length) {
        log(
            `Restricted Mode: the workspace's values of ${ignored.join(', ')} are ignored ` +
                '(user settings apply); trust the workspace to use them',
        );
    }
    pythonWatch?.dispose();
    pythonWatch = undefined;
    if (!clientSetting('server.path') && !clientSetting('server.python')) {
        pythonWatch = onPythonChanged(() => {
            log('the interpreter selected in the Python extension changed: restarting the server');
            void restart();
        });
    }

    const serverOptions: ServerOptions = {
        command: launch.command,
        args: launch.args,
        transport: TransportKind.stdio, // the client appends --stdio
        options: { env: launch.env },
    };
    watchers = [
        vscode.workspace.createFileSystemWatcher('**/*.md'),
        vscode.workspace.createFileSystemWatcher('**/.ckp.toml'),
    ];
    const clientOptions: LanguageClientOptions = {
        documentSelector: [{ scheme: 'file', language: 'markdown' }],
        // No `synchronize.configurationSection`: it would send every setting with its default,
        // and the server lets editor settings override `.ckp.toml`. The client sends (and answers
        // workspace/configuration with) only the settings the user has set.
        synchronize: { fileEvents: watchers },
        // The settings, and what VS Code's hover shows besides the server's (LSP has no capability
        // for it): the diagnostics at the position and a link's tooltip, which the server's hover
        // then does not repeat.
        initializationOptions: {
            ckp: explicitSettings(),
            editor: { hoverShowsDiagnostics: true, hoverShowsLinkTooltips: true },
        },
        middleware: {
            // The start's last timing: the first findings the editor shows.
            provideDiagnostics: async (document, previousResultId, token, next) => {
                const report = await next(document, previousResultId, token);
                if (firstDiagnostics && report && 'items' in report && report.items.length) {
                    firstDiagnostics = false;
                    log(`first diagnostics ${since()} after the start`);
                }
                return report;
            },
            // The code lens on CONCEPT carries `ckp.showReferences` [uri, position]. The server lists
            // it (so that every editor may run it) and vscode-languageclient registers it as a VS Code
            // command; here it opens VS Code's references view instead of asking the server.
            executeCommand: (command, args, next) =>
                command === 'ckp.showReferences' ? showReferences(args[0], args[1]) : next(command, args),
            workspace: {
                configuration: async (params: ConfigurationParams, token, next) => {
                    const answers = await next(params, token);
                    if (!Array.isArray(answers)) {
                        return answers;
                    }
                    return params.items.map((item, i) => {
                        if (item.section !== 'ckp' && !item.section?.startsWith('ckp.')) {
                            return answers[i];
                        }
                        const scope = item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined;
                        return settingsSubtree(explicitSettings(scope), item.section.slice('ckp'.length + 1));
                    });
                },
            },
        },
        outputChannel: output,
        traceOutputChannel: output,
        revealOutputChannelOn: RevealOutputChannelOn.Never,
    };

    const newClient = new LanguageClient('ckp', 'CKP', serverOptions, clientOptions);
    newClient.onNotification('ckp/status', (params: StatusParams) => {
        const concepts = params.concepts ?? 0;
        const errors = params.errors ?? 0;
        const warnings = params.warnings ?? 0;
        setStatus(
            `$(book) CKP: ${concepts} ${concepts === 1 ? 'concept' : 'concepts'} · ${errors} ${errors === 1 ? 'error' : 'errors'}`,
            `CKP: ${params.banks !== undefined ? `${params.banks} ${params.banks === 1 ? 'bank' : 'banks'}, ` : ''}` +
                `${concepts} concepts, ${errors} errors, ${warnings} warnings — click to show the CKP output`,
        );
    });
    if (launch.bundled) {
        // The server says which compiled modules it loaded (ckp/native, right after initialize).
        newClient.onNotification('ckp/native', (native: Record<string, boolean>) => {
            void reportNative(launch, native, log);
        });
    }
    newClient.onDidChangeState((event) => {
        if (event.newState === State.Stopped && client === newClient) {
            setStatus('$(error) CKP: stopped', 'The CKP language server stopped — see the CKP output', true);
        }
    });
    client = newClient;
    try {
        await newClient.start();
        log(`server running ${since()} after the start`);
        if (statusItem.text.startsWith('$(sync~spin)')) {
            setStatus('$(book) CKP', `CKP language server running: ${launch.description}`);
        }
    } catch (error) {
        const message = `CKP: the language server failed to start (${error instanceof Error ? error.message : String(error)}).`;
        log(message);
        await launch.forget?.(); // its interpreter's version is asked again at the next start
        setStatus('$(error) CKP: failed', message, true);
        void vscode.window.showErrorMessage(`${message} See the CKP output for details.`, 'Show Output').then((choice) => {
            if (choice) {
                output.show(true);
            }
        });
    }
}

/**
 * Whether the bundled server's compiled modules load with its interpreter (the server's own
 * check, ckp_lsp/server/native.py, sent as ckp/native): logged, and said once per build and
 * Python version when the server falls back to pure Python.
 */
async function reportNative(
    launch: ServerLaunch,
    native: Record<string, boolean>,
    log: (line: string) => void,
): Promise<void> {
    const bundled = launch.bundled;
    if (!bundled || typeof native !== 'object' || native === null) {
        return;
    }
    const version = bundled.version.join('.');
    const { line, pure } = describeNative(native);
    const expected = expectedCompiled(bundled.build, version);
    log(`Python ${version}: ${line}${expected.length ? ` (the build has compiled ${expected.join(', ')} for Python ${version})` : ''}`);
    if (pure.length === 0) {
        return;
    }
    const message = fallbackMessage(bundled.build, version, pure, hostTarget());
    log(message);
    const key = `ckp.pureFallbackShown:${bundled.build?.target ?? 'dev'}:${version}`;
    if (memento.get<boolean>(key)) {
        return;
    }
    await memento.update(key, true);
    void vscode.window.showInformationMessage(message, 'Show Output').then((choice) => {
        if (choice) {
            output.show(true);
        }
    });
}

async function stop(): Promise<void> {
    const old = client;
    client = undefined;
    for (const watcher of watchers) {
        watcher.dispose();
    }
    watchers = [];
    if (old) {
        try {
            await old.stop();
        } catch (error) {
            output.appendLine(`[client] stopping the server: ${error}`);
        }
    }
}

async function restart(): Promise<void> {
    await starting;
    await stop();
    await start();
}

async function runningClient(): Promise<LanguageClient | undefined> {
    await starting;
    if (!client || client.state !== State.Running) {
        const choice = await vscode.window.showErrorMessage(
            'CKP: the language server is not running.',
            'Restart Server',
            'Show Output',
        );
        if (choice === 'Restart Server') {
            await restart();
        } else if (choice === 'Show Output') {
            output.show(true);
        }
        return undefined;
    }
    return client;
}

function targetUri(uri: vscode.Uri | undefined): vscode.Uri | undefined {
    if (uri instanceof vscode.Uri) {
        return uri;
    }
    const doc = vscode.window.activeTextEditor?.document;
    return doc && doc.uri.scheme === 'file' ? doc.uri : undefined;
}

async function executeServerCommand(command: string, args: unknown[], title: string): Promise<unknown> {
    const c = await runningClient();
    if (!c) {
        return undefined;
    }
    // A status-bar spinner: the server reports progress of long work (an LLM) itself.
    return vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title }, async () => {
        try {
            return await c.sendRequest(ExecuteCommandRequest.type, { command, arguments: args });
        } catch (error) {
            const message = error instanceof Error ? error.message : String(error);
            output.appendLine(`[client] ${command} failed: ${message}`);
            void vscode.window.showErrorMessage(`CKP: ${title.replace(/…$/, '')} failed: ${message}`);
            return undefined;
        }
    });
}

async function recompile(uri?: vscode.Uri): Promise<void> {
    const target = targetUri(uri);
    if (!target) {
        void vscode.window.showWarningMessage('CKP: open a knowledge file to recompile its header.');
        return;
    }
    const result = (await executeServerCommand(
        SERVER_COMMANDS.recompile,
        [target.toString()],
        `CKP: recompiling the header of ${vscode.workspace.asRelativePath(target)}…`,
    )) as CommandResult | undefined;
    // The server has told the user of every failure itself; a declined preview is the user's choice.
    output.appendLine(`[client] ${recompileLog(result)}`);
}

async function regenerateIndex(uri?: vscode.Uri): Promise<void> {
    const target = targetUri(uri) ?? vscode.workspace.workspaceFolders?.[0]?.uri;
    if (!target) {
        void vscode.window.showWarningMessage('CKP: open a file of a memory bank to regenerate its index.');
        return;
    }
    const result = (await executeServerCommand(
        SERVER_COMMANDS.regenerateIndex,
        [target.toString()],
        'CKP: regenerating the index…',
    )) as CommandResult | undefined;
    if (result?.applied === false) {
        void vscode.window.showInformationMessage(
            result.reason ? `CKP: the index was not regenerated: ${result.reason}` : 'CKP: the index is up to date.',
        );
    }
}

async function route(): Promise<void> {
    const query = await vscode.window.showInputBox({
        title: 'CKP: Preview routing for a query',
        prompt: 'Which files would an agent load for this query?',
        placeHolder: 'e.g. how does the JWT refresh work?',
        ignoreFocusOut: true,
    });
    if (!query?.trim()) {
        return;
    }
    const bank = targetUri(undefined);
    const params: { query: string; bank?: string } = { query };
    if (bank) {
        params.bank = bank.toString();
    }
    const raw = await executeServerCommand(SERVER_COMMANDS.route, [params], 'CKP: routing…');
    if (raw === undefined || raw === null) {
        return;
    }
    try {
        const result = parseRouteResult(raw);
        output.appendLine(`[route] ${query}`);
        output.appendLine(`[route] ${result.declaration}`);
        await showRouteResult(result, query, bank);
    } catch (error) {
        void vscode.window.showErrorMessage(`CKP: ${error instanceof Error ? error.message : String(error)}`);
    }
}
