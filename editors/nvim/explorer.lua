-- explorer's language server in Neovim's built-in LSP client (Neovim 0.7 and newer).
-- Put this file in your config (e.g. ~/.config/nvim/lua/explorer.lua) and `require("explorer")`.
-- The project is the folder holding .git (or the file's folder); to join a PyTorch checkout or
-- name the Python environment, fill init_options (the CLI's --tree and --python-env).
local M = {}

M.init_options = { trees = {}, pythonEnv = nil }

function M.start()
  local file = vim.api.nvim_buf_get_name(0)
  local git = vim.fn.finddir(".git", vim.fn.fnamemodify(file, ":p:h") .. ";")
  local root = git ~= "" and vim.fn.fnamemodify(git, ":p:h:h") or vim.fn.fnamemodify(file, ":p:h")
  local id = vim.lsp.start_client({
    name = "explorer",
    cmd = { "explorer", "lsp" },
    root_dir = root,
    init_options = M.init_options,
  })
  if id then
    vim.lsp.buf_attach_client(0, id)
  end
  return id
end

vim.api.nvim_create_autocmd("FileType", {
  pattern = { "python", "cpp", "c", "cuda", "yaml" },
  callback = function() M.start() end,
})

return M
