-- The `stage_in_git` option: after an apply, save the buffers it changed and `git add` the
-- files it changed. Git stages what is on disk, so each changed buffer is saved first, with any
-- unsaved changes it already held; files the apply deleted or renamed away are staged as removed.
-- Other buffers and files are left alone.
local M = {}

local uv = vim.uv or vim.loop

local function exists(path)
  return uv.fs_stat(path) ~= nil
end

local function uri_path(uri)
  return type(uri) == 'string' and vim.uri_to_fname(uri) or nil
end

local function add_once(list, seen, path)
  if path and not seen[path] then
    seen[path] = true
    table.insert(list, path)
  end
end

--- The files a WorkspaceEdit changes: `written` (edited, created, renamed to) and `gone`
--- (deleted, renamed away), each in the edit's order.
function M.edit_paths(edit)
  local written, gone, seen = {}, {}, {}
  for _, change in ipairs(edit.documentChanges or {}) do
    if change.kind == 'create' then
      add_once(written, seen, uri_path(change.uri))
    elseif change.kind == 'rename' then
      add_once(gone, seen, uri_path(change.oldUri))
      add_once(written, seen, uri_path(change.newUri))
    elseif change.kind == 'delete' then
      add_once(gone, seen, uri_path(change.uri))
    elseif change.textDocument then
      add_once(written, seen, uri_path(change.textDocument.uri))
    end
  end
  for uri in pairs(edit.changes or {}) do
    add_once(written, seen, uri_path(uri))
  end
  return written, gone
end

local function loaded_buffer(path)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.api.nvim_buf_get_name(buf) == path then
      return buf
    end
  end
  return nil
end

-- Write a changed buffer holding `path` (as :update would); nil, or why it could not.
local function save(path)
  local buf = loaded_buffer(path)
  if not buf or not vim.bo[buf].modified then
    return nil
  end
  local ok, err = pcall(vim.api.nvim_buf_call, buf, function()
    vim.cmd('silent update')
  end)
  return not ok and tostring(err) or nil
end

-- Run git in `root` (no shell); true, or false and git's output.
local function git(root, args)
  local output = vim.fn.systemlist(vim.list_extend({ 'git', '-C', root }, args))
  return vim.v.shell_error == 0, table.concat(output, '\n')
end

local function relative(path, root)
  return vim.startswith(path, root .. '/') and path:sub(#root + 2) or path
end

local function names(paths, root)
  local shown = {}
  for _, path in ipairs(paths) do
    table.insert(shown, relative(path, root))
  end
  return table.concat(shown, ', ')
end

--- Save and stage what `edit` changed, in the Git repository holding `root`.
--- Returns ok and a message for the user.
function M.stage(edit, root)
  if vim.fn.executable('git') ~= 1 then
    return false, 'stage_in_git: git is not on PATH; nothing staged'
  end
  local written, gone = M.edit_paths(edit)
  local present, missing, unsaved = {}, {}, {}
  for _, path in ipairs(written) do
    local err = save(path)
    if err then
      table.insert(unsaved, relative(path, root) .. ' (' .. err .. ')')
    else
      table.insert(exists(path) and present or missing, path)
    end
  end
  for _, path in ipairs(gone) do
    table.insert(exists(path) and present or missing, path)
  end
  local ok, output = true, ''
  if #present > 0 then
    ok, output = git(root, vim.list_extend({ 'add', '--' }, present))
  end
  -- A path gone from disk is staged as removed when Git tracks it (`git add` would refuse the
  -- whole list over one it does not know).
  if ok and #missing > 0 then
    ok, output = git(root, vim.list_extend({ 'rm', '--cached', '--quiet', '--ignore-unmatch', '--' }, missing))
  end
  if not ok then
    return false, 'stage_in_git: git failed, nothing staged: ' .. output
  end
  local staged = vim.list_extend(vim.list_extend({}, present), missing)
  local message = 'staged ' .. #staged .. ' file(s) in Git: ' .. names(staged, root)
  if #unsaved > 0 then
    return false, message .. '; not saved, so not staged: ' .. table.concat(unsaved, ', ')
  end
  return true, message
end

return M
