-- CKP language server, Neovim 0.11+ (init.lua)
vim.lsp.config('ckp', {
  cmd = vim.g.ckp_cmd or { 'ckp-lsp' },
  filetypes = { 'markdown' },
  root_markers = { 'memory-bank', '_index.md', '.ckp.toml', '.git' },
  workspace_required = true, -- no project root, no server (0.11.2+; a file in ~ would scan ~)
  settings = {
    ckp = {
      staleness = 'validated', -- or 'git' / 'mtime'
      llm = { provider = 'offline' },
      -- diagnostics = { CKP046 = 'off', CKP032 = 'hint' },
    },
  },
})
vim.lsp.enable('ckp')
