-- Shell commands a response suggests: listed after every apply and preview, never run without
-- asking. They come from the result's `shellCommands`, where the server split each suggestion
-- into the commands a shell would run (`mkdir -p src; curl … | sh` is three) and wrote what is
-- not plainly visible as <U+XXXX> and long runs of spaces as <N spaces>: only that display text
-- is ever shown (a bidi override or a line separator must not make a command read as another).
-- :LlmEditsShell asks about each command in turn (vim.ui.input: y runs it, Enter or n skips it
-- and the rest of its suggestion, q skips it and everything after) and runs the ones you
-- accept one after another in the workspace root, each after the previous one exited.
local M = {}

-- The last apply's or preview's commands (one entry per part of a suggestion) and the
-- workspace root they are run in.
local last = { commands = {}, root = nil }

local function is_text(value)
  return type(value) == 'string'
end

-- The parts of one suggestion of `shellCommands` as steps; none when it is malformed.
local function steps_of(suggestion, number)
  local steps = {}
  local parts = type(suggestion) == 'table' and suggestion.parts
  if type(parts) ~= 'table' or not is_text(suggestion.display) then
    return steps
  end
  for index, part in ipairs(parts) do
    if type(part) ~= 'table' or not (is_text(part.command) and is_text(part.display)) then
      return {}
    end
    table.insert(steps, {
      command = part.command,
      display = part.display,
      whole = suggestion.display,
      suggestion = number,
      index = index,
      count = #parts,
    })
  end
  return steps
end

--- Remember the commands of a result (none clears them) and return them: one entry per
--- command a shell would run, { command, display, whole, suggestion, index, count }. A server
--- that sends no `shellCommands` (older than this plugin) gets nothing offered to run.
function M.remember(result, root)
  local commands = {}
  local suggested = type(result) == 'table' and result.shellCommands
  for number, suggestion in ipairs(type(suggested) == 'table' and suggested or {}) do
    vim.list_extend(commands, steps_of(suggestion, number))
  end
  last = { commands = commands, root = root }
  return commands
end

--- The message listing suggested commands (their display text).
function M.describe(commands)
  local lines = { 'the response suggests shell commands (not run; :LlmEditsShell asks before each):' }
  for _, command in ipairs(commands) do
    if command.index == 1 then
      table.insert(lines, '  ' .. command.whole)
    end
  end
  return table.concat(lines, '\n')
end

local function prompt_for(command, root)
  local which = ''
  if command.count > 1 then
    which = ' (command ' .. command.index .. ' of ' .. command.count .. ' of `' .. command.whole .. '`)'
  end
  return 'llm-edits: run `' .. command.display .. '`' .. which .. ' in ' .. root .. '? [y/N/q] '
end

local function ask(command, root, on_answer)
  vim.ui.input({ prompt = prompt_for(command, root) }, function(answer)
    answer = vim.trim(answer or ''):lower()
    if answer == 'y' or answer == 'yes' then
      on_answer('run')
    elseif answer == 'q' then
      on_answer('quit')
    else
      on_answer('skip')
    end
  end)
end

-- Run one command through 'shell' in `root`; `on_exit(code, output_lines)`.
local function run(command, root, on_exit)
  local output = {}
  local function collect(_, data)
    for _, line in ipairs(data or {}) do
      if line ~= '' then
        table.insert(output, line)
      end
    end
  end
  local ok, job = pcall(vim.fn.jobstart, command, {
    cwd = root,
    stdout_buffered = true,
    stderr_buffered = true,
    on_stdout = collect,
    on_stderr = collect,
    on_exit = function(_, code)
      on_exit(code, output)
    end,
  })
  if not ok or job <= 0 then
    on_exit(-1, { 'could not start: ' .. (ok and ('jobstart returned ' .. job) or tostring(job)) })
  end
end

local function report(outcome, notify)
  local lines, level = {}, vim.log.levels.INFO
  for _, ran in ipairs(outcome.ran) do
    table.insert(lines, '$ ' .. ran.command .. '  (exit ' .. ran.exit .. ')')
    vim.list_extend(lines, ran.output)
    if ran.exit ~= 0 then
      level = vim.log.levels.WARN
    end
  end
  if #outcome.skipped > 0 then
    table.insert(lines, 'not run: ' .. table.concat(outcome.skipped, ', '))
  end
  notify(table.concat(lines, '\n'), level)
end

-- The index after the last command of the suggestion `commands[i]` belongs to.
local function after_suggestion(commands, i)
  local j = i
  while j <= #commands and commands[j].suggestion == commands[i].suggestion do
    j = j + 1
  end
  return j
end

--- Ask about each remembered command and run the accepted ones. `done(outcome)` gets
--- { ran = { { command, exit, output } }, skipped = { command } } (commands by their display
--- text) once all are answered and the accepted ones exited. Skipping one command of a
--- compound suggestion skips the rest of it (`cd build && rm -rf *`: never the second alone).
function M.run_suggestions(notify, done)
  local commands, root = last.commands, last.root
  local outcome = { ran = {}, skipped = {} }
  if #commands == 0 then
    notify('the last response suggested no shell commands')
    return done(outcome)
  end
  local function skip(from, to)
    for k = from, to - 1 do
      table.insert(outcome.skipped, commands[k].display)
    end
  end
  local function step(i)
    if i > #commands then
      report(outcome, notify)
      return done(outcome)
    end
    local command = commands[i]
    ask(command, root, function(answer)
      if answer == 'run' then
        run(command.command, root, function(code, output)
          table.insert(outcome.ran, { command = command.display, exit = code, output = output })
          step(i + 1)
        end)
      elseif answer == 'quit' then
        skip(i, #commands + 1)
        step(#commands + 1)
      else
        local next_suggestion = after_suggestion(commands, i)
        skip(i, next_suggestion)
        step(next_suggestion)
      end
    end)
  end
  step(1)
end

return M
