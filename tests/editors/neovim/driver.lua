-- Drives the CKP language server from a headless Neovim (0.7 and 0.11) with the documented
-- setup, like a user would, and writes what it saw as JSON for test_neovim.py to judge.
--
-- Environment: CKP_SETUP (setup_011.lua or setup_07.lua), CKP_CMD (the server command as a JSON
-- list), CKP_SAMPLES (a copy of samples/), CKP_RESULT (where the JSON goes).
-- Each step runs in its own pcall, so one broken feature does not hide the others; the whole
-- script always ends with :qall! (or :cquit! 1), never hanging headless Neovim.

local env = vim.env
local HERE = debug.getinfo(1, 'S').source:sub(2):match('(.*/)') -- this folder, with its '/'
local result = { version = tostring(vim.version().major) .. '.' .. tostring(vim.version().minor), steps = {} }
local started = vim.loop.hrtime()
local NVIM_011 = vim.fn.has('nvim-0.11') == 1
local DEADLINE = 30000 -- ms for the whole run: test_neovim.py kills Neovim at 60 s

local function ms()
  return math.floor((vim.loop.hrtime() - started) / 1e6)
end

-- How long one wait may take: 15 s, less when the run is close to its deadline.
local function timeout()
  return math.max(math.min(15000, DEADLINE - ms()), 100)
end

local function clean(value)
  -- LSP results hold vim.NIL and may be large: keep plain data only
  if value == vim.NIL then
    return nil
  end
  if type(value) == 'table' then
    local out = {}
    for k, v in pairs(value) do
      out[k] = clean(v)
    end
    return out
  end
  if type(value) == 'function' or type(value) == 'userdata' then
    return tostring(value)
  end
  return value
end

local function step(name, fn)
  local t0 = ms()
  local data = {}
  local ok, err = pcall(fn, data)
  data.ok = ok
  data.error = (not ok) and tostring(err) or nil
  data.ms = ms() - t0
  result.steps[name] = clean(data)
end

local function clients_of(buf)
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ bufnr = buf, name = 'ckp' })
  end
  local out = {}
  for _, c in pairs(vim.lsp.buf_get_clients(buf)) do
    if c.name == 'ckp' then
      table.insert(out, c)
    end
  end
  return out
end

local function load(rel)
  vim.cmd('edit ' .. vim.fn.fnameescape(env.CKP_SAMPLES .. '/' .. rel))
  local buf = vim.api.nvim_get_current_buf()
  if vim.bo[buf].filetype ~= 'markdown' then
    vim.bo[buf].filetype = 'markdown' -- fires FileType like detection would
  end
  return buf
end

local function attached(buf)
  local client
  local ready = vim.wait(timeout(), function()
    client = clients_of(buf)[1]
    return client ~= nil and client.initialized == true
  end, 20)
  assert(ready, 'no initialized ckp client attached to ' .. vim.api.nvim_buf_get_name(buf)
    .. ' (filetype ' .. vim.bo[buf].filetype .. ')')
  return client
end

local function open(rel)
  local buf = load(rel)
  return buf, attached(buf)
end

local function line_of(buf, pattern)
  for i, text in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    if text:find(pattern) then
      return i - 1, text
    end
  end
  error('no line matches ' .. pattern)
end

local function position(buf, lnum, character)
  return { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = lnum, character = character } }
end

local function request(buf, method, params)
  local responses, err = vim.lsp.buf_request_sync(buf, method, params, timeout())
  assert(responses, method .. ': no answer (' .. tostring(err) .. ')')
  for _, response in pairs(responses) do
    if response.err then
      error(method .. ': ' .. vim.inspect(response.err))
    end
    return response.result
  end
  error(method .. ': no client answered')
end

local function codes(buf)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
    table.insert(out, {
      code = code,
      lnum = d.lnum,
      col = d.col,
      end_lnum = d.end_lnum,
      end_col = d.end_col,
      message = d.message,
      source = d.source,
    })
  end
  return out
end

local function find_diagnostic(buf, code, lnum)
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local c = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
    if c == code and (lnum == nil or d.lnum == lnum) then
      return d
    end
  end
end

local function to_lsp(d)
  -- The diagnostic as the server sent it (the shape codeAction's context wants)
  local lsp = vim.deepcopy((d.user_data and d.user_data.lsp) or {})
  lsp.range = lsp.range
    or { start = { line = d.lnum, character = d.col }, ['end'] = { line = d.end_lnum, character = d.end_col } }
  lsp.message = lsp.message or d.message
  lsp.severity = lsp.severity or d.severity
  lsp.source = lsp.source or d.source
  lsp.code = lsp.code or d.code
  return lsp
end

local function floating_lines()
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(win).relative ~= '' then
      return vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false), win
    end
  end
end

local function main()
  vim.g.ckp_cmd = vim.fn.json_decode(env.CKP_CMD)
  vim.cmd('filetype on')
  dofile(env.CKP_SETUP)
  -- Open a file of each bank first: their two servers start side by side.
  local jwt = load('mentat/memory-bank/patterns/jwt.md')
  local broken = load('broken/memory-bank/jwt.md')
  local stale_line

  -- 1. Diagnostics on the broken bank's jwt.md: CKP050 on the stale entry.
  step('diagnostics', function(data)
    local client = attached(broken)
    data.client_root = client.config.root_dir
    local text
    stale_line, text = line_of(broken, '^SIMILAR_HIGH:')
    data.line = stale_line
    data.text = text
    vim.wait(timeout(), function()
      return find_diagnostic(broken, 'CKP050', stale_line) ~= nil
    end, 20)
    data.diagnostics = codes(broken)
  end)

  -- 2. Quick fix: code action for that CKP050, apply its edit, CKP050 disappears.
  step('quick_fix', function(data)
    local d = find_diagnostic(broken, 'CKP050', stale_line)
    assert(d, 'no CKP050 diagnostic to fix')
    local params = {
      textDocument = { uri = vim.uri_from_bufnr(broken) },
      range = { start = { line = d.lnum, character = d.col }, ['end'] = { line = d.end_lnum, character = d.end_col } },
      context = { diagnostics = { to_lsp(d) }, only = { 'quickfix' } },
    }
    local actions = request(broken, 'textDocument/codeAction', params) or {}
    data.titles = {}
    local chosen
    for _, action in ipairs(actions) do
      table.insert(data.titles, action.title)
      if not chosen and action.title:find('validate', 1, true) then
        chosen = action
      end
    end
    assert(chosen, 'no re-validate action among the code actions')
    data.title = chosen.title
    if not chosen.edit and chosen.data ~= nil then
      chosen = request(broken, 'codeAction/resolve', chosen)
    end
    assert(chosen.edit, 'the action has no edit: ' .. vim.inspect(chosen))
    data.edit = chosen.edit
    vim.lsp.util.apply_workspace_edit(chosen.edit, 'utf-16')
    data.fixed_text = vim.api.nvim_buf_get_lines(broken, stale_line, stale_line + 1, false)[1]
    data.gone = vim.wait(timeout(), function()
      return find_diagnostic(broken, 'CKP050', stale_line) == nil
    end, 20)
    data.diagnostics_after = codes(broken)
  end)

  -- 3. Hover on the SIMILAR_HIGH entry oauth2 in the mentat bank's patterns/jwt.md.
  local rel_line, rel_col
  step('hover', function(data)
    attached(jwt)
    vim.api.nvim_set_current_buf(jwt)
    local text
    rel_line, text = line_of(jwt, '^SIMILAR_HIGH:')
    rel_col = text:find('oauth2', 1, true) -- 1-based start = 0-based character of the next char
    assert(rel_col, 'no oauth2 on ' .. text)
    data.line, data.character = rel_line, rel_col
    local hover = request(jwt, 'textDocument/hover', position(jwt, rel_line, rel_col))
    data.result = hover
    if hover and type(hover.contents) == 'table' then
      data.kind = hover.contents.kind
      data.value = hover.contents.value
    end
    -- The user's way: the hover command opens a floating preview.
    vim.api.nvim_win_set_cursor(0, { rel_line + 1, rel_col })
    vim.lsp.buf.hover()
    local lines
    vim.wait(timeout(), function()
      lines = floating_lines()
      return lines ~= nil
    end, 20)
    data.float = lines and table.concat(lines, '\n') or nil
    -- close the preview
    local _, win = floating_lines()
    if win then
      vim.api.nvim_win_close(win, true)
    end
  end)

  -- 4. Definition from the same entry: patterns/oauth2.md at its CONCEPT line.
  step('definition', function(data)
    assert(rel_line, 'hover did not find the entry')
    local locations = request(jwt, 'textDocument/definition', position(jwt, rel_line, rel_col))
    if locations and (locations.uri or locations.targetUri) then
      locations = { locations }
    end
    data.locations = {}
    for _, loc in ipairs(locations or {}) do
      local range = loc.targetSelectionRange or loc.range or loc.targetRange
      table.insert(data.locations, { uri = loc.uri or loc.targetUri, line = range.start.line, character = range.start.character })
    end
    -- The user's way: vim.lsp.buf.definition() jumps to the file.
    vim.api.nvim_set_current_buf(jwt)
    vim.api.nvim_win_set_cursor(0, { rel_line + 1, rel_col })
    local before = vim.api.nvim_buf_get_name(0)
    vim.lsp.buf.definition()
    vim.wait(timeout(), function()
      return vim.api.nvim_buf_get_name(0) ~= before
    end, 20)
    data.jumped_to = vim.api.nvim_buf_get_name(0)
    data.cursor_line = vim.api.nvim_win_get_cursor(0)[1] - 1
  end)

  -- 5. Completion: type "SIMILAR_MID:  oau" into stack/database.md's header.
  step('completion', function(data)
    local buf = open('mentat/memory-bank/stack/database.md')
    local lnum = line_of(buf, '^SIMILAR_MID:')
    local typed = 'SIMILAR_MID:  oau'
    vim.api.nvim_buf_set_lines(buf, lnum, lnum + 1, false, { typed })
    data.line, data.character = lnum, #typed
    local params = position(buf, lnum, #typed)
    params.context = { triggerKind = 1 }
    local answer = request(buf, 'textDocument/completion', params)
    local items = answer and (answer.items or answer) or {}
    data.is_list = answer ~= nil and answer.items ~= nil
    data.items = {}
    for _, item in ipairs(items) do
      table.insert(data.items, {
        label = item.label,
        insertText = item.insertText,
        newText = item.textEdit and item.textEdit.newText,
        range = item.textEdit and (item.textEdit.range or item.textEdit.replace),
        filterText = item.filterText,
      })
    end
  end)

  -- 6. An edit saved in another buffer reaches an open one: oauth2.md's VALIDATED moves to this
  --    month, and patterns/jwt.md (open, unchanged) gets CKP050 on its entry oauth2:2026-10.
  local month = os.date('%Y-%m')
  -- Whether the open jwt.md comes to show CKP050 on its entry line (matching ``pattern``).
  local function wait_stale(data, pattern)
    data.line = line_of(jwt, pattern)
    data.shown = vim.wait(timeout(), function()
      return find_diagnostic(jwt, 'CKP050', data.line) ~= nil
    end, 20)
    data.diagnostics = codes(jwt)
  end

  step('other_buffer', function(data)
    local oauth2 = open('mentat/memory-bank/patterns/oauth2.md')
    local lnum = line_of(oauth2, '^VALIDATED:')
    vim.api.nvim_buf_set_lines(oauth2, lnum, lnum + 1, false, { 'VALIDATED:    ' .. month })
    vim.api.nvim_buf_call(oauth2, function()
      vim.cmd('write')
    end)
    wait_stale(data, '^SIMILAR_HIGH:')
  end)

  -- 7. A file rewritten on disk by another process (sed, as an agent would) reaches an open
  --    buffer: auth.md's VALIDATED moves to this month, jwt.md gets CKP050 on auth:2026-10.
  step('disk', function(data)
    local path = env.CKP_SAMPLES .. '/mentat/memory-bank/patterns/auth.md'
    vim.fn.system({ 'sed', '-i', 's/^VALIDATED:.*$/VALIDATED:    ' .. month .. '/', path })
    assert(vim.v.shell_error == 0, 'sed failed on ' .. path)
    wait_stale(data, '^SIMILAR_MID:')
  end)
end

local ok, err = pcall(main)
result.ms = ms()
dofile(HERE .. 'finish.lua')(result, ok, err)
