-- CKP in Neovim 0.8+: messages inline, keys, code lens, fix-all on save (init.lua)
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
    map('gd', vim.lsp.buf.definition, 'CKP: the related file, the index row\'s file') -- no default
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

-- Completion as you type (0.11: vim.lsp.completion.enable with autotrigger = true): select no item
-- until you ask, or the first one is inserted as you type on (`civis:` would become `civis:2026-12`).
if vim.fn.has('nvim-0.11') == 1 then
  vim.opt.completeopt = { 'menuone', 'noselect', 'popup' }
end
