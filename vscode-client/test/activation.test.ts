// When a file's opening starts the server (src/activation.ts).

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { inBank } from '../src/activation';

test('a file below a memory-bank folder or an _index.md is in a bank; a note beside them is not', () => {
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'ckp-activation-'));
    fs.mkdirSync(path.join(ws, 'memory-bank', 'patterns'), { recursive: true });
    fs.mkdirSync(path.join(ws, 'kb', 'sub'), { recursive: true });
    fs.mkdirSync(path.join(ws, 'docs'));
    fs.writeFileSync(path.join(ws, 'kb', '_index.md'), '# Index\n');
    assert.equal(inBank(path.join(ws, 'memory-bank', 'patterns', 'jwt.md'), ws), true);
    assert.equal(inBank(path.join(ws, 'memory-bank', 'jwt.md'), ws), true);
    assert.equal(inBank(path.join(ws, 'kb', 'sub', 'note.md'), ws), true);
    assert.equal(inBank(path.join(ws, 'kb', '_index.md'), ws), true);
    assert.equal(inBank(path.join(ws, 'docs', 'readme.md'), ws), false);
    assert.equal(inBank(path.join(ws, 'README.md'), ws), false);
});

test('the markers are looked for no higher than the workspace folder', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ckp-activation-'));
    fs.writeFileSync(path.join(root, '_index.md'), '# Index\n');
    const ws = path.join(root, 'project');
    fs.mkdirSync(path.join(ws, 'docs'), { recursive: true });
    assert.equal(inBank(path.join(ws, 'docs', 'a.md'), ws), false);
    assert.equal(inBank(path.join(ws, 'docs', 'a.md')), true);
});
