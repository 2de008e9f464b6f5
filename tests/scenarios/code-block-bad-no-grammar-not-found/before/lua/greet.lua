local M = {}

function M.greet(name)
  print("Hi " .. name)
end

function M.bye(name)
  print("Bye " .. name)
end

return M
