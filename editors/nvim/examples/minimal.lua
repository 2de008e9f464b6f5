-- llm-edits without the plugin: Neovim's built-in LSP client only (Neovim 0.7 and later).
-- Set vim.g.llm_edits_cmd / vim.g.llm_edits_root first, or edit the two defaults below.
local server_cmd = vim.g.llm_edits_cmd or { 'python3', '-m', 'lsp_server' }
local root_dir = vim.g.llm_edits_root or vim.fn.getcwd()
local config = { name = 'llm-edits', cmd = server_cmd, root_dir = root_dir }

-- Attach every file under root_dir: the server then edits the buffers, unsaved changes included.
local function attach(buf)
  local name = vim.api.nvim_buf_get_name(buf)
  if vim.bo[buf].buftype ~= '' or not vim.startswith(name, root_dir .. '/') then
    return
  end
  if vim.lsp.start then -- Neovim 0.8+: starts the server once, then reuses it
    vim.lsp.start(config, { bufnr = buf })
  else -- Neovim 0.7
    LlmEditsClientId = LlmEditsClientId or vim.lsp.start_client(config)
    vim.lsp.buf_attach_client(buf, LlmEditsClientId)
  end
end
vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile' }, {
  callback = function(args)
    attach(args.buf)
  end,
})
for _, buf in ipairs(vim.api.nvim_list_bufs()) do
  if vim.api.nvim_buf_is_loaded(buf) then
    attach(buf)
  end
end

-- :LlmApply / :LlmPreview send the response in the unnamed register (what you yanked).
-- Failed blocks appear as diagnostics; the result is kept in LlmEditsLast.
local function run(command)
  local client
  for _, c in ipairs(vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()) do
    client = c.name == 'llm-edits' and c or client
  end
  assert(client, 'llm-edits is not running: open a file under ' .. root_dir)
  local params = { command = command, arguments = { { response = vim.fn.getreg('"') } } }
  local function done(err, result)
    LlmEditsLast = { err = err, result = result }
    local counts = {}
    for _, block in ipairs(result and result.blocks or {}) do
      counts[block.status] = (counts[block.status] or 0) + 1
    end
    print(command, vim.inspect(err and err.message or counts))
  end
  if vim.fn.has('nvim-0.11') == 1 then
    client:request('workspace/executeCommand', params, done)
  else
    client.request('workspace/executeCommand', params, done)
  end
end
vim.api.nvim_create_user_command('LlmApply', function()
  run('llmEdits.apply')
end, {})
vim.api.nvim_create_user_command('LlmPreview', function()
  run('llmEdits.preview')
end, {})
