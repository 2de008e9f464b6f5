-- llm-edits with Neovim 0.11's vim.lsp.config / vim.lsp.enable: no plugin, no nvim-lspconfig.
-- The server starts for every buffer that has a filetype, in the project found by .git.
vim.lsp.config('llm_edits', {
  cmd = vim.g.llm_edits_cmd or { 'python3', '-m', 'lsp_server' },
  root_markers = { '.git' },
})
vim.lsp.enable('llm_edits')

-- :LlmApply applies the response in the unnamed register; the result is kept in LlmEditsLast.
vim.api.nvim_create_user_command('LlmApply', function()
  local client = assert(vim.lsp.get_clients({ name = 'llm_edits' })[1], 'llm_edits is not running')
  local command = {
    title = 'LLM edits: apply',
    command = 'llmEdits.apply',
    arguments = { { response = vim.fn.getreg('"') } },
  }
  client:exec_cmd(command, {}, function(err, result)
    LlmEditsLast = { err = err, result = result }
  end)
end, {})
