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
