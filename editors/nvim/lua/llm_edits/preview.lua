-- The preview's tabs: per changed file, the current text and the proposed text side by side
-- in diff mode, each block marked at its line, and the list of the response's blocks below
-- them (llm_edits/review.lua: the list, the marks and their keys).
local review = require('llm_edits.review')

local M = {}

-- What the last preview opened: tabs, scratch buffers, and per file { tab, win, buf, uris }.
local shown = { tabs = {}, bufs = {}, views = {} }

--- Close the diff tabs the last preview opened.
function M.close()
  for _, buf in ipairs(shown.bufs) do
    if vim.api.nvim_buf_is_valid(buf) then
      pcall(vim.api.nvim_buf_delete, buf, { force = true })
    end
  end
  for _, tab in ipairs(shown.tabs) do
    if vim.api.nvim_tabpage_is_valid(tab) and #vim.api.nvim_list_tabpages() > 1 then
      pcall(vim.cmd, 'tabclose ' .. vim.api.nvim_tabpage_get_number(tab))
    end
  end
  shown = { tabs = {}, bufs = {}, views = {} }
end

local function text_lines(text)
  local lines = vim.split(text or '', '\n', { plain = true })
  if lines[#lines] == '' then
    table.remove(lines)
  end
  for i, line in ipairs(lines) do
    lines[i] = line:gsub('\r$', '')
  end
  return lines
end

local function scratch(name, lines, filetype)
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modified = false
  pcall(vim.api.nvim_buf_set_name, buf, name)
  if filetype and filetype ~= '' then
    vim.bo[buf].filetype = filetype
  end
  table.insert(shown.bufs, buf)
  return buf
end

local function relative(uri, root)
  local path = vim.uri_to_fname(uri)
  if vim.startswith(path, root .. '/') then
    return path:sub(#root + 2)
  end
  return path
end

-- The view (tab, windows) of the last preview's file with this URI, or nil.
local function preview_view(uri)
  for _, view in ipairs(shown.views) do
    if view.uris[uri] and vim.api.nvim_win_is_valid(view.win) then
      return view
    end
  end
  return nil
end

local function show_window(win, row)
  vim.api.nvim_set_current_tabpage(vim.api.nvim_win_get_tabpage(win))
  vim.api.nvim_set_current_win(win)
  local last = vim.api.nvim_buf_line_count(vim.api.nvim_win_get_buf(win))
  vim.api.nvim_win_set_cursor(win, { math.max(1, math.min(row, last)), 0 })
end

--- Where the cursor is in a preview buffer `buf` whose key took block `index` in or out: in
--- the proposed text of a file ({ uri, row }), else in the block list ({ list_index }).
function M.focus_in(buf, index)
  for _, view in ipairs(shown.views) do
    if view.buf == buf then
      return { uri = next(view.uris), row = vim.api.nvim_win_get_cursor(0)[1] }
    end
  end
  return { list_index = index }
end

--- Show a block's line in the proposed text of its file; false when no preview tab shows it.
function M.go_to(block)
  local view = type(block.uri) == 'string' and preview_view(block.uri)
  if not view then
    return false
  end
  show_window(view.win, (type(block.line) == 'number' and block.line or 0) + 1)
  return true
end

-- The block list at the bottom of every preview tab (alone in a tab when no file changes).
local function open_block_list(views, actions)
  local list
  local function make_list()
    list = scratch('llm-edits://blocks', {})
    review.fill_list(list, actions)
  end
  if #views == 0 then
    vim.cmd('tabnew')
    table.insert(shown.tabs, vim.api.nvim_get_current_tabpage())
    make_list()
    return vim.api.nvim_get_current_win()
  end
  local height = math.min(#review.list_lines(), 10)
  local first_win
  for _, view in ipairs(views) do
    vim.api.nvim_set_current_win(view.win)
    if list then
      vim.cmd('botright sbuffer ' .. list)
    else
      vim.cmd('botright new')
      make_list()
    end
    -- A split starts with the window options of the diff window it came from.
    vim.cmd('setlocal nodiff noscrollbind nocursorbind nofoldenable foldcolumn=0 winfixheight')
    vim.cmd('resize ' .. height)
    first_win = first_win or vim.api.nvim_get_current_win()
  end
  return first_win
end

-- One tab per changed file: the current text on the left (the real buffer for an edit, so
-- unsaved changes show), the proposed text in a scratch buffer on the right, both in diff mode,
-- each block marked at its line; below them the list of the response's blocks.
-- opts: { root (the workspace root, paths are shown relative to it), actions (what the keys
-- do, see review.lua), focus (where to put the cursor: { list_index } or { uri, row };
-- default: the first proposed text) }.
function M.show(files, opts)
  M.close()
  local focus, root = opts.focus, opts.root
  local views = {}
  for _, file in ipairs(files) do
    local left_filetype = ''
    if file.kind == 'edit' or file.kind == 'rename' then
      local buf = vim.fn.bufadd(vim.uri_to_fname(file.uri))
      vim.fn.bufload(buf)
      vim.cmd('tab sbuffer ' .. buf)
      left_filetype = vim.bo[buf].filetype
    else
      vim.cmd('tabnew')
      scratch('llm-edits://current/' .. relative(file.uri, root), text_lines(file.oldText))
    end
    local tab = vim.api.nvim_get_current_tabpage()
    table.insert(shown.tabs, tab)
    vim.cmd('diffthis')
    vim.cmd('rightbelow vnew')
    local target = (file.newUri and file.newUri ~= vim.NIL) and file.newUri or file.uri
    local label = file.kind == 'edit' and '' or (file.kind .. ':')
    local proposed = scratch('llm-edits://proposed/' .. label .. relative(target, root), text_lines(file.newText), left_filetype)
    vim.cmd('diffthis')
    local uris = { [file.uri] = true, [target] = true }
    review.mark_blocks(proposed, uris, opts.actions)
    table.insert(views, { tab = tab, win = vim.api.nvim_get_current_win(), buf = proposed, uris = uris })
  end
  shown.views = views
  local list_win = open_block_list(views, opts.actions)
  local view = focus and focus.uri and preview_view(focus.uri)
  if view then
    show_window(view.win, focus.row)
  elseif (focus and focus.list_index) or #views == 0 then
    show_window(list_win, focus and focus.list_index and review.list_row(focus.list_index) or 2)
  else
    show_window(views[1].win, vim.api.nvim_win_get_cursor(views[1].win)[1])
  end
end

return M
