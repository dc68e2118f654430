// What Recompile from the palette logs (src/outcome.ts); it shows no notification of its own.

import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { recompileLog } from '../src/outcome';

test('a discarded Refactor Preview is logged as declined', () => {
    assert.equal(recompileLog({ applied: false, reason: 'declined' }), 'recompile: not applied (declined)');
});

test('an applied recompile and a missing answer are logged too', () => {
    assert.equal(recompileLog({ applied: true }), 'recompile: applied');
    assert.equal(recompileLog(undefined), 'recompile: no answer from the server');
    assert.equal(recompileLog({ applied: false }), 'recompile: not applied (no reason given)');
});
