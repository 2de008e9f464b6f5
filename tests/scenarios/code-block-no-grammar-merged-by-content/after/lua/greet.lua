local M = {}

function M.greet(name)
  print("Hello, " .. name .. "!")
end

function M.bye(name)
  print("Bye " .. name)
end

return M
