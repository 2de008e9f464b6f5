-- LLM Edits for Neovim: apply an LLM response's edit blocks through the llm-edits language server.
--
--   require('llm_edits').setup{ cmd = { 'python3', '-m', 'lsp_server' }, root_dir = '/path/to/project' }
--
-- Commands (see docs/editors.md):
--   :LlmEditsApply[!] [buffer|{reg}] [{blocks}] [target={file}]
--                                        apply the response in register {reg} (default + or ")
--                                        or in the current buffer; ! = whitespace-tolerant
--                                        matching; {blocks} = only these blocks, numbered from 1
--                                        as summaries show them: 1,3-5 (a numbered register is
--                                        written "1, as a lone digit is a block); target= the
--                                        file every code fence naming no file is for: % (this
--                                        buffer), # (the alternate buffer) or a path; default
--                                        for a response in a scratch buffer: the alternate one
--   :LlmEditsPreview[!] [buffer|{reg}] [{blocks}]
--                                        show the proposed text of every changed file in a diff
--                                        tab, with the list of blocks: x there takes a block in
--                                        or out and previews again, a applies the chosen ones
--   :LlmEditsFeedback [buffer|{reg}] [{blocks}]  put retry feedback for the model into a register
--   :LlmEditsInstructions [format]      put the format instructions (system prompt) into a register
--   :LlmEditsMcpConfig                  show the agents' MCP endpoint (URL, token) and the config
--                                        each agent takes; needs init_options = { mcp = { enabled = true } }
--   :LlmEditsShell                      run the shell commands the last response suggested,
--                                        asking before each
--   :LlmEditsClear                      clear the diagnostics llm-edits published
--   :LlmEditsWatch / :LlmEditsUnwatch   make the current buffer a response document (any
--                                        filetype; an unnamed one is named
--                                        llm-edits://response/N) / stop: each block shows its
--                                        status as a code lens while the response is written
--   :LlmEditsLens [preview|all]         apply (preview) the block the cursor is in, or every
--                                        ready block, through its code lens;
--                                        vim.lsp.codelens.run() works too
--   Buffers of filetype llm-response (files *.llm.md) are response documents without :LlmEditsWatch.
--
-- Works on Neovim 0.7 and later (tested on 0.7.2 and 0.11.4): only APIs both have are used, and
-- the few that were renamed are picked by version.
local M = {}

local blocks = require('llm_edits.blocks')
local git = require('llm_edits.git')
local last_editor = require('llm_edits.last_editor')
local preview = require('llm_edits.preview')
local response = require('llm_edits.response')
local review = require('llm_edits.review')
local shell = require('llm_edits.shell')

local uv = vim.uv or vim.loop
local has_011 = vim.fn.has('nvim-0.11') == 1

local defaults = {
  name = 'llm-edits',
  -- The server command; the default expects `llm-edits` installed in the Python on PATH.
  cmd = { 'python3', '-m', 'lsp_server' },
  -- Workspace root (string or function returning one). Default: nearest directory with .git
  -- above the current directory, else the current directory.
  root_dir = nil,
  -- Register the response is read from (and feedback/instructions are written to).
  -- Default: '+' when a clipboard provider exists, else '"'.
  register = nil,
  feedback_register = nil,
  -- `options` sent with every edit command (matching, atomic, formats); a command's ! adds
  -- matching = 'whitespace'.
  options = {},
  -- initializationOptions: server-wide defaults (docs/protocol.md).
  init_options = vim.empty_dict(),
  -- After an apply, save the buffers it changed and `git add` the files it changed (deleted and
  -- renamed-away files are staged as removed). Git stages what is on disk: a saved buffer
  -- includes any unsaved changes it held before the apply.
  stage_in_git = false,
  -- Create the :LlmEdits* user commands in setup().
  commands = true,
}

M.config = vim.deepcopy(defaults)
-- The last finished command: { seq, command, err, result } (scripts and tests wait on `seq`).
M.last = { seq = 0 }

local state = {
  client_id = nil,
  pending = {},
  -- The argument the last preview ran with: the preview's keys run it again with another
  -- choice of blocks, or apply it.
  preview_argument = nil,
  root = nil,
}

local function notify(msg, level)
  vim.notify('llm-edits: ' .. msg, level or vim.log.levels.INFO)
end

local function realpath(path)
  return uv.fs_realpath(path) or path
end

local function find_root()
  local dir = vim.fn.getcwd()
  local probe = dir
  while probe and probe ~= '' do
    if vim.fn.isdirectory(probe .. '/.git') == 1 or vim.fn.filereadable(probe .. '/.git') == 1 then
      return probe
    end
    local parent = vim.fn.fnamemodify(probe, ':h')
    if parent == probe then
      break
    end
    probe = parent
  end
  return dir
end

function M.root_dir()
  if not state.root then
    local root = M.config.root_dir
    if type(root) == 'function' then
      root = root()
    end
    root = root or find_root()
    state.root = realpath(vim.fn.fnamemodify(root, ':p')):gsub('/+$', '')
  end
  return state.root
end

local function in_workspace(path)
  local root = M.root_dir()
  -- The file may not exist yet (a new buffer): resolve its directory instead.
  local full = vim.fn.fnamemodify(path, ':p')
  local resolved = uv.fs_realpath(full)
  if not resolved then
    resolved = realpath(vim.fn.fnamemodify(full, ':h')) .. '/' .. vim.fn.fnamemodify(full, ':t')
  end
  return resolved == root or vim.startswith(resolved, root .. '/')
end

-- A buffer the server should see (didOpen/didChange), so that unsaved text is what gets edited.
local function wants_buffer(buf)
  if not vim.api.nvim_buf_is_loaded(buf) or vim.bo[buf].buftype ~= '' then
    return false
  end
  local name = vim.api.nvim_buf_get_name(buf)
  return name ~= '' and not name:match('^%a[%w+.-]*://') and in_workspace(name)
end

local function get_client()
  return state.client_id and vim.lsp.get_client_by_id(state.client_id) or nil
end

local function attach(buf)
  if state.client_id and wants_buffer(buf) and get_client() then
    vim.lsp.buf_attach_client(buf, state.client_id)
  end
end

local function attach_all()
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    attach(buf)
  end
end

local function client_request(client, method, params, handler, bufnr)
  if has_011 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

-- The loaded buffer holding a file URI, or nil (never creates one).
local function loaded_buffer(uri)
  local path = vim.uri_to_fname(uri)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.api.nvim_buf_get_name(buf) == path then
      return buf
    end
  end
  return nil
end

-- Buffers an edit would change that changed after the server computed it: every
-- TextDocumentEdit carries the version it was computed against (the plugin advertises
-- documentChanges). Neovim's own handler checks only the first TextDocumentEdit, and answers
-- applied=true even when it skipped it.
local function stale_buffers(edit)
  local stale = {}
  local versions = vim.lsp.util.buf_versions
  for _, change in ipairs(edit.documentChanges or {}) do
    local doc = change.textDocument
    if not change.kind and doc and type(doc.version) == 'number' then
      local buf = loaded_buffer(doc.uri)
      if buf and versions[buf] ~= doc.version then
        table.insert(stale, vim.uri_to_fname(doc.uri))
      end
    end
  end
  return stale
end

-- URIs whose text an edit changes (TextDocumentEdits and the `changes` map).
local function text_targets(edit)
  local uris = {}
  for _, change in ipairs(edit.documentChanges or {}) do
    if not change.kind and change.textDocument then
      table.insert(uris, change.textDocument.uri)
    end
  end
  for uri in pairs(edit.changes or {}) do
    table.insert(uris, uri)
  end
  return uris
end

-- An empty buffer, or an empty or missing file when no buffer holds it.
local function is_empty(uri)
  local buf = loaded_buffer(uri)
  if buf then
    return vim.api.nvim_buf_line_count(buf) == 1
      and vim.api.nvim_buf_get_lines(buf, 0, 1, true)[1] == ''
  end
  return vim.fn.getfsize(vim.uri_to_fname(uri)) <= 0
end

local function apply_edit_handler(_, params, ctx)
  local edit = params and params.edit
  if not edit then
    return { applied = false, failureReason = 'no edit' }
  end
  local stale = stale_buffers(edit)
  if #stale > 0 then
    -- The command's summary reports the refusal (the server returns it as failureReason).
    local reason = 'buffer changed after the edit was computed: ' .. table.concat(stale, ', ')
    return { applied = false, failureReason = reason }
  end
  local empty_before = {}
  for _, uri in ipairs(text_targets(edit)) do
    empty_before[uri] = is_empty(uri)
  end
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  local encoding = client and client.offset_encoding or 'utf-16'
  local ok, err = pcall(vim.lsp.util.apply_workspace_edit, edit, encoding)
  if not ok then
    return { applied = false, failureReason = tostring(err) }
  end
  -- Text inserted into an empty buffer keeps its final newline as an extra empty last line
  -- (Neovim's buffer holds the final newline implicitly, and its eol handling applies only to
  -- edits reaching past the last line): "x\n" into a created file would be saved as "x\n\n".
  for uri, was_empty in pairs(empty_before) do
    local buf = was_empty and loaded_buffer(uri)
    if buf then
      local count = vim.api.nvim_buf_line_count(buf)
      if count > 1 and vim.api.nvim_buf_get_lines(buf, count - 1, count, true)[1] == '' then
        vim.api.nvim_buf_set_lines(buf, count - 1, count, true, {})
      end
    end
  end
  return { applied = true }
end

-- Neovim applies documentChanges (versioned text edits, create/rename/delete) but does not
-- advertise it; advertising it lets the server create, rename and delete files. The plugin
-- handles workspace/codeLens/refresh itself (Neovim 0.7 and 0.11 neither advertise nor handle it).
local function capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.workspace = caps.workspace or {}
  caps.workspace.workspaceEdit = vim.tbl_extend('force', caps.workspace.workspaceEdit or {}, {
    documentChanges = true,
    resourceOperations = { 'create', 'rename', 'delete' },
  })
  caps.workspace.codeLens = { refreshSupport = true }
  return caps
end

--- Start the server (once) and attach every workspace buffer. Returns the client id.
function M.start()
  if get_client() then
    return state.client_id
  end
  local config = {
    name = M.config.name,
    cmd = M.config.cmd,
    root_dir = M.root_dir(),
    init_options = M.config.init_options,
    capabilities = capabilities(),
    handlers = {
      ['workspace/applyEdit'] = apply_edit_handler,
      ['workspace/codeLens/refresh'] = response.on_refresh_request,
    },
    -- The lenses' commands, run by vim.lsp.codelens.run() too: reported like :LlmEditsApply.
    commands = response.client_commands(),
    on_init = function()
      -- Scheduled: the client sends didOpen for attached buffers right after on_init, and the
      -- queued commands must reach the server after those (they read the buffers).
      vim.schedule(function()
        local queued = state.pending
        state.pending = {}
        for _, fn in ipairs(queued) do
          fn()
        end
        last_editor.on_server_ready()
      end)
    end,
    on_exit = function()
      vim.schedule(function()
        if state.client_id and not vim.lsp.get_client_by_id(state.client_id) then
          state.client_id = nil
          response.reset()
        end
        -- Commands queued for a server that never initialized: they report the error.
        local queued = state.pending
        state.pending = {}
        for _, fn in ipairs(queued) do
          fn()
        end
      end)
    end,
  }
  local id
  if has_011 then
    id = vim.lsp.start(config, { attach = false })
  else
    id = vim.lsp.start_client(config)
  end
  if not id then
    notify('could not start ' .. table.concat(M.config.cmd, ' '), vim.log.levels.ERROR)
    return nil
  end
  state.client_id = id
  attach_all()
  return id
end

-- Run fn once the server is initialized (and the buffers attached so far are open there).
local function when_ready(fn)
  local client = get_client()
  if client and client.initialized then
    fn()
  else
    table.insert(state.pending, fn)
  end
end

--- Run a server command: `M.execute('llmEdits.preview', { response = text }, function(err, result) end)`.
--- Starts the server if needed; runs after initialization and after the buffers were opened.
function M.execute(command, argument, callback)
  if not M.start() then
    callback({ message = 'could not start the llm-edits server' }, nil)
    return
  end
  attach_all()
  when_ready(function()
    local client = get_client()
    if not client then
      callback({ message = 'llm-edits server is not running' }, nil)
      return
    end
    client_request(
      client,
      'workspace/executeCommand',
      { command = command, arguments = { argument } },
      function(err, result)
        callback(err, result)
      end
    )
  end)
end

local function default_register()
  if M.config.register then
    return M.config.register
  end
  return vim.fn.has('clipboard') == 1 and '+' or '"'
end

-- The command argument: '' (default register), 'buffer' (current buffer) or a register name.
local function response_argument(source)
  source = source or ''
  if source == 'buffer' then
    local buf = vim.api.nvim_get_current_buf()
    local client = get_client()
    if client and vim.lsp.buf_is_attached(buf, client.id) then
      -- An open document: the server also reports malformed blocks as diagnostics on it.
      return { responseUri = vim.uri_from_bufnr(buf) }
    end
    local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
    return { response = text }
  end
  local reg = source ~= '' and source or default_register()
  if #reg ~= 1 then
    error('llm-edits: expected "buffer" or a register name, got ' .. reg)
  end
  local text = vim.fn.getreg(reg)
  if text == '' then
    error('llm-edits: register ' .. reg .. ' is empty')
  end
  return { response = text }
end

-- A buffer holding no file of its own (a chat answer pasted into a scratch buffer, a response
-- document): its alternate buffer is the file a response read from it is applied to.
local function is_scratch(buf)
  return vim.bo[buf].buftype ~= '' or vim.api.nvim_buf_get_name(buf) == ''
    or vim.bo[buf].filetype == 'llm-response'
end

-- options.target for `target` (%, # or a path; nil: the alternate buffer when the response is
-- read from a scratch buffer, else none), as a file: URI. Raises 'llm-edits: ...' messages.
local function target_uri(target, source)
  if target == nil then
    local alternate = vim.fn.bufnr('#')
    if source ~= 'buffer' or not is_scratch(vim.api.nvim_get_current_buf()) or alternate < 1
        or is_scratch(alternate) then
      return nil
    end
    target = '#'
  end
  local path
  if target == '%' or target == '#' then
    local buf = vim.fn.bufnr(target)
    if buf < 1 or vim.api.nvim_buf_get_name(buf) == '' then
      error('llm-edits: target=' .. target .. ': that buffer has no file', 0)
    end
    path = vim.api.nvim_buf_get_name(buf)
  else
    path = vim.fn.fnamemodify(vim.fn.expand(target), ':p')
  end
  return vim.uri_from_fname(path)
end

-- The command argument for opts { source, whitespace, options, blocks, target } (or the words
-- typed after a command: source, blocks and target= in any order). Raises 'llm-edits: ...'
-- messages.
local function edit_argument(opts)
  local source, chosen, target = opts.source, opts.blocks, opts.target
  if opts.words then
    local ok, word_source, word_blocks, word_target = pcall(blocks.split_words, opts.words)
    if not ok then
      error('llm-edits: ' .. word_source, 0)
    end
    source, chosen, target = word_source, word_blocks, word_target
  end
  local arg = response_argument(source)
  local options = vim.tbl_extend('force', {}, M.config.options or {}, opts.options or {})
  options.target = target_uri(target, source) or options.target
  if opts.whitespace then
    options.matching = 'whitespace'
  end
  if chosen ~= nil then
    local ok, indices = pcall(blocks.indices, chosen)
    if not ok then
      error('llm-edits: blocks: ' .. indices, 0)
    end
    options.blocks = indices
  end
  arg.options = next(options) and options or vim.empty_dict()
  return arg
end

-- A copy of a command argument that runs the blocks `chosen` (0-based; nil: every block).
local function with_choice(arg, chosen)
  local copy, options = {}, {}
  for key, value in pairs(arg) do
    copy[key] = value
  end
  for key, value in pairs(arg.options or {}) do
    options[key] = value
  end
  options.blocks = chosen
  options.includeText = nil
  copy.options = next(options) and options or vim.empty_dict()
  return copy
end

-- The server names a block the response lacks 0-based: say it as the user numbered it.
local function error_message(command, err, arg)
  local message = err.message or vim.inspect(err)
  local chosen = type(arg.options) == 'table' and arg.options.blocks
  local for_user = chosen and blocks.user_message(message)
  if for_user and for_user ~= message then
    return 'blocks: ' .. for_user
  end
  return command .. ' failed: ' .. message
end

local function finish(command, err, result, on_done)
  M.last = { seq = M.last.seq + 1, command = command, err = err, result = result }
  if on_done then
    on_done(err, result)
  end
  if vim.fn.exists('#User#LlmEditsDone') == 1 then
    vim.api.nvim_exec_autocmds('User', { pattern = 'LlmEditsDone', modeline = false })
  end
end

-- Statuses in the order the summary lists them, and how it names them; a status the server
-- adds later is still counted, after these.
local STATUS_ORDER = { 'applied', 'already-applied', 'validated', 'failed', 'skipped', 'excluded', 'pending' }
-- pending: a block of a response document still being written (never applied).
local STATUS_LABEL = { ['already-applied'] = 'already applied', pending = 'still being written' }
-- Blocks listed in the quickfix list, with the item type: failures and skipped blocks, and the
-- blocks found already applied (informational: where the block's new text already is).
-- Excluded blocks (left out of the choice) are counted in the summary only.
local QUICKFIX_TYPE = { failed = 'E', skipped = 'W', ['already-applied'] = 'I' }

local function quickfix_item(block)
  -- JSON nulls arrive as vim.NIL: only strings are used.
  local label = STATUS_LABEL[block.status] or block.status
  local text = label .. ': ' .. (type(block.reason) == 'string' and block.reason or '')
  if type(block.hint) == 'string' then
    text = text .. ' (' .. block.hint .. ')'
  end
  return {
    filename = type(block.uri) == 'string' and vim.uri_to_fname(block.uri) or block.file,
    lnum = (type(block.line) == 'number' and block.line or 0) + 1,
    text = text,
    type = QUICKFIX_TYPE[block.status],
  }
end

local function status_counts(blocks)
  local counts, order = {}, vim.list_extend({}, STATUS_ORDER)
  for _, block in ipairs(blocks) do
    if not counts[block.status] and not vim.tbl_contains(order, block.status) then
      table.insert(order, block.status)
    end
    counts[block.status] = (counts[block.status] or 0) + 1
  end
  local parts = {}
  for _, status in ipairs(order) do
    if counts[status] then
      table.insert(parts, counts[status] .. ' ' .. (STATUS_LABEL[status] or status))
    end
  end
  return parts
end

local function summarize(result)
  local blocks = result.blocks or {}
  local items, problems = {}, false
  for _, block in ipairs(blocks) do
    if QUICKFIX_TYPE[block.status] then
      table.insert(items, quickfix_item(block))
      problems = problems or block.status ~= 'already-applied'
    end
  end
  local parts = status_counts(blocks)
  if #(result.warnings or {}) > 0 then
    table.insert(parts, #result.warnings .. ' warning(s)')
  end
  if #items > 0 then
    -- A new quickfix list (the user's lists stay in the stack); not opened automatically.
    vim.fn.setqflist({}, ' ', { title = 'llm-edits', items = items })
  end
  if #parts == 0 then
    return 'no edit blocks found'
  end
  if #blocks > 0 and #vim.tbl_filter(function(block)
    return block.status ~= 'excluded'
  end, blocks) == 0 then
    table.insert(parts, 1, 'no block chosen')
  end
  local where = problems and ' (diagnostics; :copen)' or (#items > 0 and ' (:copen)' or '')
  return table.concat(parts, ', ') .. where
end

--- Close the diff tabs the last preview opened.
function M.close_preview()
  preview.close()
end

local send_edit_command

-- What the preview's keys do (see llm_edits/review.lua).
local review_actions = {
  -- Take block `index` in or out of the choice and preview again, keeping the cursor where it
  -- was: in the block list, or in the proposed text of the same file.
  toggle = function(index, buf)
    local arg = with_choice(state.preview_argument, review.toggled(index))
    send_edit_command('llmEdits.preview', arg, { focus = preview.focus_in(buf, index) })
  end,
  apply = function()
    send_edit_command('llmEdits.apply', with_choice(state.preview_argument, review.chosen()), {})
  end,
  close = function()
    preview.close()
  end,
  go_to = function(block)
    if not preview.go_to(block) then
      notify(('block %d changes no file in this preview'):format(block.index + 1))
    end
  end,
}

-- A JSON value that is there: not absent, not null (vim.NIL).
local function has_value(value)
  return value ~= nil and value ~= vim.NIL
end

local function report_apply(result)
  local level = vim.log.levels.INFO
  local text = summarize(result)
  if result.applied == false and has_value(result.edit) then
    level = vim.log.levels.WARN
    text = text .. '; the editor refused the edit: ' .. tostring(result.failureReason or '?')
  end
  notify(text, level)
  if M.config.stage_in_git and result.applied == true and has_value(result.edit) then
    local staged, message = git.stage(result.edit, M.root_dir())
    notify(message, staged and vim.log.levels.INFO or vim.log.levels.WARN)
  end
end

-- Send an edit command's argument; opts: { on_done, focus (a preview's cursor) }.
send_edit_command = function(command, arg, opts)
  if command == 'llmEdits.preview' then
    arg = with_choice(arg, arg.options.blocks)
    arg.options.includeText = true
  end
  M.execute(command, arg, function(err, result)
    if err then
      local message = error_message(command, err, arg)
      err = vim.tbl_extend('force', {}, err, { message = message })
      notify(message, vim.log.levels.ERROR)
    elseif command == 'llmEdits.preview' then
      state.preview_argument = with_choice(arg, arg.options.blocks)
      review.start(result.blocks, arg.options.blocks)
      preview.show(result.files or {}, { root = M.root_dir(), focus = opts.focus, actions = review_actions })
      notify('preview: ' .. summarize(result))
    else
      M.close_preview()
      report_apply(result)
    end
    if not err then
      local suggested = shell.remember(result, M.root_dir())
      if #suggested > 0 then
        notify(shell.describe(suggested))
      end
    end
    finish(command, err, result, opts.on_done)
  end)
end

local function run_edit_command(command, opts)
  opts = opts or {}
  local ok, arg = pcall(edit_argument, opts)
  if not ok then
    notify(tostring(arg):gsub('^.-llm%-edits: ', ''), vim.log.levels.ERROR)
    finish(command, { message = tostring(arg) }, nil, opts.on_done)
    return
  end
  send_edit_command(command, arg, opts)
end

-- A lens's command (or any llmEdits.apply/preview run through exec_cmd): the server's own
-- argument, with the configured options under the lens's; reported like :LlmEditsApply, and
-- the response document's lenses asked for again once it is done.
local function run_lens_command(command, argument, bufnr, on_done)
  local arg = vim.deepcopy(argument)
  local options = vim.tbl_extend('force', {}, M.config.options or {}, type(arg.options) == 'table' and arg.options or {})
  arg.options = next(options) and options or vim.empty_dict()
  send_edit_command(command, arg, {
    on_done = function(err, result)
      if bufnr and response.is_tracked(bufnr) then
        response.refresh(bufnr)
      end
      if on_done then
        on_done(err, result)
      end
    end,
  })
end

response.init({
  client = get_client,
  start = function()
    return M.start()
  end,
  when_ready = when_ready,
  execute = function(command, argument, callback)
    M.execute(command, argument, callback)
  end,
  notify = notify,
  request = client_request,
  run_command = run_lens_command,
})

last_editor.init({
  client = get_client,
  execute = function(command, argument, callback)
    M.execute(command, argument, callback)
  end,
  notify = notify,
})

--- Apply the response. opts: { source = 'buffer'|register|nil, whitespace = bool, options = {},
--- blocks = '1,3-5' or { 1, 3 } (numbered from 1; default: every block), target = '%'|'#'|path
--- (the file of the response's unnamed code fences), on_done = fn(err, result) }
function M.apply(opts)
  run_edit_command('llmEdits.apply', opts)
end

--- Preview the response as diff tabs (nothing changes). Same opts as apply().
function M.preview(opts)
  run_edit_command('llmEdits.preview', opts)
end

local function put_text(command, text, on_done, err)
  local reg = M.config.feedback_register or default_register()
  if text then
    vim.fn.setreg(reg, text)
    notify(command .. ': ' .. #vim.split(text, '\n', { plain = true }) .. ' lines in register ' .. reg)
  end
  finish(command, err, text and { text = text, register = reg } or nil, on_done)
end

--- Put retry feedback for the model (failed blocks, real file lines) into a register.
function M.feedback(opts)
  opts = opts or {}
  local ok, arg = pcall(edit_argument, opts)
  if not ok then
    notify(tostring(arg):gsub('^.-llm%-edits: ', ''), vim.log.levels.ERROR)
    return finish('llmEdits.feedback', { message = tostring(arg) }, nil, opts.on_done)
  end
  M.execute('llmEdits.feedback', arg, function(err, result)
    if err then
      err = vim.tbl_extend('force', {}, err, { message = error_message('feedback', err, arg) })
      notify(err.message, vim.log.levels.ERROR)
    end
    put_text('llmEdits.feedback', result and result.text, opts.on_done, err)
  end)
end

--- Put the system-prompt text teaching a model the edit formats into a register.
function M.instructions(opts)
  opts = opts or {}
  local arg = (opts.format and opts.format ~= '') and { format = opts.format } or vim.empty_dict()
  M.execute('llmEdits.instructions', arg, function(err, result)
    put_text('llmEdits.instructions', result and result.text, opts.on_done, err)
  end)
end

--- Show the server's MCP endpoint for agents (docs/agents.md) in a scratch buffer: the URL, the
--- token and each agent's configuration. opts: { on_done = fn(err, result) }
function M.mcp_config(opts)
  opts = opts or {}
  M.execute('llmEdits.mcpEndpoint', vim.empty_dict(), function(err, result)
    if err then
      notify('llm-edits: ' .. (err.message or tostring(err)), vim.log.levels.ERROR)
      return finish('llmEdits.mcpEndpoint', err, nil, opts.on_done)
    end
    local lines = { '# LLM Edits MCP endpoint', '', 'URL:   ' .. result.url, 'Token: ' .. result.token }
    local agents = vim.tbl_keys(result.configs or {})
    table.sort(agents)
    for _, agent in ipairs(agents) do
      vim.list_extend(lines, { '', '## ' .. agent, '' })
      vim.list_extend(lines, vim.split(result.configs[agent], '\n', { plain = true, trimempty = true }))
    end
    vim.cmd('new')
    local buf = vim.api.nvim_get_current_buf()
    vim.bo[buf].buftype = 'nofile'
    vim.bo[buf].bufhidden = 'wipe'
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    vim.bo[buf].modifiable = false
    finish('llmEdits.mcpEndpoint', nil, vim.tbl_extend('force', result, { buf = buf }), opts.on_done)
  end)
end

--- Ask about each shell command the last apply or preview suggested, and run the accepted ones
--- in the workspace root. opts: { on_done = fn(nil, { ran = {...}, skipped = {...} }) }
function M.shell(opts)
  opts = opts or {}
  shell.run_suggestions(notify, function(outcome)
    finish('shell', nil, outcome, opts.on_done)
  end)
end

--- Make a buffer (default: the current one) a response document: the server validates its
--- blocks as they are written and shows each one's status as a code lens. An unnamed buffer
--- is named llm-edits://response/N first. opts: { buf, on_done = fn(err, result) }
function M.watch(opts)
  opts = opts or {}
  -- A response is never the file the lenses of its own fences apply to.
  last_editor.forget(opts.buf or vim.api.nvim_get_current_buf())
  response.watch(opts.buf, function(err, result)
    finish('llmEdits.watch', err, result, opts.on_done)
  end)
end

--- Stop treating a buffer (default: the current one) as a response document.
function M.unwatch(opts)
  opts = opts or {}
  response.unwatch(opts.buf, function(err, result)
    finish('llmEdits.unwatch', err, result, opts.on_done)
  end)
end

--- Apply ('apply', the default) or preview ('preview') the block the cursor is in, or apply
--- every ready block ('all'), through the lens the server shows. opts: { which, on_done }
function M.lens(opts)
  opts = opts or {}
  local which = opts.which and opts.which ~= '' and opts.which or 'apply'
  response.run_lens(which, function(err, result)
    if err then
      finish('lens', err, result, opts.on_done)
    elseif opts.on_done then
      opts.on_done(err, result)
    end
  end)
end

--- Ask for the lenses of a response document again; on_done(err) once they are shown.
function M.refresh_lenses(buf, on_done)
  response.refresh(buf, on_done)
end

function M.clear(opts)
  opts = opts or {}
  M.execute('llmEdits.clear', vim.empty_dict(), function(err, result)
    if err then
      notify('clear failed: ' .. (err.message or ''), vim.log.levels.ERROR)
    end
    finish('llmEdits.clear', err, result, opts.on_done)
  end)
end

function M.create_commands()
  local function source_complete()
    return { 'buffer', '+', '"', '*' }
  end
  local create = vim.api.nvim_create_user_command
  -- [buffer|{reg}] [{blocks}], in either order (see edit_argument).
  create('LlmEditsApply', function(c)
    M.apply({ words = c.fargs, whitespace = c.bang })
  end, { nargs = '*', bang = true, complete = source_complete, desc = 'Apply an LLM response' })
  create('LlmEditsPreview', function(c)
    M.preview({ words = c.fargs, whitespace = c.bang })
  end, { nargs = '*', bang = true, complete = source_complete, desc = 'Preview an LLM response as diffs' })
  create('LlmEditsFeedback', function(c)
    M.feedback({ words = c.fargs, whitespace = c.bang })
  end, { nargs = '*', bang = true, complete = source_complete, desc = 'Retry feedback into a register' })
  create('LlmEditsInstructions', function(c)
    M.instructions({ format = c.args })
  end, { nargs = '?', desc = 'Edit-format instructions into a register' })
  create('LlmEditsMcpConfig', function()
    M.mcp_config()
  end, { nargs = 0, desc = "Show the agents' MCP endpoint and each agent's config" })
  create('LlmEditsShell', function()
    M.shell()
  end, { nargs = 0, desc = 'Run the shell commands the last response suggested, asking first' })
  create('LlmEditsClear', function()
    M.clear()
  end, { nargs = 0, desc = 'Clear llm-edits diagnostics' })
  create('LlmEditsWatch', function()
    M.watch()
  end, { nargs = 0, desc = 'Make the current buffer a response document (code lens per block)' })
  create('LlmEditsUnwatch', function()
    M.unwatch()
  end, { nargs = 0, desc = 'Stop treating the current buffer as a response document' })
  create('LlmEditsLens', function(c)
    M.lens({ which = c.args })
  end, {
    nargs = '?',
    complete = function()
      return { 'preview', 'all' }
    end,
    desc = 'Apply (preview) the block under the cursor, or all ready blocks, via its code lens',
  })
end

--- Files *.llm.md are of filetype llm-response (Markdown highlighting); a buffer of that
--- filetype is a response document as soon as it is opened (the server starts if needed).
function M.create_autocmds()
  local group = vim.api.nvim_create_augroup('llm_edits_response', { clear = true })
  vim.api.nvim_create_autocmd({ 'BufRead', 'BufNewFile' }, {
    group = group,
    pattern = '*.llm.md',
    callback = function(args)
      -- Set, not :setfiletype: Markdown's detection may have run first.
      if vim.bo[args.buf].filetype ~= response.FILETYPE then
        vim.bo[args.buf].filetype = response.FILETYPE
      end
    end,
  })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = response.FILETYPE,
    callback = function(args)
      vim.bo[args.buf].syntax = 'markdown'
      if vim.treesitter and vim.treesitter.language and vim.treesitter.language.register then
        pcall(vim.treesitter.language.register, 'markdown', response.FILETYPE)
      end
      response.on_filetype(args.buf)
    end,
  })
end

--- setup{ cmd = {...}, root_dir = ..., register = ..., options = {...}, init_options = {...}, stage_in_git = bool }
function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts or {})
  state.root = nil
  if M.config.commands then
    M.create_commands()
  end
  M.create_autocmds()
  local group = vim.api.nvim_create_augroup('llm_edits', { clear = true })
  -- Attach buffers opened later (once the server runs), so their unsaved text is what is edited.
  vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile', 'BufEnter' }, {
    group = group,
    callback = function(args)
      attach(args.buf)
    end,
  })
  -- The file buffer the user was last in: the "Apply to <file>" lens on a response document's
  -- code fences that name no file (llmEdits.lastEditor).
  vim.api.nvim_create_autocmd('BufEnter', {
    group = group,
    callback = function(args)
      last_editor.entered(args.buf)
    end,
  })
  vim.api.nvim_create_autocmd({ 'BufDelete', 'BufWipeout' }, {
    group = group,
    callback = function(args)
      last_editor.forget(args.buf)
    end,
  })
  last_editor.entered(vim.api.nvim_get_current_buf())
end

return M
