// The interpreters' versions remembered between starts (src/pythons.ts).

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { identity, KNOWN_VERSIONS_KEY, KnownVersions, knownVersion, namedVersion, rememberVersion } from '../src/pythons';

function memento(): KnownVersions & { writes: number; values: Record<string, unknown> } {
    const values: Record<string, unknown> = {};
    return {
        values,
        writes: 0,
        get<T>(key: string) {
            return values[key] as T | undefined;
        },
        update(key: string, value: unknown) {
            this.writes += 1;
            values[key] = value;
        },
    };
}

function executable(dir: string, name: string, content: string | Buffer): string {
    const file = path.join(dir, name);
    fs.writeFileSync(file, content);
    fs.chmodSync(file, 0o755);
    return file;
}

test('an executable found on the PATH is known by its real path, size and time; its version is remembered', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ckp-pythons-'));
    const real = executable(dir, 'python3.12', Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0]));
    fs.symlinkSync(real, path.join(dir, 'python3'));
    const id = await identity('python3', [], dir);
    assert.ok(id?.startsWith(`${fs.realpathSync(real)}|6|`), id);
    assert.equal(await identity(path.join(dir, 'python3'), []), id); // the same file by its path
    const known = memento();
    assert.equal(knownVersion(known, id), undefined);
    await rememberVersion(known, id, [3, 12]);
    assert.deepEqual(knownVersion(known, id), [3, 12]);
    await rememberVersion(known, id, [3, 12]);
    assert.equal(known.writes, 1); // known already: not written at every start
    // rebuilt (another size or time): asked again
    fs.writeFileSync(real, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0]));
    const rebuilt = await identity('python3', [], dir);
    assert.notEqual(rebuilt, id);
    assert.equal(knownVersion(known, rebuilt), undefined);
    // forgotten when the server did not start with it
    await rememberVersion(known, id, undefined);
    assert.equal(knownVersion(known, id), undefined);
    assert.deepEqual(known.values[KNOWN_VERSIONS_KEY], {});
});

test('a shim script, a launcher with arguments and a missing command are always asked', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ckp-pythons-'));
    executable(dir, 'python3', '#!/usr/bin/env bash\nexec pyenv exec python3 "$@"\n');
    assert.equal(await identity('python3', [], dir), undefined);
    executable(dir, 'py', Buffer.from([0x4d, 0x5a, 0, 0]));
    assert.equal(await identity('py', ['-3'], dir), undefined);
    assert.equal(await identity('nosuch-python', [], dir), undefined);
    assert.equal(knownVersion(memento(), undefined), undefined);
});

test('an executable whose real file is named for its version is not asked: the name says it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ckp-pythons-'));
    const real = executable(dir, 'python3.13', Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0]));
    fs.symlinkSync(real, path.join(dir, 'python3'));
    assert.deepEqual(namedVersion(await identity('python3', [], dir)), [3, 13]);
    assert.deepEqual(namedVersion(await identity(real, [])), [3, 13]);
    executable(dir, 'python3.10.exe', Buffer.from([0x4d, 0x5a, 0, 0]));
    assert.deepEqual(namedVersion(await identity(path.join(dir, 'python3.10.exe'), [])), [3, 10]);
    // a file named otherwise (`python`, `python3`, a build's own name) is asked
    const plain = executable(dir, 'python', Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0]));
    assert.equal(namedVersion(await identity(plain, [])), undefined);
    executable(dir, 'python3.12-debug', Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0]));
    assert.equal(namedVersion(await identity(path.join(dir, 'python3.12-debug'), [])), undefined);
    // a shim, a launcher with arguments and a missing command have no identity: asked too
    executable(dir, 'python3.11', '#!/usr/bin/env bash\nexec pyenv exec python3 "$@"\n');
    assert.equal(namedVersion(await identity(path.join(dir, 'python3.11'), [])), undefined);
    assert.equal(namedVersion(undefined), undefined);
});
