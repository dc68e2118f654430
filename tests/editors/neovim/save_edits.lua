-- CKP in Neovim 0.7+: the files of a rename saved at once (init.lua)
-- A rename (or the index kept up to date) changes several files, in buffers: save them at once,
-- so that the bank on disk is whole again (otherwise run :wa yourself).
local apply_workspace_edit = vim.lsp.util.apply_workspace_edit
local saving = false
vim.lsp.util.apply_workspace_edit = function(edit, encoding, ...)
  local result = apply_workspace_edit(edit, encoding, ...)
  local uris = vim.tbl_keys(edit.changes or {})
  for _, change in ipairs(edit.documentChanges or {}) do
    table.insert(uris, change.textDocument and change.textDocument.uri or change.newUri)
  end
  local hidden = #uris == 1 and vim.fn.bufwinid(vim.uri_to_bufnr(uris[1])) == -1
  if (#uris > 1 or hidden) and not saving then
    saving = true -- the saves below run BufWritePre (fix-all): no saving within a save
    for _, uri in ipairs(uris) do
      local buf = vim.uri_to_bufnr(uri)
      if vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].modified then
        pcall(vim.api.nvim_buf_call, buf, function()
          vim.cmd('silent update')
        end)
      end
    end
    saving = false
  end
  return result
end
