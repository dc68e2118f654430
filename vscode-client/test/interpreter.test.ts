// The interpreter selected in the Python extension, read through its environments API
// (src/interpreter.ts), with objects of the API's shape.

import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { PythonExtensionExports, selectedInterpreter } from '../src/interpreter';

function api(resolved: unknown, calls: unknown[] = []): PythonExtensionExports {
    return {
        environments: {
            getActiveEnvironmentPath(resource?: unknown) {
                calls.push(['getActiveEnvironmentPath', resource]);
                return { id: 'venv-id', path: '/work/.venv' };
            },
            async resolveEnvironment(env) {
                calls.push(['resolveEnvironment', env]);
                return resolved as never;
            },
        },
    };
}

test('the active environment of the folder gives the interpreter and its version', async () => {
    const calls: unknown[] = [];
    const env = { executable: { uri: { fsPath: '/work/.venv/bin/python' } }, version: { major: 3, minor: 12, micro: 1 } };
    const found = await selectedInterpreter(api(env, calls), 'file:///work');
    assert.deepEqual(found, { path: '/work/.venv/bin/python', version: [3, 12] });
    assert.deepEqual(calls, [
        ['getActiveEnvironmentPath', 'file:///work'],
        ['resolveEnvironment', { id: 'venv-id', path: '/work/.venv' }],
    ]);
});

test('an environment without a resolvable interpreter gives a reason, not a path', async () => {
    const found = await selectedInterpreter(api(undefined));
    assert.equal(typeof found, 'string');
    assert.match(found as string, /\/work\/\.venv/);
    assert.equal(typeof (await selectedInterpreter(api({ executable: {} }))), 'string');
});

test('an old Python extension without the environments API gives a reason', async () => {
    assert.match((await selectedInterpreter({})) as string, /environments API/);
    assert.match((await selectedInterpreter(undefined)) as string, /environments API/);
});

test('a version the extension does not know is left out', async () => {
    const found = await selectedInterpreter(api({ executable: { uri: { fsPath: 'C:\\Python313\\python.exe' } } }));
    assert.deepEqual(found, { path: 'C:\\Python313\\python.exe' });
});
