// Drives code-server (VS Code in the browser) through headless Chromium and checks what a user
// of the CKP extension sees. Called by test_vscode.py:  node drive.mjs CONFIG.json
//
// CONFIG: {
//   url:          "http://127.0.0.1:PORT/?folder=/abs/workspace",
//   artifacts:    directory for screenshots (created),
//   profileDir:   Chromium profile directory,
//   chromium:     path of the Chromium executable,
//   file:         path of the knowledge file, relative to the workspace (typed into Ctrl+P),
//   token:        exact text of a SIMILAR entry in that file that carries a diagnostic, e.g. "oauth2:2024-01",
//   concept:      the concept named by that entry (the mouse hovers it),
//   expectHover:  text the hover must contain (the related concept's TLDR), or a list of
//                 alternatives (a header that repeats TLDR),
//   quickFix:     title of the code action to apply, e.g. "Recompile header",
//   expectPreview: the action's edit needs confirmation: require the Refactor Preview, then Apply;
//                 false: require that it applies at once, without a preview, one edit per changed line,
//   paletteRecompile: run "CKP: Recompile header" from the palette twice (the second finds the
//                 header up to date): neither may show a notification,
//   routeQuery:   a query for "CKP: Preview routing for a query",
//   routeExpect:  a concept the routing must load,
//   timeoutMs:    per-step timeout,
//   deleteFile:   absolute path of a file with findings, not open: deleted on disk, its
//                 findings must leave the Problems panel and the status bar's count, optional,
//   secondFile:   another file with findings, opened last (the server is running): its squiggle's
//                 time, optional,
//   stopAfter:    "squiggles" to end there (the server runs and reports), optional,
//   expectNotification: instead of all the above, wait for a notification holding this text
// }
// Prints one JSON line with the findings; exits 1 when a check fails (after a screenshot).

import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';

const config = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const T = config.timeoutMs ?? 30000;
// `epochs`: wall-clock times (ms since 1970) of what the user saw, for the test's start timeline
const result = { checks: {}, timings: {}, epochs: {}, notifications: [], console: [] };
const started = Date.now();
let page;
let context;
let shot = 0;
let markersShown;
let firstSquiggle;

fs.mkdirSync(config.artifacts, { recursive: true });

function log(message) {
    process.stderr.write(`[drive ${((Date.now() - started) / 1000).toFixed(1)}s] ${message}\n`);
}

async function screenshot(name) {
    shot += 1;
    const file = path.join(config.artifacts, `${String(shot).padStart(2, '0')}-${name}.png`);
    try {
        await page.screenshot({ path: file });
    } catch (error) {
        log(`screenshot ${name} failed: ${error}`);
    }
    return file;
}

async function step(name, fn) {
    const t0 = Date.now();
    log(`step: ${name}`);
    try {
        const value = await fn();
        result.timings[name] = Date.now() - t0;
        return value;
    } catch (error) {
        result.timings[name] = Date.now() - t0;
        result.failedStep = name;
        throw error;
    }
}

const norm = (s) => (s ?? '').replace(/\u00a0/g, ' ').replace(/[*_`]/g, '').replace(/\s+/g, ' ').trim();

/** Text of the editor's rendered lines (what the user sees), top to bottom. */
async function editorText() {
    return page.evaluate(() => {
        const editor = document.querySelector('.editor-group-container.active .monaco-editor .view-lines')
            ?? document.querySelector('.monaco-editor .view-lines');
        if (!editor) return '';
        const lines = [...editor.querySelectorAll('.view-line')];
        lines.sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top));
        return lines.map((l) => l.textContent.replace(/\u00a0/g, ' ')).join('\n');
    });
}

/** Screen coordinates of the middle of `needle` (optionally of `part` inside it) in the editor. */
async function locateText(needle, part) {
    return page.evaluate(({ needle, part }) => {
        const lines = document.querySelectorAll('.editor-group-container.active .monaco-editor .view-line');
        for (const line of lines) {
            const text = line.textContent.replace(/\u00a0/g, ' ');
            const at = text.indexOf(needle);
            if (at < 0) continue;
            const offset = at + (part ? Math.max(0, needle.indexOf(part)) : 0);
            const length = part ? part.length : needle.length;
            const target = offset + Math.floor(length / 2);
            // Find the text node and offset of character `target`.
            const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
            let seen = 0;
            for (let node = walker.nextNode(); node; node = walker.nextNode()) {
                const n = node.textContent.length;
                if (seen + n > target) {
                    const range = document.createRange();
                    range.setStart(node, target - seen);
                    range.setEnd(node, target - seen + 1);
                    const r = range.getBoundingClientRect();
                    return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
                }
                seen += n;
            }
        }
        return null;
    }, { needle, part });
}

async function visibleNotifications() {
    return page.evaluate(() =>
        [...document.querySelectorAll('.notifications-toasts .notification-list-item, .notifications-center .notification-list-item')]
            .map((n) => n.textContent.trim()),
    );
}

/** Ctrl+P, type `file`, Enter on its row: when Enter was pressed and the tab showed (ms since 1970). */
async function quickOpen(file) {
    const base = path.basename(file);
    for (let attempt = 1; ; attempt++) {
        await page.keyboard.press('Control+P');
        try {
            await page.waitForSelector('.quick-input-widget input', { state: 'visible', timeout: 5000 });
            await page.keyboard.type(file, { delay: 5 });
            const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: base }).first();
            await row.waitFor({ timeout: 15000 });
            const enter = Date.now();
            await page.keyboard.press('Enter');
            await page.waitForSelector(`.tab.active[aria-label*="${base}"], .tab.active:has-text("${base}")`, { timeout: 10000 });
            const tab = Date.now();
            await page.waitForSelector('.editor-group-container.active .monaco-editor .view-line', { timeout: T });
            return { enter, tab };
        } catch (error) {
            if (attempt >= 3) throw error;
            log(`quick open attempt ${attempt} failed (${String(error).split('\n')[0]}), retrying`);
            await page.keyboard.press('Escape');
        }
    }
}

const SQUIGGLE =
    '.editor-group-container.active .monaco-editor .squiggly-warning, ' +
    '.editor-group-container.active .monaco-editor .squiggly-error, ' +
    '.editor-group-container.active .monaco-editor .squiggly-info';

/**
 * When `seen(arg)` first returns a time (it returns the page's `Date.now()`, ms since 1970, the
 * clock of this process too): looked at in the page every 50 ms from now on, so that a
 * screenshot or a slow round trip of this process meanwhile does not delay the time taken.
 */
function shownAt(seen, arg, timeout = T) {
    return page.waitForFunction(seen, arg, { timeout, polling: 50 }).then((handle) => handle.jsonValue());
}

/**
 * When a squiggle shows in the active editor, once its tab is `base` (any tab when not given);
 * watched from before the file is opened, so given as long as the Problems count is.
 */
function squiggleShown(base) {
    return shownAt(
        ({ selector, base }) =>
            document.querySelector(selector) !== null &&
            (!base || document.querySelector(`.tab.active[aria-label*="${base}"]`) !== null) &&
            Date.now(),
        { selector: SQUIGGLE, base },
        60000,
    );
}

// Ctrl+Shift+M toggles the Problems panel, and a press that lands while the panel is still
// opening or closing is lost or undone: press until the panel is in the state asked for.
async function problemsPanel(open) {
    const panel = page.locator('.markers-panel').first();
    for (let press = 0; press < 4; press++) {
        if ((await panel.isVisible()) === open) return;
        await page.keyboard.press('Control+Shift+M');
        try {
            await panel.waitFor({ state: open ? 'visible' : 'hidden', timeout: 5000 });
            return;
        } catch {
            // not yet: look again, press again
        }
    }
    if ((await panel.isVisible()) !== open) {
        throw new Error(`the Problems panel did not ${open ? 'open' : 'close'} after four presses of Ctrl+Shift+M`);
    }
}

async function main() {
    context = await chromium.launchPersistentContext(config.profileDir, {
        executablePath: config.chromium,
        headless: true,
        viewport: { width: 1400, height: 900 },
        args: [
            '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
            '--disable-background-networking', '--disable-component-update', '--disable-sync',
            '--disable-dev-shm-usage',
        ],
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (msg) => {
        if (msg.type() === 'error' && result.console.length < 30) result.console.push(msg.text().slice(0, 300));
    });

    await step('open workbench', async () => {
        await page.goto(config.url, { timeout: T });
        await page.waitForSelector('.monaco-workbench', { timeout: T });
        // The explorer shows the folder once the remote file system is ready.
        await page.waitForSelector('.explorer-folders-view .monaco-list-row', { timeout: T });
        result.epochs.workbench = Date.now();
        await screenshot('workbench');
    });

    if (config.expectNotification) {
        // The extension could not start the server: its notification says what to do.
        await step('notification', async () => {
            const toast = page.locator('.notifications-toasts .notification-list-item', { hasText: config.expectNotification }).first();
            await toast.waitFor({ timeout: T });
            result.checks.notification = norm(await toast.textContent());
            result.checks.notificationButtons = (await toast.locator('.monaco-button').allTextContents()).map(norm);
            const status = page.locator('.statusbar-item', { hasText: 'CKP' }).first();
            result.checks.statusBar = norm(await status.textContent().catch(() => ''));
            await screenshot('notification');
        });
        return;
    }

    await step('open file (Ctrl+P)', async () => {
        // When the first findings reach the workbench: the status bar's Problems counts (VS Code's
        // own item), watched in the page while the file opens and its squiggles are awaited.
        markersShown = shownAt(() => {
            const item = document.getElementById('status.problems');
            return item !== null && /[1-9]/.test(item.getAttribute('aria-label') ?? item.textContent ?? '') && Date.now();
        }, null, 60000).then((at) => {
            result.epochs.markers = at;
        }, () => {});
        firstSquiggle = squiggleShown();
        firstSquiggle.catch(() => {}); // awaited in the next step
        const opened = await quickOpen(config.file);
        result.timings.openedAt = opened.enter - started;
        result.epochs.opened = opened.enter;
        result.epochs.tab = opened.tab;
        await screenshot('file-open');
    });

    await step('squiggles', async () => {
        // From Enter in Quick Open to the first squiggle: what the user waits for.
        result.epochs.squiggle = await firstSquiggle;
        result.timings.firstSquiggleMs = result.epochs.squiggle - result.epochs.opened;
        await Promise.race([markersShown, new Promise((resolve) => setTimeout(resolve, 5000))]);
        log(`first squiggle ${result.timings.firstSquiggleMs} ms after the file was opened`);
        result.checks.squiggles = await page.evaluate(() =>
            ['error', 'warning', 'info', 'hint'].reduce((acc, kind) => {
                acc[kind] = document.querySelectorAll(`.editor-group-container.active .monaco-editor .squiggly-${kind}`).length;
                return acc;
            }, {}),
        );
        await screenshot('squiggles');
    });
    if (config.stopAfter === 'squiggles') return;

    await step('status bar', async () => {
        // Filled by the server's ckp/status notification: "CKP: 24 concepts · 13 errors".
        const item = page.locator('.statusbar-item', { hasText: /CKP: \d+ concepts? · \d+ errors?/ }).first();
        try {
            await item.waitFor({ timeout: T });
        } catch {
            const any = await page.locator('.statusbar-item', { hasText: 'CKP' }).allTextContents();
            throw new Error(`no "CKP: N concepts · M errors" in the status bar; CKP items: ${JSON.stringify(any.map(norm))}`);
        }
        result.checks.statusBar = norm(await item.textContent());
    });

    await step('problems panel (Ctrl+Shift+M)', async () => {
        await problemsPanel(true);
        await page.waitForSelector('.markers-panel .monaco-list-row', { timeout: T });
        const rows = page.locator('.markers-panel .monaco-list-row');
        let texts = [];
        const deadline = Date.now() + T;
        while (Date.now() < deadline) {
            texts = (await rows.allTextContents()).map(norm);
            if (texts.some((t) => /CKP\d{3}/.test(t))) break;
            await page.waitForTimeout(250);
        }
        result.checks.problems = texts.slice(0, 20);
        await screenshot('problems');
        if (!texts.some((t) => /CKP\d{3}/.test(t))) {
            throw new Error(`no CKP finding in the Problems panel: ${JSON.stringify(texts)}`);
        }
        await problemsPanel(false);
    });

    if (config.deleteFile) {
        await step('deleted file leaves Problems', async () => {
            // A file with findings, not open, deleted on disk (as an agent or a rename does): its
            // rows leave the Problems panel and the status bar's error count drops.
            const base = path.basename(config.deleteFile);
            const count = async () => Number(/(\d+) errors?/.exec(norm(await page.locator('.statusbar-item',
                { hasText: /CKP: \d+ concepts?/ }).first().textContent()))?.[1] ?? NaN);
            const fileRows = async () => (await page.locator('.markers-panel .monaco-list-row').allTextContents())
                .map(norm).filter((t) => t.includes(base));
            await problemsPanel(true);
            await page.waitForSelector('.markers-panel .monaco-list-row', { timeout: T });
            let deadline = Date.now() + T;
            while (Date.now() < deadline && (await fileRows()).length === 0) await page.waitForTimeout(200);
            const before = await fileRows();
            if (before.length === 0) throw new Error(`no Problems row for ${base} before deleting it`);
            result.checks.errorsBeforeDelete = await count();
            fs.rmSync(config.deleteFile);
            const t0 = Date.now();
            deadline = Date.now() + T;
            let rows = before;
            while (Date.now() < deadline && rows.length) {
                await page.waitForTimeout(200);
                rows = await fileRows();
            }
            result.timings.problemsEmptiedMs = Date.now() - t0;
            await screenshot('deleted-file');
            if (rows.length) throw new Error(`${base} was deleted, its Problems rows stayed: ${JSON.stringify(rows)}`);
            deadline = Date.now() + T;
            while (Date.now() < deadline && !((await count()) < result.checks.errorsBeforeDelete)) {
                await page.waitForTimeout(200);
            }
            result.checks.errorsAfterDelete = await count();
            if (!(result.checks.errorsAfterDelete < result.checks.errorsBeforeDelete)) {
                throw new Error(`the status bar still counts ${result.checks.errorsAfterDelete} errors after ${base} was deleted`);
            }
            await problemsPanel(false);
        });
    }

    await step('hover a SIMILAR entry', async () => {
        const pos = await locateText(config.token, config.concept);
        if (!pos) throw new Error(`entry ${config.token} not found in the editor:\n${await editorText()}`);
        const expected = [config.expectHover].flat().map((t) => norm(t).slice(0, 80));
        const hoverHas = async (timeout) => {
            // Any visible hover that shows one of the expected texts.
            const deadline = Date.now() + timeout;
            while (Date.now() < deadline) {
                const texts = (await page.locator('.monaco-hover:not(.hidden)').allTextContents()).map(norm);
                const hit = texts.find((t) => expected.some((e) => t.includes(e)));
                if (hit) return hit;
                await page.waitForTimeout(150);
            }
            return null;
        };
        await page.mouse.move(pos.x - 40, pos.y + 60);
        await page.mouse.move(pos.x, pos.y, { steps: 5 });
        let text = await hoverHas(8000);
        result.checks.hoverVia = 'mouse';
        if (text === null) {
            // The mouse hover can miss in a headless browser; ask for the same hover from the keyboard.
            log('mouse hover did not show the TLDR, trying editor.action.showHover (Ctrl+K Ctrl+I)');
            await page.mouse.click(pos.x, pos.y);
            await page.keyboard.press('Control+K');
            await page.keyboard.press('Control+I');
            text = await hoverHas(10000);
            result.checks.hoverVia = 'keyboard';
        }
        await screenshot('hover');
        if (text === null) {
            const seen = await page.locator('.monaco-hover').allTextContents();
            throw new Error(`hover over ${config.token} did not show ${JSON.stringify(expected)}; hovers seen: ${JSON.stringify(seen.map(norm))}`);
        }
        result.checks.hover = text.slice(0, 2000);
        await page.keyboard.press('Escape');
        await page.mouse.move(5, 880);
    });

    await step('quick fix (Ctrl+.)', async () => {
        const before = await editorText();
        const pos = await locateText(config.token, config.concept);
        await page.mouse.click(pos.x, pos.y);
        await page.keyboard.press('Escape');
        await page.keyboard.press('Control+.');
        const menu = page.locator('.action-widget');
        await menu.waitFor({ state: 'visible', timeout: T });
        const item = menu.locator('.monaco-list-row', { hasText: config.quickFix }).first();
        try {
            await item.waitFor({ state: 'visible', timeout: 10000 });
        } catch (error) {
            await screenshot('quickfix-menu');
            throw new Error(`"${config.quickFix}" not offered; menu: ${JSON.stringify(norm(await menu.textContent()))}`);
        }
        result.checks.quickFixMenu = (await menu.locator('.monaco-list-row').allTextContents()).map(norm);
        await screenshot('quickfix-menu');
        // Select it from the keyboard (a pointer-block overlay swallows clicks on the menu).
        for (let i = 0; i < 20; i++) {
            const focused = await menu.locator('.monaco-list-row.focused').getAttribute('aria-label').catch(() => null);
            if (focused && focused.includes(config.quickFix)) break;
            await page.keyboard.press('ArrowDown');
        }
        await page.keyboard.press('Enter');
        if (config.expectPreview) {
            // The edit carries a change annotation that needs confirmation: VS Code shows it in
            // the Refactor Preview and changes nothing until the user applies it.
            const panel = page.locator('.bulk-edit-panel');
            try {
                await panel.waitFor({ state: 'visible', timeout: T });
            } catch (error) {
                await screenshot('no-preview');
                throw new Error(`"${config.quickFix}" opened no Refactor Preview; the file is now:\n${await editorText()}`);
            }
            await page.waitForTimeout(500);
            result.checks.previewShown = true;
            result.checks.previewText = norm(await panel.textContent()).slice(0, 300);
            result.checks.unchangedBeforeApply = (await editorText()) === before;
            // A change that needs confirmation starts unticked: the user ticks it, then applies.
            const boxes = panel.locator('input.edit-checkbox');
            result.checks.untickedInPreview = !(await boxes.first().isChecked());
            await screenshot('refactor-preview');
            await boxes.first().click({ timeout: 10000 });
            result.checks.tickedToApply = await boxes.first().isChecked();
            const apply = panel.locator('.buttons .monaco-button').first();
            result.checks.applyButton = norm(await apply.textContent().catch(() => ''));
            await apply.click({ timeout: 10000 }).catch(async () => {
                // An overlay can swallow the click: the keyboard shortcut of the view does the same.
                await panel.locator('.monaco-list').first().focus();
                await page.keyboard.press('Control+Enter');
            });
        }
        const deadline = Date.now() + T;
        let after = before;
        while (Date.now() < deadline && after === before) {
            await page.waitForTimeout(200);
            after = await editorText();
        }
        if (config.expectPreview === false) {
            // Applied at once: no Refactor Preview waits for a choice.
            result.checks.previewShown = await page.locator('.bulk-edit-panel').isVisible().catch(() => false);
        }
        await screenshot('recompiled');
        if (after === before) throw new Error(`applying "${config.quickFix}" did not change the file:\n${before}`);
        const changed = after.split('\n').filter((line, i) => line !== before.split('\n')[i]);
        result.checks.recompiledLines = changed.slice(0, 12);

        // It is a workspace edit: one undo restores the text.
        // Focus the editor without clicking (code lenses and hovers sit on top of the text).
        await page.locator('.editor-group-container.active .monaco-editor textarea').first().focus();
        await page.keyboard.press('Control+Z');
        let undone = after;
        const undoDeadline = Date.now() + 10000;
        while (Date.now() < undoDeadline && undone !== before) {
            await page.waitForTimeout(200);
            undone = await editorText();
        }
        result.checks.undoRestores = undone === before;
        await screenshot('undone');
        if (undone !== before) throw new Error('Ctrl+Z did not restore the header changed by the quick fix');
    });

    if (config.paletteRecompile) {
        await step('recompile from the palette', async () => {
            // Twice: the first applies, the second finds the header up to date. The server says what
            // needs saying; the palette path shows no notification of its own (as the code action).
            const runIt = async () => {
                await page.locator('.editor-group-container.active .monaco-editor textarea').first().focus();
                await page.keyboard.press('Control+Shift+P');
                await page.locator('.quick-input-widget input').waitFor({ state: 'visible', timeout: T });
                await page.keyboard.type('CKP: Recompile header', { delay: 5 });
                await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Recompile header' }).first()
                    .waitFor({ timeout: T });
                await page.keyboard.press('Enter');
            };
            const before = await editorText();
            await runIt();
            let deadline = Date.now() + T;
            let after = before;
            while (Date.now() < deadline && after === before) {
                await page.waitForTimeout(200);
                after = await editorText();
            }
            result.checks.paletteApplied = after !== before;
            await runIt();
            // The second run's answer ("unchanged") comes within a moment: wait, then look.
            deadline = Date.now() + 4000;
            const toasts = [];
            while (Date.now() < deadline) {
                await page.waitForTimeout(250);
                for (const t of (await page.locator('.notifications-toasts .notification-list-item').allTextContents()).map(norm)) {
                    if (t.includes('CKP') && !toasts.includes(t)) toasts.push(t);
                }
            }
            result.checks.paletteToasts = toasts;
            await screenshot('palette-recompile');
            if (!result.checks.paletteApplied) throw new Error('CKP: Recompile header from the palette changed nothing');
            if (toasts.length) throw new Error(`Recompile from the palette showed notifications: ${JSON.stringify(toasts)}`);
            await page.keyboard.press('Escape');
        });
    }

    await step('preview routing (command palette)', async () => {
        await page.keyboard.press('Escape');
        await page.keyboard.press('Control+Shift+P');
        const input = page.locator('.quick-input-widget input');
        await input.waitFor({ state: 'visible', timeout: T });
        await page.keyboard.type('CKP: Preview routing', { delay: 5 });
        await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Preview routing for a query' }).first()
            .waitFor({ timeout: T });
        await page.keyboard.press('Enter');
        // The input box for the query.
        await page.locator('.quick-input-widget', { hasText: 'Which files would an agent load' }).waitFor({ timeout: T });
        await page.keyboard.type(config.routeQuery, { delay: 5 });
        await page.keyboard.press('Enter');
        // The QuickPick: title = the declaration line, one row per loaded file, a token summary.
        const title = page.locator('.quick-input-widget .quick-input-title', { hasText: '[CKP: loaded' });
        await title.waitFor({ timeout: T });
        const rows = page.locator('.quick-input-widget .monaco-list-row');
        await rows.first().waitFor({ timeout: T });
        result.checks.routeDeclaration = norm(await title.textContent());
        result.checks.routeRows = (await rows.allTextContents()).map(norm);
        await screenshot('route');
        if (!result.checks.routeRows.some((r) => r.includes(config.routeExpect))) {
            throw new Error(`routing "${config.routeQuery}" did not list ${config.routeExpect}: ${JSON.stringify(result.checks.routeRows)}`);
        }
        if (!result.checks.routeRows.some((r) => /tokens with CKP/.test(r))) {
            throw new Error(`routing showed no token summary: ${JSON.stringify(result.checks.routeRows)}`);
        }
        // Selecting a file opens it.
        const row = rows.filter({ hasText: config.routeExpect }).first();
        const file = norm(await row.locator('.label-description').first().textContent().catch(() => ''));
        for (let i = 0; i < 20; i++) {
            const focused = norm(await rows.locator('xpath=self::*[contains(@class,"focused")]').first().textContent().catch(() => ''));
            if (focused.includes(config.routeExpect)) break;
            await page.keyboard.press('ArrowDown');
        }
        await page.keyboard.press('Enter');
        const base = path.basename(file || `${config.routeExpect}.md`);
        await page.waitForSelector(`.tab.active[aria-label*="${base}"], .tab.active:has-text("${base}")`, { timeout: T });
        result.checks.routeOpened = base;
        await screenshot('route-opened');
    });

    await step('explorer', async () => {
        // What the Explorer lists of the bank by now (the server has written its cache there).
        await page.keyboard.press('Control+Shift+E');
        await page.waitForSelector('.explorer-folders-view .monaco-list-row', { timeout: T });
        await page.waitForTimeout(1000);
        result.checks.explorerRows = (await page.locator('.explorer-folders-view .monaco-list-row').allTextContents()).map(norm);
        await screenshot('explorer');
    });

    if (config.secondFile) {
        // The server is running by now: opening another file costs VS Code's pipeline and one pull.
        await step('second file', async () => {
            const shown = squiggleShown(path.basename(config.secondFile));
            shown.catch(() => {});
            const opened = await quickOpen(config.secondFile);
            result.epochs.secondSquiggle = await shown;
            result.timings.secondSquiggleMs = result.epochs.secondSquiggle - opened.enter;
            log(`second file: first squiggle ${result.timings.secondSquiggleMs} ms after it was opened`);
            await screenshot('second-file');
        });
    }
}

let exitCode = 0;
try {
    await main();
    result.ok = true;
} catch (error) {
    exitCode = 1;
    result.ok = false;
    result.error = String(error?.stack ?? error).slice(0, 4000);
    log(`FAILED: ${String(error).split('\n')[0]}`);
    if (page) await screenshot('failure');
} finally {
    try {
        if (page) result.notifications = await visibleNotifications();
    } catch {}
    result.totalMs = Date.now() - started;
    if (context) await context.close().catch(() => {});
    process.stdout.write(`${JSON.stringify(result)}\n`);
    process.exit(exitCode);
}
