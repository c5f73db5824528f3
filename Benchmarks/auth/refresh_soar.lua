-- wrk: soar's refresh rotation. Each thread takes its share of TOKENS (sessions), sends a
-- token, and keeps the one the answer rotates in for the next request on it.
local threads, counter = tonumber(os.getenv("THREADS")), 0
function setup(thread)
  thread:set("id", counter)
  counter = counter + 1
end
function init(args)
  tokens = {}
  local index = 0
  for token in string.gmatch(os.getenv("TOKENS"), "[^,]+") do
    if index % threads == id then table.insert(tokens, token) end
    index = index + 1
  end
end
function request()
  local token = table.remove(tokens, 1) or "exhausted"
  return wrk.format("POST", "/auth/v1/token?grant_type=refresh_token",
    { ["apikey"] = os.getenv("APIKEY"), ["Content-Type"] = "application/json" }, '{"refresh_token":"' .. token .. '"}')
end
function response(status, headers, body)
  local token = body:match('"refresh_token":"([^"]+)"')
  if token then table.insert(tokens, token) end
end
