-- The end of a run, shared by driver.lua and docs_driver.lua: stop the LSP clients and let them
-- exit, write what the run saw as JSON to CKP_RESULT, and quit (with :cquit! 1 when the run failed
-- or its result could not be written), so headless Neovim never hangs.
--
-- Loaded with dofile: returns finish(result, ok, err), where ok, err are what pcall(main) gave.

local function all_clients()
  return (vim.lsp.get_clients or vim.lsp.get_active_clients)()
end

return function(result, ok, err)
  result.ok = ok
  result.error = (not ok) and tostring(err) or nil

  pcall(function()
    local ids = {}
    for _, c in ipairs(all_clients()) do
      table.insert(ids, c.id)
    end
    vim.lsp.stop_client(ids)
    result.stopped = vim.wait(3000, function()
      return #all_clients() == 0
    end, 20)
  end)

  local written = pcall(function()
    local f = assert(io.open(vim.env.CKP_RESULT, 'w'))
    f:write(vim.fn.json_encode(result))
    f:close()
  end)
  if ok and written then
    vim.cmd('qall!')
  else
    io.stderr:write('driver failed: ' .. tostring(err) .. '\n')
    vim.cmd('cquit! 1')
  end
end
