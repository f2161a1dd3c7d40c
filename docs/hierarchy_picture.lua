-- Shows explorer lsp's outgoing call hierarchy from Conv2d.forward beside its source, in a
-- split, for docs/call_hierarchy.png (docs/make_hierarchy_picture.sh drives it in tmux).
local root = os.getenv("EXPLORER_NVIM_ROOT")
local id = vim.lsp.start_client({ name = "explorer", cmd = { "explorer", "lsp" }, root_dir = root })
vim.cmd("edit " .. root .. "/torch/nn/modules/conv.py")
vim.lsp.buf_attach_client(0, id)
local client = vim.lsp.get_client_by_id(id)
vim.wait(60000, function() return client.initialized end, 50)
local function ask(method, params)
  local answer = client.request_sync(method, params, 60000, 0)
  return answer and answer.result
end
vim.wait(120000, function()
  local found = ask("workspace/symbol", { query = "conv2d" })
  return found ~= nil and #found > 0
end, 200)
local uri = vim.uri_from_fname(root .. "/torch/nn/modules/conv.py")
local item = ask("textDocument/prepareCallHierarchy", { textDocument = { uri = uri }, position = { line = 242, character = 9 } })[1]
local wanted = { "torch.nn.modules.conv.Conv2d._conv_forward", "torch.nn.functional.conv2d", "torch._C._VariableFunctions.conv2d",
                 "aten::conv2d", "at::native::conv2d_symint", "aten::convolution", "at::native::convolution" }
local lines = { "Outgoing calls (explorer lsp)", "", item.name .. "   " .. item.detail }
for depth, name in ipairs(wanted) do
  local calls = ask("callHierarchy/outgoingCalls", { item = item })
  for _, call in ipairs(calls or {}) do
    if call.to.name == name then
      item = call.to
      local file = vim.fn.fnamemodify(vim.uri_to_fname(item.uri), ":t")
      table.insert(lines, string.rep("  ", depth) .. "└ " .. item.name)
      table.insert(lines, string.rep("  ", depth) .. "    " .. item.detail .. "   " .. file .. ":" .. (item.range.start.line + 1))
      break
    end
  end
end
vim.cmd("normal! 243Gzz")
vim.cmd("vsplit | enew")
vim.api.nvim_buf_set_lines(0, 0, -1, false, lines)
vim.bo.buftype = "nofile"
vim.cmd("file call-hierarchy")
vim.cmd("redraw!")
vim.fn.writefile({ "ready" }, os.getenv("EXPLORER_PICTURE_READY"))
