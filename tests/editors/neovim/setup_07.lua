-- CKP language server, Neovim 0.7 to 0.10 (init.lua)
local ckp_markers = { 'memory-bank', '_index.md', '.ckp.toml', '.git' }
local ckp_clients = {} -- root folder -> client id

-- The first folder above `path` holding a marker, trying the markers in order; nil when there is
-- none below the home folder: a stray Markdown file must not make the server read all of `~`.
local function ckp_root(path)
  local start = vim.fn.fnamemodify(path, ':p:h')
  local home = vim.loop.os_homedir()
  for _, marker in ipairs(ckp_markers) do
    local dir = start
    while dir ~= home do
      if vim.loop.fs_stat(dir .. '/' .. marker) then
        return dir
      end
      local parent = vim.fn.fnamemodify(dir, ':h')
      if parent == dir then
        break
      end
      dir = parent
    end
  end
  return nil
end

-- The keys, in each buffer the server attaches to: 0.7 maps none to LSP (K runs `man`, <C-]>
-- looks for a tags file); 0.11 has K, <C-]>, grn, grr, gra and gO by default, but no gd.
local function ckp_on_attach(_, buf)
  local function map(lhs, rhs, desc)
    vim.keymap.set('n', lhs, rhs, { buffer = buf, desc = desc })
  end
  map('gd', vim.lsp.buf.definition, "CKP: the related file, the index row's file")
  map('<C-]>', vim.lsp.buf.definition, "CKP: the related file, the index row's file")
  map('K', vim.lsp.buf.hover, 'CKP: TLDR, tier and staleness of what is under the cursor')
  map('grn', vim.lsp.buf.rename, 'CKP: rename the concept')
  map('grr', vim.lsp.buf.references, 'CKP: references of the concept')
  map('gra', vim.lsp.buf.code_action, 'CKP: quick fixes, recompile, regenerate the index')
  map('gO', vim.lsp.buf.document_symbol, 'CKP: header fields and headings')
  vim.bo[buf].omnifunc = 'v:lua.vim.lsp.omnifunc' -- <C-x><C-o> completes concepts
end

vim.api.nvim_create_autocmd('FileType', {
  group = vim.api.nvim_create_augroup('ckp_lsp', { clear = true }),
  pattern = 'markdown',
  callback = function(args)
    local name = vim.api.nvim_buf_get_name(args.buf)
    if name == '' or vim.bo[args.buf].buftype ~= '' then
      return
    end
    local root = ckp_root(name)
    if not root then
      return
    end
    local id = ckp_clients[root]
    if not (id and vim.lsp.get_client_by_id(id)) then
      id = vim.lsp.start_client({
        name = 'ckp',
        cmd = vim.g.ckp_cmd or { 'ckp-lsp' },
        root_dir = root,
        on_attach = ckp_on_attach,
        settings = {
          ckp = {
            staleness = 'validated', -- or 'git' / 'mtime'
            llm = { provider = 'offline' },
            -- diagnostics = { CKP046 = 'off', CKP032 = 'hint' },
          },
        },
      })
      ckp_clients[root] = id
    end
    if id then
      vim.lsp.buf_attach_client(args.buf, id)
    end
  end,
})
