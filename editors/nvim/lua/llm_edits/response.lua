-- Response documents: buffers the server validates while they are written (a chat buffer, a
-- scratch buffer, a *.llm.md file), with one code lens per block showing its status.
--
-- A buffer of filetype `llm-response` is one as soon as it is attached (Neovim sends the
-- filetype as the document's languageId); any other buffer becomes one with :LlmEditsWatch
-- (server command `llmEdits.watch`) until :LlmEditsUnwatch or until it is closed.
local M = {}

local api = vim.api

M.FILETYPE = 'llm-response'
-- Unnamed buffers get this name before they are watched: Neovim would send the URI `file://`
-- for every unnamed buffer (one document for all of them, and no file path), so each gets a
-- URI of its own. A name with `://` is not made a path in the current directory.
M.SCRATCH_PREFIX = 'llm-edits://response/'

-- What the plugin's core lends this module (see init.lua): client(), start(), when_ready(fn)
-- (runs fn once the server is initialized), execute(command, argument, callback),
-- notify(message, level), request(client, method, params, handler, bufnr),
-- run_command(command, argument, bufnr, on_done).
local host

-- buf -> { watched = bool (by :LlmEditsWatch, not by filetype), lenses = the server's last
--          answer, inflight = bool, again = bool, current = {callbacks of the request in
--          flight}, next = {callbacks of the next one} }
local tracked = {}

function M.init(core)
  host = core
end

local function resolve(buf)
  return (buf == nil or buf == 0) and api.nvim_get_current_buf() or buf
end

--- Buffers whose lenses the plugin keeps up to date.
function M.tracked_buffers()
  local bufs = {}
  for buf in pairs(tracked) do
    if api.nvim_buf_is_valid(buf) then
      table.insert(bufs, buf)
    end
  end
  table.sort(bufs)
  return bufs
end

function M.is_tracked(buf)
  return tracked[resolve(buf)] ~= nil
end

function M.is_watched(buf)
  local entry = tracked[resolve(buf)]
  return entry ~= nil and entry.watched
end

local function lens_namespace(client_id)
  return vim.lsp.codelens.__namespaces[client_id]
end

local function clear_lenses(buf)
  local client = host.client()
  if client and api.nvim_buf_is_valid(buf) then
    vim.lsp.codelens.save({}, buf, client.id)
    api.nvim_buf_clear_namespace(buf, lens_namespace(client.id), 0, -1)
  end
end

local function call_all(callbacks, err)
  for _, callback in ipairs(callbacks) do
    callback(err)
  end
end

local send_lens_request

-- A block's lenses come unresolved (docs/protocol.md, "Code lenses"): their titles change as
-- blocks validate, and only the lenses shown need one. Up to this many are all resolved (the
-- buffer may be shown later, or read with vim.lsp.codelens.get()); past it, those on the lines
-- a window shows, and the others when a window scrolls to them.
M.RESOLVE_ALL = 200
local NOT_SHOWN = { title = '…', command = '' }

-- The 0-based line ranges of `buf` its windows show.
local function shown_ranges(buf)
  local ranges = {}
  for _, win in ipairs(api.nvim_list_wins()) do
    if api.nvim_win_get_buf(win) == buf then
      local first, last = vim.fn.line('w0', win), vim.fn.line('w$', win)
      table.insert(ranges, { first - 1, last - 1 })
    end
  end
  return ranges
end

local function is_shown(ranges, row)
  for _, range in ipairs(ranges) do
    if range[1] <= row and row <= range[2] then
      return true
    end
  end
  return false
end

-- Resolve the lenses of `result` an editor shows (codeLens/resolve, all at once), then
-- `callback(partly)`: `partly` when some were left for a scroll to show them.
local function resolve_lenses(client, buf, result, callback)
  local unresolved = {}
  for _, lens in ipairs(result) do
    if not lens.command then
      table.insert(unresolved, lens)
    end
  end
  local ranges = #unresolved > M.RESOLVE_ALL and shown_ranges(buf) or nil
  local pending, partly = 1, false
  local function one_done()
    pending = pending - 1
    if pending == 0 then
      callback(partly)
    end
  end
  for _, lens in ipairs(unresolved) do
    if ranges and not is_shown(ranges, lens.range.start.line) then
      lens.command, partly = NOT_SHOWN, true
    else
      pending = pending + 1
      host.request(client, 'codeLens/resolve', lens, function(err, resolved)
        lens.command = (not err and type(resolved) == 'table' and resolved.command) or NOT_SHOWN
        one_done()
      end, buf)
    end
  end
  one_done()
end

local function on_lenses(buf, entry, err, result, ctx)
  local function finish_request()
    entry.inflight = false
    local done = entry.current
    entry.current = {}
    if entry.again and tracked[buf] == entry then
      -- Changes came while this request was answered: ask once more for all of them.
      entry.again = false
      send_lens_request(buf, entry)
    end
    call_all(done, err)
  end
  if tracked[buf] ~= entry or not api.nvim_buf_is_loaded(buf) then
    return finish_request()
  end
  if err then
    host.notify('code lenses: ' .. (err.message or vim.inspect(err)), vim.log.levels.WARN)
    return finish_request()
  end
  if result == nil or result == vim.NIL or #result == 0 then
    entry.lenses = {}
    clear_lenses(buf) -- Neovim 0.7's display keeps the old lenses when none come back
    return finish_request()
  end
  resolve_lenses(host.client(), buf, result, function(partly)
    if tracked[buf] == entry and api.nvim_buf_is_loaded(buf) then
      entry.lenses, entry.partly = result, partly
      vim.lsp.codelens.on_codelens(nil, result, ctx)
    end
    finish_request()
  end)
end

send_lens_request = function(buf, entry)
  local client = host.client()
  if not client then
    local waiting = vim.list_extend(entry.current, entry.next)
    entry.current, entry.next = {}, {}
    call_all(waiting, { message = 'llm-edits server is not running' })
    return
  end
  if not client.initialized then
    -- The first lenses of a buffer attached while the server starts.
    entry.inflight = true
    host.when_ready(function()
      entry.inflight, entry.again = false, false
      send_lens_request(buf, entry)
    end)
    return
  end
  entry.inflight = true
  entry.current, entry.next = entry.next, {}
  local params = { textDocument = { uri = vim.uri_from_bufnr(buf) } }
  -- The client sends the buffer's pending didChange first; the server answers for the text
  -- it then has (it re-validates before answering).
  host.request(client, 'textDocument/codeLens', params, function(err, result, ctx)
    ctx = ctx or {}
    ctx.bufnr, ctx.client_id = buf, client.id
    on_lenses(buf, entry, err, result, ctx)
  end, buf)
end

--- Ask the server for the lenses of `buf` and show them; `on_done(err)` runs once they
--- reflect the buffer's text as it is now. One request per buffer at a time: changes made
--- meanwhile are answered by one more request when it returns.
function M.refresh(buf, on_done)
  buf = resolve(buf)
  local entry = tracked[buf]
  if not entry then
    if on_done then
      on_done({ message = 'buffer ' .. buf .. ' is not a response document' })
    end
    return
  end
  if on_done then
    table.insert(entry.next, on_done)
  end
  if entry.inflight then
    entry.again = true
    return
  end
  send_lens_request(buf, entry)
end

--- The server's workspace/codeLens/refresh: block states changed (a block completed, a target
--- file changed, a block was applied). Neovim 0.11 has no handler of its own for it.
function M.on_refresh_request()
  for _, buf in ipairs(M.tracked_buffers()) do
    M.refresh(buf)
  end
  return vim.NIL
end

local function untrack(buf)
  local entry = tracked[buf]
  if entry then
    tracked[buf] = nil
    pcall(api.nvim_del_augroup_by_name, 'llm_edits_lenses_' .. buf)
    clear_lenses(buf)
    -- Callers waiting for lenses a request in flight will not bring (its answer is dropped).
    local waiting = entry.next
    entry.next = {}
    call_all(waiting, { message = 'buffer ' .. buf .. ' is no longer a response document' })
  end
end

local function track(buf, watched)
  local entry = tracked[buf]
  if entry then
    entry.watched = entry.watched or watched
    return
  end
  tracked[buf] = { watched = watched, lenses = {}, inflight = false, again = false, current = {}, next = {} }
  local group = api.nvim_create_augroup('llm_edits_lenses_' .. buf, { clear = true })
  -- Typing; text written by a plugin into a buffer is followed by the server's refresh request.
  api.nvim_create_autocmd({ 'TextChanged', 'InsertLeave' }, {
    group = group,
    buffer = buf,
    callback = function()
      M.refresh(buf)
    end,
  })
  -- Lenses left unresolved off screen: resolved when a window shows them.
  api.nvim_create_autocmd('WinScrolled', {
    group = group,
    callback = function()
      local entry_now = tracked[buf]
      if entry_now and entry_now.partly and api.nvim_get_current_buf() == buf then
        M.refresh(buf)
      end
    end,
  })
  api.nvim_create_autocmd({ 'BufUnload', 'BufWipeout' }, {
    group = group,
    buffer = buf,
    callback = function()
      untrack(buf)
    end,
  })
end

local function attach(buf)
  local id = host.start()
  if not id then
    return nil
  end
  vim.lsp.buf_attach_client(buf, id)
  return id
end

--- A buffer of filetype llm-response: attach it (starting the server) and keep its lenses.
function M.on_filetype(buf)
  M.ensure_uri(buf)
  if attach(buf) then
    track(buf, false)
    M.refresh(buf)
  end
end

--- The URI the server knows `buf` by, naming an unnamed buffer first (see SCRATCH_PREFIX).
function M.ensure_uri(buf)
  if api.nvim_buf_get_name(buf) == '' then
    api.nvim_buf_set_name(buf, M.SCRATCH_PREFIX .. buf)
  end
  return vim.uri_from_bufnr(buf)
end

local function finish(on_done, err, result)
  if on_done then
    on_done(err, result)
  end
end

--- :LlmEditsWatch: make `buf` a response document. on_done(err, result) after the server
--- answered and the first lenses are shown.
function M.watch(buf, on_done)
  buf = resolve(buf)
  local uri = M.ensure_uri(buf)
  if not attach(buf) then
    return finish(on_done, { message = 'could not start the llm-edits server' })
  end
  track(buf, true)
  host.execute('llmEdits.watch', { uri = uri }, function(err, result)
    if err then
      untrack(buf)
      host.notify('watch failed: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return finish(on_done, err, result)
    end
    host.notify('watching ' .. api.nvim_buf_get_name(buf) .. ': each block shows its status as a code lens')
    M.refresh(buf, function()
      finish(on_done, nil, result)
    end)
  end)
end

--- :LlmEditsUnwatch: `buf` is no longer a response document; its lenses go.
function M.unwatch(buf, on_done)
  buf = resolve(buf)
  local entry = tracked[buf]
  if not entry or not entry.watched then
    host.notify('this buffer is not watched (:LlmEditsWatch)', vim.log.levels.WARN)
    return finish(on_done, { message = 'not watched' })
  end
  untrack(buf)
  host.execute('llmEdits.unwatch', { uri = vim.uri_from_bufnr(buf) }, function(err, result)
    if err then
      host.notify('unwatch failed: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    end
    finish(on_done, err, result)
  end)
end

-- The titles of the lenses on `line`, as shown.
local function lenses_title(lenses, line)
  local titles = {}
  for _, lens in ipairs(lenses) do
    if lens.range.start.line == line and lens.command then
      table.insert(titles, lens.command.title)
    end
  end
  return table.concat(titles, ' | ')
end

-- The "Apply all" lens: llmEdits.apply without a choice of blocks.
local function is_apply_all(lens)
  local command = lens.command or {}
  local argument = command.arguments and command.arguments[1]
  local options = type(argument) == 'table' and argument.options
  return command.command == 'llmEdits.apply' and not (type(options) == 'table' and options.blocks)
end

-- The lines [first, last] (0-based) of the block the cursor row is in, from the server's
-- document symbols (one per block, its range the block's lines, the block being written too):
-- false when the row is in none; nil when the server gave no symbols to go by.
local function block_lines(symbols, row)
  if type(symbols) ~= 'table' then
    return nil
  end
  for _, symbol in ipairs(symbols) do
    local range = symbol.range
    if range and range.start.line <= row and row <= range['end'].line then
      return { range.start.line, range['end'].line }
    end
  end
  return false
end

-- Without document symbols (a server before them): the block whose lenses are the nearest
-- at or above the row, up to the next lens line.
local function nearest_block_lines(lenses, row)
  local first
  for _, lens in ipairs(lenses) do
    local start = lens.range.start.line
    if not is_apply_all(lens) and start <= row and (not first or start > first) then
      first = start
    end
  end
  return first and { first, first } or false
end

--- The lens `which` ('apply', 'preview' or 'all') for the cursor row (0-based), from the
--- server's last lenses and document symbols: "Apply all", or the lens of the block the row
--- is in. nil and why when there is none: the row is in no block, or the block is still
--- being written (its only lens, "⋯ writing", has no command).
function M.pick_lens(buf, row, which, symbols)
  local lenses = tracked[buf] and tracked[buf].lenses or {}
  if which == 'all' then
    for _, lens in ipairs(lenses) do
      if is_apply_all(lens) then
        return lens
      end
    end
    return nil, 'no "Apply all" lens: the response has no block yet'
  end
  local lines = block_lines(symbols, row)
  if lines == nil then
    lines = nearest_block_lines(lenses, row)
  end
  if not lines then
    return nil, 'the cursor is in no block (:LlmEditsLens all applies every ready block)'
  end
  local command = which == 'preview' and 'llmEdits.preview' or 'llmEdits.apply'
  local line
  for _, lens in ipairs(lenses) do
    local start = lens.range.start.line
    if lines[1] <= start and start <= lines[2] and not is_apply_all(lens) then
      if lens.command and lens.command.command == command then
        return lens
      end
      line = line or start
    end
  end
  if not line then
    return nil, 'the block at the cursor has no lens yet'
  end
  return nil, ('the block on line %d has nothing to run yet (%s)'):format(line + 1, lenses_title(lenses, line))
end

-- The server's document symbols of `buf` (nil when it has none to give).
local function request_symbols(buf, callback)
  local client = host.client()
  if not client then
    return callback(nil)
  end
  local params = { textDocument = { uri = vim.uri_from_bufnr(buf) } }
  host.request(client, 'textDocument/documentSymbol', params, function(err, result)
    callback((not err and type(result) == 'table') and result or nil)
  end, buf)
end

--- :LlmEditsLens [preview|all]: apply (or preview) the block the cursor is in, or apply every
--- ready block, through the lens the server shows for it (lenses and blocks asked for again
--- first, so that they describe the text as it is now).
function M.run_lens(which, on_done)
  local buf = api.nvim_get_current_buf()
  if not tracked[buf] then
    host.notify('not a response document: :LlmEditsWatch first', vim.log.levels.WARN)
    return finish(on_done, { message = 'not a response document' })
  end
  which = which or 'apply'
  local row = api.nvim_win_get_cursor(0)[1] - 1
  M.refresh(buf, function(err)
    if err then
      return finish(on_done, err)
    end
    request_symbols(buf, function(symbols)
      local lens, why = M.pick_lens(buf, row, which, symbols)
      if not lens then
        host.notify(why, vim.log.levels.WARN)
        return finish(on_done, { message = why })
      end
      host.run_command(lens.command.command, lens.command.arguments[1], buf, on_done)
    end)
  end)
end

--- Client-side handlers of the lens commands: vim.lsp.codelens.run() (and any other
--- exec_cmd) runs them through the plugin, which reports the result like :LlmEditsApply.
function M.client_commands()
  local function run(command, ctx)
    host.run_command(command.command, (command.arguments or {})[1] or {}, ctx and ctx.bufnr)
  end
  return { ['llmEdits.apply'] = run, ['llmEdits.preview'] = run }
end

--- The server went away: nothing is watched any more.
function M.reset()
  for _, buf in ipairs(M.tracked_buffers()) do
    untrack(buf)
  end
  tracked = {}
end

return M
