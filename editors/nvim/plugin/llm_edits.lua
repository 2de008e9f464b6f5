-- Loaded automatically from 'runtimepath': defines the :LlmEdits* commands with the default
-- configuration and makes *.llm.md files response documents (filetype llm-response). Call
-- require('llm_edits').setup{...} (e.g. in init.lua) to set the server command and workspace
-- root; setup() redefines the commands with that configuration.
if vim.g.loaded_llm_edits then
  return
end
vim.g.loaded_llm_edits = true
require('llm_edits').create_commands()
require('llm_edits').create_autocmds()
