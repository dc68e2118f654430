// What the extension says about its build and the compiled modules (src/build.ts).

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { describeBuild, describeNative, expectedCompiled, fallbackMessage, readBuild } from '../src/build';

const LINUX = {
    target: 'linux-x64',
    pythons: ['3.10', '3.11', '3.12', '3.13'],
    compiled: { pyyaml: ['3.10', '3.11', '3.12', '3.13'], rapidfuzz: ['3.10', '3.11', '3.12', '3.13'], tomli: ['3.11'] },
    pureFallback: ['rapidfuzz', 'yaml'],
    unavailable: [] as string[],
    source: 'PyPI',
};
const UNIVERSAL = { ...LINUX, target: 'universal', pythons: [], compiled: {}, unavailable: ['sentencex'] };

test('build.json is read from bundled/ and described in one line', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ckp-build-'));
    assert.equal(readBuild(dir), undefined);
    fs.mkdirSync(path.join(dir, 'bundled'));
    fs.writeFileSync(path.join(dir, 'bundled', 'build.json'), JSON.stringify(LINUX));
    const build = readBuild(dir);
    assert.deepEqual(build, LINUX);
    assert.match(describeBuild(build), /^linux-x64 build \(compiled modules: pyyaml for Python 3\.10, 3\.11, 3\.12, 3\.13; rapidfuzz/);
    assert.match(describeBuild(UNIVERSAL), /^universal build \(pure Python: rapidfuzz, yaml without compiled modules; sentencex have no pure-Python code/);
    assert.match(describeBuild(undefined), /development build/);
});

test('compiled modules are expected only for the Pythons the build covers', () => {
    assert.deepEqual(expectedCompiled(LINUX, '3.12'), ['yaml', 'rapidfuzz']);
    assert.deepEqual(expectedCompiled(LINUX, '3.14'), []);
    assert.deepEqual(expectedCompiled(undefined, '3.12'), []);
});

test("the server's report is told in one line, with the pure-Python modules", () => {
    assert.deepEqual(describeNative({ yaml: true, rapidfuzz: true }), {
        line: 'compiled modules in use: yaml, rapidfuzz',
        pure: [],
    });
    assert.deepEqual(describeNative({ yaml: true, rapidfuzz: false }), {
        line: 'compiled modules in use: yaml; pure-Python fallback: rapidfuzz',
        pure: ['rapidfuzz'],
    });
});

test('the fallback message says why, what it costs and what to do', () => {
    const universal = fallbackMessage(UNIVERSAL, '3.12', ['yaml'], 'linux-x64');
    assert.match(universal, /sentencex cannot run at all/);
    assert.match(universal, /universal \(pure-Python\) build/);
    assert.match(universal, /install the build for linux-x64/);
    assert.match(universal, /YAML front matter about 8×/);
    const newer = fallbackMessage(LINUX, '3.14', ['yaml', 'rapidfuzz'], 'linux-x64');
    assert.match(newer, /Python 3\.10, 3\.11, 3\.12, 3\.13, not 3\.14/);
    assert.match(newer, /ckp\.server\.python/);
    assert.match(fallbackMessage(LINUX, '3.12', ['yaml'], 'linux-x64'), /did not load with Python 3\.12/);
});
