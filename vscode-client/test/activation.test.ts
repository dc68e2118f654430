// When a file's opening starts the server (src/activation.ts).

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { bankNearTop, inBank } from '../src/activation';

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

test('a workspace folder that is a bank, holds one or has a folder that does is found without a search', () => {
    const make = () => fs.mkdtempSync(path.join(os.tmpdir(), 'ckp-near-top-'));
    const top = make();
    fs.mkdirSync(path.join(top, 'memory-bank'));
    assert.equal(bankNearTop(top), true);
    const indexed = make();
    fs.writeFileSync(path.join(indexed, '_index.md'), '# Index\n');
    assert.equal(bankNearTop(indexed), true);
    const below = make(); // as the samples: several projects, each with its bank
    fs.mkdirSync(path.join(below, 'broken', 'memory-bank'), { recursive: true });
    fs.mkdirSync(path.join(below, 'docs'));
    assert.equal(bankNearTop(below), true);
    const kb = make();
    fs.mkdirSync(path.join(kb, 'kb'));
    fs.writeFileSync(path.join(kb, 'kb', '_index.md'), '# Index\n');
    assert.equal(bankNearTop(kb), true);
    assert.equal(bankNearTop(path.join(below, 'broken', 'memory-bank')), true); // the bank itself
});

test('a bank deeper than one folder down, or none, is left to the search', () => {
    const deep = fs.mkdtempSync(path.join(os.tmpdir(), 'ckp-near-top-'));
    fs.mkdirSync(path.join(deep, 'a', 'b', 'memory-bank'), { recursive: true });
    fs.writeFileSync(path.join(deep, 'README.md'), '# Readme\n');
    assert.equal(bankNearTop(deep), false);
    assert.equal(bankNearTop(path.join(deep, 'missing')), false);
});
