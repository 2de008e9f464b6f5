-- Block lists: which blocks of a response to run. Users number blocks from 1, as every summary
-- shows them (`1,3-5`); the server's `options.blocks` takes 0-based indices.
local M = {}

--- Whether a command word is a block list (digits, commas and dashes, at least one digit)
--- rather than a register name or `buffer`.
function M.is_list(word)
  return word:match('^[%d,%-]+$') ~= nil and word:match('%d') ~= nil
end

local function range_numbers(part)
  local low, high = part:match('^(%d+)%-(%d+)$')
  if not low then
    low = part:match('^%d+$')
    high = low
  end
  if not low then
    error(("'%s' is not a block number or a range like 3-5"):format(part), 0)
  end
  low, high = tonumber(low), tonumber(high)
  if low < 1 then
    error(("'%s': blocks are numbered from 1"):format(part), 0)
  end
  if high < low then
    error(("'%s': a range goes from the lower number to the higher"):format(part), 0)
  end
  return low, high
end

--- `1,3-5` -> { 1, 3, 4, 5 } (1-based, in the order given). Raises a message naming the bad
--- part: not a number or range, 0, a backward range, a block named twice.
function M.parse(text)
  local numbers, seen = {}, {}
  local parts = vim.split(text, ',', { plain = true })
  for _, part in ipairs(parts) do
    part = vim.trim(part)
    if part == '' then
      error(("'%s' has an empty entry (e.g. 1,3-5)"):format(text), 0)
    end
    local low, high = range_numbers(part)
    for number = low, high do
      if seen[number] then
        error(('block %d is named twice'):format(number), 0)
      end
      seen[number] = true
      table.insert(numbers, number)
    end
  end
  return numbers
end

--- A block choice as given to the Lua API (a string like `1,3-5` or a list of 1-based
--- numbers) -> the server's 0-based `options.blocks`. Raises a message naming a bad entry.
function M.indices(chosen)
  local numbers = chosen
  if type(chosen) == 'string' then
    numbers = M.parse(chosen)
  elseif type(chosen) ~= 'table' then
    error('blocks must be a string like 1,3-5 or a list of block numbers', 0)
  end
  local indices, seen = {}, {}
  for _, number in ipairs(numbers) do
    if type(number) ~= 'number' or number ~= math.floor(number) or number < 1 then
      error(('%s is not a block number (blocks are numbered from 1)'):format(vim.inspect(number)), 0)
    end
    if seen[number] then
      error(('block %d is named twice'):format(number), 0)
    end
    seen[number] = true
    table.insert(indices, number - 1)
  end
  return indices
end

--- Split a command's words into the response source (`buffer` or a register name, `"x` for
--- register x: a lone digit is a block number), the block list (`1,3-5`, several words
--- joined: `1, 3`) and the target (`target=%`, `target=#`, `target=path`: the file the
--- response's unnamed code fences are for). Returns source (or ''), blocks (a string, or nil),
--- target (a string, or nil).
function M.split_words(words)
  local source, lists, target = nil, {}, nil
  for _, word in ipairs(words) do
    if word:sub(1, 7) == 'target=' then
      if target then
        error('target= is given twice', 0)
      end
      target = word:sub(8)
      if target == '' then
        error('target= names no file (target=%, target=# or target=path)', 0)
      end
    elseif M.is_list(word) then
      table.insert(lists, (word:gsub('^,+', ''):gsub(',+$', '')))
    elseif word:match('^%d') and #word > 1 then
      error(("blocks: '%s' is not a block list (e.g. 1,3-5)"):format(word), 0)
    elseif source then
      error(("expected [buffer|{register}] [blocks], got '%s' and '%s'"):format(source, word), 0)
    else
      source = word
    end
  end
  if source and #source == 2 and source:sub(1, 1) == '"' then
    source = source:sub(2)
  end
  return source or '', #lists > 0 and table.concat(lists, ',') or nil, target
end

--- The server's message for a block the response does not have names it 0-based; say it as
--- the user numbered it. Other messages are returned unchanged.
function M.user_message(message)
  local index, count = tostring(message):match('there is no block (%d+): the response has (%d+) block')
  if not index then
    return message
  end
  count = tonumber(count)
  local valid = count > 0 and ('1-' .. count) or 'none'
  return ('there is no block %d: the response has %d block%s (valid: %s)'):format(
    tonumber(index) + 1,
    count,
    count == 1 and '' or 's',
    valid
  )
end

return M
