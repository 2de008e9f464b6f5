-- Headless Neovim driver for tests/editors/test_nvim.py (runs on Neovim 0.7 and 0.11).
--
--   nvim --headless -u NONE -i NONE -n -c 'luafile tests/editors/nvim/driver.lua'
--
-- Reads its configuration (JSON) from $LLM_EDITS_NVIM_CONFIG: { scenario, workspace, server_cmd,
-- plugin_dir, out, responses = {...} }, runs one scenario against the real language server, writes
-- what it observed (buffer texts, diagnostics, command results, ...) as JSON to `out`, and quits.
-- Any Lua error is written to `out` as { error = traceback } and ends Neovim with :cq!, so a
-- failure never leaves Neovim running (the test also runs it under a timeout).
local WAIT_MS = 60000  -- a generous deadline, not a speed assumption: a loaded 2-core machine starts the server slowly

local config
local observed = { notifications = {} }

local function read_file(path)
  local handle = io.open(path, 'rb')
  if not handle then
    return nil
  end
  local data = handle:read('*a')
  handle:close()
  return data
end

local function write_file(path, data)
  local handle = assert(io.open(path, 'wb'))
  handle:write(data)
  handle:close()
end

local function wait_for(what, predicate, ms)
  if not vim.wait(ms or WAIT_MS, predicate, 10) then
    error('timed out waiting for ' .. what)
  end
end

local function buffer_lines(buf)
  return vim.api.nvim_buf_get_lines(buf, 0, -1, false)
end

local function find_buffer(path)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_get_name(buf) == path then
      return buf
    end
  end
  return nil
end

local function diagnostics(buf)
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local lsp_data = d.user_data and d.user_data.lsp or {}
    table.insert(found, {
      lnum = d.lnum,
      col = d.col,
      message = d.message,
      source = d.source,
      severity = d.severity,
      code = d.code or lsp_data.code,
    })
  end
  return found
end

local function open(path)
  vim.cmd('edit ' .. vim.fn.fnameescape(path))
  return vim.api.nvim_get_current_buf()
end

-- Byte column just after the first occurrence of `needle` on 0-based line `row`.
local function column_after(buf, row, needle)
  local line = vim.api.nvim_buf_get_lines(buf, row, row + 1, true)[1]
  local start = assert(line:find(needle, 1, true), needle .. ' not on line ' .. row)
  return start - 1 + #needle
end

local function client_facts(client)
  return {
    offset_encoding = client.offset_encoding,
    server_position_encoding = client.server_capabilities.positionEncoding,
  }
end

-- The scenario of the issue, with Neovim's own LSP client and default capabilities (no
-- workspaceEdit.documentChanges), set up by editors/nvim/examples/minimal.lua as docs/editors.md
-- shows: unsaved buffer edits, a failing block, non-BMP text.
local function scenario_raw()
  local ws = config.workspace
  local a = open(ws .. '/a.py')
  local b = open(ws .. '/b.py')
  vim.g.llm_edits_cmd = config.server_cmd
  vim.g.llm_edits_root = ws
  vim.cmd('luafile ' .. vim.fn.fnameescape(config.plugin_dir .. '/examples/minimal.lua'))
  local client
  wait_for('the llm-edits client to initialize', function()
    local clients = vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()
    for _, c in ipairs(clients) do
      if c.name == 'llm-edits' and c.initialized then
        client = c
      end
    end
    return client ~= nil
  end)
  wait_for('both buffers attached', function()
    return vim.lsp.buf_is_attached(a, client.id) and vim.lsp.buf_is_attached(b, client.id)
  end)

  -- Unsaved changes after didOpen, sent as incremental didChange: a line above everything and
  -- a change to the right of an emoji (its column depends on the position encoding).
  vim.api.nvim_buf_set_lines(a, 0, 0, true, { '# unsaved line' })
  local row = 2
  local col = column_after(a, row, 'one')
  vim.api.nvim_buf_set_text(a, row, col, row, col, { ' (unsaved)' })
  observed.a_before = buffer_lines(a)

  vim.fn.setreg('"', config.responses.main)
  vim.cmd('LlmApply')
  wait_for('llmEdits.apply', function()
    return LlmEditsLast ~= nil
  end)
  observed.error = LlmEditsLast.err
  observed.result = LlmEditsLast.result
  if observed.error then
    error('llmEdits.apply answered an error: ' .. vim.inspect(observed.error))
  end
  wait_for('a diagnostic on a.py', function()
    return #vim.diagnostic.get(a) > 0
  end, 5000)

  observed.client = client_facts(client)
  observed.a_lines = buffer_lines(a)
  observed.b_lines = buffer_lines(b)
  observed.a_diagnostics = diagnostics(a)
  observed.b_diagnostics = diagnostics(b)
  observed.a_modified = vim.bo[a].modified
  observed.b_modified = vim.bo[b].modified
  observed.b_disk_before_write = read_file(ws .. '/b.py')
  vim.api.nvim_set_current_buf(b)
  vim.cmd('write')
  observed.b_disk_after_write = read_file(ws .. '/b.py')
  observed.a_disk = read_file(ws .. '/a.py')
end

local function wait_command(llm, seq)
  wait_for('the command to finish', function()
    return llm.last.seq > seq
  end)
  return llm.last
end

local function run_command(llm, command)
  local seq = llm.last.seq
  vim.cmd(command)
  local last = wait_command(llm, seq)
  return { err = last.err, result = last.result, command = last.command }
end

local function tab_windows()
  local windows = {}
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    local buf = vim.api.nvim_win_get_buf(win)
    table.insert(windows, {
      name = vim.api.nvim_buf_get_name(buf),
      lines = buffer_lines(buf),
      diff = vim.wo[win].diff,
      buftype = vim.bo[buf].buftype,
    })
  end
  return windows
end

-- The current quickfix list: its title and items.
local function quickfix_list()
  local quickfix = vim.fn.getqflist({ title = 1, items = 1 })
  local items = {}
  for _, item in ipairs(quickfix.items) do
    table.insert(items, {
      file = vim.api.nvim_buf_get_name(item.bufnr),
      lnum = item.lnum,
      text = item.text,
      type = item.type,
    })
  end
  return quickfix.title, items
end

-- The Neovim integration in editors/nvim, loaded and configured as docs/editors.md shows.
local function scenario_plugin()
  local ws = config.workspace
  vim.opt.runtimepath:prepend(config.plugin_dir)
  vim.cmd('runtime plugin/llm_edits.lua')
  observed.commands_before_setup = vim.fn.exists(':LlmEditsApply') == 2
  local llm = require('llm_edits')
  -- mcp: the server also serves the agents' endpoint (:LlmEditsMcpConfig below)
  llm.setup({ cmd = config.server_cmd, root_dir = ws, init_options = { mcp = { enabled = true } } })

  -- :LlmEditsApply with the default register (no clipboard when headless: the unnamed one);
  -- c.py is not open (read from disk), n.py is created.
  vim.fn.setreg('"', config.responses.register)
  observed.apply_register = run_command(llm, 'LlmEditsApply')
  local c = find_buffer(ws .. '/c.py')
  observed.c_lines = c and buffer_lines(c) or vim.NIL
  local n = find_buffer(ws .. '/n.py')
  observed.n_lines = n and buffer_lines(n) or vim.NIL
  if n then
    vim.api.nvim_buf_call(n, function()
      vim.cmd('silent write')
    end)
    observed.n_disk_after_write = read_file(ws .. '/n.py')
  end
  observed.c_disk = read_file(ws .. '/c.py')
  observed.quickfix_title, observed.quickfix = quickfix_list()

  -- :LlmEditsPreview from register a: a diff tab, d.py untouched.
  local d = open(ws .. '/d.py')
  observed.d_before = buffer_lines(d)
  vim.fn.setreg('a', config.responses.preview)
  local tabs_before = #vim.api.nvim_list_tabpages()
  observed.preview = run_command(llm, 'LlmEditsPreview a')
  observed.preview_new_tabs = #vim.api.nvim_list_tabpages() - tabs_before
  observed.preview_windows = tab_windows()
  observed.d_after_preview = buffer_lines(d)

  -- :LlmEditsApply buffer: the same response pasted into an unnamed buffer in a new tab; the
  -- apply closes the (now stale) preview tab.
  vim.cmd('tabnew')
  vim.api.nvim_buf_set_lines(0, 0, -1, false, vim.split(config.responses.preview, '\n'))
  observed.apply_buffer = run_command(llm, 'LlmEditsApply buffer')
  observed.d_after_apply = buffer_lines(d)
  observed.tabs_after_apply = #vim.api.nvim_list_tabpages() - tabs_before

  -- The same response applied a second time: its block is already in place.
  vim.fn.setqflist({}, ' ', { title = 'before the second apply' })
  observed.apply_again = run_command(llm, 'LlmEditsApply buffer')
  observed.d_after_apply_again = buffer_lines(d)
  observed.quickfix_again_title, observed.quickfix_again = quickfix_list()

  -- :LlmEditsApply buffer from a workspace file (attached, so sent as responseUri): its
  -- malformed block is reported as a diagnostic in the response buffer itself.
  local response = open(ws .. '/response.md')
  vim.api.nvim_buf_set_lines(response, 0, -1, false, vim.split(config.responses.malformed, '\n'))
  observed.apply_uri = run_command(llm, 'LlmEditsApply buffer')
  wait_for('a diagnostic on response.md', function()
    return #vim.diagnostic.get(response) > 0
  end, 5000)
  observed.response_diagnostics = diagnostics(response)

  -- Stale edit: the user changes s.py after the server computed the edit and before Neovim
  -- applies it (simulated by changing the buffer when workspace/applyEdit arrives).
  local s = open(ws .. '/s.py')
  local client = vim.lsp.get_client_by_id(llm.start())
  local plugin_handler = client.handlers['workspace/applyEdit']
  observed.plugin_has_apply_handler = plugin_handler ~= nil
  client.handlers['workspace/applyEdit'] = function(...)
    vim.api.nvim_buf_set_lines(s, 0, 0, true, { '# typed while the edit was in flight' })
    return (plugin_handler or vim.lsp.handlers['workspace/applyEdit'])(...)
  end
  vim.fn.setreg('a', config.responses.stale)
  observed.stale = run_command(llm, 'LlmEditsApply a')
  client.handlers['workspace/applyEdit'] = plugin_handler
  observed.s_lines = buffer_lines(s)

  -- :LlmEditsFeedback: retry feedback for a failing block lands in the unnamed register.
  vim.fn.setreg('a', config.responses.failing)
  observed.feedback = run_command(llm, 'LlmEditsFeedback a')
  observed.feedback_register = vim.fn.getreg('"')

  -- :LlmEditsInstructions and :LlmEditsClear.
  observed.instructions = run_command(llm, 'LlmEditsInstructions search-replace')
  observed.instructions_register = vim.fn.getreg('"')
  local function llm_diagnostic_count()
    local count = 0
    for _, d in ipairs(vim.diagnostic.get()) do
      count = count + (d.source == 'llm-edits' and 1 or 0)
    end
    return count
  end
  -- Each run replaces the diagnostics of the last one: preview the failing response again.
  run_command(llm, 'LlmEditsPreview a')
  observed.diagnostics_before_clear = llm_diagnostic_count()
  observed.clear = run_command(llm, 'LlmEditsClear')
  wait_for('the diagnostics to clear', function()
    return llm_diagnostic_count() == 0
  end, 5000)

  -- Shell suggestions: listed after the apply, run by :LlmEditsShell only when accepted. The
  -- answers are typed ahead: run the first, skip the second (Enter), q for the rest.
  vim.fn.setreg('a', config.responses.shell)
  observed.apply_shell = run_command(llm, 'LlmEditsApply a')
  vim.api.nvim_feedkeys('y\r\rq\r', 't', false)
  observed.shell = run_command(llm, 'LlmEditsShell')
  observed.shell_dirs = {}
  for _, name in ipairs({ 'made_by_yes', 'skipped_by_enter', 'skipped_by_q', 'after_q' }) do
    observed.shell_dirs[name] = vim.fn.isdirectory(ws .. '/' .. name) == 1
  end
  -- A compound suggestion with a bidi override: one prompt per command, by its display text;
  -- y runs the first, Enter skips the second and the rest of that suggestion.
  vim.fn.setreg('a', config.responses.compound_shell)
  observed.apply_compound = run_command(llm, 'LlmEditsApply a')
  local input = vim.ui.input
  observed.compound_prompts = {}
  vim.ui.input = function(opts, on_confirm)
    table.insert(observed.compound_prompts, opts.prompt)
    return input(opts, on_confirm)
  end
  vim.api.nvim_feedkeys('y\r\r', 't', false)
  observed.compound_shell = run_command(llm, 'LlmEditsShell')
  vim.ui.input = input
  observed.compound_dirs = {}
  for _, name in ipairs({ 'first_part', 'second_part', 'third_part' }) do
    observed.compound_dirs[name] = vim.fn.isdirectory(ws .. '/' .. name) == 1
  end

  -- :LlmEditsMcpConfig: the agents' MCP endpoint and each agent's config, in a scratch buffer.
  observed.mcp = run_command(llm, 'LlmEditsMcpConfig')
  observed.mcp_lines = buffer_lines(vim.api.nvim_get_current_buf())

  observed.client = client_facts(client)
end

-- stage_in_git in a Git repository (the test committed the workspace, then changed b.py on
-- disk): an apply-patch response edits d.py, whose buffer already holds an unsaved change,
-- renames c.py to c2.py with a change, deletes s.py and creates n.py; a.py has an unsaved change
-- and is not part of the apply.
local function scenario_stage()
  local ws = config.workspace
  vim.opt.runtimepath:prepend(config.plugin_dir)
  local llm = require('llm_edits')
  llm.setup({ cmd = config.server_cmd, root_dir = ws, stage_in_git = true })
  local a = open(ws .. '/a.py')
  vim.api.nvim_buf_set_lines(a, 0, 0, true, { '# unsaved, not part of the apply' })
  local d = open(ws .. '/d.py')
  vim.api.nvim_buf_set_lines(d, 0, 0, true, { '# unsaved before the apply' })
  vim.fn.setreg('"', config.responses.stage)
  observed.apply = run_command(llm, 'LlmEditsApply')
  observed.a_modified = vim.bo[a].modified
  observed.d_modified = vim.bo[d].modified
  observed.d_lines = buffer_lines(d)
  local n = find_buffer(ws .. '/n.py')
  if n then
    observed.n_modified = vim.bo[n].modified
  end
end

-- A chat answer (prose and a code fence naming no file) applied to a file the user names:
-- `target=%` (the current buffer, its unsaved text), the alternate buffer by default when the
-- answer is in a scratch buffer, a bad `target=`, and no target at all (no block: the message
-- says target applies the fence).
local function scenario_target()
  local ws = config.workspace
  vim.opt.runtimepath:prepend(config.plugin_dir)
  local llm = require('llm_edits')
  llm.setup({ cmd = config.server_cmd, root_dir = ws })
  local a = open(ws .. '/a.py')
  vim.api.nvim_buf_set_lines(a, 0, 0, true, { '# unsaved' })
  vim.fn.setreg('"', config.responses.target_a)
  observed.no_target = run_command(llm, 'LlmEditsApply')
  observed.with_target = run_command(llm, 'LlmEditsApply target=%')
  observed.a_lines = buffer_lines(a)
  observed.a_disk = read_file(ws .. '/a.py')
  -- An error message while a command runs is that command's error: vim.cmd raises it.
  local seq = llm.last.seq
  pcall(vim.cmd, 'LlmEditsApply target=')
  local last = wait_command(llm, seq)
  observed.bad_target = { err = last.err, notification = observed.notifications[#observed.notifications] }

  local c = open(ws .. '/c.py')
  vim.cmd('enew')
  vim.bo.buftype = 'nofile'
  vim.api.nvim_buf_set_lines(0, 0, -1, true, vim.split(config.responses.target_c, '\n'))
  observed.scratch = run_command(llm, 'LlmEditsApply buffer')
  observed.c_lines = buffer_lines(c)
end

-- The window of the current tab showing `buf`.
local function window_of(buf)
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_buf(win) == buf then
      return win
    end
  end
  error('no window shows ' .. vim.api.nvim_buf_get_name(buf))
end

-- Type `keys` (mapped, as a user would) at `row` of the window showing `buf`; wait for the
-- command they start.
local function press(llm, buf, row, keys)
  local win = window_of(buf)
  vim.api.nvim_set_current_win(win)
  vim.api.nvim_win_set_cursor(win, { row, 0 })
  local seq = llm.last.seq
  vim.api.nvim_feedkeys(keys, 'x', false)
  local last = wait_command(llm, seq)
  return { err = last.err, result = last.result, command = last.command }
end

-- What a preview shows: the block list, the marks in the proposed text, where the cursor is.
local function preview_state()
  local list = find_buffer('llm-edits://blocks')
  local state = {
    tabs = #vim.api.nvim_list_tabpages(),
    list = list and buffer_lines(list) or vim.NIL,
    windows = tab_windows(),
    current = vim.api.nvim_buf_get_name(0),
    cursor_row = vim.api.nvim_win_get_cursor(0)[1],
    marks = {},
  }
  local ns = vim.api.nvim_get_namespaces()['llm_edits_review']
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    local buf = vim.api.nvim_win_get_buf(win)
    if vim.api.nvim_buf_get_name(buf):find('llm-edits://proposed/', 1, true) then
      for _, mark in ipairs(vim.api.nvim_buf_get_extmarks(buf, ns, 0, -1, { details = true })) do
        table.insert(state.marks, { row = mark[2], text = mark[4].virt_text[1][1] })
      end
    end
  end
  return state
end

local function statuses(run)
  local found = {}
  for _, block in ipairs(run.result and run.result.blocks or {}) do
    table.insert(found, block.status)
  end
  return found
end

-- Choosing blocks (issue 15): :LlmEditsApply with a block list, bad lists, the preview's block
-- list and marks with x (take a block in or out) and a (apply the choice), and an ambiguous
-- block's quick fixes through vim.lsp.buf.code_action.
local function scenario_review()
  local ws = config.workspace
  vim.opt.runtimepath:prepend(config.plugin_dir)
  local llm = require('llm_edits')
  llm.setup({ cmd = config.server_cmd, root_dir = ws })
  local r = open(ws .. '/r.py')
  local t = open(ws .. '/t.py')

  vim.fn.setreg('a', config.responses.review_r)
  observed.apply_chosen = run_command(llm, 'LlmEditsApply a 1,3')
  observed.r_lines = buffer_lines(r)
  observed.quickfix_title = vim.fn.getqflist({ title = 1 }).title

  -- Bad lists: an error message each, nothing applied.
  observed.bad = {}
  for _, list in ipairs(config.bad_lists) do
    -- An error message while a command runs is that command's error: vim.cmd raises it.
    local seq = llm.last.seq
    local ok, raised = pcall(vim.cmd, 'LlmEditsApply a ' .. list)
    local last = wait_command(llm, seq)
    table.insert(observed.bad, {
      list = list,
      err = last.err,
      raised = not ok and tostring(raised) or vim.NIL,
      notification = observed.notifications[#observed.notifications],
    })
  end
  observed.r_lines_after_bad = buffer_lines(r)

  -- The preview of three blocks, then x on block 2 in the list, x on block 3's mark in the
  -- proposed text, x on block 1 (nothing chosen), x on blocks 1 and 3 again, a in the list.
  local tabs_before = #vim.api.nvim_list_tabpages()
  vim.fn.setreg('b', config.responses.review_t)
  observed.previews = {}
  local function step(name, run)
    table.insert(observed.previews, { name = name, statuses = statuses(run), err = run.err, state = preview_state() })
  end
  step('preview', run_command(llm, 'LlmEditsPreview b'))
  local list = find_buffer('llm-edits://blocks')
  -- <CR> on block 3 in the list: its line in the proposed text (no command runs).
  vim.api.nvim_set_current_win(window_of(list))
  vim.api.nvim_win_set_cursor(0, { 4, 0 })
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<CR>', true, false, true), 'x', false)
  observed.go_to_block_3 = { current = vim.api.nvim_buf_get_name(0), row = vim.api.nvim_win_get_cursor(0)[1] }
  step('x on block 2 in the list', press(llm, list, 3, 'x'))
  local proposed = find_buffer('llm-edits://proposed/t.py')
  step('x on the third line of the proposed text', press(llm, proposed, 3, 'x'))
  list = find_buffer('llm-edits://blocks')
  step('x on block 1 in the list', press(llm, list, 2, 'x'))
  list = find_buffer('llm-edits://blocks')
  step('x on block 1 again', press(llm, list, 2, 'x'))
  list = find_buffer('llm-edits://blocks')
  step('x on block 3 in the list', press(llm, list, 4, 'x'))
  list = find_buffer('llm-edits://blocks')
  observed.t_before_apply = buffer_lines(t)
  observed.apply_from_preview = press(llm, list, 2, 'a')
  observed.t_lines = buffer_lines(t)
  observed.tabs_after_apply = #vim.api.nvim_list_tabpages() - tabs_before
  observed.list_after_apply = find_buffer('llm-edits://blocks') ~= nil

  -- :LlmEditsPreview with a block list starts with that choice; q closes the preview.
  step('preview of block 2', run_command(llm, 'LlmEditsPreview b 2'))
  vim.api.nvim_feedkeys('q', 'x', false)
  observed.tabs_after_q = #vim.api.nvim_list_tabpages() - tabs_before

  -- An ambiguous block fails; its quick fix "Apply block 1 at line 6" (chosen in the code
  -- action menu: vim.ui.select) applies it there.
  local amb = open(ws .. '/amb.py')
  vim.fn.setreg('c', config.responses.ambiguous)
  observed.apply_ambiguous = run_command(llm, 'LlmEditsApply c')
  wait_for('a diagnostic on amb.py', function()
    return #vim.diagnostic.get(amb) > 0
  end)
  observed.amb_diagnostics = diagnostics(amb)
  vim.api.nvim_set_current_buf(amb)
  vim.api.nvim_win_set_cursor(0, { observed.amb_diagnostics[1].lnum + 1, 0 })
  observed.code_actions = {}
  local select = vim.ui.select
  vim.ui.select = function(items, opts, on_choice)
    local chosen
    for _, item in ipairs(items) do
      local title = opts.format_item(item)
      table.insert(observed.code_actions, title)
      if title == config.ambiguous_fix then
        chosen = item
      end
    end
    on_choice(chosen)
  end
  vim.lsp.buf.code_action()
  wait_for('the quick fix to edit amb.py', function()
    return buffer_lines(amb)[6] ~= '    return 1'
  end)
  vim.ui.select = select
  observed.amb_lines = buffer_lines(amb)
end

-- Response documents (issue 14): a scratch buffer made one by :LlmEditsWatch, streamed into
-- chunk by chunk; its lenses after each chunk; one block applied through its lens
-- (:LlmEditsLens), another through vim.lsp.codelens.run(); :LlmEditsUnwatch; a *.llm.md file.

-- Text appended at the end of `buf` (as a chat plugin streams an answer into a buffer).
local function append(buf, text)
  local last = vim.api.nvim_buf_line_count(buf) - 1
  local col = #vim.api.nvim_buf_get_lines(buf, last, last + 1, true)[1]
  vim.api.nvim_buf_set_text(buf, last, col, last, col, vim.split(text, '\n', { plain = true }))
end

-- The lenses the plugin holds for `buf` (what vim.lsp.codelens.run() offers), by line.
local function lens_list(buf)
  local found = {}
  for _, lens in ipairs(vim.lsp.codelens.get(buf)) do
    local command = lens.command or {}
    local argument = command.arguments and command.arguments[1] or {}
    local options = type(argument.options) == 'table' and argument.options or {}
    table.insert(found, {
      line = lens.range.start.line,
      title = command.title or vim.NIL,
      command = command.command or vim.NIL,
      response_uri = argument.responseUri or vim.NIL,
      blocks = options.blocks or vim.NIL,
    })
  end
  table.sort(found, function(a, b)
    if a.line ~= b.line then
      return a.line < b.line
    end
    return tostring(a.command) < tostring(b.command)
  end)
  return found
end

-- The lens texts shown in `buf` (virtual text of the codelens namespace), by line.
local function displayed_lenses(buf, client_id)
  local shown = {}
  local ns = vim.lsp.codelens.__namespaces[client_id]
  for _, mark in ipairs(vim.api.nvim_buf_get_extmarks(buf, ns, 0, -1, { details = true })) do
    local parts = {}
    for _, chunk in ipairs(mark[4].virt_text or {}) do
      table.insert(parts, chunk[1])
    end
    table.insert(shown, { line = mark[2], text = table.concat(parts) })
  end
  return shown
end

-- Ask the plugin for the lenses of `buf` again and wait until they describe its current text.
local function fresh_lenses(llm, buf)
  local done, failure = false, nil
  llm.refresh_lenses(buf, function(err)
    done, failure = true, err
  end)
  wait_for('the code lenses', function()
    return done
  end)
  if failure then
    error('code lenses: ' .. vim.inspect(failure))
  end
  return lens_list(buf)
end

local function lens_line(lenses, block)
  for _, lens in ipairs(lenses) do
    if type(lens.blocks) == 'table' and lens.blocks[1] == block then
      return lens.line
    end
  end
  error('no lens for block ' .. block .. ': ' .. vim.inspect(lenses))
end

local function scenario_watch()
  local ws = config.workspace
  vim.cmd('filetype on') -- -u NONE leaves it off: *.llm.md gets its filetype through it
  vim.opt.runtimepath:prepend(config.plugin_dir)
  vim.cmd('runtime plugin/llm_edits.lua')
  local llm = require('llm_edits')
  llm.setup({ cmd = config.server_cmd, root_dir = ws })
  local client = vim.lsp.get_client_by_id(llm.start())
  -- Count the server's workspace/codeLens/refresh requests (then handled by the plugin).
  observed.refresh_requests = 0
  local on_refresh = client.handlers['workspace/codeLens/refresh']
  observed.plugin_has_refresh_handler = on_refresh ~= nil
  client.handlers['workspace/codeLens/refresh'] = function(...)
    observed.refresh_requests = observed.refresh_requests + 1
    return on_refresh(...)
  end
  local d = open(ws .. '/d.py')

  -- A scratch buffer (unnamed, buftype=nofile), as chat plugins make them.
  local scratch = vim.api.nvim_create_buf(true, true)
  vim.api.nvim_set_current_buf(scratch)
  observed.scratch = { bufnr = scratch, name_before = vim.api.nvim_buf_get_name(scratch) }
  observed.watch = run_command(llm, 'LlmEditsWatch')
  if observed.watch.err then
    error('llmEdits.watch failed: ' .. vim.inspect(observed.watch.err))
  end
  observed.scratch.name = vim.api.nvim_buf_get_name(scratch)
  observed.scratch.uri = vim.uri_from_bufnr(scratch)
  observed.scratch.buftype = vim.bo[scratch].buftype
  observed.scratch.attached = vim.lsp.buf_is_attached(scratch, client.id)

  observed.stream = {}
  for step, chunk in ipairs(config.watch_chunks) do
    append(scratch, chunk)
    if step == #config.watch_chunks then
      -- Nobody asks: the server's workspace/codeLens/refresh (the block completed) brings
      -- the new lenses, as when a chat plugin writes into a buffer in the background.
      wait_for('the lenses of the finished response without asking', function()
        local titles = {}
        for _, lens in ipairs(lens_list(scratch)) do
          table.insert(titles, lens.title)
        end
        return vim.deep_equal(titles, config.watch_final_titles)
      end)
      observed.final_lenses_unasked = lens_list(scratch)
    end
    table.insert(observed.stream, {
      lines = buffer_lines(scratch),
      lenses = fresh_lenses(llm, scratch),
    })
    if step == config.watch_writing_step then
      -- :LlmEditsLens with the cursor in the block being written: nothing to apply yet.
      vim.api.nvim_win_set_cursor(0, { vim.api.nvim_buf_line_count(scratch), 0 })
      observed.lens_while_writing = run_command(llm, 'LlmEditsLens')
      observed.d_after_lens_while_writing = buffer_lines(d)
    end
  end
  observed.displayed = displayed_lenses(scratch, client.id)
  observed.d_before_lens = buffer_lines(d)
  -- A block completing changed the states: the server asks for the lenses again (the answer
  -- above already came without it).
  vim.wait(WAIT_MS, function()
    return observed.refresh_requests > 0
  end, 10)

  -- What Neovim's own K (vim.lsp.buf.hover) and document symbols show on the response.
  local function ask(method, params)
    local answered, answer = false, nil
    local request = vim.fn.has('nvim-0.11') == 1 and function(...)
      return client:request(...)
    end or client.request
    request(method, params, function(err, result)
      answered, answer = true, err and { error = err.message } or (result or vim.NIL)
    end, scratch)
    wait_for(method, function()
      return answered
    end)
    return answer
  end
  local second = lens_line(observed.stream[#observed.stream].lenses, 1)
  observed.hover = ask('textDocument/hover', {
    textDocument = { uri = observed.scratch.uri },
    position = { line = second + 2, character = 0 },
  })
  observed.symbols = ask('textDocument/documentSymbol', { textDocument = { uri = observed.scratch.uri } })

  -- :LlmEditsLens with the cursor on a line between the blocks: no block there.
  vim.api.nvim_win_set_cursor(0, { config.watch_prose_line, 0 })
  observed.lens_between_blocks = run_command(llm, 'LlmEditsLens')
  observed.d_after_lens_between_blocks = buffer_lines(d)

  -- :LlmEditsLens with the cursor inside the second block (two lines below its lens).
  local lenses = observed.stream[#observed.stream].lenses
  vim.api.nvim_win_set_cursor(0, { lens_line(lenses, 1) + 3, 0 })
  observed.lens_apply = run_command(llm, 'LlmEditsLens')
  observed.d_after_lens = buffer_lines(d)
  observed.lenses_after_lens = fresh_lenses(llm, scratch)

  -- vim.lsp.codelens.run() on the first block's line: it offers that line's lenses (status
  -- and Preview); the apply one is chosen.
  vim.api.nvim_win_set_cursor(0, { lens_line(observed.lenses_after_lens, 0) + 1, 0 })
  local select = vim.ui.select
  observed.codelens_offered = {}
  vim.ui.select = function(items, opts, on_choice)
    local chosen
    for _, item in ipairs(items) do
      local title = opts.format_item(item)
      table.insert(observed.codelens_offered, title)
      if item.lens.command.command == 'llmEdits.apply' then
        chosen = item
      end
    end
    on_choice(chosen)
  end
  local seq = llm.last.seq
  vim.lsp.codelens.run()
  local last = wait_command(llm, seq)
  vim.ui.select = select
  observed.codelens_run = { err = last.err, result = last.result, command = last.command }
  observed.d_after_codelens_run = buffer_lines(d)
  observed.lenses_after_codelens_run = fresh_lenses(llm, scratch)

  -- :LlmEditsUnwatch: the lenses go; more text brings none (asked for directly).
  observed.unwatch = run_command(llm, 'LlmEditsUnwatch')
  append(scratch, config.watch_after_unwatch)
  local answered, unwatched_lenses = false, nil
  local request = vim.fn.has('nvim-0.11') == 1 and function(...)
    return client:request(...)
  end or client.request
  request('textDocument/codeLens', { textDocument = { uri = observed.scratch.uri } }, function(err, result)
    answered, unwatched_lenses = true, err and { error = err.message } or (result or vim.NIL)
  end, scratch)
  wait_for('the code lenses after unwatch', function()
    return answered
  end)
  observed.lenses_after_unwatch = unwatched_lenses
  observed.displayed_after_unwatch = displayed_lenses(scratch, client.id)

  -- A *.llm.md file: filetype llm-response, a response document without :LlmEditsWatch.
  local reply = open(ws .. '/reply.llm.md')
  observed.reply = { filetype = vim.bo[reply].filetype, attached = false }
  wait_for('reply.llm.md to be attached', function()
    return vim.lsp.buf_is_attached(reply, client.id)
  end)
  observed.reply.attached = true
  observed.reply.lenses = fresh_lenses(llm, reply)
  wait_for('a diagnostic on reply.llm.md', function()
    return #vim.diagnostic.get(reply) > 0
  end)
  observed.reply.diagnostics = diagnostics(reply)
  observed.client = client_facts(client)
end

-- The "Apply to <file>" lens on a response document's code fence that names no file: the
-- plugin tells the server which file buffer the user was last in (llmEdits.lastEditor) on
-- BufEnter. d.py is entered before the server runs (told once it is initialized); a scratch
-- buffer, the watched response itself and a *.llm.md file entered later leave it as it was;
-- a.py entered moves the lens there; the lens run by vim.lsp.codelens.run() applies the fence
-- to the file it names; the file's buffer wiped, no lens is left.
local function fence_titles(buf)
  local titles = {}
  for _, lens in ipairs(lens_list(buf)) do
    if type(lens.title) == 'string' and lens.title:match('^Apply to ') then
      table.insert(titles, lens.title)
    end
  end
  return titles
end

local function wait_fence_titles(buf, titles)
  wait_for('the fence lenses ' .. vim.inspect(titles), function()
    return vim.deep_equal(fence_titles(buf), titles)
  end)
  return lens_list(buf)
end

-- Run what was scheduled so far (the plugin's BufEnter work): a callback scheduled now runs
-- after those (vim.schedule keeps the order), so any request they send goes out before the next.
local function settle()
  local settled = false
  vim.schedule(function()
    settled = true
  end)
  wait_for('the scheduled work', function()
    return settled
  end)
end

local function scenario_last_editor()
  local ws = config.workspace
  vim.cmd('filetype on') -- -u NONE leaves it off: *.llm.md gets its filetype through it
  vim.opt.runtimepath:prepend(config.plugin_dir)
  vim.cmd('runtime plugin/llm_edits.lua')
  local llm = require('llm_edits')
  llm.setup({ cmd = config.server_cmd, root_dir = ws })
  local d = open(ws .. '/d.py')
  observed.server_before_watch = #(vim.lsp.get_clients and vim.lsp.get_clients()
    or vim.lsp.get_active_clients())

  local answer = vim.api.nvim_create_buf(true, true)
  vim.api.nvim_set_current_buf(answer)
  vim.api.nvim_buf_set_lines(answer, 0, -1, true, vim.split(config.responses.last_editor, '\n'))
  observed.watch = run_command(llm, 'LlmEditsWatch') -- starts the server
  if observed.watch.err then
    error('llmEdits.watch failed: ' .. vim.inspect(observed.watch.err))
  end
  observed.answer_uri = vim.uri_from_bufnr(answer)
  observed.d_uri = vim.uri_from_bufnr(d)
  observed.first = wait_fence_titles(answer, { 'Apply to d.py' })

  -- None of these is a file buffer: the lens keeps naming d.py (a response document told to
  -- the server would leave no lens at all).
  vim.cmd('enew')
  vim.bo.buftype = 'nofile'
  local reply = open(ws .. '/reply.llm.md')
  local client = vim.lsp.get_client_by_id(llm.start())
  wait_for('reply.llm.md to be attached', function()
    return vim.lsp.buf_is_attached(reply, client.id)
  end)
  vim.api.nvim_set_current_buf(answer)
  settle()
  observed.after_responses = fresh_lenses(llm, answer)

  -- Another file: the server is told, asks for the lenses again, and the lens names it.
  local a = open(ws .. '/a.py')
  observed.after_a = wait_fence_titles(answer, { 'Apply to a.py' })
  vim.api.nvim_set_current_buf(d)
  wait_fence_titles(answer, { 'Apply to d.py' })

  -- The lens run from the response (its line: the fence's) applies the fence to d.py.
  vim.api.nvim_set_current_buf(answer)
  local lenses = lens_list(answer)
  local fence_line
  for _, lens in ipairs(lenses) do
    if lens.title == 'Apply to d.py' then
      fence_line = lens.line
    end
  end
  observed.fence_line = fence_line
  vim.api.nvim_win_set_cursor(0, { fence_line + 1, 0 })
  local select = vim.ui.select
  vim.ui.select = function(items, opts, on_choice)
    for _, item in ipairs(items) do
      if opts.format_item(item) == 'Apply to d.py' then
        return on_choice(item)
      end
    end
    on_choice(nil)
  end
  local seq = llm.last.seq
  vim.lsp.codelens.run()
  local last = wait_command(llm, seq)
  vim.ui.select = select
  observed.lens_run = { err = last.err, result = last.result, command = last.command }
  observed.d_lines = buffer_lines(d)
  observed.a_lines = buffer_lines(a)

  -- d.py's buffer wiped (from the response, so that no other buffer is entered): no lens.
  vim.cmd('bwipeout! ' .. d)
  observed.after_wipe = wait_fence_titles(answer, {})
end

-- Neovim 0.11's vim.lsp.config / vim.lsp.enable, set up by editors/nvim/examples/lsp-config-0.11.lua.
local function scenario_native()
  local ws = config.workspace
  vim.cmd('filetype on') -- -u NONE leaves it off; vim.lsp.enable starts servers on FileType
  vim.g.llm_edits_cmd = config.server_cmd
  vim.cmd('luafile ' .. vim.fn.fnameescape(config.plugin_dir .. '/examples/lsp-config-0.11.lua'))
  local d = open(ws .. '/d.py')
  local client
  wait_for('the llm_edits client to initialize', function()
    client = vim.lsp.get_clients({ name = 'llm_edits', bufnr = d })[1]
    return client ~= nil and client.initialized
  end)
  observed.root_dir = client.config.root_dir
  vim.fn.setreg('"', config.responses.preview)
  vim.cmd('LlmApply')
  wait_for('llmEdits.apply', function()
    return LlmEditsLast ~= nil
  end)
  observed.error = LlmEditsLast.err
  observed.result = LlmEditsLast.result
  observed.d_lines = buffer_lines(d)
  observed.client = client_facts(client)
end

local function stop_clients()
  local clients = vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()
  for _, client in ipairs(clients) do
    if vim.fn.has('nvim-0.11') == 1 then
      client:stop()
    else
      client.stop()
    end
  end
  vim.wait(3000, function()
    local left = vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()
    return #left == 0
  end, 10)
end

local function main()
  config = vim.json.decode(assert(read_file(assert(os.getenv('LLM_EDITS_NVIM_CONFIG')))))
  local notify = vim.notify
  vim.notify = function(msg, level, opts)
    table.insert(observed.notifications, { message = msg, level = level })
    return notify(msg, level, opts)
  end
  observed.nvim_version = tostring(vim.version().major) .. '.' .. tostring(vim.version().minor)
  -- The server's window/logMessage lines (it names the position encoding it negotiated).
  observed.log_messages = {}
  vim.lsp.handlers['window/logMessage'] = function(_, params)
    table.insert(observed.log_messages, params.message)
  end
  if config.scenario == 'raw' then
    scenario_raw()
  elseif config.scenario == 'plugin' then
    scenario_plugin()
  elseif config.scenario == 'native' then
    scenario_native()
  elseif config.scenario == 'stage' then
    scenario_stage()
  elseif config.scenario == 'review' then
    scenario_review()
  elseif config.scenario == 'watch' then
    scenario_watch()
  elseif config.scenario == 'target' then
    scenario_target()
  elseif config.scenario == 'last_editor' then
    scenario_last_editor()
  else
    error('unknown scenario ' .. tostring(config.scenario))
  end
  stop_clients()
end

local ok, err = xpcall(main, debug.traceback)
if config and config.out then
  local payload = ok and observed or { error = tostring(err), observed = observed }
  local encoded_ok, encoded = pcall(vim.json.encode, payload)
  write_file(config.out, encoded_ok and encoded or vim.json.encode({ error = tostring(err) .. '\n(observed not encodable: ' .. tostring(encoded) .. ')' }))
end
if ok then
  vim.cmd('qa!')
else
  io.stderr:write(tostring(err) .. '\n')
  vim.cmd('cq!')
end
