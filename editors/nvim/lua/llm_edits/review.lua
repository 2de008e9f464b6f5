-- Reviewing a preview block by block: a list of the response's blocks at the bottom of every
-- preview tab ("[x] Block 2 · app.py:12 · ready"), a mark at each block's line in the proposed
-- text, and keys in both: x takes the block in or out of the choice and previews again, a
-- applies the chosen blocks, q closes the preview; <CR> in the list goes to the block.
local M = {}

local ns = vim.api.nvim_create_namespace('llm_edits_review')

local LIST_HEADER = 'x: choose/leave out · a: apply the [x] blocks · <CR>: go to block · q: close'
local STATUS_LABEL = { validated = 'ready', ['already-applied'] = 'already applied' }
local STATUS_HIGHLIGHT = { failed = 'DiagnosticError', skipped = 'DiagnosticWarn' }

-- The review of the last preview: its blocks, the chosen ones (0-based indices; nil: every
-- block) and, per preview buffer, its block marks { row, index } sorted by row.
local current = { blocks = {}, chosen = nil }
local marks = {}

--- Remember a preview's blocks and the choice it ran with (0-based indices, or nil for all).
function M.start(blocks, chosen)
  current = { blocks = blocks or {}, chosen = chosen }
  marks = {}
end

--- The chosen blocks (0-based indices, sorted), or nil when every block is chosen.
function M.chosen()
  return current.chosen
end

local function chosen_set()
  local set = {}
  if current.chosen == nil then
    for i = 1, #current.blocks do
      set[i - 1] = true
    end
  else
    for _, index in ipairs(current.chosen) do
      set[index] = true
    end
  end
  return set
end

--- The choice with block `index` (0-based) taken in or out: sorted indices, or nil when that
--- makes every block chosen (then the preview runs without options.blocks).
function M.toggled(index)
  local set = chosen_set()
  set[index] = not set[index] or nil
  local chosen = {}
  for i = 1, #current.blocks do
    if set[i - 1] then
      table.insert(chosen, i - 1)
    end
  end
  return #chosen < #current.blocks and chosen or nil
end

local function status_label(block)
  return STATUS_LABEL[block.status] or block.status
end

--- The list's line for one block: "[x] Block 2 · app.py:12 · failed: reason".
function M.list_line(block, chosen)
  local where = type(block.file) == 'string' and block.file or '?'
  if type(block.line) == 'number' then
    where = where .. ':' .. (block.line + 1)
  end
  local text = ('[%s] Block %d · %s · %s'):format(chosen and 'x' or ' ', block.index + 1, where, status_label(block))
  if type(block.reason) == 'string' then
    text = text .. ': ' .. block.reason
  end
  return text
end

--- The block list buffer's lines: a header, then one line per block (block i on line i + 1).
function M.list_lines()
  local set = chosen_set()
  local lines = { LIST_HEADER }
  for _, block in ipairs(current.blocks) do
    table.insert(lines, M.list_line(block, set[block.index]))
  end
  return lines
end

-- The block whose mark is nearest at or above the cursor in a preview buffer (else the first).
local function marked_block(buf)
  local row = vim.api.nvim_win_get_cursor(0)[1] - 1
  local found
  for _, mark in ipairs(marks[buf] or {}) do
    if mark.row <= row or not found then
      found = mark.index
    end
  end
  return found
end

-- The block on the cursor's line of the block list.
local function listed_block()
  local index = vim.api.nvim_win_get_cursor(0)[1] - 2
  return current.blocks[index + 1] and index or nil
end

local function map(buf, lhs, fn, desc)
  vim.keymap.set('n', lhs, fn, { buffer = buf, nowait = true, silent = true, desc = desc })
end

-- Keys shared by the list and the proposed texts; `block_at` names the block under the cursor.
local function map_keys(buf, block_at, actions)
  map(buf, 'x', function()
    local index = block_at(buf)
    if index then
      actions.toggle(index, buf)
    end
  end, 'llm-edits: choose or leave out this block')
  map(buf, 'a', actions.apply, 'llm-edits: apply the chosen blocks')
  map(buf, 'q', actions.close, 'llm-edits: close the preview')
end

--- Mark each block of `uris` (the file a preview buffer shows) at its line: "Block 2 · ready".
function M.mark_blocks(buf, uris, actions)
  marks[buf] = {}
  local last_row = vim.api.nvim_buf_line_count(buf) - 1
  for _, block in ipairs(current.blocks) do
    if block.status ~= 'excluded' and uris[block.uri] then
      local row = math.max(0, math.min(type(block.line) == 'number' and block.line or 0, last_row))
      local label = ('Block %d · %s'):format(block.index + 1, status_label(block))
      local highlight = STATUS_HIGHLIGHT[block.status] or 'DiagnosticInfo'
      vim.api.nvim_buf_set_extmark(buf, ns, row, 0, { virt_text = { { label, highlight } } })
      table.insert(marks[buf], { row = row, index = block.index })
    end
  end
  table.sort(marks[buf], function(a, b)
    return a.row < b.row or (a.row == b.row and a.index < b.index)
  end)
  map_keys(buf, marked_block, actions)
end

--- Fill the block list buffer and give it its keys; `goto(index)` shows block `index`.
function M.fill_list(buf, actions)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, M.list_lines())
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
  vim.api.nvim_buf_set_extmark(buf, ns, 0, 0, { line_hl_group = 'Comment' })
  for i, block in ipairs(current.blocks) do
    local highlight = block.status == 'excluded' and 'Comment' or STATUS_HIGHLIGHT[block.status]
    if highlight then
      vim.api.nvim_buf_set_extmark(buf, ns, i, 0, { line_hl_group = highlight })
    end
  end
  map_keys(buf, listed_block, actions)
  map(buf, '<CR>', function()
    local index = listed_block()
    if index then
      actions.go_to(current.blocks[index + 1])
    end
  end, 'llm-edits: go to this block in the preview')
end

--- The list line (1-based) of block `index`.
function M.list_row(index)
  return index + 2
end

--- The marks of a preview buffer: { { row = 0-based, index = 0-based block }, ... }.
function M.marks(buf)
  return marks[buf] or {}
end

return M
