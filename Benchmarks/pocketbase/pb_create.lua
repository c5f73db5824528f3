-- wrk: PocketBase, one new device-token record a request, as the user. Only the token changes
-- (always 32 hex digits), so the request's head is formatted once.
local user, jwt = os.getenv("PB_USER"), os.getenv("PB_TOKEN")
math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))
local head
local function body()
  local token = string.format("%08x%08x%08x%08x", math.random(0, 0x7fffffff), math.random(0, 0x7fffffff),
    math.random(0, 0x7fffffff), math.random(0, 0x7fffffff))
  return '{"user":"' .. user .. '","token":"' .. token .. '","platform":"ios"}'
end
request = function()
  local text = body()
  if not head then
    local whole = wrk.format("POST", "/api/collections/device_tokens/records", {
      ["Authorization"] = jwt, ["Content-Type"] = "application/json",
    }, text)
    head = whole:sub(1, #whole - #text)
  end
  return head .. text
end
