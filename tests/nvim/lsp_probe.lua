-- Drives explorer's language server from Neovim's built-in LSP client, headless, and writes
-- what it answered as JSON for tests/test_nvim.py to check. Settings come from the
-- environment: EXPLORER_NVIM_ROOT (the tree), EXPLORER_NVIM_OUT (the JSON file),
-- EXPLORER_NVIM_SERVER (the server's command, as JSON).
local root = os.getenv("EXPLORER_NVIM_ROOT")
local out = os.getenv("EXPLORER_NVIM_OUT")
local cmd = vim.fn.json_decode(os.getenv("EXPLORER_NVIM_SERVER"))
local result = { errors = {} }

local function finish()
  vim.fn.writefile({ vim.fn.json_encode(result) }, out)
  vim.cmd("qa!")
end

local id = vim.lsp.start_client({ name = "explorer", cmd = cmd, root_dir = root })
vim.cmd("edit " .. root .. "/torch/nn/modules/conv.py")
vim.lsp.buf_attach_client(0, id)
local client = vim.lsp.get_client_by_id(id)
if not vim.wait(60000, function() return client.initialized end, 50) then
  table.insert(result.errors, "not initialized")
  finish()
end

local function ask(method, params)
  local answer, err = client.request_sync(method, params, 60000, 0)
  if err or answer == nil or answer.err then
    table.insert(result.errors, method .. ": " .. vim.inspect(err or (answer and answer.err)))
    return nil
  end
  return answer.result
end

-- the index is built in the background: ask until it answers
local symbols = nil
vim.wait(120000, function()
  symbols = ask("workspace/symbol", { query = "cudnn_convolution" })
  return symbols ~= nil and #symbols > 0
end, 200)
result.symbols = {}
for _, s in ipairs(symbols or {}) do
  table.insert(result.symbols, s.name)
end

local function uri(path) return vim.uri_from_fname(root .. "/" .. path) end
local function names(calls, side)
  local found = {}
  for _, call in ipairs(calls or {}) do
    table.insert(found, { call[side].name, call[side].detail })
  end
  return found
end

-- conv.py:243 `def forward`, then each first outgoing call, three steps down
local items = ask("textDocument/prepareCallHierarchy", { textDocument = { uri = uri("torch/nn/modules/conv.py") }, position = { line = 242, character = 9 } })
result.outgoing = {}
local item = items and items[1]
for _ = 1, 3 do
  if item == nil then break end
  local calls = ask("callHierarchy/outgoingCalls", { item = item })
  table.insert(result.outgoing, names(calls, "to"))
  item = calls and calls[1] and calls[1].to
end

-- kernels.cu:22 `clamp_add_kernel`, then who calls it, twice up
items = ask("textDocument/prepareCallHierarchy", { textDocument = { uri = uri("mini_ops/csrc/kernels.cu") }, position = { line = 21, character = 20 } })
result.incoming = {}
item = items and items[1]
for _ = 1, 2 do
  if item == nil then break end
  local calls = ask("callHierarchy/incomingCalls", { item = item })
  table.insert(result.incoming, names(calls, "from"))
  item = calls and calls[1] and calls[1].from
end
finish()
