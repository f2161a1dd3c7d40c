-- Runs in Neovim started with an init.lua that sets explorer up as docs/editor.md writes it
-- (tests/test_nvim_config.py writes it), and records as JSON what a user would see: the
-- clients started, the quickfix list of outgoing calls, the chain a code lens's trace gives.
-- EXPLORER_NVIM_ROOT: the tree; EXPLORER_NVIM_OUT: the JSON file; EXPLORER_NVIM_FILES: the
-- files to open (relative, comma-separated).
local root = os.getenv("EXPLORER_NVIM_ROOT")
local out = os.getenv("EXPLORER_NVIM_OUT")
local result = { errors = {} }
local get_clients = vim.lsp.get_clients or vim.lsp.get_active_clients

local function finish()
  vim.fn.writefile({ vim.fn.json_encode(result) }, out)
  vim.cmd("qa!")
end

local function probe()
  local function relative(file)
    return (file:gsub("^" .. vim.pesc(root) .. "/", ""))
  end

  local function quickfix(title, seconds)
    local found = nil
    vim.wait(seconds * 1000, function()
      local list = vim.fn.getqflist({ title = 1, items = 1 })
      if list.title == title then
        found = list.items
        return true
      end
      return false
    end, 50)
    if found == nil then
      table.insert(result.errors, "no quickfix list " .. title)
      return {}
    end
    local items = {}
    for _, item in ipairs(found) do
      table.insert(items, { relative(vim.api.nvim_buf_get_name(item.bufnr)), item.lnum, item.text })
    end
    return items
  end

  local buffers = {}
  for file in string.gmatch(os.getenv("EXPLORER_NVIM_FILES"), "[^,]+") do
    vim.cmd("edit " .. root .. "/" .. file)
    buffers[file] = vim.api.nvim_get_current_buf()
  end
  -- clients are listed once they have started (Neovim lists none before)
  local expected = tonumber(os.getenv("EXPLORER_NVIM_CLIENTS") or "1")
  vim.wait(60000, function() return #get_clients() >= expected end, 50)
  vim.wait(200, function() return false end, 50) -- a client too many would show by now
  result.clients = {}
  for _, client in ipairs(get_clients()) do
    table.insert(result.clients, { client.name, client.config.root_dir })
  end
  table.sort(result.clients, function(a, b) return a[2] < b[2] end)
  local client = get_clients()[1]
  if client == nil or not vim.wait(60000, function() return client.initialized end, 50) then
    table.insert(result.errors, "no client initialized")
    return
  end
  vim.wait(120000, function()
    local answer = client.request_sync("workspace/symbol", { query = "cudnn_convolution" }, 60000, 0)
    return answer ~= nil and answer.result ~= nil and #answer.result > 0
  end, 200)

  -- conv.py:243 `def forward`: outgoing calls as the user asks for them
  local conv = buffers["torch/nn/modules/conv.py"]
  if conv ~= nil then
    vim.api.nvim_set_current_buf(conv)
    local window = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_cursor(window, { 243, 9 })
    vim.lsp.buf.outgoing_calls()
    result.outgoing = quickfix("explorer: outgoing calls", 60)
    -- conv.py:228 `def _conv_forward`: the calls into it (the quickfix window has the focus now)
    vim.api.nvim_set_current_win(window)
    vim.api.nvim_win_set_cursor(window, { 228, 9 })
    vim.lsp.buf.incoming_calls()
    result.incoming = quickfix("explorer: incoming calls", 60)

    -- the code lens on that line: trace to a vendor call
    vim.api.nvim_set_current_win(window)
    vim.lsp.codelens.refresh()
    local lens = nil
    vim.wait(60000, function()
      for _, each in ipairs(vim.lsp.codelens.get(conv)) do
        if each.range.start.line == 242 and each.command and each.command.title == "trace to vendor call" then
          lens = each
          return true
        end
      end
      vim.lsp.codelens.refresh()
      return false
    end, 200)
    if lens == nil then
      table.insert(result.errors, "no trace lens on conv.py:243")
    else
      vim.lsp.commands[lens.command.command](lens.command, { client_id = client.id, bufnr = conv })
      result.trace = quickfix("explorer: " .. lens.command.arguments[1] .. " to a vendor call", 120)
    end
  end
end

-- an error is recorded, and the editor still quits (headless, it would wait for ever)
local ok, problem = pcall(probe)
if not ok then
  table.insert(result.errors, tostring(problem))
end
finish()
