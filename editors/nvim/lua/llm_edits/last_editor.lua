-- The file buffer the user was last in, told to the server (command `llmEdits.lastEditor`):
-- each code fence of a response document that names no file gets a lens "Apply to <file>"
-- naming it (docs/protocol.md, "Response documents").
--
-- A buffer counts when it holds a file: no 'buftype', a name that is a path (not a URI such
-- as llm-edits://response/N), and not a response document (filetype llm-response, or watched).
-- Entering any other buffer (a response, a scratch or help buffer, the preview's block list)
-- leaves the last one as it was, so that the lens on a response names the file the user came
-- from. Deleting that buffer leaves none. The server keeps no state of its own between
-- connections: after every (re)start it is told again.
local M = {}

local api = vim.api
local response = require('llm_edits.response')

-- What the plugin's core lends this module (see init.lua): client(),
-- execute(command, argument, callback), notify(message, level).
local host

-- The URI of the last file buffer entered (nil: none).
local last = nil
-- What the server was last told; NOT_TOLD after a failed call, so the next one retries.
local NOT_TOLD = {}
local told = nil

function M.init(core)
  host = core
end

--- Whether `buf` can be the last editor: a buffer holding a file, not a response document.
function M.is_file_buffer(buf)
  if not api.nvim_buf_is_valid(buf) or vim.bo[buf].buftype ~= '' then
    return false
  end
  local name = api.nvim_buf_get_name(buf)
  return name ~= '' and not name:match('^%a[%w+.-]*://')
    and vim.bo[buf].filetype ~= response.FILETYPE and not response.is_tracked(buf)
end

-- Tell the server when it runs and does not know `last` yet. Never starts the server: the
-- lens is only shown on response documents, which start it.
local function tell()
  local client = host.client()
  if not client or not client.initialized or last == told then
    return
  end
  local uri = last
  told = uri
  host.execute('llmEdits.lastEditor', { uri = uri or vim.NIL }, function(err)
    if err then
      told = NOT_TOLD
      host.notify('telling the server the last editor: ' .. (err.message or vim.inspect(err)),
        vim.log.levels.WARN)
    end
  end)
end

--- BufEnter. Decided once the event is over (scheduled): a *.llm.md buffer has its filetype
--- by then, and a buffer only passed through (a plugin switching buffers for a moment and
--- wiping its own) is gone.
function M.entered(buf)
  vim.schedule(function()
    if M.is_file_buffer(buf) then
      last = vim.uri_from_bufnr(buf)
      tell()
    end
  end)
end

--- BufDelete/BufWipeout, or the buffer became a response document (:LlmEditsWatch): it is
--- no longer the last editor, and no other takes its place until the user enters one.
function M.forget(buf)
  if last ~= nil and api.nvim_buf_is_valid(buf) and vim.uri_from_bufnr(buf) == last then
    last = nil
    tell()
  end
end

--- The server was (re)started and initialized: it knows no last editor yet.
function M.on_server_ready()
  told = nil
  tell()
end

return M
