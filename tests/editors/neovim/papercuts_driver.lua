-- Drives a headless Neovim (0.7 or 0.11) set up with docs/neovim.md's snippets for its version
-- (setup, save_edits.lua, and extras.lua on 0.8+) and the syntax file the docs install, through
-- the keys a user presses: gd, <C-]> and K on a relationship, the colours of a header, the
-- completion menu's documentation, the hover on a stale entry, typing with autotrigger (0.11), a
-- rename. Writes what it saw as JSON for test_neovim_papercuts.py.
-- Environment: CKP_SETUP, CKP_SAVE_EDITS, CKP_EXTRAS, CKP_RUNTIME, CKP_CMD, CKP_SAMPLES, CKP_RESULT.

local env = vim.env
local HERE = debug.getinfo(1, 'S').source:sub(2):match('(.*/)')
local result = { version = tostring(vim.version().major) .. '.' .. tostring(vim.version().minor), steps = {}, notes = {} }

vim.notify = function(msg, level)
  table.insert(result.notes, { msg = tostring(msg), level = level })
end

local function step(name, fn)
  local data = {}
  local ok, err = pcall(fn, data)
  data.ok = ok
  data.error = (not ok) and tostring(err) or nil
  result.steps[name] = data
end

local function clients_of(buf)
  local out = {}
  for _, c in pairs(vim.lsp.buf_get_clients(buf)) do
    if c.name == 'ckp' then
      table.insert(out, c)
    end
  end
  return out
end

local function open(path)
  vim.cmd('edit ' .. vim.fn.fnameescape(path))
  local buf = vim.api.nvim_get_current_buf()
  if vim.bo[buf].filetype ~= 'markdown' then
    vim.bo[buf].filetype = 'markdown'
  end
  local ready = vim.wait(15000, function()
    local c = clients_of(buf)[1]
    return c ~= nil and c.initialized == true
  end, 20)
  assert(ready, 'no ckp client attached to ' .. path)
  return buf
end

local function line_of(buf, pattern)
  for i, text in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    if text:find(pattern) then
      return i, text
    end
  end
  error('no line matches ' .. pattern)
end

local function floating()
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(win).relative ~= '' then
      return win
    end
  end
end

local function close_floats()
  local win = floating()
  while win do
    vim.api.nvim_win_close(win, true)
    win = floating()
  end
end

-- Press `keys` in normal mode on `word` of the line matching `pattern`; where the cursor went.
local function press_on(buf, pattern, word, keys)
  vim.api.nvim_set_current_buf(buf)
  local lnum, text = line_of(buf, pattern)
  vim.api.nvim_win_set_cursor(0, { lnum, (text:find(word, 1, true)) })
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(keys, true, false, true), 'x', false)
end

-- Type `typed` at the end of the line matching `pattern` in insert mode, one key at a time as a
-- user does, with vim.lsp.completion's autotrigger on (0.11): after each of the server's trigger
-- characters wait for its menu (up to 3 s) before the next key. Records the line before and after,
-- and how many items the menus showed; then restores the buffer.
local function type_with_autotrigger(buf, pattern, typed, data)
  local client = clients_of(buf)[1]
  local triggers = {}
  for _, c in ipairs(client.server_capabilities.completionProvider.triggerCharacters or {}) do
    triggers[c] = true
  end
  vim.lsp.completion.enable(true, client.id, buf, { autotrigger = true })
  local lnum, before = line_of(buf, pattern)
  vim.api.nvim_win_set_cursor(0, { lnum, 0 })
  data.before, data.menus, data.items = before, 0, {}
  local esc = vim.api.nvim_replace_termcodes('<Esc>', true, false, true)
  local i = 0
  local function next_key()
    i = i + 1
    if i > #typed then
      vim.api.nvim_feedkeys(esc, 'nt', false)
      return
    end
    local key = typed:sub(i, i)
    vim.api.nvim_feedkeys(key, 'nt', false)
    if not triggers[key] then
      vim.defer_fn(next_key, 30)
      return
    end
    local waited = 0
    local function poll()
      if vim.fn.pumvisible() == 1 then
        data.menus = data.menus + 1
        local info = vim.fn.complete_info({ 'items' })
        table.insert(data.items, info.items[1] and info.items[1].word or '')
        vim.defer_fn(next_key, 30)
      elseif waited >= 3000 then
        vim.defer_fn(next_key, 0)
      else
        waited = waited + 20
        vim.defer_fn(poll, 20)
      end
    end
    vim.defer_fn(poll, 20)
  end
  vim.defer_fn(next_key, 50)
  vim.defer_fn(function() -- never left in insert mode, whatever happens
    if vim.fn.mode() == 'i' then
      vim.api.nvim_feedkeys(esc, 'nt', false)
    end
  end, 30000)
  -- 'x!': stay in insert mode, running the timers above, until their <Esc> ends it
  vim.api.nvim_feedkeys('A', 'nx!', false)
  data.after = vim.api.nvim_buf_get_lines(buf, lnum - 1, lnum, false)[1]
  vim.lsp.completion.enable(false, client.id, buf)
  vim.api.nvim_buf_set_lines(buf, lnum - 1, lnum, false, { before })
  vim.bo[buf].modified = false
end

local function main()
  vim.g.ckp_cmd = vim.fn.json_decode(env.CKP_CMD)
  vim.opt.runtimepath:append(env.CKP_RUNTIME) -- what docs/neovim.md adds: the syntax file
  vim.cmd('syntax on')
  dofile(env.CKP_SETUP)
  dofile(env.CKP_SAVE_EDITS)
  if vim.fn.has('nvim-0.8') == 1 then
    dofile(env.CKP_EXTRAS)
  end
  local bank = env.CKP_SAMPLES .. '/mentat/memory-bank'
  local jwt = open(bank .. '/patterns/jwt.md')

  for _, key in ipairs({ 'gd', '<C-]>' }) do
    step('definition ' .. key, function(data)
      press_on(jwt, '^SIMILAR_HIGH:', 'oauth2', key)
      vim.wait(10000, function()
        return vim.api.nvim_buf_get_name(0):find('oauth2.md', 1, true) ~= nil
      end, 20)
      data.file = vim.api.nvim_buf_get_name(0)
      data.line = vim.api.nvim_win_get_cursor(0)[1]
      data.text = vim.api.nvim_get_current_line()
      vim.api.nvim_set_current_buf(jwt)
    end)
  end

  step('hover K', function(data)
    close_floats()
    local before = #result.notes
    local ok, err = pcall(press_on, jwt, '^SIMILAR_HIGH:', 'oauth2', 'K')
    data.pressed, data.press_error = ok, err and tostring(err) or nil
    vim.wait(10000, function()
      return floating() ~= nil
    end, 20)
    local win = floating()
    data.float = win and vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false) or nil
    data.new_notes = #result.notes - before
    close_floats()
  end)

  step('syntax', function(data)
    vim.api.nvim_set_current_buf(jwt)
    data.groups = {}
    for _, field in ipairs({ 'ANSWERS_WHEN', 'SIMILAR_HIGH', 'SIMILAR_MID' }) do
      local lnum, text = line_of(jwt, '^' .. field .. ':')
      local col = text:find('_', 1, true)
      local id = vim.fn.synID(lnum, col, 1)
      data.groups[field] = vim.fn.synIDattr(id, 'name')
      data.groups[field .. ' (translated)'] = vim.fn.synIDattr(vim.fn.synIDtrans(id), 'name')
    end
  end)

  step('completion documentation', function(data)
    local untold = open(bank .. '/patterns/auth.md')
    local lnum, text = line_of(untold, '^SIMILAR_MID:')
    local params = {
      textDocument = { uri = vim.uri_from_bufnr(untold) },
      position = { line = lnum - 1, character = #text },
    }
    -- type ", unto" at the end of the line, as the menu then has it
    vim.api.nvim_buf_set_text(untold, lnum - 1, #text, lnum - 1, #text, { ', unto' })
    params.position.character = #text + 6
    local responses = vim.lsp.buf_request_sync(untold, 'textDocument/completion', params, 10000) or {}
    local items = {}
    for _, r in pairs(responses) do
      local list = r.result or {}
      items = list.items or list
    end
    local chosen
    for _, item in ipairs(items) do
      if item.label == 'untold' then
        chosen = item
      end
    end
    assert(chosen, 'no completion item untold among ' .. #items)
    local resolved = vim.lsp.buf_request_sync(untold, 'completionItem/resolve', chosen, 10000) or {}
    for _, r in pairs(resolved) do
      chosen = r.result or chosen
    end
    -- What the menu shows beside the item: the complete-item's `info`, made by Neovim itself.
    local to_items = vim.lsp.util.text_document_completion_list_to_complete_items -- 0.7
      or vim.lsp.completion._lsp_to_complete_items -- 0.11
    local complete = to_items({ chosen }, 'unto')
    data.info = complete[1] and complete[1].info or nil
    data.documentation = chosen.documentation
    vim.cmd('silent! undo')
    vim.bo[untold].modified = false
  end)

  step('hover stale', function(data)
    local broken = open(env.CKP_SAMPLES .. '/broken/memory-bank/jwt.md')
    close_floats()
    vim.o.columns = 100
    local lnum, text = line_of(broken, 'oauth2:2026%-03')
    vim.api.nvim_win_set_cursor(0, { lnum, (text:find("oauth2", 1, true)) })
    vim.lsp.buf.hover()
    vim.wait(10000, function()
      return floating() ~= nil
    end, 20)
    local win = floating()
    assert(win, 'no hover window')
    data.lines = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false)
    data.width = vim.api.nvim_win_get_width(win)
    close_floats()
  end)

  if vim.lsp.completion and vim.lsp.completion.enable then
    -- Typing ", civis:pr" at the end of a SIMILAR field with vim.lsp.completion's autotrigger on:
    -- first with Neovim's own 'completeopt' (which selects and inserts the first item of each menu
    -- that opens), then with the docs' (which selects nothing until asked).
    local docs_completeopt = vim.o.completeopt
    local default = vim.api.nvim_get_option_info2('completeopt', {}).default
    for _, case in ipairs({ { 'autotrigger default', default }, { 'autotrigger', docs_completeopt } }) do
      step(case[1], function(data)
        vim.o.completeopt = case[2]
        data.completeopt = vim.o.completeopt
        type_with_autotrigger(open(bank .. '/stack/frontend.md'), '^SIMILAR_MID:', ', civis:pr', data)
      end)
    end
    vim.o.completeopt = docs_completeopt
  end

  step('rename', function(data)
    local buf = open(bank .. '/patterns/jwt.md')
    vim.api.nvim_win_set_cursor(0, { 1, 15 })
    vim.lsp.buf.rename('json-web-token')
    data.moved = vim.wait(15000, function()
      return vim.loop.fs_stat(bank .. '/patterns/json-web-token.md') ~= nil
    end, 50)
    vim.wait(3000, function()
      for _, b in ipairs(vim.api.nvim_list_bufs()) do
        if vim.api.nvim_buf_is_loaded(b) and vim.bo[b].modified then
          return false
        end
      end
      return true
    end, 50)
    data.modified = {}
    for _, b in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(b) and vim.bo[b].modified then
        table.insert(data.modified, vim.api.nvim_buf_get_name(b))
      end
    end
    local _ = buf
  end)
end

local ok, err = pcall(main)
dofile(HERE .. 'finish.lua')(result, ok, err)
