-- CKP in Neovim 0.8+: messages inline, keys, code lens, fix-all on save, multi-file edits saved (init.lua)
vim.diagnostic.config({
  virtual_text = { source = 'if_many' }, -- the message at the end of its line (0.11 shows only signs)
  float = { source = true }, -- <C-w>d or :lua vim.diagnostic.open_float() shows it whole
})

-- The code lens on CONCEPT lists the files that relate to the concept in the quickfix window.
vim.lsp.commands['ckp.showReferences'] = function(command, ctx)
  local params = {
    textDocument = { uri = command.arguments[1] },
    position = command.arguments[2],
    context = { includeDeclaration = false },
  }
  vim.lsp.buf_request(ctx.bufnr, 'textDocument/references', params, function(err, result, rctx)
    if err or not result then
      return
    end
    local client = vim.lsp.get_client_by_id(rctx.client_id)
    local items = vim.lsp.util.locations_to_items(result, client and client.offset_encoding or 'utf-16')
    vim.fn.setqflist({}, ' ', { title = 'CKP references', items = items })
    vim.cmd('copen')
  end)
end

vim.api.nvim_create_autocmd('LspAttach', {
  group = vim.api.nvim_create_augroup('ckp_attach', { clear = true }),
  callback = function(args)
    local client = vim.lsp.get_client_by_id(args.data.client_id)
    if not client or client.name ~= 'ckp' then
      return
    end
    local function map(lhs, rhs, desc)
      vim.keymap.set('n', lhs, rhs, { buffer = args.buf, desc = desc })
    end
    -- 0.11 has grn, grr, gra and gO already; these give them to 0.8-0.10 as well.
    map('grn', vim.lsp.buf.rename, 'CKP: rename the concept')
    map('grr', vim.lsp.buf.references, 'CKP: references of the concept')
    map('gra', vim.lsp.buf.code_action, 'CKP: quick fixes, recompile, regenerate the index')
    map('gO', vim.lsp.buf.document_symbol, 'CKP: header fields and headings')
    map('<leader>cs', vim.lsp.buf.workspace_symbol, 'CKP: concepts of the bank')
    map('<leader>cl', vim.lsp.codelens.run, 'CKP: run the code lens on this line')
    vim.api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave', 'BufWritePost' }, {
      buffer = args.buf,
      callback = function()
        vim.lsp.codelens.refresh()
      end,
    })
    vim.lsp.codelens.refresh()
  end,
})

-- Fix the safe findings when a Markdown file is saved (the server's source.fixAll.ckp).
vim.api.nvim_create_autocmd('BufWritePre', {
  group = vim.api.nvim_create_augroup('ckp_fix_all', { clear = true }),
  pattern = '*.md',
  callback = function(args)
    local params = vim.lsp.util.make_range_params(0, 'utf-16')
    params.context = { only = { 'source.fixAll.ckp' }, diagnostics = {} }
    local replies = vim.lsp.buf_request_sync(args.buf, 'textDocument/codeAction', params, 2000) or {}
    for _, reply in pairs(replies) do
      for _, action in ipairs(reply.result or {}) do
        if action.edit then
          vim.lsp.util.apply_workspace_edit(action.edit, 'utf-16')
        end
      end
    end
  end,
})

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
