-- explorer's language server in Neovim's built-in LSP client (Neovim 0.7 and newer).
--
-- Put this file on your runtimepath as lua/explorer.lua (for example
-- ~/.config/nvim/lua/explorer.lua) and, in init.lua:
--
--   require("explorer").setup({})
--
-- or with what differs from the defaults below, for example
--
--   require("explorer").setup({
--     cmd = { vim.fn.expand("~/venvs/explorer/bin/explorer"), "lsp" },  -- explorer not on PATH
--     root = "~/src/my_project",                 -- the project, whatever the file's folders say
--     init_options = { trees = { "~/src/pytorch" }, pythonEnv = "~/venvs/train" },
--   })
--
-- One server runs per project root, whatever the number of buffers. `:lua
-- vim.lsp.buf.outgoing_calls()` and `incoming_calls()` list the calls in the quickfix window,
-- each at the definition it reaches (outgoing) or at the call (incoming); code lenses on each
-- function (trace to vendor call, diagram) run with `:lua vim.lsp.codelens.run()`, the trace
-- filling the quickfix window with its chain.
local M = {}

M.defaults = {
  cmd = { "explorer", "lsp" },
  -- the project folder; nil: found from root_markers (see find_root)
  root = nil,
  root_markers = { ".git", "explorer.toml", "pyproject.toml", "setup.py", "setup.cfg" },
  filetypes = { "python", "cpp", "c", "cuda", "yaml" },
  init_options = { trees = {}, pythonEnv = nil }, -- the CLI's --tree and --python-env
  codelens = true,
}
M.config = vim.deepcopy(M.defaults)

local clients = {} -- project root -> client id

-- The project of a file: root if given; else, for each marker in turn, the nearest folder
-- above the file holding it (so a .git above wins over a setup.py nearer the file); else the
-- folder Neovim was started in.
local function find_root(file)
  if M.config.root then
    return (vim.fn.fnamemodify(vim.fn.expand(M.config.root), ":p"):gsub("/$", ""))
  end
  local start = vim.fn.fnamemodify(file, ":p:h")
  for _, marker in ipairs(M.config.root_markers) do
    local folder = start
    while true do
      if vim.loop.fs_stat(folder .. "/" .. marker) then
        return folder
      end
      local parent = vim.fn.fnamemodify(folder, ":h")
      if parent == folder then
        break
      end
      folder = parent
    end
  end
  return vim.fn.getcwd()
end

-- The quickfix window, filled with LSP locations or items.
local function show(title, items)
  vim.fn.setqflist({}, " ", { title = title, items = items })
  if #items > 0 then
    vim.cmd("botright copen")
  end
end

local function item_at(uri, range, text)
  return { filename = vim.uri_to_fname(uri), lnum = range.start.line + 1, col = range.start.character + 1, text = text }
end

-- The calls of a hierarchy step as a quickfix list. Outgoing: each callee where it is
-- defined (Neovim 0.7's own handler put it at the caller's call lines, fromRanges, in the
-- callee's file); incoming: each call, in the caller's file.
local function calls_handler(direction)
  return function(err, result)
    if err then
      vim.notify("explorer: " .. tostring(err.message or err), vim.log.levels.ERROR)
      return
    end
    local items = {}
    for _, call in ipairs(result or {}) do
      local other = call[direction]
      local text = other.name .. "  " .. (other.detail or "")
      local ranges = direction == "to" and { other.selectionRange } or (call.fromRanges or {})
      for _, range in ipairs(ranges) do
        table.insert(items, item_at(other.uri, range, text))
      end
    end
    show("explorer: " .. (direction == "to" and "outgoing" or "incoming") .. " calls", items)
  end
end

-- Code lens commands run here, so that their answers are shown (Neovim would send them to
-- the server and drop what it returns).
local function run_on_server(command, ctx, answered)
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  if client == nil then
    return
  end
  client.request("workspace/executeCommand", { command = command.command, arguments = command.arguments }, function(err, result)
    if err then
      vim.notify("explorer: " .. tostring(err.message or err), vim.log.levels.ERROR)
    else
      answered(result, client)
    end
  end, ctx.bufnr)
end

vim.lsp.commands["explorer.traceToVendor"] = function(command, ctx)
  run_on_server(command, ctx, function(locations, client)
    local items = {}
    for _, location in ipairs(locations or {}) do -- one at a time: the list would be sorted by file
      vim.list_extend(items, vim.lsp.util.locations_to_items({ location }, client.offset_encoding or "utf-16"))
    end
    show("explorer: " .. tostring(command.arguments[1]) .. " to a vendor call", items)
  end)
end

vim.lsp.commands["explorer.openDiagram"] = function(command, ctx)
  run_on_server(command, ctx, function(path)
    vim.notify(path and ("explorer: diagram written to " .. path) or "explorer: no diagram", vim.log.levels.INFO)
  end)
end

-- Lenses are asked for only once the server can answer (before, Neovim reports an error).
local function refresh_lenses(id)
  local client = vim.lsp.get_client_by_id(id)
  local capabilities = client and (client.server_capabilities or client.resolved_capabilities)
  if client and client.initialized and capabilities and (capabilities.codeLensProvider or capabilities.code_lens) then
    vim.lsp.codelens.refresh()
  end
end

function M.start(buffer)
  buffer = buffer or vim.api.nvim_get_current_buf()
  local file = vim.api.nvim_buf_get_name(buffer)
  if file == "" then
    return nil
  end
  if vim.fn.executable(M.config.cmd[1]) == 0 then
    vim.notify("explorer: cannot run " .. M.config.cmd[1] .. " (not on PATH: give its full path in setup({ cmd = ... }))",
      vim.log.levels.ERROR)
    return nil
  end
  local root = find_root(file)
  local id = clients[root]
  if id == nil or vim.lsp.get_client_by_id(id) == nil then
    id = vim.lsp.start_client({
      name = "explorer",
      cmd = M.config.cmd,
      root_dir = root,
      workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
      init_options = M.config.init_options,
      handlers = { ["callHierarchy/outgoingCalls"] = calls_handler("to"), ["callHierarchy/incomingCalls"] = calls_handler("from") },
      on_attach = function(client)
        if M.config.codelens then
          refresh_lenses(client.id)
        end
      end,
    })
    clients[root] = id
  end
  if id then
    vim.lsp.buf_attach_client(buffer, id)
    if M.config.codelens then
      vim.api.nvim_create_autocmd({ "BufEnter", "InsertLeave", "BufWritePost" }, {
        buffer = buffer,
        callback = function() refresh_lenses(id) end,
      })
    end
  end
  return id
end

-- The clients started so far, by project root (for a status line, or to stop one).
function M.clients()
  return vim.deepcopy(clients)
end

function M.setup(options)
  M.config = vim.tbl_deep_extend("force", vim.deepcopy(M.defaults), options or {})
  local group = vim.api.nvim_create_augroup("explorer", { clear = true })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = M.config.filetypes,
    callback = function(event) M.start(event.buf) end,
  })
end

return M
