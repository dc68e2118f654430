-- Drives a headless Neovim 0.11 set up with docs/neovim.md's snippets (setup_011.lua and
-- extras.lua) like a user: runs the code lens, renames a concept, saves a file with fixable
-- findings, opens a file in a folder without a bank. Writes what it saw as JSON for
-- test_neovim_docs.py. Environment: CKP_CMD, CKP_SAMPLES, CKP_HOME, CKP_RESULT.

local env = vim.env
local HERE = debug.getinfo(1, 'S').source:sub(2):match('(.*/)') -- this folder, with its '/'
local result = { steps = {}, notes = {} }

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

local function open(path)
  vim.cmd('edit ' .. vim.fn.fnameescape(path))
  local buf = vim.api.nvim_get_current_buf()
  if vim.bo[buf].filetype ~= 'markdown' then
    vim.bo[buf].filetype = 'markdown'
  end
  return buf
end

local function client_of(buf)
  local client
  local ready = vim.wait(15000, function()
    client = vim.lsp.get_clients({ bufnr = buf, name = 'ckp' })[1]
    return client ~= nil and client.initialized == true
  end, 20)
  assert(ready, 'no ckp client attached to ' .. vim.api.nvim_buf_get_name(buf))
  return client
end

local function main()
  vim.g.ckp_cmd = vim.fn.json_decode(env.CKP_CMD)
  dofile(env.CKP_SETUP)
  if vim.fn.has('nvim-0.8') == 0 then
    -- 0.7: the setup snippet alone (extras.lua needs 0.8); only its root detection is checked.
    step('no_bank', function(data)
      local buf = open(env.CKP_HOME .. '/notes.md')
      vim.wait(1500, function()
        return #vim.lsp.buf_get_clients(buf) > 0
      end, 50)
      data.clients = #vim.tbl_keys(vim.lsp.buf_get_clients(buf))
    end)
    return
  end
  dofile(env.CKP_EXTRAS)
  dofile(env.CKP_SAVE_EDITS)
  local bank = env.CKP_SAMPLES .. '/mentat/memory-bank'

  step('settings', function(data)
    local config = vim.diagnostic.config()
    data.virtual_text = config.virtual_text and true or false
    data.float_source = config.float and config.float.source
  end)

  step('code_lens', function(data)
    local buf = open(bank .. '/projects/mentat.md')
    client_of(buf)
    assert(vim.wait(15000, function()
      vim.lsp.codelens.refresh({ bufnr = buf })
      return #vim.lsp.codelens.get(buf) > 0
    end, 200), 'no code lens on ' .. vim.api.nvim_buf_get_name(buf))
    data.lens = vim.lsp.codelens.get(buf)[1].command.title
    vim.api.nvim_win_set_cursor(0, { 1, 0 })
    vim.lsp.codelens.run()
    assert(vim.wait(10000, function()
      return #vim.fn.getqflist() > 0
    end, 50), 'the code lens filled no quickfix list')
    data.files = {}
    for _, item in ipairs(vim.fn.getqflist()) do
      table.insert(data.files, vim.fn.bufname(item.bufnr))
    end
    vim.cmd('cclose')
  end)

  step('rename', function(data)
    local buf = open(bank .. '/patterns/jwt.md')
    client_of(buf)
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
  end)

  step('fix_all_on_save', function(data)
    local buf = open(env.CKP_SAMPLES .. '/broken/memory-bank/http-headers.md')
    client_of(buf)
    vim.cmd('write')
    data.modified = vim.bo[buf].modified
  end)

  step('no_bank', function(data)
    local buf = open(env.CKP_HOME .. '/notes.md')
    vim.wait(1500, function()
      return #vim.lsp.get_clients({ bufnr = buf }) > 0
    end, 50)
    data.clients = #vim.lsp.get_clients({ bufnr = buf })
  end)
end

local ok, err = pcall(main)
dofile(HERE .. 'finish.lua')(result, ok, err)
