-- Shell commands a response suggests (the result's `shellSuggestions`): listed after every
-- apply and preview, never run without asking. :LlmEditsShell asks about each in turn
-- (vim.ui.input: y runs it, Enter or n skips it, q skips it and the rest) and runs the ones
-- you accept one after another in the workspace root, each after the previous one exited.
local M = {}

-- The last apply's or preview's suggestions and the workspace root they are run in.
local last = { commands = {}, root = nil }

--- Remember the suggestions of a result (an empty list clears them) and return them.
function M.remember(result, root)
  local commands = {}
  local suggested = type(result) == 'table' and result.shellSuggestions
  for _, command in ipairs(type(suggested) == 'table' and suggested or {}) do
    if type(command) == 'string' then
      table.insert(commands, command)
    end
  end
  last = { commands = commands, root = root }
  return commands
end

--- The message listing suggested commands.
function M.describe(commands)
  local lines = { 'the response suggests shell commands (not run; :LlmEditsShell asks before each):' }
  for _, command in ipairs(commands) do
    table.insert(lines, '  ' .. command)
  end
  return table.concat(lines, '\n')
end

local function ask(command, root, on_answer)
  vim.ui.input({ prompt = 'llm-edits: run `' .. command .. '` in ' .. root .. '? [y/N/q] ' }, function(answer)
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

--- Ask about each remembered command and run the accepted ones. `done(outcome)` gets
--- { ran = { { command, exit, output } }, skipped = { command } } once all are answered and
--- the accepted ones exited.
function M.run_suggestions(notify, done)
  local commands, root = last.commands, last.root
  local outcome = { ran = {}, skipped = {} }
  if #commands == 0 then
    notify('the last response suggested no shell commands')
    return done(outcome)
  end
  local function step(i)
    if i > #commands then
      report(outcome, notify)
      return done(outcome)
    end
    ask(commands[i], root, function(answer)
      if answer == 'run' then
        run(commands[i], root, function(code, output)
          table.insert(outcome.ran, { command = commands[i], exit = code, output = output })
          step(i + 1)
        end)
      elseif answer == 'quit' then
        vim.list_extend(outcome.skipped, commands, i)
        step(#commands + 1)
      else
        table.insert(outcome.skipped, commands[i])
        step(i + 1)
      end
    end)
  end
  step(1)
end

return M
